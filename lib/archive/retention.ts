/**
 * Keeping the archive bounded: forgetting one call, pruning the oldest
 * calls by total size and age, and reporting totals. Automatic retention
 * after each commit removes at most {@link AUTO_PRUNE_CALLS} calls and
 * reclaims at most {@link AUTO_VACUUM_PAGES} pages, so its cost is bounded
 * whatever the archive holds, and takes no write lock when nothing is due;
 * `yarp archive prune` has no such bound, and gives every free page and
 * every orphan call file back to the file system.
 *
 * A call's rows go in one transaction and its file right after the commit,
 * so a crash in between leaves an orphan file, never a row without bytes.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { orphanCallFiles, removeCallFile } from "./call_bytes.ts";
import { compactSearchIndex, unindexCalls } from "./search_index.ts";
import { databasePath, writeTransaction } from "./store.ts";

/** Calls one automatic retention pass may remove. */
export const AUTO_PRUNE_CALLS = 16;
/** Free pages one automatic pass returns to the file system (8 MiB at 4 KiB pages). */
export const AUTO_VACUUM_PAGES = 2048;

/** Retention limits: a call goes when the total is over `maxBytes` or it is older than `maxAgeMs`. */
export interface RetentionLimits {
  readonly maxBytes: number;
  readonly maxAgeMs: number;
}

/** What a prune removed. */
export interface PruneResult {
  readonly calls: number;
  readonly bytes: number;
}

/** Archive totals. */
export interface ArchiveTotals {
  readonly calls: number;
  /** Raw stream bytes stored (before any page overhead). */
  readonly bytes: number;
  readonly oldestMs: number | null;
  readonly newestMs: number | null;
}

/** A call whose rows were deleted: its seq and id (to remove its file and index row after the commit) and raw bytes. */
interface DeletedCall {
  readonly seq: number;
  readonly id: string;
  readonly bytes: number;
}

/** Deletes the call with row `seq` and every row that belongs to it (inside a transaction). */
function deleteCall(db: DatabaseSync, seq: number): DeletedCall | undefined {
  const row = db.prepare("SELECT id, total_bytes FROM calls WHERE seq = ?").get(seq) as
    | { id: string; total_bytes: number }
    | undefined;
  if (row === undefined) return undefined;
  db.prepare("DELETE FROM chunks WHERE call_seq = ?").run(seq);
  db.prepare("DELETE FROM streams WHERE call_seq = ?").run(seq);
  db.prepare("DELETE FROM calls WHERE seq = ?").run(seq);
  db.prepare("UPDATE archive_totals SET calls = calls - 1, bytes = bytes - ? WHERE one = 1")
    .run(row.total_bytes);
  return { seq, id: row.id, bytes: row.total_bytes };
}

/**
 * Removes the call with row `seq` in its own transaction, then its call
 * file; returns false when it was already gone.
 */
export function forgetCall(db: DatabaseSync, seq: number): boolean {
  const deleted = writeTransaction(db, () => deleteCall(db, seq));
  if (deleted !== undefined) {
    removeCallFile(databasePath(db), deleted.id);
    unindexCalls(db, [seq]);
  }
  return deleted !== undefined;
}

/** The archive's totals, from the running counters and the time index (constant cost). */
export function archiveTotals(db: DatabaseSync): ArchiveTotals {
  const totals = db.prepare("SELECT calls, bytes FROM archive_totals WHERE one = 1").get() as {
    calls: number;
    bytes: number;
  };
  const range = db.prepare(
    "SELECT min(created_ms) AS oldest, max(created_ms) AS newest FROM calls",
  ).get() as { oldest: number | null; newest: number | null };
  return {
    calls: totals.calls,
    bytes: totals.bytes,
    oldestMs: range.oldest,
    newestMs: range.newest,
  };
}

/**
 * Removes the oldest calls, oldest first, while the total exceeds
 * `limits.maxBytes` or the oldest call is older than `nowMs -
 * limits.maxAgeMs`, stopping after `maxCalls` removals (each its own short
 * transaction, so other writers are never blocked for long, and none at all
 * when nothing is due). Then returns up to `vacuumPages` free pages to the
 * file system (all of them when undefined, and then the WAL is checkpointed
 * and truncated so the file really shrinks). Never removes the call with
 * row `protect` (the one just committed, whose id is about to be shown):
 * pruning stops there.
 */
export function pruneArchive(
  db: DatabaseSync,
  limits: RetentionLimits,
  nowMs: number,
  maxCalls = Infinity,
  vacuumPages?: number,
  protect?: number,
): PruneResult {
  let calls = 0;
  let bytes = 0;
  const cutoff = nowMs - limits.maxAgeMs;
  const total = db.prepare("SELECT bytes FROM archive_totals WHERE one = 1");
  const oldest = db.prepare("SELECT seq, created_ms FROM calls ORDER BY created_ms, seq LIMIT 1");
  const due = () => {
    const row = oldest.get() as { seq: number; created_ms: number } | undefined;
    const over = (total.get() as { bytes: number }).bytes > limits.maxBytes;
    return row === undefined || row.seq === protect || (!over && row.created_ms >= cutoff)
      ? undefined
      : row.seq;
  };
  const dbPath = databasePath(db);
  const removedSeqs: number[] = [];
  while (calls < maxCalls && due() !== undefined) {
    const removed = writeTransaction(db, () => {
      const seq = due(); // again, under the lock: another writer may have pruned meanwhile
      return seq === undefined ? undefined : deleteCall(db, seq);
    });
    if (removed === undefined) break;
    removeCallFile(dbPath, removed.id);
    removedSeqs.push(removed.seq);
    calls += 1;
    bytes += removed.bytes;
  }
  unindexCalls(db, removedSeqs);
  if (calls > 0 || vacuumPages === undefined) returnFreePages(db, vacuumPages);
  return { calls, bytes };
}

/**
 * Gives up to `pages` free database pages back to the file system (all when
 * undefined; then also checkpoints and truncates the WAL and compacts the
 * search index, so the space is free at once). The pragma frees one page per step, so every step is taken.
 */
function returnFreePages(db: DatabaseSync, pages?: number): void {
  const free = (db.prepare("PRAGMA freelist_count").get() as { freelist_count: number })
    .freelist_count;
  if (free > 0) {
    db.prepare(`PRAGMA incremental_vacuum${pages === undefined ? "" : `(${pages})`}`).all();
  }
  if (pages === undefined) {
    db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").all();
    compactSearchIndex(db);
  }
}

/**
 * Removes call files that no row names and that are older than the grace
 * period (left by a crash between a file and its rows); returns how many
 * and their bytes. Never throws for a file it cannot remove.
 */
export function removeOrphanFiles(db: DatabaseSync, nowMs: number): PruneResult {
  const known = db.prepare("SELECT 1 AS x FROM calls WHERE id = ?");
  let calls = 0;
  let bytes = 0;
  for (
    const orphan of orphanCallFiles(databasePath(db), (id) => known.get(id) !== undefined, nowMs)
  ) {
    try {
      Deno.removeSync(orphan.path);
      calls += 1;
      bytes += orphan.size;
    } catch {
      // not ours to remove, or already gone
    }
  }
  return { calls, bytes };
}
