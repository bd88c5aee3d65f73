/**
 * The line-evidence classifier (lib/reduce/evidence.ts): each flag on real
 * forms, the byte and text forms agreeing, the diagnostic marker agreeing
 * with its documented regular-expression definition, the byte screen in
 * front of the form expressions never hiding a match, and offsets not
 * mattering.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  classifyLine,
  classifyText,
  classifyUnmarkedLine,
  DIAGNOSTIC_ANCHORS,
  diagnosticForm,
  Evidence,
  EXACT_FORM_WORDS,
  FOLDED_FORM_WORDS,
  formFlags,
  formFlagsOfText,
  hasDiagnosticMarker,
  isDiagnosticText,
  isPassingLine,
  isQuietMarkerLine,
  MANDATORY,
  MARKER_WORDS,
  NOT_DIAGNOSTIC,
  NOTICE_WINDOW_BYTES,
} from "../lib/reduce/evidence.ts";
import { trieAlternation, WordCandidates } from "../lib/reduce/_word_candidates.ts";

const enc = new TextEncoder();

function has(line: string, flag: number): boolean {
  return (classifyText(line) & flag) !== 0;
}

Deno.test("host truncation notices are mandatory evidence", () => {
  for (
    const line of [
      "... [123 lines truncated] ...",
      "... [1,204 lines truncated] ...",
      "....stripped due to length....",
      "<persisted-output>",
      "</persisted-output>",
      "[Showing lines 1-2000 of 5120. Full output: /tmp/pi-bash-1.log]",
      "[Showing last 50.0KB of line 3 (line is 2.1MB). Full output: /tmp/x.log]",
      "[yarp: kept 4 of 100 lines · exact: yarp read 8f2c1a]",
    ]
  ) {
    assert.ok(has(line, Evidence.HostNotice), line);
    assert.ok((classifyText(line) & MANDATORY) !== 0, line);
  }
  for (const line of ["lines truncated without a count", "the [yarp] project"]) {
    assert.ok(!has(line, Evidence.HostNotice), line);
  }
});

Deno.test("exit, signal and timeout notices are outcomes", () => {
  for (
    const line of [
      "Command exited with code 2",
      "Command timed out after 120 seconds",
      "Command aborted",
      "Exit code 1",
      "exit status 2",
      "Segmentation fault (core dumped)",
      "Killed",
      "error: process didn't exit successfully: `target/debug/x` (exit status: 101)",
    ]
  ) assert.ok(has(line, Evidence.Outcome), line);
  for (const line of ["the exit code is documented", "Killed the bug in parser.c"]) {
    assert.ok(!has(line, Evidence.Outcome), line);
  }
});

Deno.test("diagnostic markers: words start a word, names end a camel-case name", () => {
  const cases: [string, boolean][] = [
    ["src/a.c:3:1: error: expected ';'", true],
    ["FAILED tests/test_x.py::test_y - AssertionError", true],
    ["panic: runtime error: index out of range", true],
    ["npm warn deprecated glob@7.2.3", true],
    ["Traceback (most recent call last):", true],
    ["java.io.IOException: closed", true],
    ["DeprecationWarning: x", true],
    ["TypeErrors", false],
    ["_assertStatus", false],
    ["terror is not a marker, nor mirror", false],
    ["  ✔ should handle errors", false],
    ["ok  \tpkg\t0.01s (errors none)", false],
    ["PASS tests/error.test.js", false],
    ["PASSED error", true],
    ["okay, an error", true],
    ["", false],
  ];
  for (const [line, expected] of cases) {
    assert.equal(isDiagnosticText(line), expected, line);
    assert.equal(has(line, Evidence.Diagnostic), expected, line);
  }
});

Deno.test("passing-test lines are recognised after leading white space", () => {
  for (const line of ["✓ adds", "  ✔ parses", "√ ok", "ok 1 - adds", "\u00a0PASS a.test.js"]) {
    const b = enc.encode(line);
    assert.ok(isPassingLine(b, 0, b.length), line);
    assert.ok(has(line, Evidence.Passing), line);
  }
  for (const line of ["okay", "PASSED", "x ✓"]) {
    const b = enc.encode(line);
    assert.ok(!isPassingLine(b, 0, b.length), line);
  }
});

Deno.test("Surefire's clean per-class totals are passing lines, not summaries or failures", () => {
  for (
    const line of [
      "[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.042 s -- in a.BTest",
      "Tests run: 1, Failures: 0, Errors: 0, Skipped: 1, Time elapsed: 0.05 sec - in a.CTest",
    ]
  ) assert.equal(classifyText(line), Evidence.Passing, line);
  // A class with a failure or error is a failure diagnostic; the last totals are the summary.
  for (
    const line of [
      "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! -- in a.DTest",
      "[INFO] Tests run: 3, Failures: 0, Errors: 2, Skipped: 0, Time elapsed: 0.1 s -- in a.ETest",
    ]
  ) {
    assert.equal(classifyText(line), Evidence.Diagnostic | Evidence.Failure, line);
  }
  assert.ok(has("[INFO] Tests run: 8, Failures: 0, Errors: 0, Skipped: 0", Evidence.Summary));
});

Deno.test("test, build and install summaries are summaries, passing marks or not", () => {
  for (
    const line of [
      "test result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
      "     Summary [   0.123s] 10 tests run: 10 passed, 0 skipped",
      "Tests:       1 failed, 5 passed, 6 total",
      "Test Suites: 1 failed, 2 passed, 3 total",
      " Test Files  1 failed | 2 passed (3)",
      "      Tests  2 failed | 10 passed (12)",
      "ℹ tests 10",
      "# fail 1",
      "✔ 4004 passed, 0 failed, 5 skipped",
      "ok | 5 passed | 0 failed (12ms)",
      "  5 passing (12ms)",
      "  1 failing",
      "==================== 3 passed, 1 failed in 0.12s ====================",
      "=========================== short test summary info ============================",
      "ok  \texample.com/m/pkg\t0.012s",
      "FAIL\texample.com/m/pkg\t0.012s",
      "FAIL",
      "100% tests passed, 0 tests failed out of 12",
      "Passed!  - Failed:     0, Passed:    10, Skipped:     0, Total:    10",
      "Tests run: 10, Failures: 0, Errors: 0, Skipped: 0",
      "[INFO] BUILD SUCCESS",
      "BUILD SUCCESSFUL in 3s",
      "Build succeeded.",
      "    0 Warning(s)",
      "Found 3 errors in 2 files.",
      "✖ 5 problems (3 errors, 2 warnings)",
      "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.42s",
      "warning: `demo` (lib) generated 2 warnings",
      "error: could not compile `demo` (lib) due to 1 previous error",
      "added 120 packages, and audited 121 packages in 3s",
      "up to date, audited 5 packages in 300ms",
      "found 0 vulnerabilities",
      "Done in 3.21s.",
      "Packages: +120",
      "Successfully installed six-1.16.0",
      "Installed 5 packages in 3ms",
      "0 upgraded, 5 newly installed, 0 to remove and 3 not upgraded.",
      "make: Nothing to be done for 'all'.",
      "-- Configuring done (0.4s)",
      "-- Generating done",
      "-- Build files have been written to: /home/dev/demo/build",
    ]
  ) assert.ok(has(line, Evidence.Summary), line);
  for (
    const line of ["src/a.ts: 3 lines", "compiling 12 crates", "hello", "-- Looking for pthread.h"]
  ) {
    assert.ok(!has(line, Evidence.Summary), line);
  }
});

/** The documented definition (the corpus metric's former regular expressions). */
function reference(line: string): boolean {
  return (/\b(?:error|fail|panic|warn|traceback|exception|assert)/i.test(line) ||
    /[A-Za-z](?:Error|Exception|Warning)\b/.test(line)) &&
    !/^[ \t\n\v\f\r\u00a0]*(?:[✓✔√]|ok\b|PASS\b)/.test(line);
}

const pieces = fc.constantFrom(
  "error",
  "Error",
  "ERROR",
  "fail",
  "Fail",
  "panic",
  "warn",
  "Warning",
  "traceback",
  "Exception",
  "assert",
  "Assert",
  "ok",
  "PASS",
  "✓",
  "✔",
  "√",
  " ",
  "\t",
  "\u00a0",
  "_",
  "x",
  "Type",
  "é",
  "9",
  ":",
  "-",
  "s",
);

Deno.test("the diagnostic marker agrees with its regular-expression definition", () => {
  fc.assert(
    fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
      const line = parts.join("");
      const bytes = enc.encode(line);
      const marked = hasDiagnosticMarker(bytes, 0, bytes.length) &&
        !isPassingLine(bytes, 0, bytes.length);
      assert.equal(marked, reference(line), JSON.stringify(line));
      // The classifier: a marked line unless a known false positive, or a line of a diagnostic
      // form (which holds a marker or is one of the word-less forms).
      const quiet = isQuietMarkerLine(bytes, 0, bytes.length);
      const form = diagnosticForm(bytes, 0, bytes.length) !== NOT_DIAGNOSTIC;
      const passing = isPassingLine(bytes, 0, bytes.length);
      assert.equal(
        isDiagnosticText(line),
        !passing && (form || (marked && !quiet)),
        JSON.stringify(line),
      );
    }),
    { numRuns: 3000 },
  );
});

Deno.test("classification depends on the line's bytes only, not on where they lie", () => {
  fc.assert(
    fc.property(
      fc.array(pieces, { maxLength: 12 }),
      fc.string({ maxLength: 20 }),
      fc.string({ maxLength: 20 }),
      (parts, before, after) => {
        const line = parts.join("") + " 3 passed";
        const alone = enc.encode(line);
        const a = enc.encode(before + "\n");
        const all = new Uint8Array([...a, ...alone, ...enc.encode("\n" + after)]);
        const flags = classifyLine(all, a.length, a.length + alone.length);
        assert.equal(flags, classifyLine(alone, 0, alone.length));
        assert.equal(flags, classifyText(line));
        assert.equal(
          hasDiagnosticMarker(all, a.length, a.length + alone.length),
          hasDiagnosticMarker(alone, 0, alone.length),
        );
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("notice and summary forms are read only within the notice window", () => {
  const pad = "x".repeat(NOTICE_WINDOW_BYTES);
  assert.ok(has("Tests:  1 failed " + pad, Evidence.Summary));
  assert.ok(!has(pad + " [12 lines truncated]", Evidence.HostNotice));
  // the diagnostic marker is looked for in the whole line
  assert.ok(has(pad + " error: late", Evidence.Diagnostic));
});

Deno.test("warnings alone are diagnostics without the failure flag", () => {
  assert.equal(classifyText("npm warn deprecated x") & (Evidence.Diagnostic | Evidence.Failure), 4);
  assert.equal(classifyText("DeprecationWarning: y") & Evidence.Failure, 0);
  // The form decides: a warning that mentions an error is a warning.
  assert.equal(classifyText("warning: error later") & Evidence.Failure, 0);
  assert.equal(classifyText("warned of an error later") & Evidence.Failure, Evidence.Failure);
  assert.equal(classifyText("src/a.c:1: error: x") & Evidence.Failure, Evidence.Failure);
});

/** Pieces of the notice, outcome and summary forms, and what may stand between them. */
const formPieces = fc.constantFrom(
  "Tests: ",
  "Tests run: ",
  "test result: ",
  "Summary [",
  "# tests ",
  "ℹ pass ",
  "ok",
  "FAIL",
  "PASS",
  "---",
  "===",
  "=",
  "Found ",
  "added ",
  "packages",
  "found ",
  "vulnerabilities (",
  "Done in ",
  "✨ ",
  "✖ ",
  "× ",
  "[100%] Built target ",
  "[Showing lines ",
  "[yarp: ",
  "lines truncated]",
  "output truncated",
  "....stripped due to length....",
  "<persisted-output>",
  "</persisted-output>",
  "KB limit)",
  "Output too large",
  "BUILD SUCCESS",
  "Build succeeded.",
  "Command exited with code ",
  "Exit code ",
  "exit status ",
  "Killed",
  "make: Nothing to be done",
  "ninja: no work to do",
  "-- Configuring done",
  "-- Generating done",
  "-- Build files have been written to: ",
  ", Failures: 0, Errors: 0, ",
  ", Time elapsed: ",
  "[INFO] ",
  "error: ",
  "warning: ",
  " generated ",
  " passed",
  " failed",
  "passing",
  "% tests passed, ",
  " tests failed out of ",
  " (cached)",
  "0.12s",
  "1",
  "42",
  ".",
  " ",
  "  ",
  "\t",
  "\u00a0",
  "\u3000",
  "\ufeff",
  "x",
  "Q",
  "é",
  "-",
  "|",
  "(",
  "[",
);

Deno.test("the form screen never hides a match of the form expressions (property)", () => {
  fc.assert(
    fc.property(fc.array(formPieces, { maxLength: 10 }), (parts) => {
      const bytes = enc.encode(parts.join(""));
      const window = new TextDecoder().decode(bytes.subarray(0, NOTICE_WINDOW_BYTES));
      assert.equal(formFlags(bytes, 0, bytes.length), formFlagsOfText(window), parts.join(""));
    }),
    { numRuns: 5000 },
  );
});

Deno.test("a line with no marker or form word classifies the same unscanned (property)", () => {
  const folded = [...MARKER_WORDS, ...FOLDED_FORM_WORDS, ...DIAGNOSTIC_ANCHORS];
  const holdsWord = (line: string) =>
    folded.some((w) => line.toLowerCase().includes(w)) ||
    EXACT_FORM_WORDS.some((w) => line.includes(w));
  fc.assert(
    fc.property(fc.array(fc.oneof(formPieces, pieces), { maxLength: 10 }), (parts) => {
      const line = parts.join("");
      fc.pre(!holdsWord(line));
      const bytes = enc.encode(line);
      assert.equal(
        classifyUnmarkedLine(bytes, 0, bytes.length),
        classifyLine(bytes, 0, bytes.length),
      );
    }),
    { numRuns: 3000 },
  );
});

Deno.test("the chunk word search finds every line holding a word, across window edges (property)", () => {
  const folded = [...MARKER_WORDS, ...FOLDED_FORM_WORDS];
  const holdsWord = (line: string) =>
    folded.some((w) => line.toLowerCase().includes(w)) ||
    EXACT_FORM_WORDS.some((w) => line.includes(w));
  const filler = fc.constantFrom("x", "ab", " ", "12", "é", "/", "Q", "e", "rr", "o", "r");
  const piece = fc.oneof(
    { weight: 6, arbitrary: filler },
    { weight: 1, arbitrary: fc.constantFrom(...folded, ...EXACT_FORM_WORDS, "ERROR", "Warning") },
  );
  fc.assert(
    fc.property(
      fc.array(fc.array(piece, { maxLength: 30 }).map((p) => p.join("")), { maxLength: 60 }),
      fc.nat(40_000),
      (lines, pad) => {
        // Padding lines move the generated ones across the 16 KiB window edges.
        const all = [...Array.from({ length: pad >> 6 }, () => "-".repeat(63)), ...lines];
        const bytes = enc.encode(all.join("\n") + "\n");
        const candidates = new WordCandidates();
        candidates.search(bytes);
        let start = 0;
        for (const line of all) {
          const end = start + enc.encode(line).length;
          const found = candidates.hasCandidate(start, end);
          if (holdsWord(line)) assert.ok(found, JSON.stringify(line));
          start = end + 1;
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("the chunk word search finds a word lying across a window edge", () => {
  for (const word of ["error", "vulnerabilities", "Warning"]) {
    for (let at = 16_384 - word.length; at <= 16_384; at++) {
      const bytes = enc.encode("y".repeat(at - 1) + " " + word + " z\nplain\n");
      const candidates = new WordCandidates();
      candidates.search(bytes);
      const end = bytes.indexOf(10);
      assert.ok(candidates.hasCandidate(0, end), `${word} at ${at}`);
      assert.ok(!candidates.hasCandidate(end + 1, end + 6), `plain line after ${word} at ${at}`);
    }
  }
});

Deno.test("the chunk word search keeps byte offsets through invalid and multi-byte UTF-8", () => {
  for (
    const lead of [[0xff, 0xfe], [0xe2, 0x9c], [0xc3, 0xa9], [0xf0, 0x9f, 0x98, 0x80], [
      0xef,
      0xbb,
      0xbf,
    ]]
  ) {
    const head = new Uint8Array([...lead, ...enc.encode(" plain\n")]);
    const bytes = new Uint8Array([...head, ...enc.encode("x error y\nplain\n")]);
    const candidates = new WordCandidates();
    candidates.search(bytes);
    assert.ok(!candidates.hasCandidate(0, head.length - 1), `${lead}: first line`);
    const end = bytes.indexOf(10, head.length);
    assert.ok(candidates.hasCandidate(head.length, end), `${lead}: second line`);
    assert.ok(!candidates.hasCandidate(end + 1, bytes.length - 1), `${lead}: third line`);
  }
});

Deno.test("a trie alternation matches a text exactly when one of its words occurs in it (property)", () => {
  const alphabet = fc.constantFrom("a", "b", "ab", ".", "(", "|", "-", "\\", "*", "e");
  const word = fc.array(alphabet, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""));
  fc.assert(
    fc.property(
      fc.array(word, { minLength: 1, maxLength: 6 }),
      fc.array(alphabet, { maxLength: 24 }),
      (words, parts) => {
        const text = parts.join("");
        const pattern = new RegExp(trieAlternation(words));
        assert.equal(
          pattern.test(text),
          words.some((w) => text.includes(w)),
          `${words} in ${text}`,
        );
      },
    ),
    { numRuns: 3000 },
  );
  assert.equal(trieAlternation(["fail", "failed", "warn", "error"]), "error|fail|warn");
});
