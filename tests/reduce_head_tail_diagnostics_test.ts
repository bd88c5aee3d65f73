/**
 * The `head_tail` reducer keeps the classifier's diagnostic lines from the
 * middle it omits, within the failure budget, and counts those that do not
 * fit (issue 24, deliverable 1).
 */
import { equal, ok } from "node:assert/strict";
import fc from "fast-check";
import {
  type ChildStatus,
  createStreamReducer,
  type Recovery,
  type ReducedStream,
  streamMemoryBound,
} from "../lib/reduce/mod.ts";
import { diagnosticForm, NOT_DIAGNOSTIC } from "../lib/reduce/diagnostics.ts";
import type { OutputPolicy, ReductionRule } from "../lib/rules/model.ts";

const te = new TextEncoder();
const td = new TextDecoder();
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

function headTail(success: OutputPolicy, failure: OutputPolicy): ReductionRule {
  return {
    id: "test/head_tail",
    action: "reduce",
    match: { programs: ["x"], argvPrefix: [], argvContainsAll: [] },
    reducer: { kind: "head_tail" },
    success,
    failure,
  };
}

function reduce(
  r: ReductionRule,
  bytes: Uint8Array,
  status: ChildStatus,
  chunkSize: number,
): ReducedStream {
  const reducer = createStreamReducer(r);
  const bound = streamMemoryBound(r);
  for (let at = 0; at < bytes.length; at += chunkSize) {
    reducer.push(bytes.subarray(at, at + chunkSize));
    ok(reducer.retainedBytes() <= bound);
  }
  return reducer.finish(status, NONE);
}

const isDiagnostic = (line: string) => {
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
  const lines = Array.from({ length: 5000 }, (_, i) => `progress ${i}`);
  lines[2500] = "src/a.ts(3,5): error TS2322: Type 'string' is not assignable";
  const input = te.encode(lines.join("\n") + "\n");
  const out = td.decode(reduce(headTail(policy(), policy()), input, { code: 0 }, 65536).bytes);
  ok(out.includes(lines[2500] + "\n"), out);
  equal(noted(out), 0);
  ok(out.indexOf("progress 2") < out.indexOf("error TS2322"));
  ok(out.indexOf("error TS2322") < out.indexOf("progress 4999"));
});

Deno.test("head_tail: diagnostics beyond the failure budget are counted", () => {
  const lines = Array.from({ length: 3000 }, (_, i) => `main.c:${i}:9: error: expected ';'`);
  const input = te.encode(lines.join("\n") + "\n");
  const out = td.decode(reduce(headTail(policy(), policy()), input, { code: 1 }, 4096).bytes);
  ok(out.length <= 1024);
  const shown = lines.filter((l) => out.includes(l + "\n")).length;
  equal(noted(out), lines.length - shown);
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
        const lines = rows.map(([l, n]) => `${l} #${n}`);
        const input = te.encode(lines.map((l) => l + "\n").join(""));
        const success = policy({ headLines: head, tailLines: tail });
        const failure = policy({ headLines: head, tailLines: tail, maxOutputBytes: failureBytes });
        const out = td.decode(
          reduce(headTail(success, failure), input, { code: failed ? 1 : 0 }, chunkSize).bytes,
        );
        ok(out.length <= failureBytes);
        const outLines = new Set(out.split("\n"));
        const diagnostics = lines.filter(isDiagnostic);
        const missing = diagnostics.filter((l) => !outLines.has(l)).length;
        ok(missing <= noted(out), `${missing} missing, ${noted(out)} counted`);
        ok(noted(out) <= diagnostics.length);
      },
    ),
    { numRuns: 300 },
  );
});
