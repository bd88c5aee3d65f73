/**
 * Reduces one finished shell result with the one parser and the result
 * planner (seed 001, "Runtime flow"): parse, plan, check stage diagnostics,
 * obtain an exact copy, then reduce under the plan's status policy. Shared
 * by `yarp result-reduce` and the corpus analysis, so both measure and ship
 * the same decision.
 *
 * @module
 */
import type { RuleRegistry } from "../rules/registry.ts";
import type { ShellParser } from "./mod.ts";
import { effectiveRule, hasStageDiagnostics, planResult } from "./plan.ts";

/** What `result-reduce` decided, without any command or output text. */
export interface ResultReduceReport {
  readonly changed: boolean;
  /** The plan's rule id (sorted first of the merged ids), when a plan exists. */
  readonly rule: string | null;
  readonly archiveId: string | null;
  /** Stable reason codes, e.g. `["reduced", "status:complete"]` or `["parse:expansion"]`. */
  readonly reasons: readonly string[];
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}

/** How `reduceFinishedResult` obtains an exact copy of the input (injected I/O). */
export interface ExactCopy {
  /** Returns the archive id that holds the exact input, or a reason code when none does. */
  obtain(): Promise<{ id: string } | { reason: string }>;
}

/**
 * Plans and reduces one finished result (see the module contract) with a
 * ready parser and registry; archiving is injected through `copy`, which is
 * only called when a plan exists. Returns the bytes to print (the input
 * itself unless changed) and the report. Never throws.
 */
export async function reduceFinishedResult(
  source: string,
  input: Uint8Array,
  exitCode: number | undefined,
  parser: ShellParser,
  registry: RuleRegistry,
  copy: ExactCopy,
): Promise<{ output: Uint8Array; report: ResultReduceReport }> {
  const pass = (
    reasons: string[],
    rule: string | null = null,
    archiveId: string | null = null,
  ) => ({
    output: input,
    report: {
      changed: false,
      rule,
      archiveId,
      reasons,
      bytesBefore: input.length,
      bytesAfter: input.length,
    },
  });
  const parsed = parser.parse(source);
  if (!parsed.ok) return pass([`parse:${parsed.reason}`]);
  const planned = planResult(parsed.program, registry);
  if (!planned.ok) return pass([planned.reason], planned.rule ?? null);
  const plan = planned.plan;
  const ruleId = plan.rule.id;
  if (input.length === 0) return pass(["empty-input"], ruleId);
  if (hasStageDiagnostics(plan, new TextDecoder().decode(input))) {
    return pass(["stage-diagnostics"], ruleId);
  }
  let exact: { id: string } | { reason: string };
  try {
    exact = await copy.obtain();
  } catch {
    exact = { reason: "archive-failed" };
  }
  if ("reason" in exact) return pass([exact.reason], ruleId);
  const { createStreamReducer } = await import("../reduce/mod.ts");
  const reducer = createStreamReducer(effectiveRule(plan));
  reducer.push(input);
  const reduced = reducer.finish({ code: exitCode ?? 1 }, { kind: "archived", id: exact.id });
  if (!reduced.changed || reduced.bytes.length >= input.length) {
    return pass(["no-savings"], ruleId, exact.id);
  }
  return {
    output: reduced.bytes,
    report: {
      changed: true,
      rule: ruleId,
      archiveId: exact.id,
      reasons: ["reduced", `status:${plan.statusConfidence}`],
      bytesBefore: input.length,
      bytesAfter: reduced.bytes.length,
    },
  };
}
