/**
 * Spawn failures as a shell reports them. When the child cannot start, a
 * shell prints one line on stderr and sets `$?`: 127 when the program does
 * not exist, 126 when it exists but cannot be executed (no execute
 * permission, a directory, a bad executable format). YARP does the same, with
 * `yarp:` in place of the shell's name, so a wrapped command fails exactly
 * like the bare one apart from that prefix.
 *
 * Pure: classifies the thrown error; never touches the file system.
 * Known miss: a script whose `#!` interpreter is missing fails with ENOENT and
 * is reported as not found (127); bash 5.2 also gives 127 ("cannot execute:
 * required file not found"), older bash 126 ("bad interpreter"). This path
 * is taken only when there is no `env` trampoline (see `exec_target.ts`).
 *
 * @module
 */
import { firstLine } from "../base/error_message.ts";

/** What to print and which status to return when a child could not be spawned. */
export interface SpawnFailure {
  /** 126 (found, not executable) or 127 (not found). */
  readonly status: 126 | 127;
  /** One line ending in `\n`, for stderr. */
  readonly message: string;
}

/** Deno's wrapper text around the OS error: `Failed to spawn 'P': REASON (os error N)`. */
const DENO_SPAWN_PREFIX = /^Failed to spawn '.*?': /;
const OS_ERROR_SUFFIX = / \(os error \d+\)$/;

/**
 * Classifies the error `new Deno.Command(program).spawn()` threw. A missing
 * program gives `yarp: PROG: command not found` (or `No such file or
 * directory` when PROG names a path, as bash does) and 127; permission denied
 * gives `yarp: PROG: Permission denied` and 126, a directory
 * `yarp: PROG: Is a directory` and 126; any other failure gives
 * `yarp: PROG: cannot execute: REASON` and 126.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { describeSpawnFailure } from "./spawn_error.ts";
 * deepEqual(describeSpawnFailure("nosuch", new Deno.errors.NotFound("entity not found")), {
 *   status: 127,
 *   message: "yarp: nosuch: command not found\n",
 * });
 * ```
 */
export function describeSpawnFailure(program: string, error: unknown): SpawnFailure {
  if (error instanceof Deno.errors.NotFound) {
    const reason = program.includes("/") ? "No such file or directory" : "command not found";
    return { status: 127, message: `yarp: ${program}: ${reason}\n` };
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return { status: 126, message: `yarp: ${program}: Permission denied\n` };
  }
  if (error instanceof Deno.errors.IsADirectory) {
    return { status: 126, message: `yarp: ${program}: Is a directory\n` };
  }
  const reason = firstLine(error).replace(DENO_SPAWN_PREFIX, "").replace(OS_ERROR_SUFFIX, "");
  return { status: 126, message: `yarp: ${program}: cannot execute: ${reason}\n` };
}
