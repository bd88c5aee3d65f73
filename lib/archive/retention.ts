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
import {
  callBytesPath,
  callFileSize,
  clearPending,
  crashLeftovers,
  markPending,
  ORPHAN_AGE_MS,
  orphanCallFiles,
  removeCallFile,
} from "./call_bytes.ts";
import { compactSearchIndex, unindexCalls } from "./search_index.ts";
import { databasePath, writeTransaction } from "./store.ts";

/** Calls one automatic retention pass may remove. */
export const AUTO_PRUNE_CALLS = 16;
/** Free pages one automatic pass returns to the file system (8 MiB at 4 KiB pages). */
export const AUTO_VACUUM_PAGES = 2048;

/**
 * Retention limits: a call goes when it is older than `maxAgeMs`, or when
 * the total is over `maxBytes` and it is at least `minAgeMs` old.
 */
export interface RetentionLimits {
  readonly maxBytes: number;
  readonly maxAgeMs: number;
  /** Calls younger than this stay whatever the size (default 0: none protected). */
  readonly minAgeMs?: number;
  /** What the pruned record names as the size limit; default `archive.max_bytes`. */
  readonly sizeRule?: string;
  /** What the pruned record names as the age limit; default `archive.max_age_days`. */
  readonly ageRule?: string;
}

/** Pruned ids remembered for `yarp read`; older records go first. */
export const PRUNED_RECORDS = 10_000;

/** Why and when a call left the archive, from the bounded record of pruned ids. */
export interface PrunedCall {
  readonly id: string;
  readonly createdMs: number;
  readonly prunedMs: number;
  /** The limit or command that removed it, e.g. `archive.max_bytes (1073741824 bytes)`. */
  readonly reason: string;
}

/**
 * The newest pruned-call record whose id starts with `prefix`, or undefined
 * (none, or an archive written before the record existed). Never throws.
 */
export function findPrunedCall(db: DatabaseSync, prefix: string): PrunedCall | undefined {
  try {
    const row = db.prepare(
      `SELECT id, created_ms, pruned_ms, reason FROM pruned
        WHERE id >= ? AND id < ? ORDER BY seq DESC LIMIT 1`,
    ).get(prefix.toLowerCase(), `${prefix.toLowerCase()}g`) as
      | { id: string; created_ms: number; pruned_ms: number; reason: string }
      | undefined;
    return row === undefined ? undefined : {
      id: row.id,
      createdMs: row.created_ms,
      prunedMs: row.pruned_ms,
      reason: row.reason,
    };
  } catch {
    return undefined;
  }
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

/**
 * Deletes the call with row `seq` and every row that belongs to it (inside
 * a transaction), after making its pending mark (so a crash before its file
 * goes leaves a findable orphan), and records why in the pruned record.
 */
function deleteCall(
  db: DatabaseSync,
  seq: number,
  reason: string,
  nowMs: number,
): DeletedCall | undefined {
  const row = db.prepare("SELECT id, created_ms, total_bytes FROM calls WHERE seq = ?").get(seq) as
    | { id: string; created_ms: number; total_bytes: number }
    | undefined;
  if (row === undefined) return undefined;
  if (row.total_bytes > 0) markPending(databasePath(db), row.id);
  db.prepare("INSERT INTO pruned (id, created_ms, pruned_ms, reason) VALUES (?, ?, ?, ?)")
    .run(row.id, row.created_ms, nowMs, reason);
  db.prepare("DELETE FROM pruned WHERE seq <= (SELECT max(seq) FROM pruned) - ?")
    .run(PRUNED_RECORDS);
  db.prepare("DELETE FROM chunks WHERE call_seq = ?").run(seq);
  db.prepare("DELETE FROM streams WHERE call_seq = ?").run(seq);
  db.prepare("DELETE FROM calls WHERE seq = ?").run(seq);
  db.prepare("UPDATE archive_totals SET calls = calls - 1, bytes = bytes - ? WHERE one = 1")
    .run(row.total_bytes);
  return { seq, id: row.id, bytes: row.total_bytes };
}

/**
 * Removes the call with row `seq` in its own transaction, then its call
 * file; returns false when it was already gone. The pruned record says
 * `yarp archive forget`.
 */
export function forgetCall(db: DatabaseSync, seq: number, nowMs = Date.now()): boolean {
  const deleted = writeTransaction(db, () => deleteCall(db, seq, "yarp archive forget", nowMs));
  if (deleted !== undefined) {
    removeFileAndMark(databasePath(db), deleted.id);
    unindexCalls(db, [seq]);
  }
  return deleted !== undefined;
}

function removeFileAndMark(dbPath: string, id: string): void {
  removeCallFile(dbPath, id);
  clearPending(dbPath, id);
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
 * Removes the oldest calls, oldest first, while the oldest call is older
 * than `nowMs - limits.maxAgeMs`, or the total exceeds `limits.maxBytes`
 * and the oldest is at least `limits.minAgeMs` old (a younger one stops
 * pruning: its marker may just have been printed), stopping after `maxCalls` removals (each its own short
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
  const youngFrom = nowMs - (limits.minAgeMs ?? 0);
  const sizeRule = `${limits.sizeRule ?? "archive.max_bytes"} (${limits.maxBytes} bytes)`;
  const ageRule = `${limits.ageRule ?? "archive.max_age_days"} (${
    limits.maxAgeMs / 86_400_000
  } days)`;
  const total = db.prepare("SELECT bytes FROM archive_totals WHERE one = 1");
  const oldest = db.prepare("SELECT seq, created_ms FROM calls ORDER BY created_ms, seq LIMIT 1");
  /** The oldest call's seq and the rule that removes it, or undefined when nothing is due. */
  const due = (): { seq: number; reason: string } | undefined => {
    const row = oldest.get() as { seq: number; created_ms: number } | undefined;
    if (row === undefined || row.seq === protect) return undefined;
    if (row.created_ms < cutoff) return { seq: row.seq, reason: ageRule };
    const over = (total.get() as { bytes: number }).bytes > limits.maxBytes;
    return over && row.created_ms <= youngFrom ? { seq: row.seq, reason: sizeRule } : undefined;
  };
  const dbPath = databasePath(db);
  const removedSeqs: number[] = [];
  while (calls < maxCalls && due() !== undefined) {
    const removed = writeTransaction(db, () => {
      const next = due(); // again, under the lock: another writer may have pruned meanwhile
      return next === undefined ? undefined : deleteCall(db, next.seq, next.reason, nowMs);
    });
    if (removed === undefined) break;
    removeFileAndMark(dbPath, removed.id);
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
  let calls = 0;
  let bytes = 0;
  for (const orphan of findOrphans(db, nowMs)) {
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

/**
 * Every call file of `db` that no row names and that is older than the
 * orphan bound, with its path and size (see `orphanCallFiles`). Scans every
 * call file; the ids are read one fan directory at a time (one query
 * each), so memory stays at one directory's ids whatever the archive
 * holds.
 */
export function findOrphans(
  db: DatabaseSync,
  nowMs: number,
): { readonly id: string; readonly path: string; readonly size: number }[] {
  const inFan = db.prepare("SELECT id FROM calls WHERE id >= ? AND id < ?");
  const knownIn = (fan: string) =>
    new Set((inFan.all(fan, `${fan}g`) as { id: string }[]).map((row) => row.id));
  return orphanCallFiles(databasePath(db), knownIn, nowMs);
}

/**
 * Removes what a crashed commit or removal left (its pending mark is older
 * than the orphan bound): the call file when no row names it and it was
 * not written to within the bound either, and the mark. Looks at a bounded
 * number of marks, so it runs after every commit. Returns the files
 * removed and their bytes; never throws.
 */
export function removeCrashLeftovers(db: DatabaseSync, nowMs: number): PruneResult {
  const dbPath = databasePath(db);
  let calls = 0;
  let bytes = 0;
  try {
    const known = db.prepare("SELECT 1 AS x FROM calls WHERE id = ?");
    for (const id of crashLeftovers(dbPath, nowMs)) {
      if (known.get(id) === undefined) {
        const size = callFileSize(dbPath, id);
        if (size !== undefined) {
          const mtime = Deno.statSync(callBytesPath(dbPath, id)).mtime?.getTime() ?? 0;
          if (nowMs - mtime <= ORPHAN_AGE_MS) continue; // still being written
          if (removeCallFile(dbPath, id)) {
            calls += 1;
            bytes += size;
          }
        }
      }
      clearPending(dbPath, id);
    }
  } catch {
    // best effort: the next run looks again
  }
  return { calls, bytes };
}

/**
 * The retention a run does after committing call `protect`: the bounded
 * prune of {@link pruneArchive} under `limits`, then
 * {@link removeCrashLeftovers}. Best effort: never throws.
 */
export function autoRetention(
  db: DatabaseSync,
  limits: RetentionLimits,
  nowMs: number,
  protect: number,
): void {
  try {
    pruneArchive(db, limits, nowMs, AUTO_PRUNE_CALLS, AUTO_VACUUM_PAGES, protect);
  } catch {
    // the call itself is committed; the next run prunes
  }
  removeCrashLeftovers(db, nowMs);
}

/** Errors that say the disk (or the database's file system) is full. */
const DISK_FULL = /disk is full|no space left|ENOSPC|os error 28/i;

/**
 * After a commit failed with `error`: when it says the disk is full, prunes
 * the oldest calls under `limits` with no minimum age (the one case where a
 * young call may go) and returns true when that removed anything, so the
 * caller retries the commit once. Otherwise false. Never throws.
 */
export function makeRoom(
  db: DatabaseSync,
  limits: RetentionLimits,
  nowMs: number,
  error: unknown,
): boolean {
  if (!DISK_FULL.test(error instanceof Error ? error.message : String(error))) return false;
  try {
    const freed = pruneArchive(db, { ...limits, minAgeMs: 0 }, nowMs, AUTO_PRUNE_CALLS, 0);
    return freed.calls > 0;
  } catch {
    return false;
  }
}
