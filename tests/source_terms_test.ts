/**
 * `sourceTerms` (lib/reduce/source_terms.ts): a table of search commands
 * and the literal terms they look for, and a property that it never throws
 * and keeps its bounds for any argv.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  MAX_TERM_BYTES,
  MAX_TERMS,
  MIN_TERM_BYTES,
  sourceTerms,
} from "../lib/reduce/source_terms.ts";

/** [argv, terms, ignoreCase]; no terms is written as []. */
const CASES: [string[], string[], boolean?][] = [
  // grep: the pattern operand after options, options with values skipped.
  [["grep", "-rn", "parse", "src"], ["parse"]],
  [["/usr/bin/grep", "-rn", "parse", "src"], ["parse"]],
  [["grep", "-m", "5", "-A", "3", "needle", "f"], ["needle"]],
  [["grep", "-rnA3", "needle", "f"], ["needle"]],
  [["grep", "-C2", "--include=*.ts", "--exclude-dir", "node_modules", "needle"], ["needle"]],
  [["grep", "-r", "--max-count=2", "needle", "--include", "*.ts", "src"], ["needle"]],
  [["grep", "src", "-e", "one", "--regexp=two", "-etwo"], ["one", "two"]],
  [["grep", "-rne", "one", "src"], ["one"]],
  [["grep", "needle", "-r", "src"], ["needle"]],
  [["grep", "-r", "--", "-x", "src"], ["-x"]],
  [["grep", "-5", "needle"], ["needle"]],
  // basic regex: `\|` splits, `|` and `+` are literal, escapes undone, other metacharacters drop.
  [["grep", "-rn", "foo\\|bar\\.baz\\|a.*b\\|x+y", "."], ["foo", "bar.baz", "x+y"]],
  [["grep", "a|b"], ["a|b"]],
  [["grep", "\\(foo\\|bar\\)x\\|baz"], ["baz"]],
  [["grep", "one\ntwo"], ["one", "two"]],
  [["grep", "foo\\|[ab]"], []],
  [["grep", "foo\\w"], []],
  [["grep", "foo\\)"], []],
  // extended and fixed.
  [["grep", "-E", "foo|bar|(baz|qux)z"], ["foo", "bar"]],
  [["egrep", "foo|bar\\?"], ["foo", "bar?"]],
  [["grep", "-E", "foo|"], ["foo"]],
  [["grep", "-F", "a.b|c*"], ["a.b|c*"]],
  [["fgrep", "x.y\nz.w"], ["x.y", "z.w"]],
  [["grep", "-F", "-E", "x"], []],
  [["fgrep", "-E", "x"], []],
  [["grep", "-P", "foo|b\\.r"], ["foo", "b.r"]],
  // case.
  [["grep", "-i", "Needle"], ["Needle"], true],
  [["grep", "-ri", "needle", "."], ["needle"], true],
  [["grep", "-i", "--no-ignore-case", "needle"], ["needle"], false],
  [["grep", "--ignore-case", "needle"], ["needle"], true],
  // nothing to read.
  [["grep", "-v", "needle"], []],
  [["grep", "-f", "patterns.txt", "src"], []],
  [["grep", "-f", "patterns.txt", "-e", "one", "src"], ["one"]],
  [["grep", "--frobnicate", "needle"], []],
  [["grep", "-Q", "needle"], []],
  [["grep", "--reg=x", "needle"], []],
  [["grep", "-e"], []],
  [["grep"], []],
  [["grep", "-r"], []],
  [["grep", "a", "src"], []],
  [["grep", "x".repeat(MAX_TERM_BYTES + 1)], []],
  [["grep", "x".repeat(MAX_TERM_BYTES)], ["x".repeat(MAX_TERM_BYTES)]],
  [["sed", "-n", "p"], []],
  [[], []],
  // git grep: options stop at the first operand.
  [["git", "grep", "-n", "needle", "--", "src"], ["needle"]],
  [["git", "grep", "-E", "-e", "one|two", "HEAD"], ["one", "two"]],
  [["git", "grep", "one\\|two"], ["one", "two"]],
  [["git", "grep", "needle", "-i"], ["needle"], false],
  [["git", "grep", "-e", "a", "--and", "-e", "bb"], []],
  [["git", "grep", "(", "-e", "aa", ")"], []],
  [["git", "log", "needle"], []],
  [["git", "-C", "x", "grep", "needle"], []],
  // rg: Rust syntax, -E is the encoding, smart case.
  [["rg", "-n", "foo|bar\\(", "src"], ["foo", "bar("]],
  [["rg", "-g", "*.ts", "-t", "ts", "--type", "rust", "-m", "3", "needle"], ["needle"]],
  [["rg", "-E", "utf-8", "needle"], ["needle"]],
  [["rg", "-F", "a|b.c"], ["a|b.c"]],
  [["rg", "-S", "needle"], ["needle"], true],
  [["rg", "-S", "Needle"], ["Needle"], false],
  [["rg", "--smart-case", "-e", "one", "-e", "Two"], ["one", "Two"], false],
  [["rg", "-i", "-s", "needle"], ["needle"], false],
  [["rg", "-r", "x", "needle"], []],
  [["rg", "--files"], []],
  [["rg", "one\ntwo"], []],
  // ag: smart case by default, -Q literal; ack: --match.
  [["ag", "needle"], ["needle"], true],
  [["ag", "Needle|other"], ["Needle", "other"], false],
  [["ag", "-Q", "a.b"], ["a.b"], true],
  [["ag", "-G", "\\.ts$", "needle"], ["needle"], true],
  [["ack", "--match", "needle"], ["needle"]],
  [["ack", "-i", "needle", "lib"], ["needle"], true],
  [["ack", "-f"], []],
];

Deno.test("sourceTerms reads the literal terms of each search command", () => {
  for (const [argv, terms, ignoreCase] of CASES) {
    const got = sourceTerms(argv);
    assert.deepEqual(got.terms, terms, JSON.stringify(argv));
    if (ignoreCase !== undefined) assert.equal(got.ignoreCase, ignoreCase, JSON.stringify(argv));
  }
});

Deno.test("sourceTerms keeps at most MAX_TERMS terms, in order", () => {
  const words = Array.from({ length: MAX_TERMS + 4 }, (_, i) => `term${i}`);
  assert.deepEqual(sourceTerms(["grep", words.join("\\|")]).terms, words.slice(0, MAX_TERMS));
});

Deno.test("property: sourceTerms never throws and keeps its bounds", () => {
  const programs = fc.constantFrom("grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "x");
  const word = fc.oneof(
    fc.constantFrom("-e", "-i", "-E", "-F", "-S", "--", "-rn", "-A", "grep", "(", "-v", "-f"),
    fc.string({ maxLength: 90, unit: fc.constantFrom("a", "B", "|", "\\", ".", "\n", "(", ")") }),
    fc.string({ maxLength: 80, unit: "grapheme" }),
  );
  fc.assert(
    fc.property(programs, fc.array(word, { maxLength: 8 }), (program, rest) => {
      const { terms, ignoreCase } = sourceTerms([program, ...rest]);
      assert.ok(terms.length <= MAX_TERMS);
      assert.equal(typeof ignoreCase, "boolean");
      assert.equal(new Set(terms).size, terms.length);
      for (const term of terms) {
        const bytes = new TextEncoder().encode(term).length;
        assert.ok(bytes >= MIN_TERM_BYTES && bytes <= MAX_TERM_BYTES);
      }
    }),
    { numRuns: 2000 },
  );
});
