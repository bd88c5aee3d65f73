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
 * Reduced runs may keep an exact copy through a {@link RawCapture} (the
 * archive, wired in by `lib/cli/run.ts`, opened while the child starts):
 * every chunk is handed to it as it is read, it commits at exit, and only
 * a committed id is named in the omission marker. When the commit fails, the exact raw bytes are written
 * instead of the reduced ones, then one line on stderr says why; when the
 * capture kept nothing, the marker says no exact copy exists.
 *
 * The child's argv is exact, argv[0] included: see `exec_target.ts`. A
 * working directory deleted before YARP started, which the launcher hands
 * over, is where the child starts: see `caller_cwd.ts`.
 *
 * @module
 */
import type { ReductionRule, SuccessBudgets } from "../rules/model.ts";
import type { PageTally, Recovery, StreamReducer } from "../reduce/mod.ts";
import { shellExitStatus } from "./child_status.ts";
import { envOnPath, lookupProgram, spawnTarget } from "./exec_target.ts";
import { callerCwdTarget, processCallerCwd, statInside } from "./caller_cwd.ts";
import { describeSpawnFailure } from "./spawn_error.ts";
import { firstLine } from "../base/error_message.ts";
import { countChars } from "../bytes/count_chars.ts";
import { type SyncWriter, writeAll } from "../base/write_all.ts";

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

function fileSink(file: SyncWriter): ByteSink {
  return { write: (bytes) => writeAll(file, bytes) };
}

/** The process's real stdout and stderr, written synchronously. */
export const processRunStreams: RunStreams = {
  stdout: fileSink(Deno.stdout),
  stderr: fileSink(Deno.stderr),
};

/** What became of a run's raw bytes at exit (see {@link RawCapture.commit}). */
export type CaptureOutcome =
  /** Committed: output may name `id`. */
  | { readonly kind: "archived"; readonly id: string }
  /** Nothing was kept (archive off, or the spool failed): output says no exact copy exists. */
  | { readonly kind: "unarchived"; readonly reason: string }
  /** The raw bytes are intact but could not be committed: output restores them exactly. */
  | { readonly kind: "failed"; readonly reason: string };

/**
 * Keeps the exact raw bytes of a reduced run. The runner calls `write` for
 * every chunk of each stream as it is read (the chunk's buffer is reused
 * afterwards), `commit` once after the child exits, `restore` only after a
 * `failed` commit, and `close` once at the end whatever happened.
 */
export interface RawCapture {
  /** Keeps `chunk` of `stream`; never throws (a failure shows in `commit`). */
  write(stream: "stdout" | "stderr", chunk: Uint8Array): void;
  /** Commits what was kept with the child's exit facts; never throws. */
  commit(status: { readonly code: number; readonly signal?: string }): Promise<CaptureOutcome>;
  /** Writes the exact kept bytes of `stream` to `write`; throws what `write` throws. */
  restore(stream: "stdout" | "stderr", write: (bytes: Uint8Array) => void): void;
  /**
   * After an `archived` commit, records that `charsAfter` characters were
   * shown in place of the raw output (for `yarp gain`); never throws.
   */
  shown(charsAfter: number): void;
  /** Releases what the capture holds. */
  close(): void;
}

/**
 * The capture for `YARP_ARCHIVE=off`: keeps nothing, and every reduced
 * stream's marker says no exact copy was kept.
 */
export const NO_ARCHIVE: RawCapture = keepsNothing("the archive is off");

/** A capture that keeps nothing and commits as `unarchived` for `reason`. */
function keepsNothing(reason: string): RawCapture {
  return {
    write() {},
    commit: () => Promise.resolve({ kind: "unarchived", reason }),
    shown() {},
    restore() {
      throw new Error("nothing was kept");
    },
    close() {},
  };
}

/**
 * How a reduced run gets its {@link RawCapture}: the capture itself, or a
 * function that opens one, called only once the child is spawned and
 * awaited before its first chunk is read (so the spool exists for every
 * byte, and the child runs while the capture opens). A rejected open keeps
 * nothing: the markers say no exact copy was kept.
 */
export type CaptureSource = RawCapture | (() => Promise<RawCapture>);

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
  const callerCwd = processCallerCwd();
  const envPath = envOnPath(searchPath);
  if (callerCwd !== undefined && ("error" in callerCwd || envPath === undefined)) {
    const reason = "error" in callerCwd ? callerCwd.error : "no env program to start it there";
    const message = `yarp: ${program}: cannot start in the deleted working directory: ${reason}\n`;
    writeOrReport("stderr", streams, new TextEncoder().encode(message));
    return 126;
  }
  const lookup = lookupProgram(
    program,
    searchPath,
    callerCwd === undefined ? undefined : statInside(),
  );
  if (lookup.kind !== "found") {
    const error = lookup.kind === "missing"
      ? new Deno.errors.NotFound(program)
      : lookup.kind === "directory"
      ? new Deno.errors.IsADirectory(program)
      : new Deno.errors.PermissionDenied(program);
    const failure = describeSpawnFailure(program, error);
    writeOrReport("stderr", streams, new TextEncoder().encode(failure.message));
    return failure.status;
  }
  const target = callerCwd === undefined
    ? spawnTarget(argv, envPath)
    : callerCwdTarget(argv, callerCwd, envPath!);
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
 * child's shell status; a write failure never changes it. The reducers load
 * while the child starts; if one cannot be created, each stream is relayed
 * exactly to its own sink instead, and nothing is committed. `argv` must not
 * be empty.
 *
 * With a `capture` (or a function that opens one after the spawn, see
 * {@link CaptureSource}), every chunk is also handed to it, and at exit it
 * commits before anything is rendered: `archived` puts the id in the
 * markers, `unarchived` makes them say no exact copy was kept, and `failed`
 * writes the exact raw bytes of each stream instead of the reduced ones,
 * then `yarp: REASON; the output above is exact and was not archived` on
 * stderr. The runner closes the capture before returning (one it opened
 * only when the spawn succeeded). Without one,
 * markers say nothing about recovery. `budgets` (the config's `budgets:`)
 * set a typed kind's success budget.
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
  capture?: CaptureSource,
  budgets?: SuccessBudgets,
): Promise<number> {
  // Loaded here, not at start-up: pass-through never needs the reducers. The load starts before
  // the spawn and is awaited after it, so the child runs meanwhile; no chunk is read before the
  // reducers and the capture exist (the pipes hold the child's first bytes, or make it wait).
  const reduce = import("../reduce/mod.ts");
  const reducers = reduce.then(({ createStreamReducer, sourceTerms }) => {
    const terms = sourceTerms(argv);
    return [
      createStreamReducer(rule, terms, budgets),
      createStreamReducer(rule, terms, budgets),
    ] as const;
  });
  reducers.catch(() => {}); // a spawn failure never awaits it
  let opened = typeof capture === "function" ? undefined : capture;
  try {
    return await runChild(argv, "piped", streams, async (child) => {
      const opening = typeof capture === "function"
        ? capture().then((kept) => (opened = kept), (error) => keepsNothing(firstLine(error)))
        : Promise.resolve(capture);
      let out: StreamReducer, err: StreamReducer;
      try {
        [out, err] = await reducers;
      } catch {
        // No reducer for this rule: the child already writes to pipes, so relay its bytes exactly.
        await opening; // closed below, with a capture passed in
        const [, , raw] = await Promise.all([
          pump(child.stdout, relayTo("stdout", streams)),
          pump(child.stderr, relayTo("stderr", streams)),
          child.status,
        ]);
        return shellExitStatus(raw).status;
      }
      const kept = await opening;
      // Whether the archived call is larger than one recovery page: the marker then names it.
      const { largerThanPage, PageTally } = await reduce;
      const sizes = [new PageTally(), new PageTally()] as const;
      const [, , raw] = await Promise.all([
        pump(child.stdout, keepAndReduce("stdout", out, kept, sizes[0])),
        pump(child.stderr, keepAndReduce("stderr", err, kept, sizes[1])),
        child.status,
      ]);
      const exit = shellExitStatus(raw);
      const status = exit.signal === null
        ? { code: exit.status }
        : { code: exit.status, signal: exit.signal };
      const outcome = kept === undefined ? undefined : await kept.commit(status);
      if (outcome?.kind === "failed") {
        restoreOrReport("stdout", streams, kept!);
        restoreOrReport("stderr", streams, kept!);
        writeOrReport(
          "stderr",
          streams,
          new TextEncoder().encode(
            `yarp: ${outcome.reason}; the output above is exact and was not archived\n`,
          ),
        );
        return exit.status;
      }
      const recovery: Recovery = outcome === undefined
        ? { kind: "none" }
        : outcome.kind === "archived"
        ? { kind: "archived", id: outcome.id, paged: largerThanPage(sizes) }
        : { kind: "unarchived" };
      const shown = [out.finish(status, recovery).bytes, err.finish(status, recovery).bytes];
      writeOrReport("stdout", streams, shown[0]);
      writeOrReport("stderr", streams, shown[1]);
      if (recovery.kind === "archived") kept!.shown(countChars(shown[0]) + countChars(shown[1]));
      return exit.status;
    });
  } finally {
    opened?.close();
  }
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
 * Hands every chunk of `stream` to `consume` until end of stream, reading
 * into one reused buffer (a BYOB reader), so a long run allocates nothing per
 * chunk and peak memory stays flat. `consume` must copy what it keeps: the
 * buffer is refilled afterwards.
 */
async function pump(
  stream: ReadableStream<Uint8Array>,
  consume: (chunk: Uint8Array) => void,
): Promise<void> {
  const reader = stream.getReader({ mode: "byob" });
  let buffer = new Uint8Array(PUMP_BUFFER_BYTES);
  while (true) {
    const { done, value } = await reader.read(buffer);
    if (done) return;
    consume(value);
    buffer = new Uint8Array(value.buffer);
  }
}

/** Feeds a chunk of stream `name` to its reducer, then to the capture, and counts it in `size`. */
function keepAndReduce(
  name: "stdout" | "stderr",
  reducer: StreamReducer,
  capture: RawCapture | undefined,
  size: PageTally,
): (chunk: Uint8Array) => void {
  return (chunk) => {
    reducer.push(chunk);
    capture?.write(name, chunk);
    size.add(chunk);
  };
}

/**
 * Writes each chunk of stream `name` to its own sink as it comes, with the
 * failure handling of {@link writeOrReport}; after a failed write the rest is
 * drained and dropped, so the child never blocks.
 */
function relayTo(name: "stdout" | "stderr", streams: RunStreams): (chunk: Uint8Array) => void {
  let failed = false;
  return (chunk) => {
    if (failed || chunk.length === 0) return;
    try {
      streams[name].write(chunk);
    } catch (error) {
      failed = true;
      if (!(error instanceof Deno.errors.BrokenPipe) && name !== "stderr") {
        reportFailure(name, streams, error);
      }
    }
  };
}

/**
 * Restores the exact kept bytes of `name` to its sink with the failure
 * handling of {@link writeOrReport}: the first failed write abandons the
 * stream; a spool that cannot be read is reported in one line on stderr.
 */
function restoreOrReport(
  name: "stdout" | "stderr",
  streams: RunStreams,
  capture: RawCapture,
): void {
  let sinkFailed = false;
  try {
    capture.restore(name, (bytes) => {
      try {
        streams[name].write(bytes);
      } catch (error) {
        sinkFailed = true;
        throw error;
      }
    });
  } catch (error) {
    if (sinkFailed) {
      if (error instanceof Deno.errors.BrokenPipe || name === "stderr") return;
      reportFailure(name, streams, error);
      return;
    }
    writeOrReport(
      "stderr",
      streams,
      new TextEncoder().encode(`yarp: ${name}: ${firstLine(error)}\n`),
    );
  }
}

function reportFailure(name: "stdout" | "stderr", streams: RunStreams, error: unknown): void {
  try {
    streams.stderr.write(
      new TextEncoder().encode(`yarp: ${name}: write failed: ${firstLine(error)}\n`),
    );
  } catch {
    // stderr is gone too; nothing is left to report to.
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
    reportFailure(name, streams, error);
  }
}
