/**
 * The pass-through census (docs/corpus.md, "Pass-through census"): unchanged
 * records are counted by their deciding reason and their program, with
 * characters; changed records are not; the rows sort by characters and
 * merge like every other tally figure; the text and HTML reports show them.
 */
import assert from "node:assert/strict";
import { addSample, emptyTally, mergeTallies, type RecordSample } from "../lib/corpus/metrics.ts";
import { formatSummary, summarize } from "../lib/corpus/summary.ts";
import { renderHtmlReport } from "../lib/corpus/html.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

function sample(reasons: string[], program: string, text: string, after = text): RecordSample {
  return {
    rule: null,
    guarded: false,
    reduced: after !== text,
    exitCode: 0,
    before: bytes(text),
    after: bytes(after),
    micros: 1,
    reasons,
    program,
  };
}

const SAMPLES = [
  sample(["unknown-program"], "mvn", "x".repeat(30)),
  sample(["unknown-program"], "gradle", "y".repeat(10)),
  sample(["not-simple-command", "parse:glob"], "ls", "z".repeat(20)),
  sample(["capped", "unknown-program"], "mvn", "w".repeat(500), "short"),
];

Deno.test("pass-through characters by reason and by program, most first; changed records excluded", () => {
  const tally = emptyTally();
  for (const s of SAMPLES) addSample(tally, s);
  const summary = summarize(tally);
  assert.deepEqual(summary.passByReason.map((row) => [row.name, row.records, row.chars]), [
    ["unknown-program", 2, 40],
    ["parse:glob", 1, 20],
  ]);
  assert.deepEqual(summary.passByProgram.map((row) => [row.name, row.chars]), [
    ["mvn", 30],
    ["ls", 20],
    ["gradle", 10],
  ]);
  assert.equal(summary.passByProgram[0].share, 30 / 560);
  const text = formatSummary(summary);
  assert.match(
    text,
    /pass-through by reason +records +chars +share\n {2}unknown-program +2 +40 +7\.1%/,
  );
  assert.match(text, /pass-through by program[^\n]*\n {2}mvn +1 +30/);
  assert.ok(renderHtmlReport(summary, "t").includes("<td>parse:glob</td>"));
});

Deno.test("census buckets merge exactly as one tally counts them", () => {
  const whole = emptyTally();
  const left = emptyTally();
  const right = emptyTally();
  SAMPLES.forEach((s, i) => {
    addSample(whole, s);
    addSample(i % 2 === 0 ? left : right, s);
  });
  mergeTallies(left, right);
  assert.deepEqual(left.passByReason, whole.passByReason);
  assert.deepEqual(left.passByProgram, whole.passByProgram);
});
