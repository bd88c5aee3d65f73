/**
 * The built-in pack's program buckets, apart from the pack itself: enough to
 * tell that no built-in rule names a program without loading the rules
 * (`yarp run` of such a program passes through on this alone).
 *
 * @module
 */
import programIndex from "./builtin_programs.generated.json" with { type: "json" };
import { ruleProgramName } from "./program_alias.ts";

/**
 * The built-in program buckets, sorted by program: each lists the indexes of
 * the rules naming that program in the built-in pack's `rules`, sorted by
 * rule id (`scripts/generate_builtin.ts` writes them; the cast restores the
 * pair type JSON cannot carry).
 */
export const BUILTIN_PROGRAM_INDEX = programIndex as unknown as readonly (readonly [
  string,
  readonly number[],
])[];

let programs: ReadonlySet<string> | undefined;

/**
 * True when some built-in rule names `program` (argv[0] as rules match it:
 * exactly, or a reviewed project wrapper such as `./mvnw` by its name);
 * false means the built-in rules have no candidate for it.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { isBuiltinProgram } from "./builtin_programs.ts";
 * equal(isBuiltinProgram("git"), true);
 * equal(isBuiltinProgram("./mvnw"), true);
 * equal(isBuiltinProgram("true"), false);
 * ```
 */
export function isBuiltinProgram(program: string): boolean {
  programs ??= new Set(BUILTIN_PROGRAM_INDEX.map(([name]) => name));
  return programs.has(ruleProgramName(program));
}
