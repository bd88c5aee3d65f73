/**
 * Characters removed per deciding reason code (the last code the engine
 * gives a record: `no-rule-matched`, `unknown-program`, `no-savings`,
 * `status:complete`, …), for each alternative of the corpus comparison,
 * so a change's effect can be read reason by reason. Aggregates only.
 *
 * @module
 */
import { countChars } from "../lib/bytes/count_chars.ts";
import { percent } from "../lib/corpus/summary.ts";

/** Records and characters before and after, per reason, per alternative. */
export interface ReasonTally {
  /** reason → records and characters before (the same for every alternative). */
  readonly reasons: Map<string, { records: number; before: number }>;
  /** alternative → reason → characters after. */
  readonly after: Map<string, Map<string, number>>;
}

/** A tally with nothing counted. */
export function emptyReasonTally(): ReasonTally {
  return { reasons: new Map(), after: new Map() };
}

/**
 * Counts one record under `reason`: its visible text `before`, and what
 * each alternative (name → text) shows instead.
 */
export function addReasonSample(
  tally: ReasonTally,
  reason: string,
  before: Uint8Array,
  after: ReadonlyMap<string, Uint8Array>,
): void {
  const row = tally.reasons.get(reason) ?? { records: 0, before: 0 };
  row.records++;
  row.before += countChars(before);
  tally.reasons.set(reason, row);
  for (const [name, text] of after) {
    const byReason = tally.after.get(name) ?? new Map<string, number>();
    byReason.set(reason, (byReason.get(reason) ?? 0) + countChars(text));
    tally.after.set(name, byReason);
  }
}

/**
 * The table: one row per reason, most characters first; per alternative the
 * share of the reason's characters removed and the points of the whole
 * corpus that removes.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { addReasonSample, emptyReasonTally, formatReasonTable } from "./_reason_table.ts";
 * const tally = emptyReasonTally();
 * const text = new TextEncoder().encode("x".repeat(100));
 * addReasonSample(tally, "capped", text, new Map([["yarp", text.subarray(0, 25)]]));
 * ok(formatReasonTable(tally).includes("75.0%"));
 * ```
 */
export function formatReasonTable(tally: ReasonTally): string {
  const names = [...tally.after.keys()];
  let total = 0;
  for (const { before } of tally.reasons.values()) total += before;
  const rows = [...tally.reasons.entries()].sort((a, b) => b[1].before - a[1].before);
  const header = ["reason", "records", "chars", ...names.flatMap((n) => [`${n} removed`, "pts"])];
  const body = rows.map(([reason, { records, before }]) => [
    reason,
    String(records),
    percent(total === 0 ? null : before / total),
    ...names.flatMap((name) => {
      const removed = before - (tally.after.get(name)?.get(reason) ?? before);
      return [
        percent(before === 0 ? null : removed / before),
        percent(total === 0 ? null : removed / total),
      ];
    }),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const format = (cells: string[]) =>
    cells.map((cell, i) => i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])).join("  ");
  return [format(header), ...body.map(format)].join("\n");
}
