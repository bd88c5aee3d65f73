/**
 * `yarp corpus import`'s driver (docs/corpus.md, "Import"): walks session
 * files, reads each with the reader its first lines call for, and writes one
 * corpus record a line, gzip, to a temporary file beside the output that is
 * renamed over it at the end.
 *
 * - Inputs: each given path (sorted), a file as is, a directory walked in
 *   sorted order for `*.jsonl` files and opencode's `opencode.db` (symbolic
 *   links to directories are not followed). JSONL files are streamed line by
 *   line, never read whole; a file that starts with the SQLite header is
 *   read as opencode's database (`lib/hosts/opencode/session.ts`), opened
 *   read-only.
 * - Records: id `<runtime>/<file stem>/<tool call id>` (the stem without
 *   `.jsonl` or `.db`; for opencode the call id is `SESSION/CALL`; a second call with
 *   the same id in one file gets `#2`, `#3`, …), source the runtime's name.
 *   A record equal to one already written (same runtime, call id, command,
 *   exit code and streams: a resumed or forked session copies its parent's
 *   history) is counted as a duplicate and not written again.
 * - Errors are data: a line that is not JSON, or names a shell call that
 *   cannot be read, is skipped and counted; a call without a result is
 *   counted; a path that cannot be read or a file of no known format is
 *   reported (one line naming it) and counted; the run goes on. A file that
 *   fails part-way keeps the records read before the failure. Only an output
 *   that cannot be written stops the run ({@link CorpusOutputError}).
 *
 * Memory: one input line, the calls of one file still waiting for their
 * results, a bounded output buffer, and one 128-bit digest per record
 * written (for duplicates).
 *
 * @module
 */
import { sha256, toHex } from "../bytes/sha256.ts";
import { readJsonlLines } from "./jsonl.ts";
import { siblingTempPath } from "./output_file.ts";
import { type CorpusRecord, recordToLine } from "./record.ts";
import {
  DETECTION_LINES,
  detectRuntime,
  OPENCODE_RUNTIME,
  opencodeParts,
  type RecordedCall,
  RUNTIMES,
  type SessionReader,
  type SessionRuntime,
  SQLITE_HEADER,
} from "../hosts/mod.ts";
import { errorMessage } from "../base/error_message.ts";

/** What one import did; every count is over the whole run. */
export interface ImportSummary {
  /** Session files read to the end with a known format. */
  readonly filesRead: number;
  /** Records written, by runtime name (every runtime present, 0 when none). */
  readonly records: Readonly<Record<string, number>>;
  /** Records not written because an equal one already was. */
  readonly duplicates: number;
  /** Lines that were not JSON or named a shell call that could not be read. */
  readonly skippedLines: number;
  /** Shell calls that never got a result. */
  readonly orphanCalls: number;
  /** Paths that could not be read (missing, unreadable, failed part-way). */
  readonly unreadableFiles: number;
  /** Files whose first lines match no runtime. */
  readonly unknownFiles: number;
  /** Records written with a `prior_reduction`. */
  readonly alreadyReduced: number;
}

/** The output could not be written; nothing was renamed over it. */
export class CorpusOutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CorpusOutputError";
  }
}

/** Output text is encoded and compressed in batches of about this many UTF-16 units. */
const FLUSH_UNITS = 1 << 20;

const encoder = new TextEncoder();

/** The gzip output: lines are buffered, then compressed into a temporary file beside `path`. */
class GzipOutput {
  private readonly _path: string;
  private readonly _temp: string;
  private _writer: WritableStreamDefaultWriter<BufferSource> | undefined;
  private _piped: Promise<void> | undefined;
  private _buffer = "";

  constructor(path: string) {
    this._path = path;
    this._temp = siblingTempPath(path);
  }

  async open(): Promise<void> {
    const file = await this._guard(() =>
      Deno.open(this._temp, { write: true, createNew: true, mode: 0o644 })
    );
    const gzip = new CompressionStream("gzip");
    this._piped = gzip.readable.pipeTo(file.writable);
    this._writer = gzip.writable.getWriter();
  }

  /** Adds one line (without its newline); flushes when the buffer is full. */
  async write(line: string): Promise<void> {
    this._buffer += line + "\n";
    if (this._buffer.length >= FLUSH_UNITS) await this._flush();
  }

  /** Flushes, closes and renames the temporary file over the output. */
  async commit(): Promise<void> {
    await this._flush();
    await this._guard(async () => {
      await this._writer!.close();
      await this._piped;
      await Deno.rename(this._temp, this._path);
    });
  }

  /** Drops the temporary file; never throws. */
  async abort(): Promise<void> {
    await this._writer?.abort().catch(() => {});
    await this._piped?.catch(() => {});
    await Deno.remove(this._temp).catch(() => {});
  }

  private async _flush(): Promise<void> {
    if (this._buffer === "") return;
    const bytes = encoder.encode(this._buffer);
    this._buffer = "";
    await this._guard(() => this._writer!.write(bytes));
  }

  private async _guard<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      throw new CorpusOutputError(`${this._path}: cannot write: ${errorMessage(error)}`);
    }
  }
}

/** The run's counts and its memory of records already written. */
class ImportRun {
  readonly records: Record<string, number> = Object.fromEntries(
    [...RUNTIMES.map((r) => r.name), OPENCODE_RUNTIME].map((name) => [name, 0]),
  );
  filesRead = 0;
  duplicates = 0;
  skippedLines = 0;
  orphanCalls = 0;
  unreadableFiles = 0;
  unknownFiles = 0;
  alreadyReduced = 0;
  private readonly _written = new Set<string>();

  /** The line for `call`, or undefined when an equal record was already written. */
  recordLine(
    runtime: string,
    stem: string,
    call: RecordedCall,
    ids: Map<string, number>,
  ): string | undefined {
    const record: CorpusRecord = { ...call, id: "", source: runtime };
    const digest = toHex(sha256(encoder.encode(`${call.callId}\n${recordToLine(record)}`)));
    const key = digest.slice(0, 32);
    if (this._written.has(key)) {
      this.duplicates++;
      return undefined;
    }
    this._written.add(key);
    const seen = (ids.get(call.callId) ?? 0) + 1;
    ids.set(call.callId, seen);
    const suffix = seen === 1 ? "" : `#${seen}`;
    this.records[runtime]++;
    if (call.priorReduction !== null) this.alreadyReduced++;
    return recordToLine({ ...record, id: `${runtime}/${stem}/${call.callId}${suffix}` });
  }

  summary(): ImportSummary {
    const { records, filesRead, duplicates, skippedLines, orphanCalls } = this;
    const { unreadableFiles, unknownFiles, alreadyReduced } = this;
    return {
      filesRead,
      records: { ...records },
      duplicates,
      skippedLines,
      orphanCalls,
      unreadableFiles,
      unknownFiles,
      alreadyReduced,
    };
  }
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Yields the session files under `paths`, in sorted order; reports paths it cannot read. */
async function* sessionFiles(
  paths: readonly string[],
  run: ImportRun,
  report: (problem: string) => void,
): AsyncGenerator<string> {
  const walk = async function* (dir: string): AsyncGenerator<string> {
    const entries: Deno.DirEntry[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) entries.push(entry);
    } catch (error) {
      run.unreadableFiles++;
      report(`${dir}: cannot read directory: ${errorMessage(error)}`);
      return;
    }
    entries.sort((a, b) => compareNames(a.name, b.name));
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) yield* walk(path);
      else if (
        (entry.name.endsWith(".jsonl") || entry.name === OPENCODE_DATABASE) &&
        (entry.isFile || entry.isSymlink)
      ) yield path;
    }
  };
  for (const path of [...paths].sort(compareNames)) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch (error) {
      run.unreadableFiles++;
      report(`${path}: cannot read: ${errorMessage(error)}`);
      continue;
    }
    if (info.isDirectory) yield* walk(path.endsWith("/") ? path.slice(0, -1) : path);
    else yield path;
  }
}

/** The name of opencode's session database, picked up when a directory is walked. */
const OPENCODE_DATABASE = "opencode.db";

/** The file name without its directory and a final `.jsonl` or `.db`. */
function stemOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name.replace(/\.(?:jsonl|db)$/, "");
}

/** True when the file at `path` starts with the SQLite header. */
async function isSqlite(path: string): Promise<boolean> {
  const file = await Deno.open(path);
  try {
    const head = new Uint8Array(SQLITE_HEADER.length);
    let filled = 0;
    while (filled < head.length) {
      const read = await file.read(head.subarray(filled));
      if (read === null) return false;
      filled += read;
    }
    return new TextDecoder().decode(head) === SQLITE_HEADER;
  } finally {
    file.close();
  }
}

/** Reads opencode's session database at `path` into `output`, one row at a time; reports what went wrong with it. */
async function importDatabase(
  path: string,
  run: ImportRun,
  output: GzipOutput,
  report: (problem: string) => void,
): Promise<void> {
  const stem = stemOf(path);
  const ids = new Map<string, number>();
  let skipped = 0;
  let firstSkip = "";
  let failure: string | undefined;
  try {
    for await (const read of opencodeParts(path)) {
      if (read.kind === "open") {
        run.orphanCalls++;
      } else if (read.kind === "skip") {
        if (skipped++ === 0) firstSkip = read.reason;
      } else if (read.kind === "call") {
        const line = run.recordLine(OPENCODE_RUNTIME, stem, read.call, ids);
        if (line !== undefined) await output.write(line);
      }
    }
  } catch (error) {
    if (error instanceof CorpusOutputError) throw error;
    failure = errorMessage(error);
  }
  run.skippedLines += skipped;
  if (skipped > 0) {
    report(`${path}: skipped ${skipped} part${skipped === 1 ? "" : "s"} (first: ${firstSkip})`);
  }
  if (failure !== undefined) {
    run.unreadableFiles++;
    report(`${path}: cannot read as an opencode database: ${failure}`);
  } else {
    run.filesRead++;
  }
}

/** Reads one session file into `output`; reports what went wrong with it. */
async function importFile(
  path: string,
  run: ImportRun,
  output: GzipOutput,
  report: (problem: string) => void,
): Promise<void> {
  try {
    if (await isSqlite(path)) return await importDatabase(path, run, output, report);
  } catch {
    // unreadable: the JSONL reader below reports it
  }
  const stem = stemOf(path);
  const ids = new Map<string, number>();
  const pending: string[] = [];
  let runtime: SessionRuntime | undefined;
  let reader: SessionReader | undefined;
  let lineNumber = 0;
  let skipped = 0;
  let firstSkip = "";
  const skip = (why: string) => {
    if (skipped++ === 0) firstSkip = `line ${lineNumber}: ${why}`;
  };
  const sink = {
    call: (call: RecordedCall) => {
      const line = run.recordLine(runtime!.name, stem, call, ids);
      if (line !== undefined) pending.push(line);
    },
    skip,
  };
  /** Lines read before the format was known, replayed into the reader once it is. */
  const early: { value: unknown; number: number }[] = [];
  let failure: string | undefined;
  try {
    for await (const line of readJsonlLines(path)) {
      lineNumber = line.number;
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch {
        skip("not valid JSON");
        continue;
      }
      if (reader === undefined) {
        early.push({ value, number: line.number });
        runtime = detectRuntime(value);
        if (runtime !== undefined) {
          reader = runtime.createReader(sink);
          for (const entry of early) {
            lineNumber = entry.number;
            reader.push(entry.value);
          }
        } else if (early.length === DETECTION_LINES) break;
      } else {
        reader.push(value);
      }
      for (const text of pending) await output.write(text);
      pending.length = 0;
    }
  } catch (error) {
    if (error instanceof CorpusOutputError) throw error;
    failure = errorMessage(error);
  }
  run.skippedLines += skipped;
  if (skipped > 0) {
    report(`${path}: skipped ${skipped} line${skipped === 1 ? "" : "s"} (first at ${firstSkip})`);
  }
  if (reader !== undefined) run.orphanCalls += reader.finish();
  for (const text of pending) await output.write(text);
  if (failure !== undefined) {
    run.unreadableFiles++;
    report(`${path}: cannot read: ${failure}`);
  } else if (reader === undefined) {
    run.unknownFiles++;
    report(`${path}: not a Pi, Claude Code, Codex, Gemini CLI or opencode session file`);
  } else {
    run.filesRead++;
  }
}

/**
 * Imports the session files under `paths` into a gzip JSONL corpus at
 * `output` (see the module comment for order, ids, duplicates and errors).
 * Calls `report` with one line (no newline, naming the path) for each input
 * problem, and returns the counts. Throws {@link CorpusOutputError} when
 * `output` cannot be written, after removing its temporary file; never
 * throws for a bad input.
 *
 * @example
 * ```ts ignore
 * const summary = await importSessions(["~/.pi/agent/sessions"], "pi.jsonl.gz", console.error);
 * ```
 */
export async function importSessions(
  paths: readonly string[],
  output: string,
  report: (problem: string) => void,
): Promise<ImportSummary> {
  const run = new ImportRun();
  const gzip = new GzipOutput(output);
  await gzip.open();
  try {
    for await (const path of sessionFiles(paths, run, report)) {
      await importFile(path, run, gzip, report);
    }
    await gzip.commit();
  } catch (error) {
    await gzip.abort();
    throw error;
  }
  return run.summary();
}
