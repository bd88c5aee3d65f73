/**
 * The corpus measures (lib/corpus/facts.ts, metrics.ts, summary.ts,
 * record.ts, jsonl.ts): what counts as a diagnostic line and a key fact,
 * what survives a reduction, that tallies merge exactly whatever the split,
 * that time quantiles stay within their 2% bucket, that records round-trip
 * byte for byte, and that reports carry no command or output text.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { countChars } from "../lib/bytes/count_chars.ts";
import { isDiagnosticLine, keyFacts, measureSurvival, readableLines } from "../lib/corpus/facts.ts";
import { escapeHtml, renderHtmlReport } from "../lib/corpus/html.ts";
import { readJsonlLines } from "../lib/corpus/jsonl.ts";
import {
  addSample,
  addSkipped,
  emptyTally,
  mergeTallies,
  type RecordSample,
  ruleFamily,
  sizeBucket,
  timeQuantile,
} from "../lib/corpus/metrics.ts";
import {
  type CorpusRecord,
  parseRecordLine,
  recordToLine,
  visibleBytes,
} from "../lib/corpus/record.ts";
import { formatSummary, summarize } from "../lib/corpus/summary.ts";

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

Deno.test("diagnostic lines carry a marker word and are not passing-test lines", () => {
  const cases: [string, boolean][] = [
    ["src/a.c:3:1: error: expected ';'", true],
    ["FAILED tests/test_x.py::test_y - AssertionError", true],
    ["panic: runtime error: index out of range", true],
    ["npm warn deprecated glob@7.2.3", true],
    ["Traceback (most recent call last):", true],
    ["    raise ValueError('bad')", true],
    ["ValueError: bad", true],
    ["java.io.IOException: closed", true],
    ["  ✔ should handle errors via arity 4 functions", false],
    ["ok  \tgithub.com/x/y\t0.01s (errors none)", false],
    ["PASS tests/error.test.js", false],
    ["    at Test._assertStatus (node_modules/supertest/lib/test.js:252:14)", false],
    ["    at Test.assert (node_modules/supertest/lib/test.js:164:23)", true],
    ["terror is not a marker, nor mirror", false],
    ["", false],
  ];
  for (const [line, expected] of cases) assert.equal(isDiagnosticLine(line), expected, line);
});

Deno.test("key facts are literal substrings of their lines, by kind", () => {
  const lines = readableLines(bytes(
    [
      "--- FAIL: TestUsage (0.00s)",
      "    flag_test.go:42: got 1, want 2",
      "FAILED tests/test_core.py::test_take - AssertionError: x",
      "  ● Parser › rejects empty input",
      "  1) router",
      "src/main.c:10:5: error: unknown type name 'foo'",
      "src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "  12:5  error  'x' is defined but never used  no-unused-vars",
      '  File "/repo/click/core.py", line 1200, in invoke',
      "KeyError: 'missing'",
      "make: *** [Makefile:12: all] Error 2",
      "npm error code ELIFECYCLE",
      "\x1b[31mpanic: boom\x1b[0m",
    ].join("\n"),
  ));
  const facts = keyFacts(lines);
  assert.deepEqual(facts.test, [
    "TestUsage",
    "tests/test_core.py::test_take",
    "Parser › rejects empty input",
    "router",
  ]);
  assert.ok(facts.location.includes("flag_test.go:42"));
  assert.ok(facts.location.includes("src/main.c:10:5"));
  assert.ok(facts.location.includes("src/index.ts(3,7)"));
  assert.ok(facts.location.includes('File "/repo/click/core.py", line 1200'));
  assert.deepEqual(facts.diagnostic, [
    "src/main.c:10:5: error: unknown type name 'foo'",
    "src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    "12:5  error  'x' is defined but never used  no-unused-vars",
  ]);
  assert.deepEqual(facts.exception, ["KeyError: 'missing'", "panic: boom"]);
  assert.deepEqual(facts.build, [
    "make: *** [Makefile:12: all] Error 2",
    "npm error code ELIFECYCLE",
  ]);
  const text = lines.join("\n");
  for (const list of Object.values(facts)) for (const fact of list) assert.ok(text.includes(fact));
});

Deno.test("survival counts diagnostic lines as a multiset and facts as substrings", () => {
  const original = bytes("ok 1\nerror: a\nerror: a\nerror: b\n--- FAIL: TestX\nend\n");
  const reduced = bytes("ok 1\nerror: a\n[yarp: omitted]\n--- FAIL: TestX\n");
  const survival = measureSurvival(original, reduced);
  assert.equal(survival.diagnosticLines, 4);
  assert.equal(survival.diagnosticLinesKept, 2);
  assert.equal(survival.facts.test, 1);
  assert.equal(survival.factsKept.test, 1);
  const same = measureSurvival(original, original.slice());
  assert.equal(same.diagnosticLinesKept, same.diagnosticLines);
});

Deno.test("a kept line with the reducers' repeat note counts every copy it states", () => {
  const original = bytes("warning: x\nok\nwarning: x\nwarning: x\nerror: y\nerror: y\n");
  const reduced = bytes(
    "warning: x\n[yarp: the line above appears 3 times]\nerror: y\n[yarp: omitted]\n",
  );
  const survival = measureSurvival(original, reduced);
  assert.equal(survival.diagnosticLines, 5);
  assert.equal(survival.diagnosticLinesKept, 4);
});

Deno.test("dropping lines never keeps more than was found (property)", () => {
  const line = fc.constantFrom(
    "error: x",
    "warning: y",
    "--- FAIL: TestA",
    "a.go:1:2: bad",
    "plain",
    "ValueError: v",
    "",
  );
  fc.assert(
    fc.property(fc.array(line, { maxLength: 40 }), fc.array(fc.boolean()), (lines, keep) => {
      const original = bytes(lines.join("\n"));
      const reduced = bytes(lines.filter((_, i) => keep[i] ?? true).join("\n"));
      const survival = measureSurvival(original, reduced);
      assert.ok(survival.diagnosticLinesKept <= survival.diagnosticLines);
      for (const kind of Object.keys(survival.facts) as (keyof typeof survival.facts)[]) {
        assert.ok(survival.factsKept[kind] <= survival.facts[kind]);
      }
      if (keep.every((k) => k)) {
        assert.equal(survival.diagnosticLinesKept, survival.diagnosticLines);
      }
    }),
  );
});

Deno.test("characters are counted per UTF-8 sequence", () => {
  assert.equal(countChars(bytes("héllo ✓ 🎉")), 9);
  fc.assert(fc.property(fc.string({ unit: "grapheme" }), (text) => {
    assert.equal(countChars(bytes(text)), [...text].length);
  }));
});

function sample(overrides: Partial<RecordSample> = {}): RecordSample {
  return {
    rule: "tests/go-test",
    guarded: false,
    reduced: true,
    exitCode: 1,
    before: bytes("error: a\nline\nline\n"),
    after: bytes("error: a\n[yarp]\n"),
    micros: 100,
    reasons: ["rewritten"],
    census: { features: ["pipeline"], parse: "ok" },
    ...overrides,
  };
}

Deno.test("a tally counts changes, growth, guarded and pass-through exactness", () => {
  const tally = emptyTally();
  addSample(tally, sample());
  addSample(tally, sample({ rule: null, reduced: false, after: bytes("error: a\nline\nline\n") }));
  addSample(tally, sample({ guarded: true, reduced: false, rule: "git/guard-porcelain" }));
  addSample(
    tally,
    sample({ reduced: false, exitCode: 0, after: bytes("error: a\nline\nline\n!!") }),
  );
  addSkipped(tally, "malformed");
  assert.equal(tally.records, 4);
  assert.equal(tally.changed, 3);
  assert.equal(tally.passThrough, 1);
  assert.equal(tally.grew, 1);
  assert.equal(tally.guarded, 1);
  assert.equal(tally.guardedInexact, 1);
  assert.equal(tally.passThroughInexact, 2);
  assert.equal(tally.eligible, 2);
  assert.equal(tally.total.failed, 3);
  assert.equal(tally.byFamily["(none)"].records, 1);
  assert.equal(tally.byFamily.tests.records, 2);
  assert.equal(tally.skipped.malformed, 1);
  assert.equal(tally.syntax.pipeline, 4);
  assert.equal(ruleFamily("git.diff"), "git");
});

Deno.test("merging split tallies equals one tally of everything (property)", () => {
  const arbitrarySample = fc.record({
    rule: fc.constantFrom(null, "a/x", "a/y", "b/z"),
    guarded: fc.boolean(),
    reduced: fc.boolean(),
    exitCode: fc.constantFrom(null, 0, 1, 2),
    before: fc.constantFrom("error: a\nb\n", "x\n".repeat(20), "").map(bytes),
    after: fc.constantFrom("error: a\n", "x\n", "").map(bytes),
    micros: fc.integer({ min: 0, max: 100_000 }),
    reasons: fc.array(fc.constantFrom("rewritten", "guarded", "parse:glob"), { maxLength: 3 }),
    census: fc.record({
      features: fc.uniqueArray(fc.constantFrom("pipeline", "and-chain", "glob")),
      parse: fc.constantFrom("ok", "glob"),
    }),
  });
  fc.assert(
    fc.property(fc.array(arbitrarySample, { maxLength: 30 }), fc.nat(30), (samples, cut) => {
      const whole = emptyTally();
      for (const s of samples) addSample(whole, s);
      const left = emptyTally();
      const right = emptyTally();
      samples.forEach((s, i) => addSample(i < cut ? left : right, s));
      const merged = emptyTally();
      mergeTallies(merged, right);
      mergeTallies(merged, left);
      assert.deepEqual(summarize(merged), summarize(whole));
    }),
  );
});

Deno.test("time quantiles land within 2% above the true value", () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 2, max: 10_000_000 }), { minLength: 1 }), (times) => {
      const tally = emptyTally();
      for (const micros of times) addSample(tally, sample({ micros }));
      const sorted = [...times].sort((a, b) => a - b);
      for (const q of [0.5, 0.95]) {
        const exact = sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1];
        const estimate = timeQuantile(tally, q);
        assert.ok(estimate >= exact * 0.9999 && estimate <= exact * 1.0201, `${estimate} ${exact}`);
      }
    }),
  );
  assert.equal(timeQuantile(emptyTally(), 0.5), 0);
  assert.deepEqual([0, 1, 2, 3, 1024].map(sizeBucket), [0, 1, 2, 2, 11]);
});

Deno.test("records round-trip byte for byte, text or base64 (property)", () => {
  const record = fc.record({
    id: fc.string(),
    source: fc.string(),
    command: fc.string(),
    exitCode: fc.option(fc.integer({ min: 0, max: 255 })),
    streams: fc.oneof(
      fc.record({
        mode: fc.constant("separate" as const),
        stdout: fc.uint8Array({ maxLength: 64 }),
        stderr: fc.string().map(bytes),
      }),
      fc.record({ mode: fc.constant("combined" as const), output: fc.uint8Array() }),
    ).map((streams) => ({ ...streams })),
    priorReduction: fc.constantFrom(null, "pi-truncation" as const, "yarp" as const),
  });
  fc.assert(fc.property(record, (original: CorpusRecord) => {
    assert.deepEqual(parseRecordLine(recordToLine(original)), { ...original });
  }));
});

Deno.test("a malformed record names its field", () => {
  const base = { id: "a", source: "s", command: "c", exit_code: 0, stream_mode: "separate" };
  const cases: [unknown, string][] = [
    [[], "not a JSON object"],
    [{ ...base, id: 1 }, "'id' is not a string"],
    [{ ...base, exit_code: 256 }, "'exit_code' is not an integer from 0 to 255 or null"],
    [{ ...base, stream_mode: "mixed" }, `'stream_mode' is not "separate" or "combined"`],
    [{ ...base, stdout: "x", stdout_b64: "eA==" }, "both 'stdout' and 'stdout_b64' are set"],
    [{ ...base, stderr_b64: "!!" }, "'stderr_b64' is not base64"],
    [{ ...base, stdout: 3 }, "'stdout' is not a string"],
    [
      { ...base, prior_reduction: "magic" },
      "'prior_reduction' is not one of pi-truncation, yarp, other",
    ],
  ];
  for (const [value, error] of cases) {
    assert.deepEqual(parseRecordLine(JSON.stringify(value)), { error }, JSON.stringify(value));
  }
  assert.deepEqual(parseRecordLine("{"), { error: "not valid JSON" });
  const record = parseRecordLine(JSON.stringify({ ...base, stdout: "a", stderr: "b" }));
  assert.ok(!("error" in record));
  assert.deepEqual(visibleBytes(record), bytes("ab"));
});

Deno.test("JSONL lines stream from plain and gzip files alike", async () => {
  const dir = await Deno.makeTempDir({ prefix: "yarp_jsonl_" });
  try {
    const text = '{"a":1}\r\n\n{"b":"é"}\n{"c":3}';
    await Deno.writeTextFile(`${dir}/plain.jsonl`, text);
    const gz = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
    await Deno.writeFile(`${dir}/packed.jsonl.gz`, gz);
    for (const name of ["plain.jsonl", "packed.jsonl.gz"]) {
      const seen: [string, number][] = [];
      let progress = 0;
      for await (const line of readJsonlLines(`${dir}/${name}`, (n) => (progress = n))) {
        seen.push([line.text, line.number]);
      }
      assert.deepEqual(seen, [['{"a":1}', 1], ['{"b":"é"}', 3], ['{"c":3}', 4]]);
      assert.equal(progress, (await Deno.stat(`${dir}/${name}`)).size);
    }
    await assert.rejects(async () => {
      for await (const _ of readJsonlLines(`${dir}/missing.jsonl`)) { /* nothing */ }
    }, Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reports hold aggregates only: no rule-free text reaches them", () => {
  const secret = "SECRET-TOKEN-8f3a";
  const tally = emptyTally();
  addSample(
    tally,
    sample({ before: bytes(`error: ${secret}\n`), after: bytes(`error: ${secret}\n`) }),
  );
  const summary = summarize(tally, ["pipeline", "glob"]);
  assert.equal(summary.syntax.glob, 0);
  for (
    const report of [
      formatSummary(summary),
      JSON.stringify(summary),
      renderHtmlReport(summary, "t"),
    ]
  ) {
    assert.ok(!report.includes(secret));
  }
  const html = renderHtmlReport(summary, "<title>");
  assert.match(html, /<svg role="img" aria-label="savings and retention by family"/);
  assert.match(html, /<svg role="img" aria-label="size distribution before and after"/);
  assert.ok(html.includes("&lt;title&gt;"));
  assert.equal(
    escapeHtml(`<a href="x">'&'</a>`),
    "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
  );
});
