/**
 * Starting the child in a working directory that was deleted.
 *
 * A shell starts a child in a deleted working directory without fuss: the
 * child inherits the directory (an inode with no name) and runs. Deno cannot
 * start in one at all ("could not read current working directory" and a
 * backtrace, before any YARP code runs), so the launcher hands the directory
 * over instead: it opens it on a free descriptor N from 3 to 9, moves to `/`,
 * sets `YARP_CALLER_CWD_FD=N` and starts Deno there (PWD and OLDPWD stay the
 * caller's).
 *
 * The runner then starts the child through a trampoline that puts every
 * thing back: `/bin/sh -c '[ -d /proc/PID/fd/N ] && exec "$@" N<&-; …'
 * MESSAGE ENV -u YARP_CALLER_CWD_FD -C /proc/PID/fd/N -- ARGV…`, where PID
 * is YARP's own process. `sh` starts in `/` (so it prints nothing about the
 * directory), checks that the descriptor holds a directory (Deno itself may
 * not look under `/proc` without `--allow-all`), closes descriptor N and
 * execs `env`, which drops the hand-over variable, changes into the deleted
 * directory through YARP's still-open descriptor, and execs ARGV with
 * argv[0] as written. The child ends up as a shell would have started it:
 * same directory, same environment, same descriptors, same argv. When the
 * descriptor holds no directory, `sh` prints MESSAGE (one `yarp:` line) and
 * exits 126 without starting anything.
 *
 * Known misses: a caller whose own environment held `YARP_CALLER_CWD_FD`
 * loses it on this path; an `env` without `-C` (coreutils before 8.28,
 * busybox) fails to start the child (`env` exits 125 with its own message);
 * a program name containing `=` is read by `env` as an assignment.
 *
 * @module
 */
import { type StatFile, statFile } from "./exec_target.ts";

/** The variable through which the launcher names the held descriptor. */
export const CALLER_CWD_FD_VARIABLE = "YARP_CALLER_CWD_FD";

/** A deleted working directory held open by YARP's process on descriptor `fd`. */
export interface CallerCwd {
  /** The descriptor, 3 to 9 (one digit, so `sh` can close it). */
  readonly fd: number;
  /** A path that reaches the directory while YARP runs: `/proc/PID/fd/FD`. */
  readonly path: string;
}

/**
 * The hand-over named by `value` (the variable's value, undefined when
 * unset) for process `pid`: undefined when unset, `{ error }` when the value
 * is not one digit from 3 to 9, else the descriptor and its `/proc` path.
 * Pure: whether the descriptor holds a directory is checked by the
 * trampoline (see the module doc).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { callerCwd } from "./caller_cwd.ts";
 * deepEqual(callerCwd("7", 42), { fd: 7, path: "/proc/42/fd/7" });
 * deepEqual(callerCwd(undefined, 42), undefined);
 * ```
 */
export function callerCwd(
  value: string | undefined,
  pid: number,
): CallerCwd | { error: string } | undefined {
  if (value === undefined) return undefined;
  if (!/^[3-9]$/.test(value)) {
    return { error: `${CALLER_CWD_FD_VARIABLE}=${value}: expected a descriptor from 3 to 9` };
  }
  return { fd: Number(value), path: `/proc/${pid}/fd/${value}` };
}

/** The hand-over from this process's environment (see {@link callerCwd}); unset when unreadable. */
export function processCallerCwd(): CallerCwd | { error: string } | undefined {
  let value: string | undefined;
  try {
    value = Deno.env.get(CALLER_CWD_FD_VARIABLE);
  } catch {
    // Not granted: the launcher did not hand a directory over.
  }
  return callerCwd(value, Deno.pid);
}

/**
 * The program and arguments that start `argv` in `cwd` (see the module
 * doc), through the `env` program at `envPath`; when `cwd` holds no
 * directory, the trampoline prints `yarp: PROG: cannot start in the deleted
 * working directory: …` and exits 126. `argv` must not be empty.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { callerCwdTarget } from "./caller_cwd.ts";
 * const target = callerCwdTarget(["ls", "-l"], { fd: 9, path: "/proc/42/fd/9" }, "/usr/bin/env");
 * deepEqual(target.program, "/bin/sh");
 * deepEqual(target.args.slice(3), [
 *   "/usr/bin/env", "-u", "YARP_CALLER_CWD_FD", "-C", "/proc/42/fd/9", "--", "ls", "-l",
 * ]);
 * ```
 */
export function callerCwdTarget(
  argv: readonly string[],
  cwd: CallerCwd,
  envPath: string,
): { readonly program: string; readonly args: readonly string[] } {
  const message = `yarp: ${argv[0]}: cannot start in the deleted working directory: ` +
    `it is not held on descriptor ${cwd.fd}`;
  return {
    program: "/bin/sh",
    args: [
      "-c",
      `[ -d ${cwd.path} ] && exec "$@" ${cwd.fd}<&-; printf '%s\\n' "$0" >&2; exit 126`,
      message,
      envPath,
      "-u",
      CALLER_CWD_FD_VARIABLE,
      "-C",
      cwd.path,
      "--",
      ...argv,
    ],
  };
}

/**
 * A `stat` for program lookup in a deleted working directory: absolute
 * paths as usual; a relative path (`./tool`, an empty or relative `PATH`
 * entry) names nothing, because a deleted directory holds no entries and no
 * new ones can be made in it.
 */
export function statInside(stat: StatFile = statFile): StatFile {
  return (path) => path.startsWith("/") ? stat(path) : undefined;
}
