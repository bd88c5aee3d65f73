/**
 * The typed reducer kinds (lib/reduce/typed.ts, lib/reduce/kinds/): for
 * every kind, properties over family-shaped streams (output within
 * `max_output_bytes`, identical under any chunking, every diagnostic line
 * kept or counted, summaries and host truncation notices kept, state within
 * its bound), and examples of each kind's evidence.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createStreamReducer, streamMemoryBound, SUCCESS_BUDGET_BYTES } from "../lib/reduce/mod.ts";
import { classifyText, Evidence } from "../lib/reduce/evidence.ts";
import {
  type OutputPolicy,
  type ReductionRule,
  TYPED_REDUCER_KINDS,
  type TypedReducerKind,
} from "../lib/rules/model.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

const SUCCESS: OutputPolicy = {
  headLines: 40,
  tailLines: 40,
  maxLineBytes: 2048,
  maxOutputBytes: 4096,
  minSavingsBytes: 256,
};
const FAILURE: OutputPolicy = {
  headLines: 200,
  tailLines: 200,
  maxLineBytes: 4096,
  maxOutputBytes: 16384,
  minSavingsBytes: 128,
};

function rule(kind: TypedReducerKind, success = SUCCESS, failure = FAILURE): ReductionRule {
  return {
    id: `t/${kind}`,
    action: "reduce",
    match: { programs: ["t"], argvPrefix: [], argvContainsAll: [] },
    reducer: { kind },
    success,
    failure,
  };
}

function reduce(r: ReductionRule, chunks: Uint8Array[], code: number) {
  const reducer = createStreamReducer(r);
  let peak = 0;
  for (const chunk of chunks) {
    reducer.push(chunk);
    peak = Math.max(peak, reducer.retainedBytes());
  }
  const out = reducer.finish({ code }, { kind: "archived", id: "a1b2c3" });
  return { out, peak: Math.max(peak, reducer.retainedBytes()) };
}

function text(r: ReductionRule, input: string, code = 0): string {
  return dec.decode(reduce(r, [enc.encode(input)], code).out.bytes);
}

/** Lines of each family's shape, plus evidence every kind must keep. */
const SHAPES: Record<TypedReducerKind, readonly string[]> = {
  search: ["src/a.ts:12:const x = 1;", "lib/b/c.py:3:def f(): pass", "docs/x.md:1:# Title", "--"],
  diff: ["diff --git a/x.ts b/x.ts", "@@ -1,3 +1,4 @@", "+added line", "-removed line", " same"],
  status: [
    "On branch main",
    "\tmodified:   src/a.ts",
    "?? new.txt",
    " M lib/b.ts",
    '  (use "git add")',
  ],
  test: [
    "✓ adds numbers (2 ms)",
    "ok 1 - parses",
    "test a::b ... ok",
    "=== RUN   TestX",
    "  ✕ fails",
  ],
  build: [
    "   Compiling foo v1.2.3",
    "[12/480] Building CXX object a.o",
    "gcc -c a.c",
    "make[1]: Entering directory '/x'",
  ],
  install: [
    "npm http fetch GET 200 https://r/x",
    "[1/4] Resolving packages...",
    "Collecting six",
    "Setting up x (1.0)",
    "npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported",
    "info There appears to be trouble with your network connection. Retrying...",
    "npm http fetch GET 404 https://r/y (peer dep missing)",
  ],
  log: [
    "commit 0123456789abcdef0123456789abcdef01234567",
    "Author: A <a@b>",
    "    Subject line",
    "",
    "abc1234 One-line subject",
  ],
  list: [
    "src/a/b.ts",
    "./lib/x.json",
    "-rw-r--r-- 1 u g 12 Jan 1 00:00 file.txt",
    "dir:",
    "total 12",
  ],
};

const EVIDENCE_LINES = [
  "src/a.c:3:1: error: expected ';' before '}' token",
  "warning: unused variable `x`",
  "panic: runtime error: index out of range",
  "Traceback (most recent call last):",
  "AssertionError: expected 1 to equal 2",
  "FAILED tests/test_a.py::test_b - assert 1 == 2",
];
const SUMMARY_LINES = [
  "Tests:       1 failed, 5 passed, 6 total",
  "test result: FAILED. 3 passed; 1 failed; 0 ignored",
  "✔ 4004 passed, 0 failed, 5 skipped",
];
const NOTICES = ["... [1,204 lines truncated] ...", "....stripped due to length...."];

function lineArb(kind: TypedReducerKind): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...SHAPES[kind]) },
    {
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom(...SHAPES[kind]), fc.nat(9999)).map(([l, n]) =>
        `${l} ${n}`
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom(...EVIDENCE_LINES) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((s) => s.replaceAll("\n", " ")) },
  );
}

function streamArb(kind: TypedReducerKind) {
  return fc.record({
    lines: fc.array(lineArb(kind), { minLength: 0, maxLength: 400 }),
    summary: fc.option(fc.constantFrom(...SUMMARY_LINES), { nil: undefined }),
    notice: fc.option(fc.constantFrom(...NOTICES), { nil: undefined }),
    cuts: fc.array(fc.nat(), { maxLength: 12 }),
    code: fc.constantFrom(0, 1),
    crlf: fc.boolean(),
  });
}

function chunked(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of points) {
    out.push(data.subarray(at, p));
    at = p;
  }
  out.push(data.subarray(at));
  return out;
}

/** The omitted-diagnostics count the output states, or 0. */
function countedDiagnostics(output: string): number {
  const m = /\[yarp: ([\d,]+) omitted lines? carr(?:y|ies) error or warning markers\]/.exec(output);
  return m === null ? 0 : Number(m[1].replaceAll(",", ""));
}

/** Repetition notes: the line above appears N times. */
function outputLines(output: string): string[] {
  return output.split(/\r?\n/);
}

for (const kind of TYPED_REDUCER_KINDS) {
  Deno.test(`${kind}: bounded, chunking-invariant, keeps or counts evidence (property)`, () => {
    const r = rule(kind);
    fc.assert(
      fc.property(streamArb(kind), ({ lines, summary, notice, cuts, code, crlf }) => {
        const all = [...lines];
        if (notice !== undefined) all.splice(Math.floor(all.length / 2), 0, notice);
        if (summary !== undefined) all.push(summary);
        const eol = crlf ? "\r\n" : "\n";
        const input = enc.encode(all.map((l) => l + eol).join(""));
        const whole = reduce(r, [input], code);
        const parts = reduce(r, chunked(input, cuts), code);
        assert.deepEqual(parts.out.bytes, whole.out.bytes, "chunking changed the output");
        assert.equal(parts.out.omittedLines, whole.out.omittedLines);
        assert.ok(whole.peak <= streamMemoryBound(r), `state ${whole.peak} over its bound`);
        const out = whole.out;
        if (!out.changed) {
          assert.deepEqual(out.bytes, input);
          return;
        }
        const limit = code === 0
          ? Math.max(SUCCESS.maxOutputBytes, FAILURE.maxOutputBytes)
          : FAILURE.maxOutputBytes;
        assert.ok(out.bytes.length <= limit, `${out.bytes.length} bytes over ${limit}`);
        assert.ok(out.bytes.length < input.length, "grew");
        const shown = dec.decode(out.bytes);
        const kept = new Map<string, number>();
        for (const l of outputLines(shown)) kept.set(l, (kept.get(l) ?? 0) + 1);
        let lost = 0;
        for (const l of all) {
          if ((classifyText(l) & Evidence.Diagnostic) === 0) continue;
          const left = kept.get(l) ?? 0;
          if (left > 0) kept.set(l, left - 1);
          else lost++;
        }
        const repeats = [...shown.matchAll(/appears ([\d,]+) times\]/g)]
          .reduce((n, m) => n + Number(m[1].replaceAll(",", "")) - 1, 0);
        assert.ok(
          lost <= countedDiagnostics(shown) + repeats,
          `${lost} diagnostic lines lost, ${countedDiagnostics(shown)} counted`,
        );
        if (summary !== undefined) assert.ok(shown.includes(summary + eol), "summary lost");
        if (notice !== undefined) assert.ok(shown.includes(notice + eol), "notice lost");
        assert.match(
          shown,
          /\[yarp: kept [\d,]+ of [\d,]+ lines?[^\]]*· exact: yarp read a1b2c3 · --grep TEXT · --lines A:B\]\r?\n$/,
        );
      }),
      { numRuns: 60 },
    );
  });
}

Deno.test("test: a node --test summary survives while passing lines go", () => {
  const input = Array.from({ length: 4004 }, (_, i) => `✔ case ${i} handles errors (0.1ms)`)
    .join("\n") + "\nℹ tests 4009\nℹ pass 4004\nℹ fail 0\n✔ 4004 passed, 0 failed, 5 skipped\n";
  const out = text(rule("test"), input);
  assert.ok(out.includes("ℹ pass 4004\n"));
  assert.ok(out.includes("✔ 4004 passed, 0 failed, 5 skipped\n"));
  assert.ok(!out.includes("case 17 "));
  assert.ok(enc.encode(out).length <= SUCCESS_BUDGET_BYTES + 256, out);
});

Deno.test("test: every failing test keeps its name, assertion and location", () => {
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) lines.push(`test suite::case_${i} ... ok`);
  lines.push("test suite::broken ... FAILED", "---- suite::broken stdout ----");
  lines.push(
    "thread 'suite::broken' panicked at src/lib.rs:42:9:",
    "assertion `left == right` failed",
  );
  lines.push("test result: FAILED. 300 passed; 1 failed; 0 ignored; 0 measured");
  const out = text(rule("test"), lines.join("\n") + "\n", 101);
  for (const want of lines.slice(-4)) assert.ok(out.includes(want + "\n"), want);
  assert.ok(!out.includes("case_150 ... ok"));
});

Deno.test("test: Surefire's per-class totals are passing noise, the final totals the summary", () => {
  const lines: string[] = [];
  for (let i = 0; i < 60; i++) {
    lines.push(
      `[INFO] Running com.example.Case${i}Test`,
      `[INFO] Tests run: ${i % 5 + 1}, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.0${
        i % 9
      } s -- in com.example.Case${i}Test`,
    );
  }
  const totals = "[INFO] Tests run: 180, Failures: 0, Errors: 0, Skipped: 0";
  lines.push("[INFO] ", "[INFO] Results:", "[INFO] ", totals, "[INFO] BUILD SUCCESS");
  const out = text(rule("test"), lines.join("\n") + "\n");
  assert.ok(out.includes(totals + "\n"), out);
  assert.ok(out.includes("[INFO] BUILD SUCCESS\n"), out);
  assert.ok(!out.includes("Time elapsed"), out);
  assert.ok(enc.encode(out).length <= SUCCESS_BUDGET_BYTES, out);
  // A class with a failure is a diagnostic, and the run is a failure.
  const failing = "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s " +
    "<<< FAILURE! -- in com.example.Case7Test";
  lines.splice(30, 0, failing);
  const failed = text(rule("test"), lines.join("\n") + "\n", 1);
  assert.ok(failed.includes(failing + "\n"), failed);
  assert.ok(!failed.includes("Failures: 0, Errors: 0, Skipped: 0, Time elapsed"), failed);
});

Deno.test("test: ctest's Start and Passed lines go, failures and the summary stay", () => {
  const lines = ["Test project /home/dev/demo/build"];
  for (let i = 1; i <= 80; i++) {
    lines.push(`      Start ${String(i).padStart(2)}: case_${i}`);
    lines.push(
      i === 41
        ? ` ${i}/80 Test #${i}: case_${i} .......................***Failed    0.01 sec`
        : `${
          String(i).padStart(2)
        }/80 Test #${i}: case_${i} .......................   Passed    0.01 sec`,
    );
  }
  lines.push(
    "",
    "99% tests passed, 1 tests failed out of 80",
    "",
    "Total Test time (real) =   0.52 sec",
    "",
    "The following tests FAILED:",
    "\t 41 - case_41 (Failed)",
  );
  const out = text(rule("test"), lines.join("\n") + "\n", 8);
  for (
    const want of [
      lines[82],
      "99% tests passed, 1 tests failed out of 80",
      "\t 41 - case_41 (Failed)",
    ]
  ) {
    assert.ok(out.includes(want + "\n"), want);
  }
  assert.ok(!out.includes("Start 12: case_12"), out);
  assert.ok(!out.includes("case_12 ......................."), out);
});

Deno.test("build: cmake's configure outcome is the summary of a successful configure", () => {
  const lines = ["-- The C compiler identification is GNU 12.2.0"];
  for (let i = 0; i < 80; i++) lines.push(`-- Looking for include file probe_${i}.h - found`);
  lines.push(
    "-- Configuring done (0.4s)",
    "-- Generating done (0.0s)",
    "-- Build files have been written to: /home/dev/demo/build",
  );
  const out = text(rule("build"), lines.join("\n") + "\n");
  for (const want of lines.slice(-3)) assert.ok(out.includes(want + "\n"), want);
  assert.ok(!out.includes("probe_40"), out);
  assert.ok(enc.encode(out).length <= SUCCESS_BUDGET_BYTES, out);
});

Deno.test("build: progress goes, identical diagnostics collapse with a count", () => {
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) lines.push(`[${i}/400] Building CXX object src/f${i}.cc.o`);
  for (let i = 0; i < 5; i++) lines.push("src/a.h:3:1: warning: unused parameter 'x' [-Wunused]");
  lines.push("src/b.c:9:2: error: 'y' undeclared", "    9 |   y = 1;", "      |   ^");
  const out = text(rule("build"), lines.join("\n") + "\n", 2);
  assert.ok(out.includes("src/b.c:9:2: error: 'y' undeclared\n    9 |   y = 1;\n"));
  assert.ok(out.includes("[yarp: the line above appears 5 times]"));
  assert.ok(!out.includes("Building CXX object src/f200"));
});

Deno.test("build: findings that lead with a location but carry no marker word survive", () => {
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) lines.push(`example.com/shop/internal/p${i}`);
  for (let i = 0; i < 30; i++) lines.push(`go: downloading github.com/acme/m${i} v1.${i}.0`);
  lines.splice(150, 0, "# example.com/shop/internal/p150", "./p150/a.go:12:9: undefined: decimal");
  lines.splice(200, 0, "/abs/src/p200/b.go:3:2: declared and not used: rows");
  const out = text(rule("build"), lines.join("\n") + "\n", 1);
  assert.ok(out.includes("./p150/a.go:12:9: undefined: decimal\n"), out);
  assert.ok(out.includes("/abs/src/p200/b.go:3:2: declared and not used: rows\n"), out);
  assert.ok(
    !out.includes("go: downloading github.com/acme/m7 "),
    "go's download progress is noise",
  );
  assert.ok(out.includes("# example.com/shop/internal/p150\n"), "go's package header is kept");
});

Deno.test("build: go's package headers are structure; other `# ` lines are not", () => {
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) lines.push(`example.com/shop/internal/p${i}`);
  lines.splice(100, 0, "# example.com/shop/internal/p100 [example.com/shop/internal/p100.test]");
  lines.splice(200, 0, "# a comment with words", "# [not a path]", "#  indented", "# x [y z]");
  const out = text(rule("build"), lines.join("\n") + "\n", 1);
  assert.ok(
    out.includes("# example.com/shop/internal/p100 [example.com/shop/internal/p100.test]\n"),
  );
  for (const other of ["# a comment with words", "# [not a path]", "#  indented", "# x [y z]"]) {
    assert.ok(!out.includes(other + "\n"), other);
  }
});

Deno.test("test: inside a failure block, located lines and stack frames are kept; outside, fill", () => {
  const passing: string[] = [];
  for (let i = 0; i < 200; i++) {
    passing.push(
      `=== RUN   TestOk${i}`,
      `    ok_test.go:${i + 1}: log ${i}`,
      `--- PASS: TestOk${i} (0.00s)`,
    );
  }
  const failing = [
    "--- FAIL: TestTotals (0.00s)",
    "    totals_test.go:41: got 7",
    "    totals_test.go:42: want 8",
    "    totals_test.go:43: for [5 2 0]",
    "    totals_test.go:44: with rounding",
    "  ● cart › adds",
    "    Expected: 8",
    "    Received: 7",
    '      7 |   it("adds", () => {',
    "    > 8 |     expect(total([5, 2, 0])).toBe(8);",
    "      at Object.toBe (src/cart.test.js:8:30)",
    "      at run (file:///srv/app/node_modules/runner.js:77:5)",
  ];
  const input = [...passing.slice(0, 300), ...failing, ...passing.slice(300), "FAIL\n"].join("\n");
  const out = text(rule("test"), input, 1);
  for (const want of failing) {
    if (/:\d+/.test(want) || want.startsWith("---") || want.includes("●")) {
      assert.ok(out.includes(want + "\n"), want);
    }
  }
  assert.ok(!out.includes("ok_test.go:150: log 149"), "a passing test's log line is fill");
});

Deno.test("test: a workspace runner's [pkg]: prefix is read past", () => {
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) lines.push(`[@shop/web]: PASS src/w${i}.test.ts (1.2 s)`);
  lines.push(
    "[@shop/lib]: FAIL src/cart.test.ts",
    "[@shop/lib]:   ● cart › adds",
    "[@shop/lib]:     Expected: 8",
    "[@shop/lib]:     Received: 7",
    "[@shop/lib]:",
    "[@shop/lib]:     > 8 |     expect(total([5, 2, 0])).toBe(8);",
    "[@shop/lib]:       at Object.toBe (src/cart.test.ts:8:30)",
    "[@shop/lib]:       at run (src/harness.ts:77:5)",
    "[@shop/lib]: Tests:       1 failed, 300 passed, 301 total",
  );
  const out = text(rule("test"), lines.join("\n") + "\n", 1);
  for (const want of lines.slice(300)) {
    if (want.includes(" at ") || want.includes("●") || want.includes("Tests:")) {
      assert.ok(out.includes(want + "\n"), want);
    }
  }
  assert.ok(!out.includes("src/w150.test.ts"), "passing lines behind the prefix are noise");
});

Deno.test("property: a failure's context lines are shown under it or not at all", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(300), fc.integer({ min: 0, max: 3 })), {
        minLength: 50,
        maxLength: 400,
      }),
      (errors) => {
        const lines: string[] = [];
        for (const [i, [pad, details]] of errors.entries()) {
          lines.push(`src/f${i}.ts(1,1): error TS2345: case ${i} ${"x".repeat(pad)}`);
          for (let d = 0; d < details; d++) lines.push(`  detail ${i}.${d}`);
        }
        const out = outputLines(text(rule("build"), lines.join("\n") + "\n", 2));
        out.forEach((line, k) => {
          const detail = /^ {2}detail (\d+)\.(\d+)$/.exec(line);
          if (detail === null) return;
          const [, i, d] = detail;
          const above = d === "0"
            ? `src/f${i}.ts(1,1): error TS2345: case ${i} `
            : `  detail ${i}.${Number(d) - 1}`;
          assert.ok(out[k - 1]?.startsWith(above), `${line} under ${out[k - 1]}`);
        });
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("build: eslint's file headers head their warnings; the same warning in two files is two", () => {
  const lines: string[] = ["", "> app@1.0.0 lint", "> eslint .", ""];
  for (let f = 0; f < 400; f++) {
    const dir = f % 3 === 0 ? "fail" : "src";
    lines.push(`/home/dev/app/${dir}/m${f}.js`);
    lines.push("  2:9  warning  'limit' is assigned a value but never used  no-unused-vars");
    if (f % 50 === 7) lines.push(`  3:1  error  'x${f}' is not defined  no-undef`);
    lines.push("");
  }
  lines.push("✖ 408 problems (8 errors, 400 warnings)");
  for (const code of [0, 1]) {
    const out = outputLines(text(rule("build"), lines.join("\n") + "\n", code));
    assert.ok(!out.some((line) => line.includes("appears")), "no fold across files");
    out.forEach((line, k) => {
      if (!line.startsWith("  2:9  warning")) return;
      assert.match(
        out[k - 1],
        /^\/home\/dev\/app\/(fail|src)\/m\d+\.js$/,
        `${line} under ${out[k - 1]}`,
      );
    });
    for (const error of lines.filter((line) => line.includes(" error "))) {
      if (code === 1) assert.ok(out.includes(error), error);
    }
    assert.ok(out.includes("✖ 408 problems (8 errors, 400 warnings)"));
    // A header shows with its warning (at most the last one shown lacks it: the budget ran out).
    const headers = out.filter((line, k) =>
      line.startsWith("/home/") && !out[k + 1]?.startsWith("  ")
    );
    assert.ok(headers.length <= 1, headers.join("\n"));
  }
});

Deno.test("build: exit 0 with an error line in the text uses the failure budget", () => {
  const lines = Array.from({ length: 600 }, (_, i) => `note ${i}: ${"x".repeat(40)}`);
  lines.splice(300, 0, "error: the build failed quietly");
  const out = text(rule("build"), lines.join("\n") + "\n", 0);
  assert.ok(out.includes("error: the build failed quietly\n"));
  assert.ok(enc.encode(out).length > SUCCESS_BUDGET_BYTES, "failure policy not used");
});

Deno.test("an incomplete status (success policy = failure policy) uses the failure budget when the text fails", () => {
  const lines = Array.from({ length: 600 }, (_, i) => `src/f${i % 40}.ts:${i}:match ${i}`);
  const complete = text(rule("search"), lines.join("\n") + "\n", 0);
  const incomplete = text(rule("search", FAILURE, FAILURE), lines.join("\n") + "\n", 0);
  assert.ok(enc.encode(complete).length <= SUCCESS_BUDGET_BYTES);
  // No failure in the text: nothing for the failure budget to keep, the success budget applies.
  assert.equal(incomplete, complete);
  lines.splice(300, 0, "grep: src/locked: Permission denied (error 13)");
  const failing = text(rule("search", FAILURE, FAILURE), lines.join("\n") + "\n", 0);
  assert.ok(failing.includes("grep: src/locked: Permission denied (error 13)\n"));
  assert.ok(enc.encode(failing).length > 2 * SUCCESS_BUDGET_BYTES, "failure budget not used");
  // A failed exit uses the failure budget whatever the text.
  const failed = text(rule("search", FAILURE, FAILURE), lines.slice(0, 300).join("\n") + "\n", 2);
  assert.ok(enc.encode(failed).length > 2 * SUCCESS_BUDGET_BYTES, "failure budget not used");
});

Deno.test("search: per-file counts and examples from different files", () => {
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) lines.push(`src/big.ts:${i}:TODO item ${i}`);
  for (let i = 0; i < 3; i++) lines.push(`lib/small_${i}.ts:${i + 1}:TODO small`);
  const out = text(rule("search"), lines.join("\n") + "\n");
  assert.match(out, /\[yarp: 303 matches in 4 files: src\/big\.ts 300 · lib\/small_0\.ts 1/);
  assert.ok(enc.encode(out).length <= SUCCESS_BUDGET_BYTES, out);
});

Deno.test("search: rg's IO errors are messages, kept as diagnostics, not matches", () => {
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) lines.push(`src/big.ts:${i}:TODO item ${i}`);
  const errors = [
    "src/gone.ts: IO error for operation on src/gone.ts: No such file or directory (os error 2)",
    "./private: Permission denied (os error 13)",
  ];
  lines.splice(150, 0, ...errors);
  lines.push("src/ok.ts:3:see (os error 2)", "src/ok.ts:4: also (os error)");
  const out = text(rule("search"), lines.join("\n") + "\n", 2);
  for (const error of errors) assert.ok(out.includes(error + "\n"), error);
  assert.match(out, /\[yarp: 302 matches in 2 files: src\/big\.ts 300 · src\/ok\.ts 2\]/);
});

Deno.test("diff: per-file added and removed counts, hunk headers kept", () => {
  const lines = ["diff --git a/a.ts b/a.ts", "--- a/a.ts", "+++ b/a.ts", "@@ -1,200 +1,200 @@"];
  for (let i = 0; i < 200; i++) lines.push(`-old ${i}`, `+new ${i}`, ` same ${i}`);
  lines.push("diff --git a/b.ts b/b.ts", "--- a/b.ts", "+++ b/b.ts", "@@ -1 +1 @@", "-x", "+y");
  const out = text(rule("diff"), lines.join("\n") + "\n");
  assert.match(out, /a\.ts \+200 −200 · b\.ts \+1 −1/);
  assert.ok(out.includes("@@ -1,200 +1,200 @@\n"), out);
});

Deno.test("status: grouped counts with the branch line kept", () => {
  const lines = [
    "On branch main",
    "Your branch is up to date with 'origin/main'.",
    "",
    "Changes not staged for commit:",
    '  (use "git add <file>..." to update what will be committed)',
  ];
  for (let i = 0; i < 120; i++) lines.push(`\tmodified:   src/f${i}.ts`);
  lines.push("", "Untracked files:");
  for (let i = 0; i < 80; i++) lines.push(`\tnew_${i}.txt`);
  const out = text(rule("status"), lines.join("\n") + "\n");
  assert.ok(out.startsWith("On branch main\n"), out);
  assert.match(out, /200 changes in 2 groups: modified 120 · untracked 80/);
});

Deno.test("log: each commit with its date and subject, whole, and the commit count", () => {
  const lines: string[] = [];
  for (let i = 0; i < 100; i++) {
    lines.push(
      `commit ${String(i).padStart(40, "0")}`,
      "Author: A <a@example.com>",
      "Date:   Mon Jan 1",
      "",
      `    Subject ${i}`,
      "",
      "    Body text.",
      "",
    );
  }
  const out = text(rule("log"), lines.join("\n") + "\n");
  assert.ok(out.includes(`commit ${"0".repeat(40)}\nDate:   Mon Jan 1\n    Subject 0\n`), out);
  assert.ok(!out.includes("Author:"));
  // Every commit shown is whole: as many subjects as commit lines.
  assert.equal(out.match(/^commit /gm)?.length, out.match(/^ {4}Subject/gm)?.length, out);
  assert.match(out, /\[yarp: 100 commits\]/);
});

Deno.test("list: counts by directory and extension", () => {
  const lines: string[] = [];
  for (let i = 0; i < 200; i++) lines.push(`./src/m${i}.ts`);
  for (let i = 0; i < 50; i++) lines.push(`./docs/d${i}.md`);
  const out = text(rule("list"), lines.join("\n") + "\n");
  assert.match(
    out,
    /250 entries in 2 directories: \.\/src 200 · \.\/docs 50; by extension: \.ts 200 · \.md 50/,
  );
});

Deno.test("list: a lister's own messages are kept and are not entries", () => {
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) lines.push(`./src/dir_${i % 40}/file_${i}.ts`);
  const messages = [
    "find: ‘./src/private’: Permission denied",
    "ls: cannot access 'gone': No such file or directory",
    "│   └── vendor  [error opening dir]",
    "[fd error]: Permission denied (os error 13) for 'assets/private'",
    "tar: src/a.ts: Cannot open: Permission denied",
  ];
  messages.forEach((message, k) => lines.splice(100 + 50 * k, 0, message));
  const out = text(rule("list"), lines.join("\n") + "\n", 1);
  for (const message of messages) assert.ok(out.includes(message + "\n"), message);
  assert.match(out, /\[yarp: 400 entries in 40 directories/);
  const many = Array.from({ length: 300 }, (_, i) => `./d${i % 60}/f${i}`).join("\n") + "\n";
  // The exact number of directories beyond the table, never "over 48".
  assert.match(text(rule("list"), many), /300 entries in 60 directories: .* more directories \(/);
});

Deno.test("list: unzip rows are read after the verb, padding and spaces in names kept apart", () => {
  const lines = ["Archive:  demo.zip", "   creating: docs/"];
  const pad = (verb: string, path: string) => `${verb}: ${path.padEnd(23)} `;
  for (let i = 0; i < 60; i++) lines.push(pad("  inflating", `docs/user guide/p${i}.txt`));
  for (let i = 0; i < 40; i++) lines.push(pad(" extracting", `img/i${i}.png`));
  const out = text(rule("list"), lines.join("\n") + "\n");
  assert.match(
    out,
    /101 entries in 3 directories: docs\/user guide 60 · img 40 · \. 1; by extension: \.txt 60 · \.png 40 · \(none\) 1\]/,
  );
});

Deno.test("install: progress goes, deprecations and the summary stay", () => {
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    lines.push(`npm http fetch GET 200 https://registry.example/p${i} 12ms`);
  }
  lines.push("npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported");
  lines.push("DEPRECATION: legacy setup.py install is deprecated");
  lines.push("added 300 packages, and audited 301 packages in 3s");
  const out = text(rule("install"), lines.join("\n") + "\n");
  for (const want of lines.slice(-3)) assert.ok(out.includes(want + "\n"), want);
  assert.ok(!out.includes("/p150 "));
});

Deno.test("install: go's module errors and the import line before each stay, go: found goes", () => {
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    lines.push(`go: found example.com/acme/m${i} in example.com/acme/m${i} v1.0.${i}`);
    lines.push(`example.com/acme/m${i} v1.0.${i}`);
  }
  const errors = [
    "go: example.com/shop/deps imports",
    "\texample.com/acme/x: cannot find module providing package example.com/acme/x",
    "example.com/shop/api imports",
    "\texample.com/acme/y: reading ./café/go.mod: open /src/café/go.mod: no such file or directory",
    "go: ./vendor/z does not exist",
  ];
  lines.splice(240, 0, ...errors.slice(0, 2));
  lines.splice(400, 0, ...errors.slice(2), "two words imports", "imports");
  const out = text(rule("install"), lines.join("\n") + "\n", 1);
  for (const want of errors) assert.ok(out.includes(want + "\n"), want);
  assert.ok(!out.includes("two words imports\n"), out);
  assert.ok(!out.includes("\nimports\n"), out);
  assert.ok(!out.includes("go: found example.com/acme/m150 "), "go: found is progress");
});

Deno.test("install: a progress line with a keep word and no marker stays, in one chunk or many", () => {
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) lines.push(`npm http fetch GET 200 https://registry.example/p${i}`);
  lines.splice(120, 0, "npm http fetch GET 404 https://registry.example/left-pad (peer dep unmet)");
  lines.splice(200, 0, "info Visit https://yarnpkg.com/x for the CONFLICT list");
  const data = enc.encode(lines.join("\n") + "\n");
  const whole = dec.decode(reduce(rule("install"), [data], 0).out.bytes);
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += 97) pieces.push(data.subarray(at, at + 97));
  assert.equal(dec.decode(reduce(rule("install"), pieces, 0).out.bytes), whole);
  assert.ok(whole.includes("(peer dep unmet)\n"), whole);
  assert.ok(whole.includes("for the CONFLICT list\n"), whole);
  assert.ok(!whole.includes("/p150\n"));
});

Deno.test("an unknown form falls back to bounded head and tail", () => {
  const lines = Array.from({ length: 1000 }, (_, i) => `line ${i} of something else`);
  const out = text(rule("test"), lines.join("\n") + "\n");
  assert.ok(out.startsWith("line 0 of something else\n"));
  assert.ok(out.includes("line 999 of something else\n"));
  assert.ok(enc.encode(out).length <= SUCCESS_BUDGET_BYTES);
});

Deno.test("short output is passed through exactly (minimum savings)", () => {
  const input = "✓ a\n✓ b\nTests: 2 passed, 2 total\n";
  const { out } = reduce(rule("test"), [enc.encode(input)], 0);
  assert.equal(out.changed, false);
  assert.equal(dec.decode(out.bytes), input);
});

Deno.test("mandatory evidence that cannot fit keeps the original when it is buffered", () => {
  const small: OutputPolicy = { ...SUCCESS, maxOutputBytes: 1024, minSavingsBytes: 4096 };
  const lines = Array.from({ length: 40 }, (_, i) => `... [${i + 100} lines truncated] ...`);
  const input = enc.encode(lines.join("\n") + "\n" + "x\n".repeat(200));
  const { out } = reduce(rule("build", small, small), [input], 1);
  assert.equal(out.changed, false);
  assert.deepEqual(out.bytes, input);
});
