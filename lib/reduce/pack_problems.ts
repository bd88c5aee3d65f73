/**
 * Pack-level checks that need more than one rule or the reducers' memory
 * model, shared by `yarp rules check/compile` and the built-in generator:
 * two selecting rules that can match the same argv, and a reduction rule
 * whose retained state could exceed the 4 MiB per-stream limit. Pure.
 *
 * @module
 */
import type { Rule } from "../rules/model.ts";
import { findRuleOverlaps } from "../rules/overlap.ts";
import { checkMemoryBound } from "./mod.ts";

/** One problem with a whole pack, with a stable code for the error table. */
export interface PackProblem {
  readonly code: "overlapping-rules" | "memory-bound-exceeded";
  readonly message: string;
}

/** Every overlap and every over-limit memory bound in `rules`, overlaps first, each sorted. */
export function packProblems(rules: readonly Rule[]): PackProblem[] {
  const problems: PackProblem[] = findRuleOverlaps(rules).map((overlap) => ({
    code: "overlapping-rules",
    message: `rules '${overlap.first}' and '${overlap.second}' can both select ` +
      `'${overlap.program}' argv${overlap.exact ? " (identical matchers)" : ""}`,
  }));
  for (const rule of [...rules].sort((a, b) => a.id < b.id ? -1 : 1)) {
    if (rule.action !== "reduce") continue;
    const bound = checkMemoryBound(rule);
    if (!bound.ok) problems.push({ code: "memory-bound-exceeded", message: bound.message });
  }
  return problems;
}
