/**
 * `keepsHostNotices` (lib/shell/finished_result.ts) against the per-line
 * classifier it replaced: every line of the input classified with
 * `classifyLine`, every `HostNotice` line looked up among the output's lines.
 * Inputs mix notice forms in both cases, near-misses, non-ASCII letters that
 * lower-case to ASCII, bytes that are not UTF-8 and lines longer than the
 * 1 KiB notice window.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { classifyLine, Evidence, hostNoticeSpans } from "../lib/reduce/evidence.ts";
import { keepsHostNotices } from "../lib/shell/finished_result.ts";
import { concatBytes } from "./_bytes.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * The implementation `keepsHostNotices` replaced, a pass over every line:
 * a line's notice texts found anywhere in it (`hostNoticeSpans`) must occur
 * in the output; a notice line without such a text (`classifyLine`'s
 * `HostNotice`, e.g. `[Showing lines …]`) must be a line of it.
 */
function keepsHostNoticesByLine(input: Uint8Array, output: Uint8Array): boolean {
  const text = decoder.decode(output);
  const lines = new Set(text.split("\n"));
  for (let at = 0; at < input.length;) {
    const lf = input.indexOf(10, at);
    const end = lf === -1 ? input.length : lf;
    const spans = hostNoticeSpans(input, at, end);
    for (let s = 0; s < spans.length; s += 2) {
      if (!text.includes(decoder.decode(input.subarray(spans[s], spans[s + 1])))) return false;
    }
    if (
      spans.length === 0 && (classifyLine(input, at, end) & Evidence.HostNotice) !== 0 &&
      !lines.has(decoder.decode(input.subarray(at, end)))
    ) {
      return false;
    }
    at = end + 1;
  }
  return true;
}

const FRAGMENTS = [
  "... [120 lines truncated] ...",
  "[3 more lines truncated]",
  "[1,024 LINES TRUNCATED]",
  "[12 lines truncate]",
  "....stripped due to length....",
  "STRIPPED DUE TO LENGTH",
  "... [2,048 characters truncated] ...",
  "\u2026120 tokens truncated\u2026",
  "<persisted-output>",
  "</Persisted-Output>",
  "<persisted-output",
  "[Showing lines 1-2000 of 5120. Full output: /tmp/x]",
  "  [showing last 50.0KB of line 3 (line is 2.1MB). ok]",
  "x [Showing lines 1-2 of 3]",
  "(30 KB limit)",
  "(2.5MB limit)",
  "(30 kb limit",
  "[yarp: 40 lines omitted]",
  "[YARP: x",
  " [yarp: x",
  "Output too large",
  "OUTPUT TOO LARG",
  "output was truncated",
  "Output Truncated",
  "outputtruncated",
  "\u212a",
  "\u0130",
  "\u017ftripped due to length",
  "Exit code 1",
  "test result: ok. 3 passed",
  "error: boom",
  "ok",
  "é",
  "\t",
  " ",
  "\n",
  "\r\n",
  "[",
  "(",
  "<",
  "git log --stat",
];

const piece = fc.oneof(
  fc.constantFrom(...FRAGMENTS).map((text) => encoder.encode(text)),
  fc.uint8Array({ maxLength: 12 }),
  fc.string({ maxLength: 12 }).map((text) => encoder.encode(text)),
  fc.integer({ min: 1000, max: 1030 }).map((n) => encoder.encode("a".repeat(n))),
);

const bytes = fc.array(piece, { maxLength: 24 }).map((parts) => concatBytes(parts));

/** An output made of some of the input's lines and some other bytes. */
const pair = bytes.chain((input) => {
  const lines = decoder.decode(input).split("\n");
  return fc.tuple(
    fc.constant(input),
    fc.tuple(fc.subarray(lines), bytes).map(([kept, extra]) =>
      encoder.encode(kept.join("\n") + "\n" + decoder.decode(extra))
    ),
  );
});

Deno.test("keepsHostNotices: the same verdict as classifying every line", () => {
  const verdicts = { kept: 0, dropped: 0 };
  fc.assert(
    fc.property(pair, ([input, output]) => {
      const expected = keepsHostNoticesByLine(input, output);
      assert.equal(keepsHostNotices(input, output), expected);
      verdicts[expected ? "kept" : "dropped"]++;
    }),
    { numRuns: 20_000 },
  );
  // Both verdicts are exercised, not only the notice-free fast path.
  assert.ok(verdicts.dropped > 1000 && verdicts.kept > 1000, JSON.stringify(verdicts));
});

Deno.test("keepsHostNotices: a dropped notice is found, a kept one passes", () => {
  const input = encoder.encode("a\n... [120 lines truncated] ...\nb\n");
  assert.equal(keepsHostNotices(input, encoder.encode("a\nb\n")), false);
  assert.equal(keepsHostNotices(input, encoder.encode("x\n... [120 lines truncated] ...\n")), true);
  assert.equal(keepsHostNotices(encoder.encode("no notice here\n"), new Uint8Array()), true);
});

Deno.test("keepsHostNotices: a notice at the end or in the middle of a long line is found anywhere", () => {
  const long = "x".repeat(7_500);
  for (const notice of ["....stripped due to length....", "... [9,000 characters truncated] ..."]) {
    for (const input of [long + notice + "\n", long + notice + long + "\n"]) {
      const bytes = encoder.encode(input);
      // The notice lies beyond the 1 KiB window the line classifier reads.
      assert.equal(classifyLine(bytes, 0, bytes.length - 1) & Evidence.HostNotice, 0);
      assert.equal(keepsHostNotices(bytes, encoder.encode(long.slice(0, 512) + "\n")), false);
      assert.equal(keepsHostNotices(bytes, encoder.encode("x…[yarp: …]" + notice + "\n")), true);
    }
  }
});
