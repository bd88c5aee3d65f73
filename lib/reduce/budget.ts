/**
 * Budgets shared by every reducer: the envelope of state sizes that serves
 * both the success and the failure policy (the policy is chosen only after
 * the child exits), policy selection, and the conservative per-stream
 * memory bound checked before a child starts (docs/architecture.md, "Memory contract").
 *
 * @module
 */
import { linePatternRetainedBytes } from "../bytes/mod.ts";
import {
  LIMITS,
  type OutputPolicy,
  type ReductionRule,
  type SuccessBudgets,
  type TypedReducerKind,
} from "../rules/model.ts";
import type { ChildStatus } from "./types.ts";
import { WINDOW_TABLE_BYTES } from "./_line_content.ts";
import { DIAGNOSTIC_RECORDS, SUCCESS_BUDGET_BYTES, typedStateBytes } from "./typed_budget.ts";

/**
 * The state sizes one stream needs so that either policy can be rendered at
 * finish: the larger head, tail, line and output budgets of the two.
 */
export interface StreamEnvelope {
  /** Larger `headLines`. */
  readonly headLines: number;
  /** Larger `tailLines`. */
  readonly tailLines: number;
  /** Content bytes stored per line: the larger `maxLineBytes`, capped at `outputBytes`. */
  readonly lineBytes: number;
  /** Larger `maxOutputBytes`. */
  readonly outputBytes: number;
  /** Short raw pass-through buffer: the larger `maxOutputBytes + minSavingsBytes`. */
  readonly rawBytes: number;
}

/** Bookkeeping bytes per stored line (offset, length, chunk offset, cut and source counts, ending). */
export const LINE_META_BYTES = 4 + 4 + 4 + 8 + 8 + 1;

/**
 * Fixed reducer state counted once per stream: objects, counters and small
 * tables whose size depends on nothing (for `line_filter`, the `keep`
 * screen's 384 bytes and the 1 KiB dispatch table of each pattern set).
 */
export const FIXED_STATE_BYTES = 4096;

/** Byte capacity of a head or tail line store: it closes once it holds `outputBytes`, plus one line. */
export function lineStoreBytes(env: StreamEnvelope): number {
  return env.outputBytes + env.lineBytes + 2;
}

/** The envelope of `rule`'s two policies. */
export function streamEnvelope(rule: ReductionRule): StreamEnvelope {
  const s = rule.success;
  const f = rule.failure;
  const outputBytes = Math.max(s.maxOutputBytes, f.maxOutputBytes);
  return {
    headLines: Math.max(s.headLines, f.headLines),
    tailLines: Math.max(s.tailLines, f.tailLines),
    lineBytes: Math.min(Math.max(s.maxLineBytes, f.maxLineBytes), outputBytes),
    outputBytes,
    rawBytes: Math.max(s.maxOutputBytes + s.minSavingsBytes, f.maxOutputBytes + f.minSavingsBytes),
  };
}

/** The policy a finished child selects: `success` when code is 0 and no signal, else `failure`. */
export function selectPolicy(rule: ReductionRule, status: ChildStatus): OutputPolicy {
  return status.code === 0 && status.signal === undefined ? rule.success : rule.failure;
}

/**
 * A conservative upper bound, in bytes, on the state one stream's reducer
 * retains for `rule`, whatever the input: raw pass-through buffer + head
 * store + tail ring + diagnostic store (bytes and per-line bookkeeping) + line carry buffer +
 * ANSI scratch line and window tables + compiled patterns + fixed state + the rendered output.
 */
export function streamMemoryBound(rule: ReductionRule): number {
  const env = streamEnvelope(rule);
  const kind = rule.reducer.kind;
  if (kind !== "head_tail" && kind !== "line_filter") {
    return typedStateBytes(env) + FIXED_STATE_BYTES;
  }
  let bytes = env.rawBytes + env.lineBytes + FIXED_STATE_BYTES + env.outputBytes +
    lineStoreBytes(env) + DIAGNOSTIC_RECORDS * (LINE_META_BYTES + 8);
  if (env.headLines > 0) bytes += lineStoreBytes(env) + env.headLines * LINE_META_BYTES;
  if (env.tailLines > 0) bytes += lineStoreBytes(env) + env.tailLines * LINE_META_BYTES;
  const reducer = rule.reducer;
  if (reducer.kind === "line_filter") {
    if (reducer.stripAnsi) bytes += env.lineBytes + WINDOW_TABLE_BYTES;
    for (const p of reducer.drop) bytes += linePatternRetainedBytes(p);
    for (const p of reducer.keep) bytes += linePatternRetainedBytes(p);
  }
  return bytes;
}

/** Accepts `rule` when {@link streamMemoryBound} is at most `LIMITS.streamMemoryBytesMax` (4 MiB). */
export function checkMemoryBound(
  rule: ReductionRule,
): { ok: true; bytes: number } | { ok: false; bytes: number; message: string } {
  const bytes = streamMemoryBound(rule);
  if (Number.isSafeInteger(bytes) && bytes <= LIMITS.streamMemoryBytesMax) {
    return { ok: true, bytes };
  }
  return {
    ok: false,
    bytes,
    message:
      `rule ${rule.id}: retained state per stream may reach ${bytes} bytes, above the ${LIMITS.streamMemoryBytesMax}-byte limit`,
  };
}

/**
 * The success budget of typed `kind` under the configured `budgets`: the
 * kind's own, else the one for every kind, else {@link SUCCESS_BUDGET_BYTES}.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { successBudget } from "./budget.ts";
 * const budgets = { successBytes: 1024, kinds: { diff: 2048 } };
 * equal(successBudget(budgets, "diff"), 2048);
 * equal(successBudget(budgets, "log"), 1024);
 * equal(successBudget(undefined, "log"), 1024);
 * ```
 */
export function successBudget(budgets: SuccessBudgets | undefined, kind: TypedReducerKind): number {
  return budgets?.kinds[kind] ?? budgets?.successBytes ?? SUCCESS_BUDGET_BYTES;
}
