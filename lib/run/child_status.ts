/**
 * Child exit status as a POSIX shell reports it. A child that exits normally
 * keeps its exact code (0–255). A child that dies by signal `n` reports
 * `128 + n`, the value `$?` holds in sh, bash and zsh: SIGINT → 130,
 * SIGKILL → 137, SIGPIPE → 141, SIGTERM → 143 on Linux. The signal name is
 * kept beside the number so callers can tell `exit 143` from death by SIGTERM.
 *
 * Pure: no I/O. Signal numbers come from a fixed table per operating system
 * (Linux and the BSD family, which includes macOS); a signal this table does
 * not know keeps the code Deno reported.
 *
 * @module
 */

/** The status a shell would report for a finished child. */
export interface ShellExitStatus {
  /** 0–255: the exit code, or 128 + signal number when a signal ended the child. */
  readonly status: number;
  /** The signal that ended the child, or `null` when it exited normally. */
  readonly signal: Deno.Signal | null;
}

type SignalTable = Readonly<Partial<Record<Deno.Signal, number>>>;

const COMMON: SignalTable = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGILL: 4,
  SIGTRAP: 5,
  SIGABRT: 6,
  SIGFPE: 8,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
  SIGTTIN: 21,
  SIGTTOU: 22,
  SIGXCPU: 24,
  SIGXFSZ: 25,
  SIGVTALRM: 26,
  SIGPROF: 27,
  SIGWINCH: 28,
};

const LINUX: SignalTable = {
  ...COMMON,
  SIGBUS: 7,
  SIGUSR1: 10,
  SIGUSR2: 12,
  SIGSTKFLT: 16,
  SIGCHLD: 17,
  SIGCONT: 18,
  SIGSTOP: 19,
  SIGTSTP: 20,
  SIGURG: 23,
  SIGIO: 29,
  SIGPOLL: 29,
  SIGPWR: 30,
  SIGSYS: 31,
  SIGUNUSED: 31,
};

const BSD: SignalTable = {
  ...COMMON,
  SIGEMT: 7,
  SIGBUS: 10,
  SIGSYS: 12,
  SIGURG: 16,
  SIGSTOP: 17,
  SIGTSTP: 18,
  SIGCONT: 19,
  SIGCHLD: 20,
  SIGIO: 23,
  SIGINFO: 29,
  SIGUSR1: 30,
  SIGUSR2: 31,
};

/**
 * The signal number of `signal` on `os`, or `undefined` when the table does
 * not list it there (for example SIGINFO on Linux).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { signalNumber } from "./child_status.ts";
 * equal(signalNumber("SIGTERM", "linux"), 15);
 * equal(signalNumber("SIGUSR1", "darwin"), 30);
 * ```
 */
export function signalNumber(signal: Deno.Signal, os: typeof Deno.build.os): number | undefined {
  return (os === "linux" || os === "android" ? LINUX : BSD)[signal];
}

/**
 * Maps a Deno `CommandStatus` to the status a shell reports: the exact exit
 * code for a normal exit, `128 + n` for death by signal `n` on `os` (default:
 * the running system). Never clamps, rounds or inverts a status.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { shellExitStatus } from "./child_status.ts";
 * deepEqual(shellExitStatus({ success: false, code: 143, signal: "SIGTERM" }, "linux"), {
 *   status: 143,
 *   signal: "SIGTERM",
 * });
 * deepEqual(shellExitStatus({ success: false, code: 3, signal: null }, "linux"), {
 *   status: 3,
 *   signal: null,
 * });
 * ```
 */
export function shellExitStatus(
  status: Deno.CommandStatus,
  os: typeof Deno.build.os = Deno.build.os,
): ShellExitStatus {
  if (status.signal === null) return { status: status.code, signal: null };
  const number = signalNumber(status.signal, os);
  return { status: number === undefined ? status.code : 128 + number, signal: status.signal };
}
