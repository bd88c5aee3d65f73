/**
 * Reading YARP's own environment variables without ever prompting: a
 * variable YARP has no permission to read counts as unset. The launcher
 * grants a named list (see `bin/yarp`).
 *
 * @module
 */

/** A source of environment variables: returns the value, or undefined when unset or unreadable. */
export type EnvReader = (name: string) => string | undefined;

/**
 * The process environment as an {@link EnvReader}: a variable that is unset,
 * or that the sandbox does not let YARP read, is `undefined`. Never prompts,
 * never throws.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { processEnv } from "./env.ts";
 * equal(processEnv("YARP_SURELY_UNSET_VARIABLE_X"), undefined);
 * ```
 */
export const processEnv: EnvReader = (name) => {
  try {
    const descriptor = { name: "env", variable: name } as const;
    if (Deno.permissions.querySync(descriptor).state !== "granted") return undefined;
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
};

/** An {@link EnvReader} over a plain record, for tests and for callers that pass an environment. */
export function envFromRecord(record: Readonly<Record<string, string | undefined>>): EnvReader {
  return (name) => Object.hasOwn(record, name) ? record[name] : undefined;
}
