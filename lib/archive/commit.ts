/**
 * Committing one call: its facts, each stream's exact bytes in chunks of at
 * most {@link CHUNK_BYTES}, each stream's SHA-256, and the search text, all
 * in one write transaction. Either every row lands or none does.
 *
 * Digests: a stream of at most {@link WHOLE_DIGEST_BYTES} is read whole and
 * hashed by Web Crypto (about 550 MB/s here); a larger one is read back
 * chunk by chunk through `node:crypto`'s incremental hash before the
 * transaction opens (memory bounded by one chunk), and read once more while
 * its chunks are inserted: the second read, from the page cache, costs less
 * than holding the write lock, which other YARP processes wait on, while
 * hashing. That module costs about
 * 40 ms to load, so only a run with more than 32 MiB of one stream pays it,
 * against the seconds the TypeScript SHA-256 (about 95 MB/s) would take.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { sha256Native, toHex } from "../bytes/sha256.ts";
import { newCallId } from "./ids.ts";
import { writeTransaction } from "./store.ts";

/** Bytes per stored chunk row (1 MiB): far below SQLite's 1 GB blob limit. */
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

/** What a commit stored. */
export interface CommittedCall {
  readonly id: string;
  readonly seq: number;
  readonly totalBytes: number;
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

/** The hex SHA-256 of `source`, read one chunk at a time through `node:crypto`. */
async function incrementalDigest(source: StreamSource): Promise<string> {
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256");
  const buffer = new Uint8Array(CHUNK_BYTES);
  for (let offset = 0; offset < source.size; offset += CHUNK_BYTES) {
    const length = Math.min(CHUNK_BYTES, source.size - offset);
    hash.update(readInto(source, offset, buffer.subarray(0, length)));
  }
  return hash.digest("hex");
}

/**
 * Stores one call and its streams in one transaction and returns its new
 * id. Waits up to the busy timeout for other writers. Throws (and stores
 * nothing) when any read, digest or write fails; retries the id on the rare
 * collision (`newId` is injectable for tests). Duplicate stream names are a programming error and throw.
 */
export async function commitCall(
  db: DatabaseSync,
  facts: CallFacts,
  streams: readonly StreamSource[],
  newId: () => string = newCallId,
): Promise<CommittedCall> {
  const names = new Set(streams.map((s) => s.name));
  if (names.size !== streams.length) throw new Error("commitCall: duplicate stream name");
  // Everything asynchronous happens before the transaction opens.
  const wholes = new Map<StreamName, Uint8Array>();
  const digests = new Map<StreamName, string>();
  for (const source of streams) {
    if (source.size > WHOLE_DIGEST_BYTES) {
      digests.set(source.name, await incrementalDigest(source));
      continue;
    }
    const bytes = readFully(source, 0, source.size);
    wholes.set(source.name, bytes);
    digests.set(source.name, toHex(await sha256Native(bytes)));
  }
  const samples = streams.map((source) => searchSample(source, wholes.get(source.name)));
  const totalBytes = streams.reduce((sum, s) => sum + s.size, 0);
  return writeTransaction(db, () => {
    const seq = insertCall(db, facts, totalBytes, newId);
    const insertChunk = db.prepare(
      "INSERT INTO chunks (call_seq, stream, n, data) VALUES (?, ?, ?, ?)",
    );
    const insertStream = db.prepare(
      "INSERT INTO streams (call_seq, name, size, sha256, chunk_count) VALUES (?, ?, ?, ?, ?)",
    );
    for (const source of streams) {
      const whole = wholes.get(source.name);
      const buffer = whole === undefined ? new Uint8Array(CHUNK_BYTES) : undefined;
      let n = 0;
      for (let offset = 0; offset < source.size; offset += CHUNK_BYTES, n += 1) {
        const length = Math.min(CHUNK_BYTES, source.size - offset);
        const chunk = whole !== undefined
          ? whole.subarray(offset, offset + length)
          : readInto(source, offset, buffer!.subarray(0, length));
        insertChunk.run(seq, source.name, n, chunk);
      }
      insertStream.run(seq, source.name, source.size, digests.get(source.name)!, n);
    }
    db.prepare("INSERT INTO call_text (rowid, command, output) VALUES (?, ?, ?)").run(
      seq,
      facts.command,
      samples.filter((s) => s !== "").join("\n"),
    );
    db.prepare("UPDATE archive_totals SET calls = calls + 1, bytes = bytes + ? WHERE one = 1")
      .run(totalBytes);
    const id = (db.prepare("SELECT id FROM calls WHERE seq = ?").get(seq) as { id: string }).id;
    return { id, seq, totalBytes };
  });
}

function insertCall(
  db: DatabaseSync,
  facts: CallFacts,
  totalBytes: number,
  newId: () => string,
): number {
  const insert = db.prepare(
    `INSERT INTO calls (id, created_ms, cwd, source, command, argv, exit_code, signal, rule_id, total_bytes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (let attempt = 1;; attempt += 1) {
    try {
      const result = insert.run(
        newId(),
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
    } catch (error) {
      const unique = error instanceof Error &&
        /UNIQUE constraint failed: calls\.id/.test(error.message);
      if (!unique || attempt >= ID_ATTEMPTS) throw error;
    }
  }
}
