/**
 * Runs the YARP binary once with `node:child_process` (the I/O edge): input
 * on stdin, stdout and stderr collected as text, and a hard timeout. The
 * child starts in its own process group; on timeout the whole group is
 * killed and every pipe destroyed, so nothing the child started keeps Pi
 * waiting. Never rejects and never throws.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { type ProcessOutcome, readServedReduction } from "./decisions.ts";

/** Options for one run. */
export interface RunOptions {
  /** Bytes or text written to stdin, then closed; stdin is `/dev/null` when absent (no pipe). */
  readonly stdin?: string | Uint8Array;
  /** Milliseconds before the process group is killed. */
  readonly timeoutMs: number;
  /** Working directory; the caller's when absent. */
  readonly cwd?: string;
  /** Variables added to the caller's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Stdout bytes kept at most (default 64 MiB); more counts as a failure. */
  readonly maxOutputBytes?: number;
}

/**
 * Spawns `argv` in its own process group (so a kill reaches everything it
 * started) with the caller's environment plus `options.env`. Throws as
 * `spawn` does.
 */
function spawnInGroup(
  argv: readonly string[],
  options: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>> },
  stdio: ["ignore" | "pipe", "pipe", "pipe" | "ignore"],
): ReturnType<typeof spawn> {
  return spawn(argv[0], argv.slice(1), {
    cwd: options.cwd,
    env: options.env === undefined || Object.keys(options.env).length === 0
      ? process.env
      : { ...process.env, ...options.env },
    detached: true,
    stdio,
  });
}

/** Starts `argv` and resolves with how it ended. */
export function runProcess(argv: readonly string[], options: RunOptions): Promise<ProcessOutcome> {
  const limit = options.maxOutputBytes ?? 64 * 1024 * 1024;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: ProcessOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawnInGroup(argv, options, [
        options.stdin === undefined ? "ignore" : "pipe",
        "pipe",
        "pipe",
      ]);
    } catch (error) {
      resolve({ kind: "spawn-error", message: String(error) });
      return;
    }
    const release = () => {
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
    };
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is already gone
      }
      release();
      finish({ kind: "timeout" });
    }, options.timeoutMs);
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) stdout.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderr.length < 64) stderr.push(chunk);
    });
    child.on("error", (error) => {
      release();
      finish({ kind: "spawn-error", message: error.message });
    });
    child.on("close", (code, signal) => {
      if (size > limit) return finish({ kind: "spawn-error", message: "output over the limit" });
      finish({
        kind: "exit",
        code: code ?? (signal === null ? 1 : 128),
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      });
    });
    child.stdin?.on("error", () => {
      // the child closed stdin early (EPIPE); its exit tells what happened
    });
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  });
}

/**
 * A long-lived YARP process answering one line per request line (`yarp
 * rewrite --serve`, `yarp result-reduce --serve`).
 */
export interface LineServer {
  /**
   * Sends `line` and resolves with the next reply line (without its `\n`),
   * or undefined when the process is gone, fails or takes longer than
   * `timeoutMs` (the server is then closed: every later request is undefined).
   */
  request(line: string, timeoutMs: number): Promise<string | undefined>;
  /** Kills the process group and releases the pipes; idempotent. */
  close(): void;
}

/**
 * Starts `argv` as a {@link LineServer} in its own process group, stderr
 * ignored. The child and its pipes are unreferenced, so it never keeps Pi
 * alive; it ends when Pi closes its stdin, or at {@link LineServer.close}.
 * Replies are matched to requests in order. Never throws.
 */
export function startLineServer(
  argv: readonly string[],
  options: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>> },
): LineServer {
  const waiting: ((line: string | undefined) => void)[] = [];
  let dead = false;
  const fail = () => {
    dead = true;
    for (const resolve of waiting.splice(0)) resolve(undefined);
  };
  let child: ReturnType<typeof spawn> | undefined;
  try {
    child = spawnInGroup(argv, options, ["pipe", "pipe", "ignore"]);
  } catch {
    fail();
  }
  const close = () => {
    fail();
    if (child === undefined) return;
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is already gone
    }
    child.stdin?.destroy();
    child.stdout?.destroy();
  };
  if (child !== undefined) {
    child.on("error", close);
    child.on("exit", close);
    child.stdin?.on("error", close);
    child.stdout?.on("error", close);
    // Unreferenced so the server never keeps Pi alive; a child that failed to start may refuse.
    for (const handle of [child, child.stdin, child.stdout]) {
      try {
        (handle as { unref?: () => void } | null)?.unref?.();
      } catch {
        // nothing to unreference
      }
    }
    let buffer = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (text: string) => {
      buffer += text;
      for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        waiting.shift()?.(line);
      }
    });
  }
  return {
    request(line, timeoutMs) {
      if (dead || child?.stdin == null) return Promise.resolve(undefined);
      const stdin = child.stdin;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          close();
          resolve(undefined);
        }, timeoutMs);
        waiting.push((reply) => {
          clearTimeout(timer);
          resolve(reply);
        });
        stdin.write(`${line}\n`);
      });
    },
    close,
  };
}

/**
 * The longest result request sent to `yarp result-reduce --serve`, in
 * characters of its JSON line: a third of the server's limit in bytes
 * (`MAX_SERVED_REQUEST_BYTES`, 64 MiB), since a character of that line is
 * at most 3 bytes of UTF-8. A longer result starts its own process.
 */
export const MAX_SERVED_RESULT_CHARS = 64 * 1024 * 1024 / 3;

/** One finished result for `yarp result-reduce --serve` (its request fields). */
export interface ServedResult {
  readonly command: string;
  /** The whole visible text. */
  readonly input: string;
  readonly exit_code?: number;
  readonly cwd?: string;
}

/** A caller's `yarp result-reduce --serve`: not started yet, running, or null once it failed. */
export interface ResultServerSlot {
  server?: LineServer | null;
}

/**
 * Asks the slot's `yarp result-reduce --serve` to reduce `result`, starting
 * it with `start` when the slot is empty, and resolves with the outcome a
 * one-shot `yarp result-reduce` would have had. Undefined, and the caller
 * starts a process of its own, when the slot's server failed before, when
 * the request is over {@link MAX_SERVED_RESULT_CHARS} (not sent; the server
 * stays), or when no well-formed answer came within `timeoutMs` (the server
 * is closed and the slot set to null: never asked again). Never rejects.
 */
export async function reduceOnServer(
  slot: ResultServerSlot,
  start: () => LineServer,
  result: ServedResult,
  timeoutMs: number,
): Promise<ProcessOutcome | undefined> {
  if (slot.server === null) return undefined;
  const line = JSON.stringify(result);
  if (line.length > MAX_SERVED_RESULT_CHARS) return undefined;
  const server = slot.server ??= start();
  const reply = await server.request(line, timeoutMs);
  const outcome = reply === undefined ? undefined : readServedReduction(reply, result.input);
  if (outcome === undefined) {
    server.close();
    slot.server = null;
  }
  return outcome;
}
