/**
 * The bounded reducers (docs/architecture.md, "Reducers and evidence";
 * property tests throughout): budgets, markers, policy selection, filtering order, exact
 * pass-through and chunk-independence, plus the per-stream memory bound.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import fc from "fast-check";
import {
  checkMemoryBound,
  type ChildStatus,
  createStreamReducer,
  formatCount,
  type Recovery,
  type ReducedStream,
  streamMemoryBound,
  truncationMarker,
} from "../lib/reduce/mod.ts";
import type { LinePattern, OutputPolicy, ReducerSpec, ReductionRule } from "../lib/rules/model.ts";
import { AnsiStripper, LineMatcher } from "../lib/bytes/mod.ts";
import { BUILTIN_PACK } from "../lib/rules/registry.ts";
import { diagnosticForm, NOT_DIAGNOSTIC } from "../lib/reduce/diagnostics.ts";

const te = new TextEncoder();
const td = new TextDecoder();
const OK: ChildStatus = { code: 0 };
const FAIL: ChildStatus = { code: 1 };
const NONE: Recovery = { kind: "none" };

function policy(over: Partial<OutputPolicy> = {}): OutputPolicy {
  return {
    headLines: 3,
    tailLines: 3,
    maxLineBytes: 256,
    maxOutputBytes: 1024,
    minSavingsBytes: 0,
    ...over,
  };
}

function rule(
  reducer: ReducerSpec = { kind: "head_tail" },
  success: OutputPolicy = policy(),
  failure: OutputPolicy = success,
): ReductionRule {
  return {
    id: "test/rule",
    action: "reduce",
    match: { programs: ["x"], argvPrefix: [], argvContainsAll: [] },
    reducer,
    success,
    failure,
  };
}

function filter(over: Partial<Omit<ReducerSpec & { kind: "line_filter" }, "kind">>): ReducerSpec {
  return { kind: "line_filter", stripAnsi: false, drop: [], keep: [], ...over };
}

function pat(
  kind: LinePattern["kind"],
  value: string,
  extra: Partial<LinePattern> = {},
): LinePattern {
  return { kind, value, caseMode: "sensitive", trim: "none", ...extra };
}

/** Runs `input` through a fresh reducer in chunks of `chunkSize` bytes (0 = one chunk). */
function reduce(
  r: ReductionRule,
  input: Uint8Array | string,
  { status = OK, recovery = NONE, chunkSize = 0 } = {},
): ReducedStream {
  const bytes = typeof input === "string" ? te.encode(input) : input;
  const reducer = createStreamReducer(r);
  const bound = streamMemoryBound(r);
  const step = chunkSize > 0 ? chunkSize : Math.max(bytes.length, 1);
  for (let at = 0; at < bytes.length; at += step) {
    reducer.push(bytes.subarray(at, at + step));
    const retained = reducer.retainedBytes();
    ok(retained <= bound, `retained ${retained} > bound ${bound}`);
  }
  return reducer.finish(status, recovery);
}

const text = (r: ReducedStream) => td.decode(r.bytes);
const lines = (n: number, f = (i: number) => `line ${i}`) =>
  Array.from({ length: n }, (_, i) => f(i) + "\n").join("");

/** The kept count a marker states, checked against the reducer's own counts. */
function checkMarker(r: ReducedStream): string {
  const m = text(r).match(/\[yarp: kept ([\d,]+) of ([\d,]+) lines?[^\]]*\]/);
  ok(m, `no marker in ${JSON.stringify(text(r).slice(-300))}`);
  equal(m[1], formatCount(r.inputLines - r.omittedLines));
  equal(m[2], formatCount(r.inputLines));
  return m[0];
}

Deno.test("empty and short streams stay exact, with no marker", () => {
  for (const input of ["", "one line\n", "no final newline", "a\r\nb\r\n", "\n\n\n"]) {
    for (const reducer of [{ kind: "head_tail" } as const, filter({ stripAnsi: true })]) {
      const r = reduce(rule(reducer), input, { status: FAIL });
      equal(r.changed, false);
      equal(text(r), input);
      equal(r.inputBytes, te.encode(input).length);
      equal(r.omittedLines, 0);
    }
  }
  equal(reduce(rule(), "").inputLines, 0);
  equal(reduce(rule(), "a\nb").inputLines, 2);
});

Deno.test("boundary-sized streams: exactly max_output_bytes stays exact, one more byte is reduced", () => {
  const r = rule({ kind: "head_tail" }, policy({ headLines: 10, tailLines: 10 }));
  const exact = "x".repeat(200) + "\n" + "y".repeat(200) + "\n";
  const fill = (n: number) => exact.repeat(2) + "z".repeat(n - exact.length * 2 - 1) + "\n";
  const at = reduce(r, fill(1024));
  equal(at.changed, false);
  equal(at.bytes.length, 1024);
  const over = reduce(r, fill(1025));
  equal(over.changed, true);
  ok(over.bytes.length <= 1024);
  equal(over.truncatedLines, 1);
  checkMarker(over);
});

Deno.test("very large streams: bounded output, exact counts, bounded state", () => {
  const r = rule({ kind: "head_tail" }, policy({ headLines: 2, tailLines: 2 }));
  const reducer = createStreamReducer(r);
  const chunk = te.encode(lines(1000, (i) => `row ${String(i).padStart(6, "0")}`));
  const bound = streamMemoryBound(r);
  for (let i = 0; i < 500; i++) {
    reducer.push(chunk);
    ok(reducer.retainedBytes() <= bound);
  }
  const out = reducer.finish(OK, NONE);
  equal(out.inputLines, 500_000);
  equal(out.inputBytes, chunk.length * 500);
  equal(out.omittedLines, 499_996);
  equal(out.omittedBytes, out.inputBytes - 4 * 11);
  equal(
    text(out),
    "row 000000\nrow 000001\n[yarp: kept 4 of 500,000 lines · omitted 499,996 lines (5,499,956 bytes)]\nrow 000998\nrow 000999\n",
  );
});

Deno.test("success and failure policies are chosen from the final status", () => {
  const r = rule(
    { kind: "head_tail" },
    policy({ headLines: 1, tailLines: 1 }),
    policy({ headLines: 4, tailLines: 4 }),
  );
  const input = lines(50);
  const cases: [ChildStatus, number][] = [
    [{ code: 0 }, 2],
    [{ code: 1 }, 8],
    [{ code: 137 }, 8],
    [{ code: 0, signal: "SIGTERM" }, 8],
  ];
  for (const [status, kept] of cases) {
    const out = reduce(r, input, { status });
    equal(out.inputLines - out.omittedLines, kept, JSON.stringify(status));
    checkMarker(out);
  }
  // A smaller failure policy is honoured too (state is shared by the larger of each limit).
  const smallFailure = rule(
    { kind: "head_tail" },
    policy({ headLines: 6, tailLines: 6 }),
    policy({ headLines: 0, tailLines: 2 }),
  );
  equal(text(reduce(smallFailure, input, { status: FAIL })).endsWith("line 48\nline 49\n"), true);
  equal(reduce(smallFailure, input, { status: FAIL }).omittedLines, 48);
});

Deno.test("head-only, tail-only and zero-line policies", () => {
  const input = lines(20);
  const head = reduce(rule({ kind: "head_tail" }, policy({ headLines: 2, tailLines: 0 })), input);
  equal(text(head), "line 0\nline 1\n[yarp: kept 2 of 20 lines · omitted 18 lines (136 bytes)]\n");
  const tail = reduce(rule({ kind: "head_tail" }, policy({ headLines: 0, tailLines: 2 })), input);
  equal(
    text(tail),
    "[yarp: kept 2 of 20 lines · omitted 18 lines (134 bytes)]\nline 18\nline 19\n",
  );
  const none = reduce(rule({ kind: "head_tail" }, policy({ headLines: 0, tailLines: 0 })), input);
  equal(text(none), "[yarp: kept 0 of 20 lines · omitted 20 lines (150 bytes)]\n");
});

Deno.test("total output bytes are enforced, markers included", () => {
  const p = policy({
    headLines: 100,
    tailLines: 100,
    maxLineBytes: 4096,
    maxOutputBytes: 1024,
  });
  const input = lines(300, (i) => `${i} ` + "w".repeat(100));
  for (const recovery of [NONE, { kind: "archived", id: "0123456789abcdef" } as const]) {
    const out = reduce(rule({ kind: "head_tail" }, p), input, { recovery });
    ok(out.bytes.length <= 1024, `${out.bytes.length}`);
    ok(out.bytes.length > 900, "the budget is used, not wasted");
    const t = text(out);
    ok(t.startsWith("0 www"));
    ok(t.endsWith("299 " + "w".repeat(100) + "\n"));
    checkMarker(out);
  }
  // A single line larger than the output budget is cut to fit.
  const one = reduce(
    rule({ kind: "head_tail" }, policy({ maxLineBytes: 1_000_000, maxOutputBytes: 1024 })),
    "q".repeat(50_000) + "\n",
  );
  ok(one.bytes.length <= 1024);
  equal(one.truncatedLines, 1);
  match(text(one), /^q+…\[yarp: [\d,]+ bytes of this line omitted\]\n\[yarp: kept 1 of 1 line/);
});

Deno.test("very long terminated and unterminated lines keep a prefix and a truncation marker", () => {
  const long = "L".repeat(12_601);
  for (const chunkSize of [0, 1000, 4096]) {
    const terminated = reduce(rule(), `${long}\nafter\n`, { chunkSize });
    equal(
      text(terminated),
      `${"L".repeat(256)}${truncationMarker(12_345)}\nafter\n` +
        "[yarp: kept 2 of 2 lines · truncated 1 line]\n",
    );
    equal(terminated.truncatedLines, 1);
    equal(terminated.omittedLines, 0);
    const unterminated = reduce(rule(), `before\n${long}`, { chunkSize });
    equal(
      text(unterminated),
      `before\n${"L".repeat(256)}${truncationMarker(12_345)}\n` +
        "[yarp: kept 2 of 2 lines · truncated 1 line]\n",
    );
  }
  equal(truncationMarker(12_345), "…[yarp: 12,345 bytes of this line omitted]");
  equal(truncationMarker(1), "…[yarp: 1 byte of this line omitted]");
});

Deno.test("a cut never splits a UTF-8 character", () => {
  const out = reduce(rule(), "a" + "é".repeat(300) + "\n");
  const t = text(out);
  ok(!t.includes("\uFFFD"));
  ok(t.startsWith("a" + "é".repeat(127) + "…[yarp: 346 bytes"));
});

Deno.test("CRLF, LF, mixed and missing final newline are kept; the marker uses the first ending", () => {
  const r = rule({ kind: "head_tail" }, policy({ headLines: 1, tailLines: 1 }));
  const middle = lines(40, () => "mid"); // 160 bytes omitted
  equal(
    text(reduce(r, "a\r\nb\n" + middle + "d")),
    "a\r\n[yarp: kept 2 of 43 lines · omitted 41 lines (162 bytes)]\r\nd",
  );
  equal(
    text(reduce(r, "a\nb\r\n" + middle + "d\r\n")),
    "a\n[yarp: kept 2 of 43 lines · omitted 41 lines (163 bytes)]\nd\r\n",
  );
  // No ending observed: `\n`, and the marker goes on its own line.
  const single = reduce(rule(), "z".repeat(3000));
  equal(single.bytes.at(-1), 10);
  ok(text(single).includes(`${truncationMarker(2744)}\n[yarp: kept 1 of 1 line`));
  equal(text(single).split("\n").length, 3);
});

Deno.test("ANSI sequences split across chunks are removed before matching", () => {
  const r = rule(
    filter({ stripAnsi: true, keep: [pat("prefix", "error:")] }),
    policy({ headLines: 10, tailLines: 10 }),
  );
  const input = "\x1b[1m\x1b[31merror:\x1b[0m one\n" +
    lines(30, (i) => `\x1b[32mnoise ${i}\x1b[0m`) +
    "\x1b]8;;file:///x\x1b\\error:\x1b]8;;\x1b\\ two\r\n";
  const expected = "error: one\nerror: two\r\n" +
    "[yarp: kept 2 of 32 lines · omitted 30 lines (530 bytes)]\n";
  for (const chunkSize of [0, 1, 2, 3, 5, 17]) {
    equal(text(reduce(r, input, { chunkSize })), expected, `chunk ${chunkSize}`);
  }
  // Without strip_ansi the coloured lines do not start with the pattern, but as shown (ANSI
  // removed) they are diagnostics: kept as evidence, with their sequences.
  const raw = reduce(rule(filter({ keep: [pat("prefix", "error:")] })), input);
  equal(raw.omittedLines, 30);
  equal(
    text(raw).split("\n").slice(0, 2).join("\n"),
    input.split("\n")[0] + "\n" + input.split("\n")[31],
  );
});

Deno.test("ANSI removal alone changes output; short savings fall back to exact bytes", () => {
  const input = "\x1b[31mred\x1b[0m\n";
  const stripped = reduce(rule(filter({ stripAnsi: true })), input);
  equal(stripped.changed, false, "a marker would make it longer: exact");
  equal(text(stripped), input);
  const big = lines(5, () => "\x1b[38;5;208m" + "c".repeat(150) + "\x1b[0m");
  const out = reduce(rule(filter({ stripAnsi: true }), policy({ headLines: 10 })), big);
  equal(out.changed, true);
  equal(
    text(out),
    lines(5, () => "c".repeat(150)) + "[yarp: kept 5 of 5 lines]\n",
  );
});

Deno.test("invalid UTF-8 and NUL bytes are kept and matched as bytes", () => {
  const input = new Uint8Array([
    ...te.encode("keep \xff"),
    0xff,
    0x00,
    0xc3,
    10,
    ...te.encode("drop\n"),
    0x80,
    0x00,
    ...te.encode("keep\r\n"),
    ...te.encode(lines(40, () => "\x00noise\xff")),
  ]);
  const r = rule(filter({ keep: [pat("prefix", "keep"), pat("suffix", "keep")] }));
  const out = reduce(r, input);
  equal(out.changed, true);
  deepEqual(
    [...out.bytes.subarray(0, out.bytes.indexOf(0x5b))], // up to the marker's "["
    [...te.encode("keep \xff"), 0xff, 0x00, 0xc3, 10, 0x80, 0x00, ...te.encode("keep\r\n")],
  );
});

Deno.test("literal modes and ASCII-only case folding in line_filter", () => {
  const input = "Compiling a\n  compiling b\nCOMPILING c\nÉrror x\nérror y\nsummary: z \n" +
    lines(40, () => "filler");
  const rows: [LinePattern, string[]][] = [
    [pat("prefix", "Compiling"), ["Compiling a"]],
    [pat("prefix", "compiling", { caseMode: "ascii_insensitive" }), ["Compiling a", "COMPILING c"]],
    [pat("prefix", "compiling", { caseMode: "ascii_insensitive", trim: "start" }), [
      "Compiling a",
      "  compiling b",
      "COMPILING c",
    ]],
    [pat("prefix", "érror", { caseMode: "ascii_insensitive" }), ["érror y"]],
    [pat("exact", "summary: z"), []],
    [pat("exact", "summary: z", { trim: "both" }), ["summary: z "]],
    [pat("suffix", "z "), ["summary: z "]],
    [pat("contains", "RROR", { caseMode: "ascii_insensitive" }), ["Érror x", "érror y"]],
  ];
  for (const [p, expected] of rows) {
    const out = reduce(rule(filter({ keep: [p] }), policy({ headLines: 10 })), input);
    const kept = text(out).split("\n").filter((l) => !l.startsWith("[yarp:") && l !== "");
    deepEqual(kept, expected, JSON.stringify(p));
  }
});

Deno.test("drop is checked before keep", () => {
  const r = rule(
    filter({ drop: [pat("contains", "ignored")], keep: [pat("contains", "found")] }),
    policy({ headLines: 10 }),
  );
  // No line is a diagnostic: a diagnostic that drop removes is still kept (see below).
  const input = "found: real\nfound: ignored\nnoise\n" + lines(20, () => "more noise");
  equal(
    text(reduce(r, input)),
    "found: real\n[yarp: kept 1 of 23 lines · omitted 22 lines (241 bytes)]\n",
  );
});

Deno.test("minimum savings: exact pass-through below the threshold, reduction at or above it", () => {
  // Six omitted short lines cost less than the marker: exact whatever the threshold.
  const short = lines(12);
  const reduced = reduce(rule({ kind: "head_tail" }, policy({ minSavingsBytes: 0 })), short);
  equal(reduced.changed, false);
  equal(text(reduced), short);

  const long = lines(30, (i) => `entry ${i} ` + "p".repeat(20)); // 870 bytes ≤ 1024
  const plain = reduce(rule({ kind: "head_tail" }, policy()), long);
  const save = te.encode(long).length - plain.bytes.length;
  ok(save > 0 && plain.changed);
  const below = reduce(rule({ kind: "head_tail" }, policy({ minSavingsBytes: save + 1 })), long);
  equal(below.changed, false);
  equal(text(below), long);
  const at = reduce(rule({ kind: "head_tail" }, policy({ minSavingsBytes: save })), long);
  equal(at.changed, true);
  deepEqual(at.bytes, plain.bytes);
  // Raw larger than max_output_bytes: the cap wins whatever the threshold.
  const huge = lines(200, (i) => `entry ${i}`);
  const capped = reduce(
    rule({ kind: "head_tail" }, policy({ minSavingsBytes: 1_048_576 })),
    huge,
  );
  equal(capped.changed, true);
  ok(capped.bytes.length <= 1024);
});

Deno.test("omission counts, marker wording and recovery clauses", () => {
  const input = lines(5120, (i) => `${i}`.padStart(8, "."));
  const r = rule(
    { kind: "head_tail" },
    policy({ headLines: 21, tailLines: 21, maxOutputBytes: 4096 }),
  );
  const marker = (recovery: Recovery) => checkMarker(reduce(r, input, { recovery }));
  equal(marker(NONE), "[yarp: kept 42 of 5,120 lines · omitted 5,078 lines (45,702 bytes)]");
  equal(
    marker({ kind: "archived", id: "8f2c1a" }),
    "[yarp: kept 42 of 5,120 lines · omitted 5,078 lines (45,702 bytes) · exact: yarp read 8f2c1a · --grep TEXT · --lines A:B]",
  );
  equal(
    marker({ kind: "archived", id: "8f2c1a", paged: true }),
    "[yarp: kept 42 of 5,120 lines · omitted 5,078 lines (45,702 bytes) · exact: yarp read 8f2c1a --max-bytes 28k · --grep TEXT · --lines A:B]",
  );
  equal(
    marker({ kind: "unarchived" }),
    "[yarp: kept 42 of 5,120 lines · omitted 5,078 lines (45,702 bytes) · no exact copy was kept]",
  );
  const out = reduce(r, input);
  equal(out.omittedLines, 5078);
  equal(out.omittedBytes, 45_702);
  equal(out.inputBytes, 5120 * 9);
  // Exactly one marker.
  equal(text(out).split("[yarp:").length, 2);
  const rows: [number, string][] = [
    [0, "0"],
    [7, "7"],
    [999, "999"],
    [1000, "1,000"],
    [1_234_567, "1,234,567"],
    [100_000_000_000, "100,000,000,000"],
  ];
  for (const [n, s] of rows) equal(formatCount(n), s);
});

Deno.test("a marker that cannot fit falls back to a cut marker within the cap", () => {
  const id = "i".repeat(2000);
  const out = reduce(rule(), lines(100), { recovery: { kind: "archived", id } });
  ok(out.bytes.length <= 1024);
  ok(text(out).startsWith("[yarp: kept 0 of 100 lines"));
  equal(out.omittedLines, 100);
});

Deno.test("deterministic output under different read chunk sizes", () => {
  const input = te.encode(
    lines(300, (i) => (i % 7 === 0 ? "x".repeat(700) : `\x1b[3${i % 8}mrow\x1b[0m ${i}\r`)) +
      "tail without newline",
  );
  const rules = [
    rule({ kind: "head_tail" }, policy({ headLines: 5, tailLines: 9, maxOutputBytes: 2048 })),
    rule(
      filter({ stripAnsi: true, drop: [pat("suffix", "5")], keep: [pat("contains", "row")] }),
      policy({ headLines: 4, tailLines: 4 }),
    ),
  ];
  for (const r of rules) {
    const whole = reduce(r, input);
    for (const chunkSize of [1, 2, 3, 13, 255, 256, 257, 4096]) {
      deepEqual(reduce(r, input, { chunkSize }).bytes, whole.bytes, `chunk ${chunkSize}`);
    }
  }
});

Deno.test("memory bound: typical rules pass, oversized ones are rejected", () => {
  const typical = checkMemoryBound(rule());
  ok(typical.ok);
  ok(typical.bytes > 1024 && typical.bytes < 64 * 1024);
  const huge = checkMemoryBound(
    rule({ kind: "head_tail" }, policy({ maxOutputBytes: 16_777_216, maxLineBytes: 1_048_576 })),
  );
  equal(huge.ok, false);
  if (!huge.ok) match(huge.message, /test\/rule.*4194304/);
  const patterns = Array.from({ length: 256 }, () => pat("contains", "p".repeat(4096)));
  equal(checkMemoryBound(rule(filter({ keep: patterns }))).ok, false);
});

Deno.test("memory bound: every built-in reduction rule is within it (yarp run relies on this)", () => {
  let checked = 0;
  for (const candidate of BUILTIN_PACK.rules) {
    if (candidate.action !== "reduce") continue;
    const bound = checkMemoryBound(candidate);
    ok(bound.ok, `${candidate.id}: ${bound.bytes} bytes`);
    checked++;
  }
  ok(checked > 150, `${checked} reduction rules`);
});

// ---- properties ---------------------------------------------------------

const policyArb = fc.record({
  headLines: fc.integer({ min: 0, max: 12 }),
  tailLines: fc.integer({ min: 0, max: 12 }),
  maxLineBytes: fc.integer({ min: 256, max: 700 }),
  maxOutputBytes: fc.integer({ min: 1024, max: 3000 }),
  minSavingsBytes: fc.integer({ min: 0, max: 400 }),
});

const patternArb: fc.Arbitrary<LinePattern> = fc.record({
  kind: fc.constantFrom("exact", "prefix", "suffix", "contains"),
  value: fc.constantFrom("a", "b", "ab", "A", "err", "x\x1b"),
  caseMode: fc.constantFrom("sensitive", "ascii_insensitive"),
  trim: fc.constantFrom("none", "start", "both"),
});

const reducerArb: fc.Arbitrary<ReducerSpec> = fc.oneof(
  fc.constant({ kind: "head_tail" } as const),
  fc.record({
    kind: fc.constant("line_filter" as const),
    stripAnsi: fc.boolean(),
    drop: fc.array(patternArb, { maxLength: 2 }),
    keep: fc.array(patternArb, { maxLength: 2 }),
  }),
);

const ruleArb = fc.tuple(reducerArb, policyArb, policyArb).map(([r, s, f]) => rule(r, s, f));

const lineArb = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: fc.constantFrom("a", "b", "A", " ", "é", "e", "r") }) },
  { weight: 1, arbitrary: fc.constantFrom("x".repeat(900), "é".repeat(400), "\x1b[31merr\x1b[0m") },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 40 }).map((b) => String.fromCharCode(...b)),
  },
);

const inputArb = fc.tuple(
  fc.array(fc.tuple(lineArb, fc.constantFrom("\n", "\r\n", "\n")), { maxLength: 120 }),
  fc.boolean(),
).map(([ls, final]) => {
  const s = ls.map(([l, e]) => l + e).join("");
  const bytes = Uint8Array.from(s, (c) => c.charCodeAt(0) & 0xff);
  return final || bytes.length === 0 ? bytes : bytes.subarray(0, bytes.length - 1);
});

const statusArb = fc.constantFrom<ChildStatus>({ code: 0 }, { code: 2 }, {
  code: 0,
  signal: "SIGKILL",
});

const recoveryArb = fc.constantFrom<Recovery>(NONE, { kind: "archived", id: "ab12cd" }, {
  kind: "unarchived",
});

Deno.test("property: output within the selected cap; unchanged means exact input", () => {
  fc.assert(
    fc.property(ruleArb, inputArb, statusArb, recoveryArb, (r, input, status, recovery) => {
      const out = reduce(r, input, { status, recovery });
      const p = status.code === 0 && !status.signal ? r.success : r.failure;
      if (out.changed) {
        ok(out.bytes.length <= p.maxOutputBytes, `${out.bytes.length} > ${p.maxOutputBytes}`);
        equal(text(out).split("[yarp: kept").length, 2, "exactly one omission marker");
      } else {
        deepEqual(out.bytes, input);
      }
      if (input.length === 0) equal(out.bytes.length, 0);
      ok(out.omittedBytes <= out.inputBytes && out.omittedLines <= out.inputLines);
    }),
    { numRuns: 400 },
  );
});

Deno.test("property: different chunk boundaries give identical output", () => {
  fc.assert(
    fc.property(
      ruleArb,
      inputArb,
      statusArb,
      fc.integer({ min: 1, max: 97 }),
      (r, input, status, chunkSize) => {
        const whole = reduce(r, input, { status });
        const chunked = reduce(r, input, { status, chunkSize });
        deepEqual(chunked, whole);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("property: short streams that fit every limit stay exact", () => {
  fc.assert(
    fc.property(
      policyArb,
      fc.array(fc.string({ unit: fc.constantFrom("a", "b", " ", "é"), maxLength: 60 }), {
        maxLength: 12,
      }),
      (p, ls) => {
        const input = te.encode(ls.map((l) => l + "\n").join(""));
        fc.pre(ls.length <= p.headLines + p.tailLines && input.length <= p.maxOutputBytes);
        const out = reduce(rule({ kind: "head_tail" }, p), input);
        equal(out.changed, false);
        deepEqual(out.bytes, input);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("property: retained state never exceeds the declared bound", () => {
  fc.assert(
    fc.property(
      ruleArb,
      fc.array(inputArb, { minLength: 1, maxLength: 4 }),
      fc.integer({ min: 1, max: 4096 }),
      (r, parts, chunkSize) => {
        const input = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        let at = 0;
        for (const p of parts) {
          input.set(p, at);
          at += p.length;
        }
        reduce(r, input, { chunkSize }); // asserts retainedBytes ≤ bound after every push
      },
    ),
    { numRuns: 200 },
  );
});

/**
 * The candidates a naive line_filter keeps: split at LF, strip each line one
 * byte at a time (the state machine without its fast path), then drop, then
 * keep, every pattern compiled on its own; then the lines filtered out that
 * the classifier calls diagnostics (by their content), which follow the
 * head (`kept` holds both, `keptLines` counts the candidates,
 * `evidenceLines` the others). The classifier reads a line as shown, so a
 * marker word that a sequence splits (`err\x1b[1mor`) counts, with or
 * without `stripAnsi`.
 */
function naiveCandidates(spec: ReducerSpec & { kind: "line_filter" }, input: Uint8Array) {
  const drop = spec.drop.map((p) => new LineMatcher(p));
  const keep = spec.keep.map((p) => new LineMatcher(p));
  const kept: number[] = [];
  const evidence: number[] = [];
  let keptLines = 0;
  let evidenceLines = 0;
  let total = 0;
  let start = 0;
  while (start < input.length) {
    const lf = input.indexOf(10, start);
    const next = lf === -1 ? input.length : lf + 1;
    let end = lf === -1 ? input.length : lf;
    if (lf !== -1 && end > start && input[end - 1] === 13) end--;
    let content = input.slice(start, end);
    if (spec.stripAnsi) {
      const s = new AnsiStripper();
      const out = new Uint8Array(content.length);
      let at = 0;
      for (let i = 0; i < content.length; i++) at = s.strip(content, i, i + 1, out, at);
      content = out.slice(0, at);
    }
    const m = (x: LineMatcher) => x.matches(content, 0, content.length);
    if (!drop.some(m) && (keep.length === 0 || keep.some(m))) {
      kept.push(...content, ...input.subarray(end, next));
      keptLines++;
    } else if (diagnosticForm(content, 0, content.length) !== NOT_DIAGNOSTIC) {
      evidence.push(...content, ...input.subarray(end, next));
      evidenceLines++;
    }
    total++;
    start = next;
  }
  return { kept: new Uint8Array([...kept, ...evidence]), keptLines, evidenceLines, total };
}

/**
 * Checks that, under a policy wide enough to keep every candidate, `line_filter` keeps exactly
 * the lines {@link naiveCandidates} keeps, whatever the chunk size.
 */
function agreesWithNaive(
  specArb: fc.Arbitrary<ReducerSpec & { kind: "line_filter" }>,
  inputArb: fc.Arbitrary<Uint8Array>,
): void {
  const wide = policy({
    headLines: 500,
    tailLines: 0,
    maxLineBytes: 4096,
    maxOutputBytes: 1 << 20,
  });
  fc.assert(
    fc.property(specArb, inputArb, fc.integer({ min: 1, max: 300 }), (s, bytes, chunkSize) => {
      const { kept, keptLines, evidenceLines, total } = naiveCandidates(s, bytes);
      const out = reduce(rule(s, wide), bytes, { chunkSize });
      equal(out.inputLines, total);
      // Unchanged output is the exact input: the marker alone would not have saved a byte.
      if (!out.changed) return deepEqual(out.bytes, bytes);
      equal(out.omittedLines, total - keptLines - evidenceLines);
      deepEqual(out.bytes.subarray(0, kept.length), kept);
      match(td.decode(out.bytes.subarray(kept.length)), /^\n?\[yarp: kept [\d,]+ of/);
    }),
    { numRuns: 500 },
  );
}

/** `line_filter` specs of up to `maxDrop` drop and `keepLength` keep patterns with one of `values` each. */
function filterSpecArb(
  values: string[],
  maxDrop: number,
  keepLength: { minLength: number; maxLength: number },
) {
  const pattern = fc.record({
    kind: fc.constantFrom("exact", "prefix", "suffix", "contains"),
    value: fc.constantFrom(...values),
    caseMode: fc.constantFrom("sensitive", "ascii_insensitive"),
    trim: fc.constantFrom("none", "start", "both"),
  }) as fc.Arbitrary<LinePattern>;
  return fc.record({
    kind: fc.constant("line_filter" as const),
    stripAnsi: fc.boolean(),
    drop: fc.array(pattern, { maxLength: maxDrop }),
    keep: fc.array(pattern, keepLength),
  });
}

Deno.test("property: line_filter keeps exactly the lines a naive filter keeps", () => {
  const values = ["err", "error", "r:", "ab", "A", "x\x1b", "[3", "e r"];
  const spec = filterSpecArb(values, 2, { minLength: 1, maxLength: 3 });
  const unit = fc.constantFrom(
    "a",
    "b",
    "A",
    " ",
    "e",
    "r",
    "o",
    "E",
    "R",
    ":",
    "x",
    "\x1b",
    "[",
    "3",
    "1",
    "m",
    ";",
    "\r",
    "\x1b[31m",
    "\x1b[0m",
    "err\x1b[1mor",
    "\x1b]8;;u\x07",
    "\xff",
  );
  const input = fc.array(
    fc.tuple(fc.string({ unit, maxLength: 30 }), fc.constantFrom("\n", "\r\n")),
    {
      maxLength: 150,
    },
  ).map((ls) => Uint8Array.from(ls.map(([l, e]) => l + e).join(""), (c) => c.charCodeAt(0) & 0xff));
  agreesWithNaive(spec, input);
});

/** Drop-only specs with values like the built-in rules' (trimmed prefixes, suffixes, `contains`). */
const dropOnlyArb = filterSpecArb(
  ["ok ", "PASS", "✓ ", "Compiling ", "err", "r:", "ab", "A", "x\x1b", " ... ok"],
  10,
  { minLength: 0, maxLength: 0 },
);

/** Lines that the drop patterns above often match, with ANSI colour, CRLF and stray ESC and CR. */
const dropInputArb = fc.array(
  fc.tuple(
    fc.string({
      unit: fc.constantFrom(
        "a",
        "b",
        "A",
        " ",
        "\t",
        "ok ",
        "PASS",
        "✓ ",
        "Compiling ",
        "err",
        "r:",
        " ... ok",
        "\x1b",
        "\x1b[32m",
        "\x1b[0m",
        "\x1b]8;;u\x07",
        "\r",
        "\xff",
      ),
      maxLength: 12,
    }),
    fc.constantFrom("\n", "\r\n"),
  ),
  { maxLength: 200 },
).map((ls) => Uint8Array.from(ls.map(([l, e]) => l + e).join(""), (c) => c.charCodeAt(0) & 0xff));

Deno.test("property: drop-only line_filter keeps exactly the lines a naive filter keeps", () => {
  agreesWithNaive(dropOnlyArb, dropInputArb);
});

Deno.test("property: drop-only line_filter reads whole chunks as it reads line by line", () => {
  // One-byte chunks hold no complete line, so every line goes through the splitter one by one;
  // larger chunks go through the bulk walk, including the tail ring's survivors.
  const small = fc.record({
    headLines: fc.integer({ min: 0, max: 4 }),
    tailLines: fc.integer({ min: 0, max: 4 }),
    maxLineBytes: fc.integer({ min: 1, max: 40 }),
    maxOutputBytes: fc.integer({ min: 1024, max: 1100 }),
    minSavingsBytes: fc.constant(0),
  });
  fc.assert(
    fc.property(
      dropOnlyArb,
      small,
      small,
      dropInputArb,
      statusArb,
      fc.integer({ min: 2, max: 5000 }),
      (s, success, failure, bytes, status, size) => {
        const r = rule(s, success, failure);
        const byLine = reduce(r, bytes, { status, chunkSize: 1 });
        deepEqual(reduce(r, bytes, { status }), byLine);
        deepEqual(reduce(r, bytes, { status, chunkSize: size }), byLine);
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("drop-only filter: runs of coloured lines longer than a strip window keep the naive lines", () => {
  // 3,000 lines of about 40 bytes in one chunk: windows fill by line count and by bytes, end at
  // plain lines, and restart after the lines the tail ring's survivors skip.
  const input = te.encode(lines(3000, (i) => {
    if (i % 97 === 0) return `plain ${i}`;
    return i % 5 === 0
      ? `\x1b[31mFAILED\x1b[0m case ${i}\r`
      : `\x1b[3${i % 8}m\x1b[1mtest t${i} ... \x1b[32mok\x1b[0m`;
  }));
  const spec = {
    kind: "line_filter" as const,
    stripAnsi: true,
    drop: [pat("suffix", " ... ok", { trim: "both" })],
    keep: [],
  };
  const { kept, keptLines, evidenceLines, total } = naiveCandidates(spec, input);
  const wide = policy({ headLines: 1000, tailLines: 0, maxOutputBytes: 1 << 20 });
  const out = reduce(rule(spec, wide), input, { chunkSize: input.length });
  equal(out.inputLines, total);
  equal(out.omittedLines, total - keptLines - evidenceLines);
  deepEqual(out.bytes.subarray(0, kept.length), kept);
  const ringed = reduce(rule(spec, policy({ headLines: 3, tailLines: 3 })), input, {
    chunkSize: input.length,
  });
  deepEqual(
    ringed,
    reduce(rule(spec, policy({ headLines: 3, tailLines: 3 })), input, { chunkSize: 1 }),
  );
});

Deno.test("drop-only filter: a CR before the LF is the ending unless a string swallowed it", () => {
  const input = "\x1b[1mkeep a\x1b[0m\r\n" + `drop\x1b[m ${"x".repeat(200)}\r\n` +
    "\x1b[1mkeep b\r\x1b[m\n" + "\x1b]t\x07keep c\x1b]x\r\n" + "\x1b[1mkeep d\x1b[1\r\n";
  const r = rule(filter({ stripAnsi: true, drop: [pat("prefix", "drop")] }));
  for (const chunkSize of [0, 1, 7, 64]) {
    equal(
      text(reduce(r, input, { chunkSize })),
      "keep a\r\nkeep b\r\nkeep c\r\nkeep d\r\n" +
        "[yarp: kept 4 of 5 lines · omitted 1 line (210 bytes)]\r\n",
      `chunk ${chunkSize}`,
    );
  }
});

Deno.test("drop-only filter: lines the tail ring evicts are counted, stripped where they hold ESC", () => {
  const input = lines(200, (i) => (i % 3 === 0 ? `dr\x1b[1mop ${i}` : `\x1b[2mrow\x1b[0m ${i}`));
  const r = rule(
    filter({ stripAnsi: true, drop: [pat("prefix", "drop")] }),
    policy({ headLines: 1, tailLines: 2 }),
  );
  equal(
    text(reduce(r, input)),
    "row 1\n[yarp: kept 3 of 200 lines · omitted 197 lines (2,843 bytes)]\nrow 197\nrow 199\n",
  );
});

// head_tail keeps the classifier's diagnostics from the middle it omits (issue 24).

const isDiagnosticLine = (line: string) => {
  const b = te.encode(line);
  return diagnosticForm(b, 0, b.length) !== NOT_DIAGNOSTIC;
};

/** The count the omitted-diagnostics note states, 0 without one. */
function noted(out: string): number {
  const m = out.match(/\[yarp: ([\d,]+) omitted lines? carr(?:y|ies) error or warning markers\]/);
  return m === null ? 0 : Number(m[1].replaceAll(",", ""));
}

const DIAGNOSTICS = [
  "src/a.ts(3,5): error TS2322: Type 'string' is not assignable",
  "main.c:3:9: error: expected ';'",
  "warning: unused variable `x`",
  "× expected ',' but instead found ':'",
  "npm ERR! code ELIFECYCLE",
  "make: *** [all] Error 2",
  "Traceback (most recent call last):",
  "--- FAIL: TestParse (0.00s)",
  "x.go:3:4: undefined: foo",
  "TypeError: x is not a function",
  "e: src/A.kt: (3, 5): unresolved reference: foo",
  "E       assert 1 == 2",
  "✕ parses the header (3 ms)",
  "● suite › parses the header",
  "  --> src/main.rs:3:9",
  "make: *** No rule to make target 'x'.  Stop.",
  "npm ERR! missing script: build",
];
const PLAIN = [
  "ok",
  "Compiling crate v0.1.0",
  "remote: Counting objects: 10",
  "a/b.ts:12:export class E",
];

Deno.test("head_tail: a diagnostic in the skipped middle is shown on success", () => {
  const rows = Array.from({ length: 5000 }, (_, i) => `progress ${i}`);
  rows[2500] = "src/a.ts(3,5): error TS2322: Type 'string' is not assignable";
  const input = te.encode(rows.join("\n") + "\n");
  const out = td.decode(reduce(rule(), input, { status: OK, chunkSize: 65536 }).bytes);
  ok(out.includes(rows[2500] + "\n"), out);
  equal(noted(out), 0);
  ok(out.indexOf("progress 2") < out.indexOf("error TS2322"));
  ok(out.indexOf("error TS2322") < out.indexOf("progress 4999"));
});

Deno.test("head_tail: diagnostics beyond the failure budget are counted", () => {
  const rows = Array.from({ length: 3000 }, (_, i) => `main.c:${i}:9: error: expected ';'`);
  const input = te.encode(rows.join("\n") + "\n");
  const out = td.decode(reduce(rule(), input, { status: FAIL, chunkSize: 4096 }).bytes);
  ok(out.length <= 1024);
  const shown = rows.filter((l) => out.includes(l + "\n")).length;
  equal(noted(out), rows.length - shown);
});

Deno.test("property: head_tail shows every diagnostic line or counts it as omitted", () => {
  const lineArb = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...DIAGNOSTICS) },
    { weight: 6, arbitrary: fc.constantFrom(...PLAIN) },
  );
  fc.assert(
    fc.property(
      fc.array(fc.tuple(lineArb, fc.nat(99_999)), { maxLength: 600 }),
      fc.integer({ min: 0, max: 20 }),
      fc.integer({ min: 0, max: 20 }),
      fc.integer({ min: 1024, max: 8192 }),
      fc.boolean(),
      fc.integer({ min: 1, max: 5000 }),
      (rows, head, tail, failureBytes, failed, chunkSize) => {
        // A unique suffix tells equal lines apart; it keeps the line's form.
        const inputLines = rows.map(([l, n]) => `${l} #${n}`);
        const input = te.encode(inputLines.map((l) => l + "\n").join(""));
        const success = policy({ headLines: head, tailLines: tail });
        const failure = policy({ headLines: head, tailLines: tail, maxOutputBytes: failureBytes });
        const out = td.decode(
          reduce(rule({ kind: "head_tail" }, success, failure), input, {
            status: failed ? FAIL : OK,
            chunkSize,
          }).bytes,
        );
        ok(out.length <= failureBytes);
        const outLines = new Set(out.split("\n"));
        const diagnostics = inputLines.filter(isDiagnosticLine);
        const missing = diagnostics.filter((l) => !outLines.has(l)).length;
        ok(missing <= noted(out), `${missing} missing, ${noted(out)} counted`);
        ok(noted(out) <= diagnostics.length);
      },
    ),
    { numRuns: 300 },
  );
});

// line_filter keeps the diagnostics it filters out (issue 24).

Deno.test("line_filter: a diagnostic that drop or keep removes is kept where the head ends", () => {
  const rows = Array.from({ length: 4000 }, (_, i) => `progress ${i}`);
  rows[10] = "make: *** [all] Error 2";
  rows[2000] = "src/a.ts(3,5): error TS2322: Type 'string' is not assignable";
  const input = te.encode(rows.join("\n") + "\n");
  for (
    const spec of [
      filter({ drop: [pat("contains", "a")] }),
      filter({ keep: [pat("prefix", "progress 1")] }),
    ]
  ) {
    for (const chunkSize of [0, 4096, 65536]) {
      const out = td.decode(reduce(rule(spec), input, { status: OK, chunkSize }).bytes);
      ok(out.includes(rows[10] + "\n"), out);
      ok(out.includes(rows[2000] + "\n"), out);
      equal(noted(out), 0);
      ok(out.indexOf("make: ***") < out.indexOf("error TS2322"));
    }
  }
});

Deno.test("line_filter: filtered-out diagnostics beyond the failure budget are counted", () => {
  const rows = Array.from({ length: 3000 }, (_, i) => `main.c:${i}:9: error: expected ';'`);
  const input = te.encode(rows.join("\n") + "\nok\n");
  const spec = filter({ keep: [pat("exact", "ok")] });
  const out = td.decode(reduce(rule(spec), input, { status: OK, chunkSize: 4096 }).bytes);
  ok(out.length <= 1024);
  const shown = rows.filter((l) => out.includes(l + "\n")).length;
  ok(shown > 0);
  equal(noted(out), rows.length - shown);
});

Deno.test("property: line_filter shows every diagnostic line or counts it as omitted", () => {
  const lineArb = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...DIAGNOSTICS) },
    { weight: 6, arbitrary: fc.constantFrom(...PLAIN) },
  );
  const spec = filterSpecArb(["error", "e", "o", "ok", "m", ":", "#1", "3"], 2, {
    minLength: 0,
    maxLength: 2,
  });
  fc.assert(
    fc.property(
      fc.array(fc.tuple(lineArb, fc.nat(99_999)), { maxLength: 600 }),
      spec,
      fc.integer({ min: 0, max: 20 }),
      fc.integer({ min: 0, max: 20 }),
      fc.integer({ min: 1024, max: 8192 }),
      fc.boolean(),
      fc.integer({ min: 1, max: 5000 }),
      (rows, s, head, tail, failureBytes, failed, chunkSize) => {
        // A unique suffix tells equal lines apart; it keeps the line's form.
        const inputLines = rows.map(([l, n]) => `${l} #${n}`);
        const input = te.encode(inputLines.map((l) => l + "\n").join(""));
        const success = policy({ headLines: head, tailLines: tail });
        const failure = policy({ headLines: head, tailLines: tail, maxOutputBytes: failureBytes });
        const out = td.decode(
          reduce(rule(s, success, failure), input, { status: failed ? FAIL : OK, chunkSize }).bytes,
        );
        ok(out.length <= failureBytes);
        const outLines = new Set(out.split("\n"));
        const diagnostics = inputLines.filter(isDiagnosticLine);
        const missing = diagnostics.filter((l) => !outLines.has(l)).length;
        ok(missing <= noted(out), `${missing} missing, ${noted(out)} counted`);
        ok(noted(out) <= diagnostics.length);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("line_filter: a coloured diagnostic is classified as shown, ANSI removed", () => {
  const red = "\x1b[1m\x1b[31merror[E0308]\x1b[0m: mismatched types";
  const input = lines(30, (i) => `   Compiling c${i}`) + red + "\n" +
    lines(30, (i) => `   Compiling d${i}`);
  const spec = filter({ stripAnsi: true, drop: [pat("prefix", "Compiling", { trim: "start" })] });
  for (const chunkSize of [0, 7, 300]) {
    const out = td.decode(reduce(rule(spec), input, { chunkSize }).bytes);
    ok(out.includes("error[E0308]: mismatched types\n"), out);
  }
  const hidden = filter({ stripAnsi: true, drop: [pat("contains", "mismatched")] });
  const out = td.decode(reduce(rule(hidden), input + lines(30)).bytes);
  ok(out.includes("error[E0308]: mismatched types\n"), out);
});
