/**
 * The `--cap SPEC` option of the corpus benches: the global output cap's
 * sizes for a replay, to measure its threshold and shape (docs/rules.md,
 * "The global output cap's size"). SPEC is `off`, or comma-separated
 * `FIELD=N` pairs naming fields of `OutputCapPolicy`
 * (`thresholdBytes=4096,headLines=20`); fields not named keep the built-in
 * value.
 *
 * @module
 */
import { DEFAULT_OUTPUT_CAP, type OutputCapPolicy } from "../lib/reduce/output_cap.ts";

/**
 * `args` without `--cap SPEC`, and the policy it gives (undefined without
 * it, null for `off`). Throws a one-line error naming the option on a bad
 * spec.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { outputCapArg } from "./_output_cap_arg.ts";
 * import { DEFAULT_OUTPUT_CAP } from "../lib/reduce/output_cap.ts";
 * deepEqual(outputCapArg(["a.gz", "--cap", "thresholdBytes=4096,headLines=30"]), {
 *   cap: { ...DEFAULT_OUTPUT_CAP, thresholdBytes: 4096, headLines: 30 },
 *   rest: ["a.gz"],
 * });
 * ```
 */
export function outputCapArg(
  args: readonly string[],
): { cap: OutputCapPolicy | null | undefined; rest: string[] } {
  const at = args.indexOf("--cap");
  if (at < 0) return { cap: undefined, rest: [...args] };
  const spec = args[at + 1] ?? "";
  const rest = args.filter((_, i) => i !== at && i !== at + 1);
  if (spec === "off") return { cap: null, rest };
  const cap: Record<string, number> = { ...DEFAULT_OUTPUT_CAP };
  for (const pair of spec.split(",")) {
    const [field, value] = pair.split("=");
    const n = Number(value);
    if (
      !(field in DEFAULT_OUTPUT_CAP) || value === undefined || !Number.isSafeInteger(n) || n < 0
    ) {
      throw new Error(
        `--cap: expected off or FIELD=N,… with fields of ${
          Object.keys(DEFAULT_OUTPUT_CAP).join(", ")
        }, got '${spec}'`,
      );
    }
    cap[field] = n;
  }
  return { cap: cap as unknown as OutputCapPolicy, rest };
}
