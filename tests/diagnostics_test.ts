/**
 * The one diagnostic classifier (lib/reduce/diagnostics.ts through
 * evidence.ts) and what every reducer does with its lines: real forms of
 * every toolchain recognised, the measure's false positives not; a
 * pipeline ending in the agent's own filter over real tsc output keeps
 * every error that fits; every diagnostic line of an input is in the
 * output or counted as omitted (typed kinds and the global cap); a line
 * cut for length keeps its host notice; the omitted-diagnostics note never
 * fires on grep or ls rows.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  classifyLine,
  classifyText,
  DIAGNOSTIC_ANCHORS,
  diagnosticForm,
  Evidence,
  FAILURE_DIAGNOSTIC,
  MARKER_WORDS,
  mayLeadForm,
} from "../lib/reduce/evidence.ts";
import { capOutput, DEFAULT_OUTPUT_CAP } from "../lib/reduce/output_cap.ts";
import { reduceFinishedResult } from "../lib/shell/finished_result.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import { createStreamReducer } from "../lib/reduce/mod.ts";
import { screenDiagnostics } from "../lib/reduce/_diagnostic_screen.ts";
import type { ReductionRule } from "../lib/rules/model.ts";

const parser = await loadShellParser();
const registry = createRuleRegistry([builtinRuleSource()]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const COPY = { obtain: () => Promise.resolve({ id: "0123abcd" }) };

const DIAGNOSTICS = [
  "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
  "src/a.ts:3:5 - error TS2322: Type 'string' is not assignable to type 'number'.",
  "error TS5023: Unknown compiler option 'x'.",
  "error[E0308]: mismatched types",
  "warning: unused variable: `x`",
  "  --> src/main.rs:3:5",
  "main.c:3:9: error: expected ';' before '}' token",
  "main.c:3:9: fatal error: x.h: No such file or directory",
  "./main.go:5:2: undefined: foo",
  "[ERROR] /x/App.java:[3,5] cannot find symbol",
  "App.java:3: error: cannot find symbol",
  "e: file:///x/A.kt:3:5 Unresolved reference: foo",
  "* What went wrong:",
  "> Task :app:compileJava FAILED",
  "  12:5  error  'x' is not defined  no-undef",
  "  3:1  warning  Unexpected console statement  no-console",
  "  × expected ',' but instead found ':'",
  "  ⚠ eslint(no-unused-vars): Variable 'x' is declared but never used.",
  "Traceback (most recent call last):",
  '  File "/x/a.py", line 3, in <module>',
  "ValueError: invalid literal for int() with base 10: 'x'",
  "FAILED tests/test_a.py::test_x - assert 1 == 2",
  "E       assert 1 == 2",
  "  ✕ adds numbers (3 ms)",
  "FAIL src/a.test.ts",
  "not ok 1 - adds",
  "(fail) adds [0.10ms]",
  "npm ERR! code ELIFECYCLE",
  " ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  x@1.0.0 test: `vitest`",
  "make: *** [Makefile:3: all] Error 1",
  "make[2]: *** [sub] Error 2",
  "CMake Error at CMakeLists.txt:3 (project):",
  "--- FAIL: TestParse (0.00s)",
  "thread 'main' panicked at src/main.rs:3:5:",
  "java.lang.NullPointerException: x",
  "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal",
  "Uncaught TypeError: x is not a function",
  "build.log:40:main.c:3:9: error: expected ';'",
  "error Command failed with exit code 1.",
];

const FALSE_POSITIVES = [
  "  ✓ handles error cases (3 ms)",
  "ok 1 - parses error",
  "PASS src/error.test.ts",
  "--- PASS: TestParseError (0.00s)",
  "tests/test_x.py::test_error PASSED                                [ 50%]",
  "test_fail_case (t.T) ... ok",
  "test tests::error_case ... ok",
  "[INFO] Tests run: 5, Failures: 0, Errors: 0, Skipped: 0",
  "Tests run: 5, Failures: 0, Errors: 0, Skipped: 0",
  "5 passed, 0 failed",
  "2024-01-01 10:00:00 DEBUG retrying after error",
  "[DEBUG] error handler registered",
  "TRACE error path taken",
  "-- Looking for strerror_r - not found",
  "-- Performing Test HAVE_FAIL_FLAG - Failed",
];

/** grep and ls rows whose words say error: data, never diagnostics by form. */
const DATA_ROWS = [
  "src/a.ts:12:export class ParseError extends Error {}",
  "src/a.ts:3:export function assertOk(): void {}",
  "src/errors.ts:10:  throw new TypeError('x');",
  "-rw-r--r-- 1 root root  1234 Jan  1 12:00 error.log",
  "lrwxrwxrwx 1 root root 12 Jan  1  2024 x86_64-linux-gnu-gcc-fail -> gcc",
];

Deno.test("the classifier recognises every toolchain's diagnostic form", () => {
  for (const line of DIAGNOSTICS) {
    assert.ok(classifyText(line) & Evidence.Diagnostic, line);
    const bytes = encoder.encode(line);
    assert.ok(diagnosticForm(bytes, 0, bytes.length) !== 0, `form: ${line}`);
  }
});

Deno.test("the classifier does not fire on the measure's false positives or data rows", () => {
  for (const line of FALSE_POSITIVES) {
    assert.equal(classifyText(line) & Evidence.Diagnostic, 0, line);
  }
  for (const line of DATA_ROWS) {
    const bytes = encoder.encode(line);
    assert.equal(diagnosticForm(bytes, 0, bytes.length), 0, line);
  }
});

Deno.test("npx tsc | grep 'error TS' over real tsc output keeps every error that fits", async () => {
  const fixture = JSON.parse(
    await Deno.readTextFile(new URL("../fixtures/build/tsc/failure.json", import.meta.url)),
  );
  const errors = (fixture.stdout as string).split("\n").filter((l) => l.includes("error TS"));
  for (const count of [40, 120]) {
    const lines = errors.slice(0, count);
    const input = encoder.encode(lines.join("\n") + "\n");
    const { output } = await reduceFinishedResult(
      'npx tsc --noEmit 2>&1 | grep "error TS"',
      input,
      0,
      parser,
      registry,
      COPY,
    );
    const text = decoder.decode(output);
    const kept = lines.filter((l) => text.includes(l + "\n")).length;
    const note = /\[yarp: ([\d,]+) omitted lines? carr/.exec(text);
    const omitted = note === null ? 0 : Number(note[1].replaceAll(",", ""));
    assert.equal(kept + omitted, lines.length, `${count}: ${kept} kept + ${omitted} counted`);
    // 40 errors fit the failure budget whole.
    if (input.length < 16_384) assert.equal(kept, lines.length);
  }
});

Deno.test("grep -rn export and ls -la rows never raise the omitted-diagnostics note", async () => {
  const grep = Array.from(
    { length: 400 },
    (_, i) => `src/m${i % 40}.ts:${i + 1}:export class Parse${i}Error extends Error {}`,
  );
  const ls = Array.from(
    { length: 400 },
    (_, i) => `-rwxr-xr-x 1 root root ${1000 + i} Jan  1  2024 tool-${i}-error-fail`,
  );
  for (
    const [command, lines] of [["grep -rn export src", grep], ["ls -la /usr/bin", ls]] as const
  ) {
    const { output, report } = await reduceFinishedResult(
      command,
      encoder.encode(lines.join("\n") + "\n"),
      0,
      parser,
      registry,
      COPY,
    );
    assert.ok(report.changed, command);
    assert.ok(!decoder.decode(output).includes("carry error or warning markers"), command);
  }
});

const searchRule = registry.rules().find((r) => r.rule.id === "search/grep")!.rule as ReductionRule;

/** A line of a grep-like output: a diagnostic form, a data row that says error, or plain. */
const line = fc.oneof(
  // Rows-only kinds do not search rows for `go:`: a go location without a marker word is a
  // known miss there, so it is left out of these rows.
  fc.constantFrom(...DIAGNOSTICS.filter((l) => !l.startsWith(" ") && !l.includes(".go:"))),
  fc.constantFrom(...DATA_ROWS.slice(0, 3)),
  fc.integer({ min: 0, max: 999 }).map((i) => `src/f${i}.ts:${i}:const value${i} = ${i};`),
);

/** Every diagnostic line of `input` is a line of `output`, or the note counts it. */
function accounted(lines: readonly string[], output: string, isDiagnostic: (l: string) => boolean) {
  const shown = new Map<string, number>();
  const out = output.split("\n");
  for (let i = 0; i < out.length; i++) {
    const repeat = /^\[yarp: the line above appears ([\d,]+) times\]$/.exec(out[i + 1] ?? "");
    const copies = repeat === null ? 1 : Number(repeat[1].replaceAll(",", ""));
    shown.set(out[i], (shown.get(out[i]) ?? 0) + copies);
  }
  let missing = 0;
  for (const l of lines) {
    if (!isDiagnostic(l)) continue;
    const left = shown.get(l) ?? 0;
    if (left > 0) shown.set(l, left - 1);
    else missing++;
  }
  const note = /\[yarp: ([\d,]+) omitted lines? carr/.exec(output);
  return missing === (note === null ? 0 : Number(note[1].replaceAll(",", "")));
}

Deno.test("property: search kind, every diagnostic row is shown or counted as omitted", () => {
  const isForm = (l: string) => {
    const b = encoder.encode(l);
    return diagnosticForm(b, 0, b.length) !== 0;
  };
  fc.assert(
    fc.property(fc.array(line, { minLength: 1, maxLength: 600 }), fc.boolean(), (lines, ok) => {
      const reducer = createStreamReducer(searchRule);
      reducer.push(encoder.encode(lines.join("\n") + "\n"));
      const out = reducer.finish({ code: ok ? 0 : 1 }, { kind: "none" });
      const text = decoder.decode(out.bytes);
      if (!out.changed) return;
      assert.ok(accounted(lines, text, isForm), text.slice(-300));
    }),
    { numRuns: 150 },
  );
});

Deno.test("property: the cap shows every diagnostic line or counts it as omitted", () => {
  const isDiagnostic = (l: string) => (classifyText(l) & Evidence.Diagnostic) !== 0;
  const free = fc.oneof(
    fc.constantFrom(...DIAGNOSTICS, ...FALSE_POSITIVES),
    fc.integer({ min: 0, max: 99_999 }).map((i) => `progress ${i} ${"-".repeat(i % 90)}`),
  );
  fc.assert(
    fc.property(fc.array(free, { minLength: 200, maxLength: 2000 }), (lines) => {
      const capped = capOutput(
        encoder.encode(lines.join("\n") + "\n"),
        DEFAULT_OUTPUT_CAP,
        { kind: "archived", id: "0123abcd" },
      );
      if (!capped.changed) return;
      assert.ok(accounted(lines, decoder.decode(capped.bytes), isDiagnostic));
    }),
    { numRuns: 40 },
  );
});

Deno.test("property: a line cut for length keeps its host notice, at the end or in the middle", () => {
  const notice = fc.constantFrom(
    "....stripped due to length....",
    "... [12,000 characters truncated] ...",
    "<persisted-output>",
    "(30KB limit)",
  );
  fc.assert(
    fc.property(
      notice,
      fc.integer({ min: 600, max: 9000 }),
      fc.integer({ min: 0, max: 9000 }),
      fc.integer({ min: 0, max: 200 }),
      (text, before, after, row) => {
        const long = "a".repeat(before) + text + "b".repeat(after);
        const lines = Array.from({ length: 300 }, (_, i) => `row ${i} ${"x".repeat(40)}`);
        lines.splice(row, 0, long);
        const capped = capOutput(
          encoder.encode(lines.join("\n") + "\n"),
          DEFAULT_OUTPUT_CAP,
          { kind: "archived", id: "0123abcd" },
        );
        assert.ok(capped.changed);
        const out = decoder.decode(capped.bytes);
        assert.ok(out.includes(text), `${text} at ${before} of ${long.length}`);
        assert.ok(out.includes("a".repeat(300)), "the line's head is kept too");
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("property: a line's class never depends on the bytes after its end", () => {
  const tail = fc.constantFrom("0", ":0", "0\n", "(1,2): error TS1", ":3:4: x", " [x]", "");
  fc.assert(
    fc.property(
      fc.constantFrom(...DIAGNOSTICS, ...FALSE_POSITIVES, ...DATA_ROWS, "The tests FAILED:"),
      tail,
      (line, after) => {
        const alone = encoder.encode(line);
        const both = encoder.encode(line + after);
        assert.equal(diagnosticForm(both, 0, alone.length), diagnosticForm(alone, 0, alone.length));
        assert.equal(
          classifyLine(both, 0, alone.length),
          classifyLine(alone, 0, alone.length),
          line + " | " + after,
        );
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("property: a line without a marker or anchor word is a form only by its lead", () => {
  const words = [...MARKER_WORDS, ...DIAGNOSTIC_ANCHORS];
  const pieces = fc.oneof(
    fc.constantFrom(...DIAGNOSTICS, ...FALSE_POSITIVES, ...DATA_ROWS).chain((line) =>
      fc.tuple(fc.nat(line.length), fc.nat(line.length)).map(([a, b]) =>
        line.slice(Math.min(a, b), Math.max(a, b))
      )
    ),
    fc.constantFrom(" ", "\t", ":", "(", "1", "x.go", "--", ">", "e", "E", "w", "✕", "×", "*"),
  );
  let checked = 0;
  fc.assert(
    fc.property(fc.array(pieces, { maxLength: 8 }), (parts) => {
      const line = parts.join("");
      const lower = line.toLowerCase();
      if (words.some((w) => lower.includes(w))) return;
      const bytes = encoder.encode(line);
      if (mayLeadForm(bytes, 0, bytes.length)) return;
      checked++;
      assert.equal(diagnosticForm(bytes, 0, bytes.length), 0, JSON.stringify(line));
    }),
    { numRuns: 20_000 },
  );
  assert.ok(checked > 4000, `${checked} lines checked`);
});

Deno.test("deno check's own errors (TS2322 [ERROR]: …) are diagnostic forms", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/bad.ts`, 'const n: number = "one";\nexport { n };\n');
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", `${dir}/bad.ts`],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.success, false);
    const lines = decoder.decode(out.stderr).split("\n");
    const error = lines.find((l) => l.startsWith("TS2322 [ERROR]: "));
    assert.ok(error !== undefined, lines.join("\n"));
    const bytes = encoder.encode(error);
    assert.equal(diagnosticForm(bytes, 0, bytes.length), FAILURE_DIAGNOSTIC, error);
    // After a grep prefix too (a data row of `grep -rn TS2322 logs`).
    const row = encoder.encode(`logs/check.log:3:${error}`);
    assert.equal(diagnosticForm(row, 0, row.length), FAILURE_DIAGNOSTIC);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a line is classified as shown: ANSI sequences inside or before a form hide nothing", () => {
  const form = (line: string) => {
    const bytes = encoder.encode(line);
    return diagnosticForm(bytes, 0, bytes.length);
  };
  for (
    const line of [
      "\x1b[31merr\x1b[0mor: mismatched types",
      "\x1b[1m\x1b[31merror\x1b[0m\x1b[1m: mismatched types\x1b[0m",
      "e\x1b[1mr\x1b[0mr\x1b[2mo\x1b[0mr[E0308]: mismatched types",
      "\x1b[31me: \x1b[0mfile:///x/A.kt:3:5 Unresolved reference",
      "src/a.ts(3,5): \x1b[91merror\x1b[0m \x1b[90mTS2322: \x1b[0mType 'string'",
      "\x1b]8;;file:///x\x1b\\main.c\x1b]8;;\x1b\\:3:9: error: expected ';'",
      "not \x1b[31mok 2 - adds",
      "Caused \x1b[2mby: java.io.IOException: x",
      "\x1b]8;;u\x07E  \x1b]8;;\x07   assert 1 == 2",
    ]
  ) {
    assert.equal(form(line), FAILURE_DIAGNOSTIC, JSON.stringify(line));
    assert.ok(classifyText(line) & Evidence.Diagnostic, JSON.stringify(line));
    // The chunk screen finds it too, among plain coloured lines.
    const chunk = encoder.encode(`\x1b[32mok\x1b[0m 1\n${line}\n\x1b[32mok\x1b[0m 3\n`);
    const found: number[] = [];
    screenDiagnostics(chunk, 0, chunk.length, (_, start) => {
      found.push(start);
    }, () => 0);
    assert.deepEqual(found, [14], JSON.stringify(line));
  }
  assert.equal(form("\x1b[32m✓\x1b[0m parses errors"), 0);
});

/** Inserts `sequences[k]` before the `at[k]`-th character of `line` (positions clamped, in order). */
function withSequences(line: string, at: number[], sequences: string[]): string {
  const chars = [...line];
  const cuts = at.map((a) => a % (chars.length + 1)).sort((a, b) => a - b);
  let out = "";
  let from = 0;
  cuts.forEach((cut, k) => {
    out += chars.slice(from, cut).join("") + sequences[k % sequences.length];
    from = cut;
  });
  return out + chars.slice(from).join("");
}

/** ANSI sequences (and bare ESCs) the screen tests insert. */
const SEQUENCE = fc.constantFrom(
  "\x1b[31m",
  "\x1b[0m",
  "\x1b[1;32m",
  "\x1b[K",
  "\x1b]8;;file:///x\x07",
  "\x1b]8;;\x1b\\",
  "\x1b(B",
  "\x1b[12",
  "\x1b",
);

/** Lines of classifier test text with ANSI sequences inserted anywhere, and each one's ending. */
function screenLines() {
  const sequence = SEQUENCE;
  const base = fc.oneof(
    fc.constantFrom(...DIAGNOSTICS, ...FALSE_POSITIVES, ...DATA_ROWS, "plain progress 10%", ""),
    fc.constantFrom(
      "TS2322 [ERROR]: Type 'x'",
      "caused by: x",
      "not ok 3 - y",
      "thread 'm' panicked at x",
    ),
    fc.constantFrom(...DIAGNOSTICS).map((l) => l.toUpperCase()),
    fc.constantFrom(...DIAGNOSTICS, ...DATA_ROWS).chain((l) =>
      fc.tuple(fc.nat(l.length), fc.nat(l.length)).map(([a, b]) => l.slice(Math.min(a, b)))
    ),
  );
  const lineArb = fc.tuple(
    base,
    fc.array(fc.nat(200), { maxLength: 4 }),
    fc.array(sequence, { minLength: 1, maxLength: 4 }),
    fc.constantFrom("", "", "  ", "\t", "\xff\xfe"),
    fc.constantFrom("\n", "\r\n"),
  ).map(([l, at, seqs, lead, ending]) => [lead + withSequences(l, at, seqs), ending] as const);
  return fc.array(lineArb, { minLength: 1, maxLength: 80 });
}

/** Asserts that the screen reports exactly the lines of `lines` that `diagnosticForm` calls diagnostics. */
function assertScreenIsClassifier(lines: (readonly [string, string])[]): void {
  const parts = lines.map(([l, e]) => l + e);
  const bytes = new Uint8Array(parts.flatMap((p) => [...latin1Bytes(p)]));
  const expected: number[] = [];
  let at = 0;
  for (const [l, e] of lines) {
    const content = latin1Bytes(l);
    if (diagnosticForm(content, 0, content.length) !== 0) expected.push(at);
    at += content.length + e.length;
  }
  const found: number[] = [];
  screenDiagnostics(bytes, 0, bytes.length, (_, start) => {
    found.push(start);
  }, () => 0);
  assert.deepEqual(found, expected);
}

/** `n` plain lines (about 64 bytes each) that hold no searched word. */
const fillerLines = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => [`filler line ${from + i} `.repeat(4), "\n"] as const);

Deno.test("property: the chunk screen finds exactly the lines the classifier calls diagnostics", () => {
  fc.assert(
    fc.property(screenLines(), fc.nat(400), (rows, filler) => {
      // A run of plain lines before them moves them across the screen's 16 KiB windows.
      assertScreenIsClassifier([...fillerLines(filler), ...rows]);
    }),
    { numRuns: 400 },
  );
});

/** Lines that start with a sequence and hold Kotlin's or pytest's column-0 lead after it. */
const escapeLedLeads = fc.array(
  fc.tuple(
    SEQUENCE,
    fc.constantFrom("", "x ", "\x1b[0m"),
    fc.constantFrom("e: ", "w: ", "E  "),
    fc.constantFrom("A.kt:3:5 Unresolved reference: foo", "1 == 2", ""),
    fc.constantFrom("\n", "\r\n"),
  ).map(([seq, between, lead, rest, ending]) => [seq + between + lead + rest, ending] as const),
  { minLength: 1, maxLength: 3 },
);

Deno.test("property: with ESC sparse, the screen's ESC-by-ESC look equals the classifier too", () => {
  // Plain lines between the rows keep ESCs under one per 64 characters, so the screen looks
  // at each ESC (escapedStarts) instead of searching the window with its regular expression.
  fc.assert(
    fc.property(
      fc.array(fc.oneof(screenLines(), escapeLedLeads), { minLength: 1, maxLength: 4 }),
      fc.integer({ min: 4, max: 12 }),
      (groups, gap) => {
        const rows = groups.flat();
        assertScreenIsClassifier(rows.flatMap((row, i) => [...fillerLines(gap, i * gap), row]));
      },
    ),
    { numRuns: 400 },
  );
});

/** `text` as bytes: UTF-8, but each `\xff` and `\xfe` as that byte (invalid UTF-8). */
function latin1Bytes(text: string): Uint8Array {
  const parts = text.split(/([\xfe\xff])/);
  const out: number[] = [];
  for (const part of parts) {
    if (part === "\xff" || part === "\xfe") out.push(part.charCodeAt(0));
    else out.push(...encoder.encode(part));
  }
  return new Uint8Array(out);
}
