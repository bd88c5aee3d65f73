/**
 * Aggregate corpus figures: a mergeable tally of per-record samples that
 * holds counts and histograms only, never command or output text, so its
 * memory does not grow with the corpus's bytes and two workers' tallies
 * merge into exactly the tally one worker would have made (apart from
 * timings).
 *
 * @module
 */
import { bytesEqual } from "../bytes/byte_search.ts";
import { FACT_KINDS, type FactKind, measureSurvival } from "./facts.ts";
import { countChars } from "../bytes/count_chars.ts";

/** What one reducer did with one record, as the tally needs it. */
export interface RecordSample {
  /** The rule (or the alternative's own rule id) that handled it, or null. */
  readonly rule: string | null;
  /** A guard rule selected the command: the text must stay byte-exact. */
  readonly guarded: boolean;
  /** The reducer's own claim; false means it says it passed the text through. */
  readonly reduced: boolean;
  /** Exit status 0–255, or null when unknown. */
  readonly exitCode: number | null;
  readonly before: Uint8Array;
  readonly after: Uint8Array;
  /** Time the reducer spent on the record, in microseconds. */
  readonly micros: number;
  /** Stable reason ids for this record (vetoes, pass-through causes); counted as given. */
  readonly reasons: readonly string[];
  /** The record's shell syntax census: fixed syntax ids and the parse outcome. */
  readonly census?: { readonly features: readonly string[]; readonly parse: string };
  /** The public program name the record is filed under (lib/shell/program_name.ts). */
  readonly program?: string;
}

/** Records and characters of one pass-through bucket (a reason code or a program). */
export interface PassBucket {
  records: number;
  chars: number;
}

/** Figures for one rule, family or the whole corpus. */
export interface Figures {
  records: number;
  changed: number;
  charsBefore: number;
  charsAfter: number;
  failed: number;
  diagnosticLines: number;
  diagnosticLinesKept: number;
  facts: number;
  factsKept: number;
}

/** A plain-data tally: JSON-serialisable, mergeable with {@link mergeTallies}. */
export interface TallyData {
  records: number;
  eligible: number;
  changed: number;
  grew: number;
  guarded: number;
  guardedInexact: number;
  passThrough: number;
  passThroughInexact: number;
  bytesBefore: number;
  bytesAfter: number;
  total: Figures;
  factsByKind: Record<FactKind, { found: number; kept: number }>;
  byRule: Record<string, Figures>;
  byFamily: Record<string, Figures>;
  reasons: Record<string, number>;
  syntax: Record<string, number>;
  parse: Record<string, number>;
  /** Log-bucketed time per record ({@link timeBucket}) → count. */
  micros: Record<string, number>;
  /** log2 size buckets ({@link sizeBucket}) of characters before and after. */
  sizesBefore: Record<string, number>;
  sizesAfter: Record<string, number>;
  /** Records read but not analysed, by cause (malformed, already reduced, …). */
  skipped: Record<string, number>;
  /** Unchanged records by their deciding reason (the last reason code), and by program. */
  passByReason: Record<string, PassBucket>;
  passByProgram: Record<string, PassBucket>;
}

/** Figures with every count zero. */
export function emptyFigures(): Figures {
  return {
    records: 0,
    changed: 0,
    charsBefore: 0,
    charsAfter: 0,
    failed: 0,
    diagnosticLines: 0,
    diagnosticLinesKept: 0,
    facts: 0,
    factsKept: 0,
  };
}

/** A tally with nothing counted. */
export function emptyTally(): TallyData {
  const factsByKind = {} as Record<FactKind, { found: number; kept: number }>;
  for (const kind of FACT_KINDS) factsByKind[kind] = { found: 0, kept: 0 };
  return {
    records: 0,
    eligible: 0,
    changed: 0,
    grew: 0,
    guarded: 0,
    guardedInexact: 0,
    passThrough: 0,
    passThroughInexact: 0,
    bytesBefore: 0,
    bytesAfter: 0,
    total: emptyFigures(),
    factsByKind,
    byRule: {},
    byFamily: {},
    reasons: {},
    syntax: {},
    parse: {},
    micros: {},
    sizesBefore: {},
    sizesAfter: {},
    skipped: {},
    passByReason: {},
    passByProgram: {},
  };
}

function addPass(map: Record<string, PassBucket>, key: string, records: number, chars: number) {
  const bucket = map[key] ??= { records: 0, chars: 0 };
  bucket.records += records;
  bucket.chars += chars;
}

const TIME_BASE = Math.log(1.02);

/** The time bucket of `micros`: bucket k covers (1.02^(k-1), 1.02^k] µs; 0 for ≤ 1 µs. */
export function timeBucket(micros: number): number {
  return micros <= 1 ? 0 : Math.ceil(Math.log(micros) / TIME_BASE);
}

/** The upper bound in microseconds of time bucket `bucket`. */
export function timeBucketMicros(bucket: number): number {
  return Math.pow(1.02, bucket);
}

/** The size bucket of `chars`: 0 for 0, else ⌊log2 chars⌋ + 1. */
export function sizeBucket(chars: number): number {
  return chars === 0 ? 0 : Math.floor(Math.log2(chars)) + 1;
}

/** The family of a rule id: its first `/`- or `.`-separated segment; `(none)` without a rule. */
export function ruleFamily(rule: string | null): string {
  return rule === null ? "(none)" : rule.split(/[/.]/, 1)[0];
}

function bump(map: Record<string, number>, key: string | number, by = 1): void {
  map[key] = (map[key] ?? 0) + by;
}

function addFigures(into: Figures, from: Figures): void {
  into.records += from.records;
  into.changed += from.changed;
  into.charsBefore += from.charsBefore;
  into.charsAfter += from.charsAfter;
  into.failed += from.failed;
  into.diagnosticLines += from.diagnosticLines;
  into.diagnosticLinesKept += from.diagnosticLinesKept;
  into.facts += from.facts;
  into.factsKept += from.factsKept;
}

function figuresOf(map: Record<string, Figures>, key: string): Figures {
  return map[key] ??= emptyFigures();
}

/**
 * Counts one sample into `tally`. Diagnostic lines and key facts are
 * measured on failed results only (exit status known and not 0).
 */
export function addSample(tally: TallyData, sample: RecordSample): void {
  const changed = !bytesEqual(sample.before, sample.after);
  const failed = sample.exitCode !== null && sample.exitCode !== 0;
  const figures = emptyFigures();
  figures.records = 1;
  figures.changed = changed ? 1 : 0;
  figures.charsBefore = countChars(sample.before);
  figures.charsAfter = changed ? countChars(sample.after) : figures.charsBefore;
  if (failed) {
    const survival = measureSurvival(sample.before, sample.after);
    figures.failed = 1;
    figures.diagnosticLines = survival.diagnosticLines;
    figures.diagnosticLinesKept = survival.diagnosticLinesKept;
    for (const kind of FACT_KINDS) {
      figures.facts += survival.facts[kind];
      figures.factsKept += survival.factsKept[kind];
      tally.factsByKind[kind].found += survival.facts[kind];
      tally.factsByKind[kind].kept += survival.factsKept[kind];
    }
  }
  tally.records++;
  if (sample.rule !== null && !sample.guarded) tally.eligible++;
  if (changed) tally.changed++;
  else {
    tally.passThrough++;
    addPass(tally.passByReason, sample.reasons.at(-1) ?? "(none)", 1, figures.charsBefore);
    addPass(tally.passByProgram, sample.program ?? "(none)", 1, figures.charsBefore);
  }
  if (!sample.reduced && changed) tally.passThroughInexact++;
  if (sample.after.length > sample.before.length) tally.grew++;
  if (sample.guarded) {
    tally.guarded++;
    if (changed) tally.guardedInexact++;
  }
  tally.bytesBefore += sample.before.length;
  tally.bytesAfter += sample.after.length;
  addFigures(tally.total, figures);
  if (sample.rule !== null) addFigures(figuresOf(tally.byRule, sample.rule), figures);
  addFigures(figuresOf(tally.byFamily, ruleFamily(sample.rule)), figures);
  for (const reason of sample.reasons) bump(tally.reasons, reason);
  if (sample.census !== undefined) {
    for (const feature of sample.census.features) bump(tally.syntax, feature);
    bump(tally.parse, sample.census.parse);
  }
  bump(tally.micros, timeBucket(sample.micros));
  bump(tally.sizesBefore, sizeBucket(figures.charsBefore));
  bump(tally.sizesAfter, sizeBucket(figures.charsAfter));
}

/** Counts one record that was read but not analysed, under `cause`. */
export function addSkipped(tally: TallyData, cause: string): void {
  bump(tally.skipped, cause);
}

function mergeCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [key, count] of Object.entries(from)) bump(into, key, count);
}

/** Adds every count of `from` into `into` (order-independent). */
export function mergeTallies(into: TallyData, from: TallyData): void {
  for (
    const key of [
      "records",
      "eligible",
      "changed",
      "grew",
      "guarded",
      "guardedInexact",
      "passThrough",
      "passThroughInexact",
      "bytesBefore",
      "bytesAfter",
    ] as const
  ) {
    into[key] += from[key];
  }
  addFigures(into.total, from.total);
  for (const kind of FACT_KINDS) {
    into.factsByKind[kind].found += from.factsByKind[kind].found;
    into.factsByKind[kind].kept += from.factsByKind[kind].kept;
  }
  for (const [rule, figures] of Object.entries(from.byRule)) {
    addFigures(figuresOf(into.byRule, rule), figures);
  }
  for (const [family, figures] of Object.entries(from.byFamily)) {
    addFigures(figuresOf(into.byFamily, family), figures);
  }
  mergeCounts(into.reasons, from.reasons);
  mergeCounts(into.syntax, from.syntax);
  mergeCounts(into.parse, from.parse);
  mergeCounts(into.micros, from.micros);
  mergeCounts(into.sizesBefore, from.sizesBefore);
  mergeCounts(into.sizesAfter, from.sizesAfter);
  mergeCounts(into.skipped, from.skipped);
  for (const [key, bucket] of Object.entries(from.passByReason)) {
    addPass(into.passByReason, key, bucket.records, bucket.chars);
  }
  for (const [key, bucket] of Object.entries(from.passByProgram)) {
    addPass(into.passByProgram, key, bucket.records, bucket.chars);
  }
}

/**
 * The `q` quantile (0–1) of the recorded times in microseconds: the upper
 * bound of the bucket that holds it (within 2% above the true value), or 0
 * for an empty tally.
 */
export function timeQuantile(tally: TallyData, q: number): number {
  const buckets = Object.entries(tally.micros)
    .map(([bucket, count]) => [Number(bucket), count] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [bucket, count] of buckets) {
    seen += count;
    if (seen >= rank) return timeBucketMicros(bucket);
  }
  return timeBucketMicros(buckets[buckets.length - 1][0]);
}

/** `part / whole` as a fraction, or null when `whole` is 0. */
export function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}
