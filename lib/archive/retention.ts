/**
 * Keeping the archive bounded: forgetting one call, pruning the oldest
 * calls by total size and age, and reporting totals. Automatic retention
 * after each commit removes at most {@link AUTO_PRUNE_CALLS} calls and
 * reclaims at most {@link AUTO_VACUUM_PAGES} pages, so its cost is bounded
 * whatever the archive holds; `yarp archive prune` has no such bound.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { writeTransaction } from "./store.ts";

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

/** Deletes the call with row `seq` and every row that belongs to it; returns its raw bytes (0 when absent). */
function deleteCall(db: DatabaseSync, seq: number): number {
  const row = db.prepare("SELECT total_bytes FROM calls WHERE seq = ?").get(seq) as
    | { total_bytes: number }
    | undefined;
  if (row === undefined) return 0;
  db.prepare("DELETE FROM chunks WHERE call_seq = ?").run(seq);
  db.prepare("DELETE FROM streams WHERE call_seq = ?").run(seq);
  db.prepare("DELETE FROM call_text WHERE rowid = ?").run(seq);
  db.prepare("DELETE FROM calls WHERE seq = ?").run(seq);
  db.prepare("UPDATE archive_totals SET calls = calls - 1, bytes = bytes - ? WHERE one = 1")
    .run(row.total_bytes);
  return row.total_bytes;
}

/** Removes the call with row `seq` in its own transaction; returns false when it was already gone. */
export function forgetCall(db: DatabaseSync, seq: number): boolean {
  return writeTransaction(db, () => {
    const exists = db.prepare("SELECT 1 AS x FROM calls WHERE seq = ?").get(seq) !== undefined;
    if (exists) deleteCall(db, seq);
    return exists;
  });
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
 * transaction, so other writers are never blocked for long). Then returns
 * up to `vacuumPages` free pages to the file system (all of them when
 * undefined). Never removes the call with row `protect` (the one just
 * committed, whose id is about to be shown): pruning stops there.
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
  const oldest = db.prepare(
    "SELECT seq, created_ms FROM calls ORDER BY created_ms, seq LIMIT 1",
  );
  while (calls < maxCalls) {
    const removed = writeTransaction(db, () => {
      const total = (db.prepare("SELECT bytes FROM archive_totals WHERE one = 1").get() as {
        bytes: number;
      }).bytes;
      const row = oldest.get() as { seq: number; created_ms: number } | undefined;
      if (
        row === undefined || row.seq === protect ||
        (total <= limits.maxBytes && row.created_ms >= cutoff)
      ) {
        return undefined;
      }
      return deleteCall(db, row.seq);
    });
    if (removed === undefined) break;
    calls += 1;
    bytes += removed;
  }
  if (calls > 0) {
    db.exec(`PRAGMA incremental_vacuum${vacuumPages === undefined ? "" : `(${vacuumPages})`}`);
  }
  return { calls, bytes };
}
