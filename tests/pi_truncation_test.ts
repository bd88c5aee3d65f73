/**
 * `piTruncate`, YARP's model of Pi 0.73.1's output truncation: a table of
 * decisions, then invariants as properties. Project code only; the check
 * that the same table agrees with Pi itself (installed from npm) is
 * bench/pi_truncation_check.ts (`deno task oracles`).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { piTruncate } from "../bench/_pi_truncation.ts";
import { CASES, expected, shapedOutput, smallOutput } from "../bench/_pi_truncation_cases.ts";

for (const { name, input, keep, notice } of CASES) {
  Deno.test(`piTruncate: ${name}`, () => {
    assert.equal(piTruncate(input), expected(keep, notice));
  });
}

const BYTES = new TextEncoder();
const NOTICE =
  /\n\n\[Showing (?:lines (\d+)-(\d+) of (\d+)(?: \(50\.0KB limit\))?|last \S+ of line (\d+) \(line is \S+\))\. Full output: \/tmp\/pi-bash-0{16}\.log\]$/;

Deno.test("piTruncate: non-empty output under both limits is returned unchanged", () => {
  fc.assert(
    fc.property(smallOutput.filter((text) => text !== ""), (text) => {
      assert.equal(piTruncate(text), text);
    }),
    { numRuns: 300 },
  );
});

Deno.test("piTruncate: a cut keeps a suffix within both limits, as much as fits, then the notice", () => {
  fc.assert(
    fc.property(fc.oneof(shapedOutput, smallOutput), (text) => {
      const out = piTruncate(text);
      const lines = text.split("\n");
      if (lines.length <= 2000 && BYTES.encode(text).length <= 51_200) {
        assert.equal(out, text || "(no output)");
        return;
      }
      const notice = NOTICE.exec(out);
      assert.ok(notice, out.slice(-200));
      const content = out.slice(0, notice.index);
      assert.ok(out.length <= Math.max(text.length, 11) + notice[0].length);
      const shown = content === "(no output)" && !text.endsWith(content) ? "" : content;
      assert.ok(text.endsWith(shown));
      assert.ok(shown.split("\n").length <= 2000);
      assert.ok(BYTES.encode(shown).length <= 51_200);
      if (notice[4] !== undefined) {
        assert.equal(Number(notice[4]), lines.length);
        assert.ok(BYTES.encode(lines.at(-1)!).length > 51_200);
        assert.ok(BYTES.encode(shown).length > 51_200 - 4);
        return;
      }
      const [start, end, total] = [1, 2, 3].map((i) => Number(notice[i]));
      assert.deepEqual([end, total], [lines.length, lines.length]);
      assert.equal(shown.split("\n").length, total - start + 1);
      const before = BYTES.encode(lines[start - 2]).length;
      assert.ok(
        total - start + 1 === 2000 || BYTES.encode(shown).length + 1 + before > 51_200,
        "one more line would still have fit",
      );
    }),
    { numRuns: 200 },
  );
});
