/**
 * The archive's `reductions` table (schema 3): one row per result YARP
 * changed, with the host, the rule and the characters before and after, for
 * `yarp gain` (`gain.ts`). Rows hold no text and outlive their call's
 * retention, so the figures cover more than the archive keeps.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { GainGroup } from "./gain.ts";

/** One result YARP changed. */
export interface Reduction {
  /** The archived call that holds the exact bytes. */
  readonly callSeq: number;
  readonly createdMs: number;
  readonly host: string;
  /** The rule id, or `output-cap`. */
  readonly rule: string;
  readonly charsBefore: number;
  readonly charsAfter: number;
}

/** Inserts one reduction row (a single autocommit statement; waits up to the busy timeout). */
export function recordReduction(db: DatabaseSync, row: Reduction): void {
  db.prepare(
    `INSERT INTO reductions (call_seq, created_ms, host, rule, chars_before, chars_after)
     VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(row.callSeq, row.createdMs, row.host, row.rule, row.charsBefore, row.charsAfter);
}

/** Which reductions a query counts: from `sinceMs` on, of `host` only. */
export interface GainFilter {
  readonly sinceMs?: number;
  readonly host?: string;
}

/**
 * The reductions matching `filter`, summed per host and rule. An archive
 * from before schema 3 (opened read-only, so not upgraded) has none.
 */
export function gainGroups(db: DatabaseSync, filter: GainFilter = {}): GainGroup[] {
  const exists = db.prepare(
    "SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name = 'reductions'",
  ).get() as { n: number };
  if (Number(exists.n) === 0) return [];
  const rows = db.prepare(
    `SELECT host, rule, count(*) AS calls, sum(chars_before) AS before, sum(chars_after) AS after
     FROM reductions WHERE created_ms >= ? AND (? IS NULL OR host = ?)
     GROUP BY host, rule`,
  ).all(filter.sinceMs ?? 0, filter.host ?? null, filter.host ?? null) as {
    host: string;
    rule: string;
    calls: number;
    before: number;
    after: number;
  }[];
  return rows.map((r) => ({
    host: r.host,
    rule: r.rule,
    calls: Number(r.calls),
    charsBefore: Number(r.before),
    charsAfter: Number(r.after),
  }));
}
