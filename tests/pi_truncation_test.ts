/**
 * `piTruncate` against Pi 0.73.1 itself: a table of decisions, then the same
 * table and a few hundred generated outputs run through Pi's real bash tool
 * (`createBashToolDefinition` with an `exec` that feeds the text as one
 * chunk, under node, the pinned package installed from npm), then invariants
 * as properties. The oracle tests are ignored only when the npm registry is
 * unreachable and no cached install exists.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { PI_FULL_OUTPUT_PATH, piTruncate } from "../bench/_pi_truncation.ts";
import { installNpmPackage, npmRegistryReachable } from "../bench/_npm.ts";

const PI_PACKAGE = "@mariozechner/pi-coding-agent";
const PI_VERSION = "0.73.1";

/** `line F` … `line T`, newline-separated. */
function numbered(from: number, to: number): string {
  return Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`).join("\n");
}

/** `count` lines of exactly `width` bytes each (`width` ≥ 5), newline-separated. */
function fixedWidth(count: number, width: number): string {
  return Array.from({ length: count }, (_, i) => String(i).padStart(5, "0").padEnd(width, "-"))
    .join("\n");
}

const CASES: { name: string; input: string; keep: string; notice: string | null }[] = [
  { name: "empty output shows Pi's placeholder", input: "", keep: "(no output)", notice: null },
  {
    name: "small output is unchanged",
    input: "hello\nworld\n",
    keep: "hello\nworld\n",
    notice: null,
  },
  {
    name: "2,000 lines without a trailing newline fit",
    input: numbered(1, 2000),
    keep: numbered(1, 2000),
    notice: null,
  },
  {
    name: "a trailing newline is a 2,001st (empty) line",
    input: `${numbered(1, 2000)}\n`,
    keep: `${numbered(2, 2000)}\n`,
    notice: "Showing lines 2-2001 of 2001",
  },
  {
    name: "the line limit keeps the last 2,000 lines",
    input: numbered(1, 2500),
    keep: numbered(501, 2500),
    notice: "Showing lines 501-2500 of 2500",
  },
  {
    name: "the byte limit keeps whole lines only",
    input: fixedWidth(1000, 100),
    keep: fixedWidth(1000, 100).split("\n").slice(494).join("\n"),
    notice: "Showing lines 495-1000 of 1000 (50.0KB limit)",
  },
  {
    name: "with both limits exceeded the tighter one wins",
    input: fixedWidth(3000, 30),
    keep: fixedWidth(3000, 30).split("\n").slice(1349).join("\n"),
    notice: "Showing lines 1350-3000 of 3000 (50.0KB limit)",
  },
  {
    name: "multi-byte text counts bytes, not characters",
    input: `${"é".repeat(40_000)}\nabc`,
    keep: "abc",
    notice: "Showing lines 2-2 of 2 (50.0KB limit)",
  },
  {
    name: "exactly 51,200 bytes on one line fit",
    input: "a".repeat(51_200),
    keep: "a".repeat(51_200),
    notice: null,
  },
  {
    name: "one byte over on one line keeps its last 50 KiB",
    input: "a".repeat(51_201),
    keep: "a".repeat(51_200),
    notice: "Showing last 50.0KB of line 1 (line is 50.0KB)",
  },
  {
    name: "a long last line is cut at a character boundary",
    input: "€".repeat(17_100),
    keep: "€".repeat(17_066),
    notice: "Showing last 50.0KB of line 1 (line is 50.1KB)",
  },
  {
    name: "a huge last line is the only line shown",
    input: `first\n${"z".repeat(2_000_000)}`,
    keep: "z".repeat(51_200),
    notice: "Showing last 50.0KB of line 2 (line is 1.9MB)",
  },
  {
    name: "a huge line before a trailing newline leaves only the placeholder",
    input: `${"y".repeat(60_000)}\n`,
    keep: "(no output)",
    notice: "Showing lines 2-2 of 2 (50.0KB limit)",
  },
  {
    name: "ANSI, CR and NUL pass through",
    input: "\x1b[31mred\x1b[0m\r\n\0tail",
    keep: "\x1b[31mred\x1b[0m\r\n\0tail",
    notice: null,
  },
];

function expected(keep: string, notice: string | null): string {
  return notice === null ? keep : `${keep}\n\n[${notice}. Full output: ${PI_FULL_OUTPUT_PATH}]`;
}

for (const { name, input, keep, notice } of CASES) {
  Deno.test(`piTruncate: ${name}`, () => {
    assert.equal(piTruncate(input), expected(keep, notice));
  });
}

/** Outputs near both limits: up to 2,600 lines of up to 40 units (1 to 4 bytes each), maybe one long line (often last). */
const shapedOutput = fc.record({
  lines: fc.oneof(fc.integer({ min: 0, max: 2_600 }), fc.integer({ min: 1_995, max: 2_600 })),
  width: fc.integer({ min: 0, max: 40 }),
  unit: fc.constantFrom("x", "é", "€", "😀", "a\r", "\x1b[0m"),
  long: fc.option(
    fc.record({ last: fc.boolean(), at: fc.nat(), units: fc.integer({ min: 1, max: 70_000 }) }),
  ),
  trailingNewline: fc.boolean(),
}).map(({ lines, width, unit, long, trailingNewline }) => {
  const rows = Array.from(
    { length: lines },
    (_, i) => `${i}:${unit.repeat((i * 31) % (width + 1))}`,
  );
  if (long !== null) {
    rows.splice(long.last ? lines : long.at % (lines + 1), 0, unit.repeat(long.units));
  }
  return rows.join("\n") + (trailingNewline ? "\n" : "");
});

const smallOutput = fc.array(fc.string({ unit: "binary", maxLength: 40 }), { maxLength: 40 })
  .map((rows) => rows.join("\n"));

/** Pi's bash tool under node: argv[2] its module URL, argv[3] a JSON file of output texts; prints the model-visible texts as JSON. */
const ORACLE = `
import { readFileSync } from "node:fs";
const { createBashToolDefinition } = await import(process.argv[2]);
const outputs = [];
for (const text of JSON.parse(readFileSync(process.argv[3], "utf8"))) {
  const tool = createBashToolDefinition(process.cwd(), {
    operations: {
      exec: async (_command, _cwd, { onData }) => {
        onData(Buffer.from(text, "utf8"));
        return { exitCode: 0 };
      },
    },
  });
  const result = await tool.execute("oracle", { command: "oracle" }, undefined, undefined, undefined);
  outputs.push(result.content[0].text);
}
process.stdout.write(JSON.stringify(outputs));
`;

/** file URL of Pi's bash tool module, or null when npm cannot reach the registry. */
async function piBashToolUrl(): Promise<string | null> {
  try {
    const dir = await installNpmPackage(PI_PACKAGE, PI_VERSION);
    return pathToFileURL(join(dir, "dist/core/tools/bash.js")).href;
  } catch (error) {
    if (await npmRegistryReachable()) throw error;
    console.log(`skipped Pi oracle tests: npm registry unreachable (${error})`);
    return null;
  }
}

const piBashTool = await piBashToolUrl();

async function piOracle(texts: string[]): Promise<string[]> {
  const dir = await Deno.makeTempDir({ prefix: "yarp_pi_oracle_" });
  try {
    const script = join(dir, "oracle.mjs");
    const inputs = join(dir, "inputs.json");
    await Deno.writeTextFile(script, ORACLE);
    await Deno.writeTextFile(inputs, JSON.stringify(texts));
    const out = await new Deno.Command("node", {
      args: [script, piBashTool!, inputs],
      cwd: dir,
      env: { TMPDIR: dir },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const outputs: string[] = JSON.parse(new TextDecoder().decode(out.stdout));
    return outputs.map((text) =>
      text.replace(
        /Full output: [^\]\n]*\/pi-bash-[0-9a-f]{16}\.log\]$/,
        `Full output: ${PI_FULL_OUTPUT_PATH}]`,
      )
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The index and both texts of the first disagreement, or null. */
function firstMismatch(inputs: string[], pi: string[]) {
  for (let i = 0; i < inputs.length; i++) {
    const ours = piTruncate(inputs[i]);
    if (ours !== pi[i]) return { index: i, ours: ours.slice(-300), pi: pi[i].slice(-300) };
  }
  return null;
}

Deno.test({
  name: "piTruncate: every table case agrees with Pi 0.73.1's bash tool",
  ignore: piBashTool === null,
  async fn() {
    const inputs = CASES.map((c) => c.input);
    assert.equal(firstMismatch(inputs, await piOracle(inputs)), null);
  },
});

Deno.test({
  name: "piTruncate: 400 generated outputs agree with Pi 0.73.1's bash tool",
  ignore: piBashTool === null,
  async fn() {
    const inputs = [
      ...fc.sample(shapedOutput, { numRuns: 300, seed: 73 }),
      ...fc.sample(smallOutput, { numRuns: 100, seed: 73 }),
    ];
    assert.ok(inputs.some((text) => piTruncate(text).includes("(50.0KB limit)")));
    assert.ok(inputs.some((text) => /\[Showing lines \d+-\d+ of \d+\. /.test(piTruncate(text))));
    assert.ok(inputs.some((text) => piTruncate(text).includes("[Showing last ")));
    assert.equal(firstMismatch(inputs, await piOracle(inputs)), null);
  },
});

Deno.test({
  name: "piTruncate: known miss, Pi's rolling tail reports the byte limit for a line-limited cut",
  ignore: piBashTool === null,
  async fn() {
    // Over 200 KiB, so Pi trims its tail to 100 KiB inside the long line and drops it;
    // the 2,000 short lines after it then fit Pi's snapshot, which Pi labels a byte cut.
    const input = `${"L".repeat(300_000)}\n${fixedWidth(2000, 10)}`;
    const [pi] = await piOracle([input]);
    const keep = fixedWidth(2000, 10);
    assert.equal(pi, expected(keep, "Showing lines 2-2001 of 2001 (50.0KB limit)"));
    assert.equal(piTruncate(input), expected(keep, "Showing lines 2-2001 of 2001"));
  },
});

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
