/**
 * `yarp corpus analyze`'s engine room: streams every line of every corpus
 * file (plain or gzip JSONL) through the production engine and returns one
 * tally. Small corpora are replayed in this thread; large ones are spread
 * over workers (one per core, at most four), each with its own parser and
 * tally, merged at the end, so both cores work and the figures do not depend
 * on the split. Memory is bounded by a few batches of lines in flight, not
 * by the corpus size. Where the worker module is not a file beside this one
 * (the single-file bundle), everything is replayed in this thread.
 *
 * @module
 */
import { builtinRuleSource, createRuleRegistry } from "../rules/registry.ts";
import { loadShellParser } from "../shell/mod.ts";
import { readJsonlLines } from "./jsonl.ts";
import { emptyTally, mergeTallies, type TallyData } from "./metrics.ts";
import { createLineReplay } from "./replay.ts";
import { firstLine } from "../base/error_message.ts";
import type { SuccessBudgets } from "../rules/model.ts";

/** Corpora at least this large (bytes on disk) are spread over workers by default. */
export const WORKER_THRESHOLD_BYTES = 4 * 1024 * 1024;
/** A batch closes at this many characters of JSONL or {@link BATCH_LINES} lines. */
const BATCH_CHARS = 1024 * 1024;
const BATCH_LINES = 64;
/** Batches a worker may hold before the reader waits. */
const IN_FLIGHT_PER_WORKER = 2;

/** Where the analysis is, for a progress display. */
export interface AnalyzeProgress {
  readonly records: number;
  readonly bytesRead: number;
  readonly totalBytes: number;
}

/** What to analyse and how. */
export interface AnalyzeOptions {
  readonly files: readonly string[];
  /** Worker count; undefined chooses by corpus size and cores, 0 replays in this thread. */
  readonly workers?: number;
  /** The configured success budgets (config `budgets:`); default built-in. */
  readonly budgets?: SuccessBudgets;
  readonly onProgress?: (progress: AnalyzeProgress) => void;
}

/** The merged tally and the files that could not be read (path and one-line reason). */
export interface AnalyzeResult {
  readonly tally: TallyData;
  readonly unreadable: readonly { readonly path: string; readonly reason: string }[];
}

/** The default worker count for `totalBytes` of corpus on `cores` cores. */
export function defaultWorkers(totalBytes: number, cores: number): number {
  return totalBytes < WORKER_THRESHOLD_BYTES ? 0 : Math.max(1, Math.min(cores, 4));
}

/** A worker died or reported an error: the analysis cannot be complete. */
class WorkerFailure extends Error {
  constructor(reason: string) {
    super(`corpus worker: ${reason}`);
  }
}

/** A sink for lines: in-thread replay or a worker pool. */
interface LineSink {
  send(lines: string[]): Promise<void>;
  finish(): Promise<TallyData>;
  /** Releases workers; safe to call after a failure. */
  close(): void;
}

async function threadSink(
  onRecords: (n: number) => void,
  budgets: SuccessBudgets | undefined,
): Promise<LineSink> {
  const replay = createLineReplay(
    await loadShellParser(),
    createRuleRegistry([builtinRuleSource()]),
    budgets,
  );
  const tally = emptyTally();
  return {
    async send(lines) {
      for (const line of lines) await replay(line, tally);
      onRecords(lines.length);
    },
    finish: () => Promise.resolve(tally),
    close: () => {},
  };
}

const WORKER_MODULE = new URL("./_replay_worker.ts", import.meta.url);

/** False where the worker module is not a file beside this one (the single-file bundle). */
function workerModuleAvailable(): boolean {
  try {
    return WORKER_MODULE.protocol === "file:" && Deno.statSync(WORKER_MODULE).isFile;
  } catch {
    return false;
  }
}

function workerSink(
  count: number,
  onRecords: (n: number) => void,
  budgets: SuccessBudgets | undefined,
): LineSink {
  const workers = Array.from({ length: count }, () => {
    const worker = new Worker(WORKER_MODULE, { type: "module" });
    worker.postMessage({ budgets });
    return worker;
  });
  const inFlight = workers.map(() => 0);
  const tallies: (TallyData | undefined)[] = workers.map(() => undefined);
  let failure: WorkerFailure | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  workers.forEach((worker, index) => {
    worker.onmessage = (
      event: MessageEvent<{ done?: number; tally?: TallyData; error?: string }>,
    ) => {
      const { done, tally, error } = event.data;
      if (done !== undefined) {
        inFlight[index]--;
        onRecords(done);
      }
      if (tally !== undefined) tallies[index] = tally;
      if (error !== undefined) failure ??= new WorkerFailure(error);
      notify();
    };
    worker.onerror = (event) => {
      event.preventDefault();
      failure ??= new WorkerFailure(event.message);
      notify();
    };
  });
  const waitFor = async (ready: () => boolean) => {
    while (!ready()) {
      if (failure !== undefined) throw failure;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    if (failure !== undefined) throw failure;
  };
  return {
    async send(lines) {
      await waitFor(() => inFlight.some((n) => n < IN_FLIGHT_PER_WORKER));
      const index = inFlight.indexOf(Math.min(...inFlight));
      inFlight[index]++;
      workers[index].postMessage({ lines });
    },
    async finish() {
      for (const worker of workers) worker.postMessage({ finish: true });
      await waitFor(() => tallies.every((tally) => tally !== undefined));
      const merged = emptyTally();
      for (const tally of tallies) mergeTallies(merged, tally!);
      return merged;
    },
    close() {
      for (const worker of workers) worker.terminate();
    },
  };
}

/**
 * Analyses `options.files` in order. A file that cannot be opened or read
 * (or is not valid gzip) is reported in `unreadable` and the run goes on
 * with the next; lines read from it before the error still count. Malformed
 * lines are counted as skipped in the tally. Rejects only when a worker
 * fails.
 */
export async function analyzeCorpus(options: AnalyzeOptions): Promise<AnalyzeResult> {
  const unreadable: { path: string; reason: string }[] = [];
  const sizes: number[] = [];
  for (const path of options.files) {
    try {
      sizes.push((await Deno.stat(path)).size);
    } catch {
      sizes.push(0);
    }
  }
  const totalBytes = sizes.reduce((sum, size) => sum + size, 0);
  const wanted = options.workers ??
    defaultWorkers(totalBytes, navigator.hardwareConcurrency ?? 1);
  const workers = workerModuleAvailable() ? wanted : 0;
  let records = 0;
  let bytesBefore = 0;
  let bytesRead = 0;
  const report = () => options.onProgress?.({ records, bytesRead, totalBytes });
  const onRecords = (n: number) => {
    records += n;
    report();
  };
  const sink = workers > 0
    ? workerSink(workers, onRecords, options.budgets)
    : await threadSink(onRecords, options.budgets);
  let batch: string[] = [];
  let batchChars = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const lines = batch;
    batch = [];
    batchChars = 0;
    await sink.send(lines);
  };
  try {
    for (const [index, path] of options.files.entries()) {
      try {
        for await (const line of readJsonlLines(path, (n) => (bytesRead = bytesBefore + n))) {
          batch.push(line.text);
          batchChars += line.text.length;
          if (batch.length >= BATCH_LINES || batchChars >= BATCH_CHARS) await flush();
        }
      } catch (error) {
        if (error instanceof WorkerFailure) throw error;
        unreadable.push({ path, reason: firstLine(error) });
      }
      bytesBefore += sizes[index];
      bytesRead = bytesBefore;
    }
    await flush();
    const tally = await sink.finish();
    report();
    return { tally, unreadable };
  } finally {
    sink.close();
  }
}
