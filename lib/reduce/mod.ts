/**
 * Stream reducers: bounded, pure state machines that turn one output stream
 * into what YARP prints for it. `createStreamReducer` dispatches statically
 * on the closed set of reducer kinds; budgets, markers and retention are
 * shared by every kind.
 *
 * @module
 */
import type { ReductionRule, SuccessBudgets, TypedReducerKind } from "../rules/model.ts";
import type { Family } from "./kinds/family.ts";
import { successBudget } from "./budget.ts";
import { HeadTailStreamReducer } from "./head_tail.ts";
import { LineFilterStreamReducer } from "./line_filter.ts";
import { TypedStreamReducer } from "./typed.ts";
import { BUILD } from "./kinds/build.ts";
import { DIFF } from "./kinds/diff.ts";
import { INSTALL } from "./kinds/install.ts";
import { LIST } from "./kinds/list.ts";
import { LOG } from "./kinds/log.ts";
import { SEARCH } from "./kinds/search.ts";
import { STATUS } from "./kinds/status.ts";
import { TEST } from "./kinds/test.ts";
import type { SourceTerms } from "./source_terms.ts";
import type { StreamReducer } from "./types.ts";

export type { ChildStatus, Recovery, ReducedStream, StreamReducer } from "./types.ts";
export { checkMemoryBound, selectPolicy, streamMemoryBound, successBudget } from "./budget.ts";
export {
  classifyLine,
  classifyText,
  Evidence,
  hasDiagnosticMarker,
  isDiagnosticText,
  isPassingLine,
  MANDATORY,
} from "./evidence.ts";
export { SUCCESS_BUDGET_BYTES, SUCCESS_LINE_BYTES } from "./typed_budget.ts";
export {
  formatCount,
  largerThanPage,
  type OmissionFacts,
  omissionMarker,
  PageTally,
  repeatNoteCount,
  truncationMarker,
} from "./marker.ts";
export { NO_TERMS, type SourceTerms, sourceTerms } from "./source_terms.ts";

/**
 * A fresh reducer for one stream under `rule`. Its retained state never
 * exceeds `streamMemoryBound(rule)`; callers check that bound with
 * `checkMemoryBound` before starting the child. `terms`, the command's
 * source terms (`sourceTerms` of its argv), give the `search` kind one
 * sample row per term; every other kind ignores them. `budgets` (the
 * config's `budgets:`) set a typed kind's success budget.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { createStreamReducer } from "./mod.ts";
 * import type { OutputPolicy, ReductionRule } from "../rules/model.ts";
 * const policy: OutputPolicy = {
 *   headLines: 2, tailLines: 2, maxLineBytes: 256, maxOutputBytes: 1024, minSavingsBytes: 0,
 * };
 * const rule: ReductionRule = {
 *   id: "demo", action: "reduce", match: { programs: ["demo"], argvPrefix: [], argvContainsAll: [] },
 *   reducer: { kind: "head_tail" }, success: policy, failure: policy,
 * };
 * const r = createStreamReducer(rule);
 * for (let i = 1; i <= 100; i++) r.push(new TextEncoder().encode(`${i}\n`));
 * const out = r.finish({ code: 0 }, { kind: "archived", id: "8f2c1a" });
 * equal(
 *   new TextDecoder().decode(out.bytes),
 *   "1\n2\n[yarp: kept 4 of 100 lines · omitted 96 lines (281 bytes) · exact: yarp read 8f2c1a]\n99\n100\n",
 * );
 * ```
 */
export function createStreamReducer(
  rule: ReductionRule,
  terms?: SourceTerms,
  budgets?: SuccessBudgets,
): StreamReducer {
  const reducer = rule.reducer;
  const kind = reducer.kind;
  if (kind === "head_tail") return new HeadTailStreamReducer(rule);
  if (kind === "line_filter") return new LineFilterStreamReducer(rule, reducer);
  return new TypedStreamReducer(
    rule,
    FAMILIES[kind],
    kind === "search" ? terms : undefined,
    successBudget(budgets, kind),
  );
}

/**
 * True when typed `kind` takes its failure budget from a failure line in
 * the text even on exit 0 (test, build, install); data kinds (search,
 * diff, …) take it from a failed exit only.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { textShowsFailure } from "./mod.ts";
 * equal(textShowsFailure("test"), true);
 * equal(textShowsFailure("diff"), false);
 * ```
 */
export function textShowsFailure(kind: TypedReducerKind): boolean {
  return FAMILIES[kind].textShowsFailure;
}

/** The family of every typed kind. */
const FAMILIES: Readonly<Record<TypedReducerKind, Family>> = {
  search: SEARCH,
  diff: DIFF,
  status: STATUS,
  test: TEST,
  build: BUILD,
  install: INSTALL,
  log: LOG,
  list: LIST,
};
