/**
 * The exact child runner behind `yarp run`. The child is spawned directly
 * from argv (no shell), with YARP's own cwd, environment and stdin. Two modes:
 *
 * - pass-through: stdin, stdout and stderr are inherited, so the child writes
 *   straight to the real descriptors with no copy, delay or buffering;
 * - reduced: stdout and stderr are pipes, each drained concurrently and
 *   independently into its own {@link StreamReducer}, so one full pipe never
 *   blocks the other; after exit each reducer renders under the real status
 *   and its bytes go to the matching real stream, never the other one.
 *
 * Both modes return the status a shell would report (see `child_status.ts`),
 * forward SIGINT, SIGTERM and SIGHUP received by YARP to the child, and report
 * a spawn failure as a shell does (see `spawn_error.ts`). A failed write of
 * reduced output never changes the returned status: the stream is abandoned,
 * BrokenPipe (a reader that went away) is silent, any other write error is
 * reported in one line on stderr.
 *
 * The child's argv is exact, argv[0] included: see `exec_target.ts`.
 *
 * @module
 */
import type { ReductionRule } from "../rules/model.ts";
import type { StreamReducer } from "../reduce/mod.ts";
import { shellExitStatus } from "./child_status.ts";
import { envOnPath, lookupProgram, spawnTarget } from "./exec_target.ts";
import { describeSpawnFailure } from "./spawn_error.ts";

/** A byte destination that writes every byte it is given or throws. */
export interface ByteSink {
  /** Writes all of `bytes`; throws on the first failed write. */
  write(bytes: Uint8Array): void;
}

/** Where the runner writes reduced output and its own one-line messages. */
export interface RunStreams {
  /** Receives reduced stdout only. */
  readonly stdout: ByteSink;
  /** Receives reduced stderr, spawn-failure and write-failure lines only. */
  readonly stderr: ByteSink;
}

function fileSink(file: { writeSync(bytes: Uint8Array): number }): ByteSink {
  return {
    write(bytes) {
      let offset = 0;
      while (offset < bytes.length) offset += file.writeSync(bytes.subarray(offset));
    },
  };
}

/** The process's real stdout and stderr, written synchronously. */
export const processRunStreams: RunStreams = {
  stdout: fileSink(Deno.stdout),
  stderr: fileSink(Deno.stderr),
};

/** Signals that, sent to YARP, are relayed to the child instead of killing YARP. */
const FORWARDED_SIGNALS: readonly Deno.Signal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Relays forwarded signals to the child while it runs. The listeners are
 * installed before the spawn, so from then on these signals no longer kill
 * YARP; Deno runs listeners from the event loop, never synchronously, so a
 * signal that arrives during the (synchronous) spawn is delivered after
 * `attach`. After a failed spawn it is dropped.
 */
class SignalRelay {
  #child: Deno.ChildProcess | undefined;
  readonly #listeners = FORWARDED_SIGNALS.map((signal) => {
    const listener = () => this.#deliver(signal);
    Deno.addSignalListener(signal, listener);
    return [signal, listener] as const;
  });

  attach(child: Deno.ChildProcess): void {
    this.#child = child;
  }

  close(): void {
    for (const [signal, listener] of this.#listeners) Deno.removeSignalListener(signal, listener);
  }

  #deliver(signal: Deno.Signal): void {
    try {
      this.#child?.kill(signal);
    } catch {
      // The child already exited; its status is what we report.
    }
  }
}

/**
 * Spawns `argv` with inherited stdin and the given output mode, relays
 * forwarded signals to it while `supervise` runs, and returns what
 * `supervise` returns. A spawn failure writes the shell's one-line message to
 * `streams.stderr` and returns 127 or 126 without calling `supervise`.
 */
async function runChild(
  argv: readonly string[],
  output: "inherit" | "piped",
  streams: RunStreams,
  supervise: (child: Deno.ChildProcess) => Promise<number>,
): Promise<number> {
  const program = argv[0];
  const searchPath = readPath();
  const lookup = lookupProgram(program, searchPath);
  if (lookup.kind !== "found") {
    const error = lookup.kind === "missing"
      ? new Deno.errors.NotFound(program)
      : new Deno.errors.PermissionDenied(program);
    const failure = describeSpawnFailure(program, error);
    writeOrReport("stderr", streams, new TextEncoder().encode(failure.message));
    return failure.status;
  }
  const target = spawnTarget(argv, envOnPath(searchPath));
  const relay = new SignalRelay();
  try {
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(target.program, {
        args: [...target.args],
        stdin: "inherit",
        stdout: output,
        stderr: output,
      }).spawn();
    } catch (error) {
      const failure = describeSpawnFailure(program, error);
      writeOrReport("stderr", streams, new TextEncoder().encode(failure.message));
      return failure.status;
    }
    relay.attach(child);
    return await supervise(child);
  } finally {
    relay.close();
  }
}

/**
 * Runs `argv` exactly: stdin, stdout and stderr inherited, cwd and environment
 * untouched, no byte copied by YARP. Returns the child's shell status
 * (`128 + n` after death by signal `n`), or 127/126 when it cannot be spawned
 * (the message goes to `streams.stderr`). `argv` must not be empty.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { runPassthrough } from "./runner.ts";
 * equal(await runPassthrough(["sh", "-c", "exit 3"]), 3);
 * equal(await runPassthrough(["sh", "-c", "kill -TERM $$"]), 143);
 * ```
 */
export async function runPassthrough(
  argv: readonly string[],
  streams: RunStreams = processRunStreams,
): Promise<number> {
  return await runChild(argv, "inherit", streams, async (child) => {
    return shellExitStatus(await child.status).status;
  });
}

/**
 * Runs `argv` with stdin inherited and stdout and stderr captured, each
 * reduced by its own reducer for `rule`. Both pipes are drained concurrently
 * until end of stream, so the child never blocks on output whatever happens
 * to YARP's own streams. After exit each stream is rendered with the real
 * status and written to its own sink in `streams` (stdout first). Returns the
 * child's shell status; a write failure never changes it. If a reducer cannot
 * be created, runs {@link runPassthrough} instead. `argv` must not be empty.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import type { OutputPolicy, ReductionRule } from "../rules/model.ts";
 * import { runReduced } from "./runner.ts";
 * const policy: OutputPolicy = {
 *   headLines: 1, tailLines: 1, maxLineBytes: 256, maxOutputBytes: 1024, minSavingsBytes: 0,
 * };
 * const rule: ReductionRule = {
 *   id: "demo", action: "reduce", match: { programs: ["seq"], argvPrefix: [], argvContainsAll: [] },
 *   reducer: { kind: "head_tail" }, success: policy, failure: policy,
 * };
 * let stdout = "";
 * const streams = {
 *   stdout: { write: (bytes: Uint8Array) => void (stdout += new TextDecoder().decode(bytes)) },
 *   stderr: { write: () => {} },
 * };
 * equal(await runReduced(["seq", "1", "100"], rule, streams), 0);
 * equal(stdout, "1\n[yarp: kept 2 of 100 lines · omitted 98 lines (286 bytes)]\n100\n");
 * ```
 */
export async function runReduced(
  argv: readonly string[],
  rule: ReductionRule,
  streams: RunStreams = processRunStreams,
): Promise<number> {
  // Loaded here, not at start-up: pass-through never needs the reducers.
  const { createStreamReducer } = await import("../reduce/mod.ts");
  let out: StreamReducer, err: StreamReducer;
  try {
    out = createStreamReducer(rule);
    err = createStreamReducer(rule);
  } catch {
    return await runPassthrough(argv, streams);
  }
  return await runChild(argv, "piped", streams, async (child) => {
    const [, , raw] = await Promise.all([
      pump(child.stdout, out),
      pump(child.stderr, err),
      child.status,
    ]);
    const exit = shellExitStatus(raw);
    const status = exit.signal === null
      ? { code: exit.status }
      : { code: exit.status, signal: exit.signal };
    const recovery = { kind: "none" } as const;
    writeOrReport("stdout", streams, out.finish(status, recovery).bytes);
    writeOrReport("stderr", streams, err.finish(status, recovery).bytes);
    return exit.status;
  });
}

/** `PATH` as the child will see it; undefined when unset or not readable. */
function readPath(): string | undefined {
  try {
    return Deno.env.get("PATH");
  } catch {
    return undefined;
  }
}

/** Bytes read from a child pipe per call; one buffer per stream is reused for the whole run. */
const PUMP_BUFFER_BYTES = 64 * 1024;

/**
 * Feeds every chunk of `stream` to `reducer` until end of stream, reading
 * into one reused buffer (a BYOB reader), so a long run allocates nothing per
 * chunk and peak memory stays flat. The reducer copies what it keeps during
 * `push`, so the buffer may be refilled afterwards.
 */
async function pump(stream: ReadableStream<Uint8Array>, reducer: StreamReducer): Promise<void> {
  const reader = stream.getReader({ mode: "byob" });
  let buffer = new Uint8Array(PUMP_BUFFER_BYTES);
  while (true) {
    const { done, value } = await reader.read(buffer);
    if (done) return;
    reducer.push(value);
    buffer = new Uint8Array(value.buffer);
  }
}

/**
 * Writes `bytes` to the named sink. On failure the bytes are abandoned;
 * BrokenPipe stays silent and any other error is reported in one line on
 * stderr (when stderr is not the stream that failed).
 */
function writeOrReport(name: "stdout" | "stderr", streams: RunStreams, bytes: Uint8Array): void {
  if (bytes.length === 0) return;
  try {
    streams[name].write(bytes);
  } catch (error) {
    if (error instanceof Deno.errors.BrokenPipe || name === "stderr") return;
    const reason = error instanceof Error ? error.message.split("\n", 1)[0] : String(error);
    try {
      streams.stderr.write(new TextEncoder().encode(`yarp: ${name}: write failed: ${reason}\n`));
    } catch {
      // stderr is gone too; nothing is left to report to.
    }
  }
}
