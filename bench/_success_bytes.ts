/**
 * The `--success-bytes N` option of the corpus benches: the success budget
 * of every typed kind, as config `budgets: {success_bytes: N}` sets it.
 *
 * @module
 */
import type { SuccessBudgets } from "../lib/rules/model.ts";

/**
 * `args` without `--success-bytes N`, and the budgets it gives (undefined
 * without it). Throws on a missing or non-integer `N`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { successBytesArg } from "./_success_bytes.ts";
 * deepEqual(successBytesArg(["a.gz", "--success-bytes", "1024"]), {
 *   budgets: { successBytes: 1024, kinds: {} },
 *   rest: ["a.gz"],
 * });
 * ```
 */
export function successBytesArg(
  args: readonly string[],
): { budgets: SuccessBudgets | undefined; rest: string[] } {
  const at = args.indexOf("--success-bytes");
  if (at < 0) return { budgets: undefined, rest: [...args] };
  const bytes = Number(args[at + 1]);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new Error(`--success-bytes: expected a positive integer, got '${args[at + 1]}'`);
  }
  return {
    budgets: { successBytes: bytes, kinds: {} },
    rest: args.filter((_, i) => i !== at && i !== at + 1),
  };
}
