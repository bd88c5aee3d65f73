/**
 * The search index: FTS5 in its own SQLite file beside the archive
 * (`<database>-search`), filled by `yarp search` before it queries, under
 * its own lock, so tokenising output never holds the archive's write lock
 * nor delays a commit (docs/archive.md, "Concurrency" and "Search").
 *
 * Each indexed call is one row, rowid = `calls.seq`, holding the command
 * text and a bounded sample of each stream (`searchSample`). The index
 * remembers the highest seq it holds; seqs only grow (the archive never
 * reuses one), so the calls still to index are those above it. A pass
 * takes the index's lock without waiting: when another process is
 * indexing, it returns at once and that process (or the next search)
 * picks the call up. Every call is indexed by the time a search that can
 * write returns, the index is never in anyone's way, and a lost index row only makes a call
 * unsearchable, never unreadable.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { searchSample, type StreamSource } from "./commit.ts";
import { openCallFile } from "./call_bytes.ts";
import { findCall, type StoredCall, type StoredStream } from "./read.ts";
import { databasePath, openCompanion, type OpenMode } from "./store.ts";
import { CHUNK_BYTES } from "./commit.ts";

/** Calls one indexing pass indexes at most. */
export const INDEX_BATCH_CALLS = 64;

const SCHEMA = `
CREATE VIRTUAL TABLE IF NOT EXISTS call_text USING fts5 (
  command, output, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS indexed (
  one      INTEGER PRIMARY KEY CHECK (one = 1),
  last_seq INTEGER NOT NULL
);
INSERT OR IGNORE INTO indexed (one, last_seq) VALUES (1, 0);
`;

/** The search index file of the archive at `dbPath`. */
export function searchIndexPath(dbPath: string): string {
  return `${dbPath}-search`;
}

/**
 * Opens the search index of archive `db` (created 0600 with its tables in
 * `write` mode). Undefined when it cannot be opened (a read-only or full
 * disk before the first index exists, an index file without its tables in
 * `read` mode, or any SQLite error); never throws.
 */
export function openSearchIndex(db: DatabaseSync, mode: OpenMode): DatabaseSync | undefined {
  let index: DatabaseSync | undefined;
  try {
    index = openCompanion(searchIndexPath(databasePath(db)), mode);
    // Created once; later opens only look, so opening never queues on the index's lock.
    const made = index.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'indexed'")
      .get() as { n: number };
    if (Number(made.n) === 0) {
      if (mode === "read") throw new Error("no index yet"); // an empty file: nothing indexed
      index.exec(SCHEMA);
    }
    return index;
  } catch {
    try {
      index?.close();
    } catch {
      // failing already
    }
    return undefined;
  }
}

/** A random-access view of a stored stream (call file or schema-1 chunk rows), for sampling. */
function storedSource(db: DatabaseSync, call: StoredCall, stream: StoredStream): StreamSource {
  const dbPath = databasePath(db);
  const chunk = db.prepare("SELECT data FROM chunks WHERE call_seq = ? AND stream = ? AND n = ?");
  return {
    name: stream.name,
    size: stream.size,
    read(offset, buffer) {
      const length = Math.min(buffer.length, stream.size - offset);
      if (stream.blobOffset !== null) {
        const file = openCallFile(dbPath, call.id);
        try {
          file.seekSync(stream.blobOffset + offset, Deno.SeekMode.Start);
          let got = 0;
          while (got < length) {
            const n = file.readSync(buffer.subarray(got, length));
            if (n === null) break;
            got += n;
          }
          return got;
        } finally {
          file.close();
        }
      }
      let got = 0;
      while (got < length) {
        const at = offset + got;
        const row = chunk.get(call.seq, stream.name, Math.floor(at / CHUNK_BYTES)) as
          | { data: Uint8Array }
          | undefined;
        if (row === undefined) break;
        const part = row.data.subarray(at % CHUNK_BYTES, at % CHUNK_BYTES + length - got);
        buffer.set(part, got);
        got += part.length;
      }
      return got;
    },
  };
}

/** The indexed text of a call's streams; a stream that cannot be read adds nothing. */
function callSample(db: DatabaseSync, call: StoredCall): string {
  const samples: string[] = [];
  for (const stream of call.streams) {
    try {
      const sample = searchSample(storedSource(db, call, stream));
      if (sample !== "") samples.push(sample);
    } catch {
      // missing or damaged bytes: the call stays findable by its command
    }
  }
  return samples.join("\n");
}

/**
 * Indexes calls of archive `db` that the index does not hold yet, in seq
 * order, at most `maxCalls`, in one transaction of the index. Returns how
 * many it indexed; 0 at once when another process holds the index's lock,
 * or the index cannot be written. Never throws.
 */
export function indexPending(
  db: DatabaseSync,
  index: DatabaseSync,
  maxCalls = INDEX_BATCH_CALLS,
): number {
  try {
    index.exec("PRAGMA busy_timeout = 0");
    index.exec("BEGIN IMMEDIATE");
  } catch {
    return 0;
  }
  try {
    const last = (index.prepare("SELECT last_seq FROM indexed WHERE one = 1").get() as {
      last_seq: number;
    }).last_seq;
    const pending = db.prepare("SELECT seq, id FROM calls WHERE seq > ? ORDER BY seq LIMIT ?")
      .all(last, maxCalls) as { seq: number; id: string }[];
    const insert = index.prepare(
      "INSERT OR REPLACE INTO call_text (rowid, command, output) VALUES (?, ?, ?)",
    );
    for (const row of pending) {
      const lookup = findCall(db, row.id);
      if (lookup.kind !== "found") continue;
      insert.run(row.seq, lookup.call.command, callSample(db, lookup.call));
    }
    if (pending.length > 0) {
      index.prepare("UPDATE indexed SET last_seq = ? WHERE one = 1").run(pending.at(-1)!.seq);
    }
    index.exec("COMMIT");
    return pending.length;
  } catch {
    try {
      index.exec("ROLLBACK");
    } catch {
      // gone already
    }
    return 0;
  }
}

/**
 * Indexes what is pending, in batches of {@link INDEX_BATCH_CALLS} calls
 * (each its own transaction of the index), at most `batches` of them (all
 * by default), in a fresh connection to the index of `db`; best effort,
 * never throws, never waits for a lock: it stops at the first batch another
 * process keeps it from taking.
 */
export function indexPendingCalls(db: DatabaseSync, batches = Infinity): void {
  const index = openSearchIndex(db, "write");
  if (index === undefined) return;
  try {
    for (let batch = 0; batch < batches; batch += 1) {
      if (indexPending(db, index) < INDEX_BATCH_CALLS) break;
    }
  } finally {
    index.close();
  }
}

/**
 * How many calls of `db` the search index does not hold yet: all of them
 * when there is no index, none when the count cannot be read. Reads only;
 * never throws. A search that could not index them (`indexPendingCalls`
 * found the index unwritable or taken) cannot find them.
 */
export function unindexedCallCount(db: DatabaseSync): number {
  let last = 0;
  const index = openSearchIndex(db, "read");
  if (index !== undefined) {
    try {
      last = Number(
        (index.prepare("SELECT last_seq FROM indexed WHERE one = 1").get() as {
          last_seq: number;
        }).last_seq,
      );
    } catch {
      last = 0; // no index table yet: nothing is indexed
    } finally {
      index.close();
    }
  }
  try {
    const row = db.prepare("SELECT count(*) AS n FROM calls WHERE seq > ?").get(last) as {
      n: number;
    };
    return Number(row.n);
  } catch {
    return 0;
  }
}

/** Removes the index rows of calls `seqs` (after they left the archive); best effort, never throws. */
export function unindexCalls(db: DatabaseSync, seqs: readonly number[]): void {
  if (seqs.length === 0) return;
  const index = openSearchIndex(db, "write");
  if (index === undefined) return;
  try {
    const remove = index.prepare("DELETE FROM call_text WHERE rowid = ?");
    for (const seq of seqs) remove.run(seq);
  } catch {
    // search skips rows whose call is gone
  } finally {
    index.close();
  }
}

/**
 * Gives every free page of the search index back to the file system and
 * truncates its WAL (after a full prune); best effort, never throws.
 */
export function compactSearchIndex(db: DatabaseSync): void {
  const index = openSearchIndex(db, "write");
  if (index === undefined) return;
  try {
    index.prepare("PRAGMA incremental_vacuum").all();
    index.prepare("PRAGMA wal_checkpoint(TRUNCATE)").all();
  } catch {
    // space comes back at a later prune
  } finally {
    index.close();
  }
}
