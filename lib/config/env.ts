/**
 * Reading YARP's own environment variables without ever prompting: a
 * variable YARP has no permission to read counts as unset. The launcher
 * grants a named list (`env` in `lib/base/sandbox.json`).
 *
 * @module
 */
import { SANDBOX, type Sandbox } from "../base/sandbox.ts";

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

/**
 * Deletes from YARP's own environment each variable a launcher set for Deno
 * (a `runtimeEnv` pair of `lib/base/sandbox.json` whose value is exactly the
 * launcher's), so a child YARP starts gets the caller's environment
 * unchanged. A variable YARP may not read or write is left alone. Call once,
 * before anything starts a child.
 */
export function dropRuntimeEnv(sandbox: Sandbox = SANDBOX): void {
  for (const pair of sandbox.runtimeEnv) {
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq);
    if (processEnv(name) !== pair.slice(eq + 1)) continue;
    try {
      Deno.env.delete(name);
    } catch {
      // Not writable in this sandbox: nothing a launcher of ours set.
    }
  }
}
