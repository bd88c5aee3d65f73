/**
 * Committing one call: its facts, each stream's SHA-256 and the search text
 * in one short write transaction, after its exact bytes were written to
 * the call's own file (`call_bytes.ts`) with no lock held. Either the rows
 * land, naming a complete file, or nothing does (the file is removed).
 *
 * Digests are computed while the bytes are copied from the spool into the
 * call file: a stream of at most {@link WHOLE_DIGEST_BYTES} is read whole
 * and hashed by Web Crypto (about 550 MB/s here, on another thread while
 * the bytes are written; an empty stream needs no digest call); a larger
 * one is copied one chunk at a time through `node:crypto`'s incremental
 * hash (memory bounded by one chunk). That module costs about 40 ms to load, so only a
 * run with more than 32 MiB of one stream pays it. The write transaction
 * therefore holds SQLite's lock only for a few small row inserts, whatever
 * the size of the output; the search index is filled later, by `yarp
 * search`, under its own lock (`search_index.ts`; docs/archive.md,
 * "Concurrency").
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { sha256Native, toHex } from "../bytes/sha256.ts";
import { writeAll } from "../base/write_all.ts";
import { clearPending, createCallFile, markPending, removeCallFile } from "./call_bytes.ts";
import { newCallId } from "./ids.ts";
import { databasePath, type TransactionTiming, writeTransaction } from "./store.ts";

/** Bytes copied or read at a time (1 MiB); also the chunk size of schema-1 rows. */
export const CHUNK_BYTES = 1024 * 1024;
/** Streams up to this size are digested in one native call (32 MiB). */
export const WHOLE_DIGEST_BYTES = 32 * 1024 * 1024;
/** Bytes of a stream's head and of its tail that the search index sees (64 KiB each). */
export const SEARCH_SAMPLE_BYTES = 64 * 1024;
/** Attempts at a fresh random id before giving up (a collision is ~1 in 40,000 at 100,000 calls). */
const ID_ATTEMPTS = 8;

/** Names a stored stream may have: a run's two streams, or a host's combined `output`. */
export type StreamName = "stdout" | "stderr" | "output";

/** The facts recorded for one call. */
export interface CallFacts {
  /** Unix time in milliseconds when the call started. */
  readonly createdMs: number;
  readonly cwd: string;
  /** `run` for `yarp run`, `put` for `yarp archive put`. */
  readonly source: "run" | "put";
  /** The command as text (shell-quoted argv for `run`, the host's source for `put`). */
  readonly command: string;
  /** The exact argv for `run`; null for `put`. */
  readonly argv: readonly string[] | null;
  /** The shell status (128 + n after signal n), or null when unknown. */
  readonly exitCode: number | null;
  /** The signal name when the child died by a signal. */
  readonly signal: string | null;
  /** The reduction rule that selected the call, when one did. */
  readonly ruleId: string | null;
}

/** One stream's exact bytes, readable at any offset (a spool file or memory). */
export interface StreamSource {
  readonly name: StreamName;
  /** Total bytes. */
  readonly size: number;
  /**
   * Fills `buffer` from byte `offset` and returns how many bytes were
   * read: `buffer.length`, or fewer only at the end of the stream.
   */
  read(offset: number, buffer: Uint8Array): number;
}

/** A {@link StreamSource} over bytes in memory. */
export function memorySource(name: StreamName, bytes: Uint8Array): StreamSource {
  return {
    name,
    size: bytes.length,
    read(offset, buffer) {
      const part = bytes.subarray(offset, offset + buffer.length);
      buffer.set(part);
      return part.length;
    },
  };
}

/** What a commit stored, and how long its write transaction waited and held the lock. */
export interface CommittedCall {
  readonly id: string;
  readonly seq: number;
  readonly totalBytes: number;
  readonly timing: Readonly<TransactionTiming>;
}

function readFully(source: StreamSource, offset: number, length: number): Uint8Array {
  return readInto(source, offset, new Uint8Array(length));
}

/** Fills `buffer` from `source` at `offset`; throws when the spool holds fewer bytes. */
function readInto(source: StreamSource, offset: number, buffer: Uint8Array): Uint8Array {
  const got = source.read(offset, buffer);
  if (got !== buffer.length) {
    throw new Error(`${source.name}: spool ended at ${offset + got} of ${source.size} bytes`);
  }
  return buffer;
}

/** Lossy text for the search index: NUL and ANSI escapes removed. */
function indexText(bytes: Uint8Array): string {
  // deno-lint-ignore no-control-regex
  return new TextDecoder().decode(bytes).replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]|\0/g, " ");
}

/**
 * The text the search index holds for a stream: all of it up to twice
 * {@link SEARCH_SAMPLE_BYTES}, else the first and last 64 KiB joined by
 * ` … `, each decoded lossily (a cut UTF-8 sequence becomes U+FFFD).
 */
export function searchSample(source: StreamSource, whole?: Uint8Array): string {
  if (source.size === 0) return "";
  if (source.size <= 2 * SEARCH_SAMPLE_BYTES) {
    return indexText(whole ?? readFully(source, 0, source.size));
  }
  const head = whole?.subarray(0, SEARCH_SAMPLE_BYTES) ?? readFully(source, 0, SEARCH_SAMPLE_BYTES);
  const tailAt = source.size - SEARCH_SAMPLE_BYTES;
  const tail = whole?.subarray(tailAt) ?? readFully(source, tailAt, SEARCH_SAMPLE_BYTES);
  return `${indexText(head)}\n … \n${indexText(tail)}`;
}

/** One stream as written to the call file. */
interface WrittenStream {
  readonly source: StreamSource;
  readonly offset: number;
  readonly sha256: string;
}

/** The SHA-256 of no bytes. */
const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/**
 * Copies every stream of `streams` into `file` back to back, digesting and
 * sampling each on the way (see the module comment for the two digest
 * paths). Throws when a read, digest or write fails.
 */
async function writeStreams(
  file: Deno.FsFile,
  streams: readonly StreamSource[],
): Promise<WrittenStream[]> {
  const written: WrittenStream[] = [];
  let offset = 0;
  for (const source of streams) {
    let sha256: string;
    if (source.size === 0) sha256 = EMPTY_SHA256;
    else if (source.size <= WHOLE_DIGEST_BYTES) {
      const bytes = readFully(source, 0, source.size);
      // Web Crypto digests on another thread: the file write below runs meanwhile.
      const digest = sha256Native(bytes);
      digest.catch(() => {}); // a failed write throws first; the digest is then not awaited
      writeAll(file, bytes);
      sha256 = toHex(await digest);
    } else {
      const { createHash } = await import("node:crypto");
      const hash = createHash("sha256");
      const buffer = new Uint8Array(CHUNK_BYTES);
      for (let at = 0; at < source.size; at += CHUNK_BYTES) {
        const length = Math.min(CHUNK_BYTES, source.size - at);
        const chunk = readInto(source, at, buffer.subarray(0, length));
        hash.update(chunk);
        writeAll(file, chunk);
      }
      sha256 = hash.digest("hex");
    }
    written.push({ source, offset, sha256 });
    offset += source.size;
  }
  return written;
}

/**
 * Writes the bytes of `streams` to the call file of a fresh id (another id
 * when the name is taken) and returns the id and what was written. A call
 * with no bytes needs no file. Throws, leaving no file, when any read,
 * digest or write fails.
 */
async function writeCallFile(
  dbPath: string,
  streams: readonly StreamSource[],
  totalBytes: number,
  newId: () => string,
): Promise<{ id: string; written: WrittenStream[] }> {
  for (let attempt = 1;; attempt += 1) {
    const id = newId();
    if (totalBytes === 0) {
      return {
        id,
        written: streams.map((source) => ({ source, offset: 0, sha256: EMPTY_SHA256 })),
      };
    }
    markPending(dbPath, id);
    let file: Deno.FsFile | undefined;
    try {
      file = createCallFile(dbPath, id);
    } finally {
      if (file === undefined) clearPending(dbPath, id);
    }
    if (file === undefined) {
      if (attempt >= ID_ATTEMPTS) throw new Error(`no free call id after ${ID_ATTEMPTS} attempts`);
      continue;
    }
    try {
      return { id, written: await writeStreams(file, streams) };
    } catch (error) {
      removeCallFile(dbPath, id);
      clearPending(dbPath, id);
      throw error;
    } finally {
      file.close();
    }
  }
}

/** Inserts the rows of one call (its bytes already in its file) in one short transaction. */
function insertRows(
  db: DatabaseSync,
  id: string,
  facts: CallFacts,
  written: readonly WrittenStream[],
  totalBytes: number,
  timing: TransactionTiming,
): number {
  return writeTransaction(db, () => {
    const seq = insertCall(db, id, facts, totalBytes);
    const insertStream = db.prepare(
      `INSERT INTO streams (call_seq, name, size, sha256, chunk_count, blob_offset)
       VALUES (?, ?, ?, ?, 0, ?)`,
    );
    for (const stream of written) {
      insertStream.run(seq, stream.source.name, stream.source.size, stream.sha256, stream.offset);
    }
    db.prepare(
      "UPDATE archive_totals SET calls = calls + 1, bytes = bytes + ?, last_seq = ? WHERE one = 1",
    ).run(totalBytes, seq);
    return seq;
  }, timing);
}

/**
 * Stores one call: its bytes in a new call file, then its rows in one
 * transaction; returns its new id. Waits up to the busy timeout for other
 * writers. Throws (and stores nothing) when any read, digest or write
 * fails; retries with a fresh id on the rare collision (`newId` is
 * injectable for tests). Duplicate stream names are a programming error and throw.
 */
export async function commitCall(
  db: DatabaseSync,
  facts: CallFacts,
  streams: readonly StreamSource[],
  newId: () => string = newCallId,
): Promise<CommittedCall> {
  const names = new Set(streams.map((s) => s.name));
  if (names.size !== streams.length) throw new Error("commitCall: duplicate stream name");
  const dbPath = databasePath(db);
  const totalBytes = streams.reduce((sum, s) => sum + s.size, 0);
  for (let attempt = 1;; attempt += 1) {
    const { id, written } = await writeCallFile(dbPath, streams, totalBytes, newId);
    const timing: TransactionTiming = { waitMs: 0, holdMs: 0 };
    try {
      const seq = insertRows(db, id, facts, written, totalBytes, timing);
      if (totalBytes > 0) clearPending(dbPath, id);
      return { id, seq, totalBytes, timing };
    } catch (error) {
      if (totalBytes > 0) {
        removeCallFile(dbPath, id);
        clearPending(dbPath, id);
      }
      const unique = error instanceof Error &&
        /UNIQUE constraint failed: calls\.id/.test(error.message);
      if (!unique || attempt >= ID_ATTEMPTS) throw error;
    }
  }
}

/** Inserts the call row with the next seq (never a reused one: the search index follows seqs). */
function insertCall(db: DatabaseSync, id: string, facts: CallFacts, totalBytes: number): number {
  const result = db.prepare(
    `INSERT INTO calls (seq, id, created_ms, cwd, source, command, argv, exit_code, signal, rule_id, total_bytes)
     VALUES ((SELECT last_seq + 1 FROM archive_totals WHERE one = 1), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    facts.createdMs,
    facts.cwd,
    facts.source,
    facts.command,
    facts.argv === null ? null : JSON.stringify(facts.argv),
    facts.exitCode,
    facts.signal,
    facts.ruleId,
    totalBytes,
  );
  return Number(result.lastInsertRowid);
}
