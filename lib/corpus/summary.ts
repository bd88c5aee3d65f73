/**
 * The corpus report's data: a tally turned into the figures a person (or a
 * machine) reads: shares, retention and recall, time quantiles, per-family
 * and per-rule rows, and the syntax census. Aggregates only; no command or
 * output text can reach it, because a tally holds none.
 *
 * @module
 */
import { FACT_KINDS, type FactKind } from "./facts.ts";
import { type Figures, type PassBucket, ratio, type TallyData, timeQuantile } from "./metrics.ts";

/** One row of the pass-through census: unchanged records of one reason or program. */
export interface PassRow {
  readonly name: string;
  readonly records: number;
  readonly chars: number;
  /** Share of all characters of the corpus, or null without characters. */
  readonly share: number | null;
}

/** How many program rows the text report prints (the JSON report has them all). */
export const PROGRAM_ROWS = 25;

/** One row of the per-family or per-rule table. */
export interface FigureRow {
  readonly name: string;
  readonly records: number;
  readonly changed: number;
  readonly charsBefore: number;
  readonly charsAfter: number;
  /** Share of this row's characters removed, or null without characters. */
  readonly removedShare: number | null;
  readonly failed: number;
  /** Diagnostic lines kept on failed results / found, or null when none were found. */
  readonly diagnosticRetention: number | null;
  /** Key facts kept on failed results / found, or null when none were found. */
  readonly keyFactRecall: number | null;
}

/** Everything the text, JSON and HTML reports show. */
export interface CorpusSummary {
  readonly records: number;
  readonly skipped: Readonly<Record<string, number>>;
  readonly eligible: number;
  readonly changed: number;
  readonly passThrough: number;
  readonly grew: number;
  readonly guarded: number;
  readonly guardedExact: number;
  readonly passThroughExact: number;
  readonly charsBefore: number;
  readonly charsAfter: number;
  readonly charsRemoved: number;
  readonly removedShare: number | null;
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  readonly failed: number;
  readonly diagnosticLines: number;
  readonly diagnosticLinesKept: number;
  readonly diagnosticRetention: number | null;
  readonly keyFacts: number;
  readonly keyFactsKept: number;
  readonly keyFactRecall: number | null;
  readonly keyFactsByKind: Readonly<
    Record<FactKind, { found: number; kept: number; recall: number | null }>
  >;
  readonly microsMedian: number;
  readonly microsP95: number;
  readonly families: readonly FigureRow[];
  readonly rules: readonly FigureRow[];
  readonly reasons: Readonly<Record<string, number>>;
  readonly syntax: Readonly<Record<string, number>>;
  readonly parse: Readonly<Record<string, number>>;
  /** Records per log2 character bucket ({@link sizeBucket} of metrics.ts). */
  readonly sizesBefore: readonly number[];
  readonly sizesAfter: readonly number[];
  /** Unchanged records by deciding reason and by program, most characters first. */
  readonly passByReason: readonly PassRow[];
  readonly passByProgram: readonly PassRow[];
}

/** Pass rows sorted by characters (most first), then by name. */
function passRows(map: Record<string, PassBucket> | undefined, total: number): PassRow[] {
  return Object.entries(map ?? {})
    .map(([name, bucket]) => ({ name, ...bucket, share: ratio(bucket.chars, total) }))
    .sort((a, b) => b.chars - a.chars || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function row(name: string, figures: Figures): FigureRow {
  return {
    name,
    records: figures.records,
    changed: figures.changed,
    charsBefore: figures.charsBefore,
    charsAfter: figures.charsAfter,
    removedShare: ratio(figures.charsBefore - figures.charsAfter, figures.charsBefore),
    failed: figures.failed,
    diagnosticRetention: ratio(figures.diagnosticLinesKept, figures.diagnosticLines),
    keyFactRecall: ratio(figures.factsKept, figures.facts),
  };
}

/** Rows sorted by characters removed (most first), then by name. */
function rows(map: Record<string, Figures>): FigureRow[] {
  return Object.entries(map)
    .map(([name, figures]) => row(name, figures))
    .sort((a, b) =>
      (b.charsBefore - b.charsAfter) - (a.charsBefore - a.charsAfter) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
    );
}

/** Keys sorted, so a report never depends on insertion order. */
function sortedCounts(map: Record<string, number>): Record<string, number> {
  const sorted: Record<string, number> = {};
  for (const key of Object.keys(map).sort()) sorted[key] = map[key];
  return sorted;
}

function histogram(map: Record<string, number>): number[] {
  const buckets = Object.keys(map).map(Number);
  const length = buckets.length === 0 ? 0 : Math.max(...buckets) + 1;
  const counts = new Array<number>(length).fill(0);
  for (const [bucket, count] of Object.entries(map)) counts[Number(bucket)] = count;
  return counts;
}

/**
 * Summarises `tally`. `syntaxIds` lists every census id so that ids no
 * record used still appear with 0.
 */
export function summarize(tally: TallyData, syntaxIds: readonly string[] = []): CorpusSummary {
  const total = tally.total;
  const keyFactsByKind = {} as Record<
    FactKind,
    { found: number; kept: number; recall: number | null }
  >;
  for (const kind of FACT_KINDS) {
    const { found, kept } = tally.factsByKind[kind];
    keyFactsByKind[kind] = { found, kept, recall: ratio(kept, found) };
  }
  const syntax: Record<string, number> = {};
  for (const id of syntaxIds) syntax[id] = 0;
  for (const [id, count] of Object.entries(tally.syntax)) syntax[id] = count;
  const sizesBefore = histogram(tally.sizesBefore);
  const sizesAfter = histogram(tally.sizesAfter);
  const width = Math.max(sizesBefore.length, sizesAfter.length);
  while (sizesBefore.length < width) sizesBefore.push(0);
  while (sizesAfter.length < width) sizesAfter.push(0);
  return {
    records: tally.records,
    skipped: sortedCounts(tally.skipped),
    eligible: tally.eligible,
    changed: tally.changed,
    passThrough: tally.passThrough,
    grew: tally.grew,
    guarded: tally.guarded,
    guardedExact: tally.guarded - tally.guardedInexact,
    passThroughExact: tally.passThrough - tally.passThroughInexact,
    charsBefore: total.charsBefore,
    charsAfter: total.charsAfter,
    charsRemoved: total.charsBefore - total.charsAfter,
    removedShare: ratio(total.charsBefore - total.charsAfter, total.charsBefore),
    bytesBefore: tally.bytesBefore,
    bytesAfter: tally.bytesAfter,
    failed: total.failed,
    diagnosticLines: total.diagnosticLines,
    diagnosticLinesKept: total.diagnosticLinesKept,
    diagnosticRetention: ratio(total.diagnosticLinesKept, total.diagnosticLines),
    keyFacts: total.facts,
    keyFactsKept: total.factsKept,
    keyFactRecall: ratio(total.factsKept, total.facts),
    keyFactsByKind,
    microsMedian: timeQuantile(tally, 0.5),
    microsP95: timeQuantile(tally, 0.95),
    families: rows(tally.byFamily),
    rules: rows(tally.byRule),
    reasons: sortedCounts(tally.reasons),
    syntax: sortedCounts(syntax),
    parse: sortedCounts(tally.parse),
    sizesBefore,
    sizesAfter,
    passByReason: passRows(tally.passByReason, total.charsBefore),
    passByProgram: passRows(tally.passByProgram, total.charsBefore),
  };
}

/** `share` as a percentage with one decimal, or `n/a`. */
export function percent(share: number | null): string {
  return share === null ? "n/a" : `${(share * 100).toFixed(1)}%`;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}

function padStart(text: string, width: number): string {
  return text.length >= width ? text : " ".repeat(width - text.length) + text;
}

/** The plain-text report: headline figures, then the family table and the census. */
export function formatSummary(summary: CorpusSummary): string {
  const skipped = Object.entries(summary.skipped).map(([cause, n]) => `${cause} ${n}`).join(", ");
  const lines = [
    `records analysed      ${summary.records}${skipped === "" ? "" : ` (skipped: ${skipped})`}`,
    `eligible              ${summary.eligible}`,
    `changed               ${summary.changed}`,
    `pass-through          ${summary.passThrough} (byte-exact ${summary.passThroughExact})`,
    `guarded               ${summary.guarded} (byte-exact ${summary.guardedExact})`,
    `grew                  ${summary.grew}`,
    `characters            ${summary.charsBefore} → ${summary.charsAfter} (removed ${
      percent(summary.removedShare)
    })`,
    `failed results        ${summary.failed}`,
    `diagnostic lines kept ${summary.diagnosticLinesKept}/${summary.diagnosticLines} (${
      percent(summary.diagnosticRetention)
    })`,
    `key facts kept        ${summary.keyFactsKept}/${summary.keyFacts} (${
      percent(summary.keyFactRecall)
    })`,
  ];
  for (const kind of FACT_KINDS) {
    const { found, kept, recall } = summary.keyFactsByKind[kind];
    lines.push(`  ${pad(kind, 20)}${kept}/${found} (${percent(recall)})`);
  }
  lines.push(
    `time per record       median ${summary.microsMedian.toFixed(0)} µs, p95 ${
      summary.microsP95.toFixed(0)
    } µs`,
    "",
    `${pad("family", 12)}${padStart("records", 8)}${padStart("changed", 8)}${
      padStart("removed", 9)
    }${padStart("failed", 7)}${padStart("diag", 8)}${padStart("facts", 8)}`,
  );
  for (const family of summary.families) {
    lines.push(
      `${pad(family.name, 12)}${padStart(String(family.records), 8)}${
        padStart(String(family.changed), 8)
      }${padStart(percent(family.removedShare), 9)}${padStart(String(family.failed), 7)}${
        padStart(percent(family.diagnosticRetention), 8)
      }${padStart(percent(family.keyFactRecall), 8)}`,
    );
  }
  lines.push("", "shell syntax census (records with each form)");
  for (const [id, count] of Object.entries(summary.syntax)) {
    lines.push(`  ${pad(id, 22)}${count}`);
  }
  lines.push("parse outcomes");
  for (const [id, count] of Object.entries(summary.parse)) lines.push(`  ${pad(id, 22)}${count}`);
  lines.push("decision reasons");
  for (const [id, count] of Object.entries(summary.reasons)) {
    lines.push(`  ${pad(id, 30)}${count}`);
  }
  const passTable = (title: string, rows: readonly PassRow[], limit: number) => {
    lines.push(
      "",
      `${pad(title, 30)}${padStart("records", 8)}${padStart("chars", 11)}${padStart("share", 8)}`,
    );
    for (const row of rows.slice(0, limit)) {
      lines.push(
        `  ${pad(row.name, 28)}${padStart(String(row.records), 8)}${
          padStart(String(row.chars), 11)
        }${padStart(percent(row.share), 8)}`,
      );
    }
    if (rows.length > limit) lines.push(`  (${rows.length - limit} more)`);
  };
  passTable("pass-through by reason", summary.passByReason, Infinity);
  passTable("pass-through by program", summary.passByProgram, PROGRAM_ROWS);
  return lines.join("\n") + "\n";
}
