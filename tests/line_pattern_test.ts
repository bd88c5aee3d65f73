/**
 * Literal byte line patterns: every kind, case mode and trim, ASCII-only
 * folding, invalid UTF-8 and NUL, and `contains` against a naive reference.
 */
import { equal, throws } from "node:assert/strict";
import fc from "fast-check";
import { LineMatcher, linePatternRetainedBytes, LinePatternSet } from "../lib/bytes/mod.ts";
import type { LinePattern, PatternCase, PatternKind, PatternTrim } from "../lib/rules/model.ts";

const te = new TextEncoder();

function pattern(
  kind: PatternKind,
  value: string,
  caseMode: PatternCase = "sensitive",
  trim: PatternTrim = "none",
): LinePattern {
  return { kind, value, caseMode, trim };
}

function test(p: LinePattern, line: string | Uint8Array): boolean {
  const bytes = typeof line === "string" ? te.encode(line) : line;
  // Surround the line with other bytes to check that the range is respected.
  const buf = new Uint8Array(bytes.length + 4);
  buf.set([0x41, 0x41], 0);
  buf.set(bytes, 2);
  buf.set([0x41, 0x41], bytes.length + 2);
  return new LineMatcher(p).matches(buf, 2, bytes.length + 2);
}

Deno.test("pattern: kinds, case modes and trims", () => {
  const rows: [LinePattern, string, boolean][] = [
    [pattern("exact", "ok"), "ok", true],
    [pattern("exact", "ok"), "ok ", false],
    [pattern("exact", "ok"), "OK", false],
    [pattern("exact", "ok", "ascii_insensitive"), "OK", true],
    [pattern("exact", "ok", "sensitive", "start"), " \tok", true],
    [pattern("exact", "ok", "sensitive", "start"), " ok ", false],
    [pattern("exact", "ok", "sensitive", "both"), " \tok \t", true],
    [pattern("exact", "ok", "sensitive", "both"), "   ", false],
    [pattern("prefix", "Compiling "), "Compiling foo", true],
    [pattern("prefix", "Compiling "), "  Compiling foo", false],
    [pattern("prefix", "Compiling ", "sensitive", "start"), "  Compiling foo", true],
    [pattern("prefix", "compiling ", "ascii_insensitive", "start"), "\tCOMPILING x", true],
    [pattern("prefix", "Compiling "), "Compiling", false],
    [pattern("suffix", "done"), "all done", true],
    [pattern("suffix", "done"), "all done  ", false],
    [pattern("suffix", "done", "sensitive", "both"), "all done  ", true],
    [pattern("suffix", "done", "sensitive", "start"), "all done  ", false],
    [pattern("contains", "test result:"), "x test result: ok", true],
    [pattern("contains", "test result:"), "test result", false],
    [pattern("contains", "ERROR", "ascii_insensitive"), "an error here", true],
    [pattern("contains", "aab"), "aaab", true],
    [pattern("contains", "abab"), "abaabab", true],
    [pattern("contains", "abab"), "abaaba", false],
    [pattern("contains", "x"), "", false],
  ];
  for (const [p, line, expected] of rows) {
    equal(test(p, line), expected, `${JSON.stringify(p)} on ${JSON.stringify(line)}`);
  }
});

Deno.test("pattern: ascii_insensitive folds only A–Z", () => {
  const insensitive = (v: string, line: string) =>
    test(pattern("exact", v, "ascii_insensitive"), line);
  equal(insensitive("é", "É"), false);
  equal(insensitive("straße", "STRASSE"), false);
  equal(insensitive("i", "İ"), false);
  equal(insensitive("[a]", "[A]"), true);
  equal(insensitive("@", "`"), false); // 0x40 and 0x60 differ by the fold bit but are not letters
  equal(insensitive("[", "{"), false);
  equal(insensitive("Mixed Case", "mIXED cASE"), true);
});

Deno.test("pattern: invalid UTF-8 and NUL bytes in a line match literally", () => {
  const line = new Uint8Array([0xff, 0x00, 0x65, 0x72, 0x72, 0x00, 0xc3]);
  equal(test(pattern("contains", "err"), line), true);
  equal(test(pattern("contains", "ERR", "ascii_insensitive"), line), true);
  equal(test(pattern("prefix", "err"), line), false);
  // "é" is C3 A9: a line holding only the lead byte does not match it.
  equal(test(pattern("suffix", "é"), line), false);
  equal(test(pattern("suffix", "é"), new Uint8Array([0x61, 0xc3, 0xa9])), true);
});

Deno.test("pattern: an empty value is rejected; retained bytes are as declared", () => {
  throws(() => new LineMatcher(pattern("exact", "")), RangeError);
  for (const p of [pattern("contains", "héllo"), pattern("prefix", "héllo")]) {
    equal(new LineMatcher(p).retainedBytes(), linePatternRetainedBytes(p));
  }
});

Deno.test("pattern set: any-of, empty set matches nothing", () => {
  const set = new LinePatternSet([pattern("prefix", "warning:"), pattern("contains", "error")]);
  const m = (s: string) => set.matchesAny(te.encode(s), 0, te.encode(s).length);
  equal(set.size, 2);
  equal(m("warning: x"), true);
  equal(m("an error"), true);
  equal(m("fine"), false);
  equal(new LinePatternSet([]).matchesAny(te.encode("x"), 0, 1), false);
});

const fold = (b: number) => (b >= 0x41 && b <= 0x5a ? b + 0x20 : b);

function naive(
  kind: PatternKind,
  needle: Uint8Array,
  line: Uint8Array,
  insensitive: boolean,
  trim: PatternTrim,
): boolean {
  const f = (b: number) => (insensitive ? fold(b) : b);
  let s = 0;
  let e = line.length;
  const blank = (b: number) => b === 0x20 || b === 0x09;
  if (trim !== "none") { while (s < e && blank(line[s])) s++; }
  if (trim === "both") { while (e > s && blank(line[e - 1])) e--; }
  const eqAt = (at: number) => needle.every((b, i) => f(line[at + i]) === f(b));
  const n = needle.length;
  if (e - s < n) return false;
  if (kind === "exact") return e - s === n && eqAt(s);
  if (kind === "prefix") return eqAt(s);
  if (kind === "suffix") return eqAt(e - n);
  for (let at = s; at + n <= e; at++) if (eqAt(at)) return true;
  return false;
}

Deno.test("property: every kind agrees with a naive reference", () => {
  const alphabet = fc.constantFrom("a", "b", "A", "B", " ", "\t", "é");
  fc.assert(
    fc.property(
      fc.constantFrom<PatternKind>("exact", "prefix", "suffix", "contains"),
      fc.constantFrom<PatternCase>("sensitive", "ascii_insensitive"),
      fc.constantFrom<PatternTrim>("none", "start", "both"),
      fc.array(alphabet, { minLength: 1, maxLength: 5 }).map((a) => a.join("")),
      fc.array(alphabet, { maxLength: 24 }).map((a) => a.join("")),
      (kind, caseMode, trim, value, line) => {
        const p = pattern(kind, value, caseMode, trim);
        const bytes = te.encode(line);
        equal(
          test(p, bytes),
          naive(kind, te.encode(value), bytes, caseMode === "ascii_insensitive", trim),
        );
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("property: a pattern set matches exactly when one of its patterns does", () => {
  const alphabet = fc.constantFrom("a", "b", "A", " ", "\t", "é", "✓");
  const value = fc.array(alphabet, { minLength: 1, maxLength: 4 }).map((a) => a.join(""));
  const p = fc.tuple(
    fc.constantFrom<PatternKind>("exact", "prefix", "suffix", "contains"),
    value,
    fc.constantFrom<PatternCase>("sensitive", "ascii_insensitive"),
    fc.constantFrom<PatternTrim>("none", "start", "both"),
  ).map(([kind, v, caseMode, trim]) => pattern(kind, v, caseMode, trim));
  fc.assert(
    fc.property(
      fc.array(p, { maxLength: 20 }),
      fc.array(alphabet, { maxLength: 16 }).map((a) => a.join("")),
      (patterns, line) => {
        const bytes = te.encode(line);
        const expected = patterns.some((q) => test(q, bytes));
        equal(new LinePatternSet(patterns).matchesAny(bytes, 0, bytes.length), expected);
      },
    ),
    { numRuns: 2000 },
  );
});
