/**
 * What a typed reducer kind contributes to the shared typed engine
 * (`../typed.ts`): a per-stream line parser with small bounded state that
 * gives each ANSI-free content line a {@link Role} and, for rows, a family
 * key (a file, a directory, a status group), plus the nouns of its fixed
 * summary line. Everything else (budgets, ranking, markers, minimum
 * savings) is the engine's.
 *
 * @module
 */

/** How the engine treats a line. */
export const Role = {
  /** An unrecognised line: a head/tail fill candidate (the bounded fallback). */
  Other: 0,
  /** Progress, passing-test or hint noise: dropped unless it carries evidence. */
  Noise: 1,
  /** A data row of the family (a match, an entry, a commit, a changed line): counted by key, sampled. */
  Row: 2,
  /** A structural line (a diff or hunk header, a branch line, a section header): ranked after diagnostics. */
  Structure: 3,
  /** A failure the family recognises without a marker word (`✕ adds`, `× parses`): kept as a diagnostic. */
  Failure: 4,
  /** A line the family keeps with the warnings though it has no marker word (`DEPRECATION:`, `ERESOLVE`). */
  Important: 5,
} as const;

/** Where a parser puts a row's keys. */
export interface KeySink {
  /** Sets the row's primary key to `bytes[start, end)` (the engine copies at most 96 bytes). */
  key(bytes: Uint8Array, start: number, end: number): void;
  /** Sets the row's secondary key (list: the extension). */
  key2(bytes: Uint8Array, start: number, end: number): void;
  /** For diff: 1 when the row is a removed line (counted apart from added lines). */
  minus: boolean;
}

/** A per-stream parser: bounded state, one call per line in order. */
export interface LineParser {
  /**
   * The {@link Role} of the content line `bytes[start, end)` whose marker
   * flags (`markerFlags` of `evidence.ts`) are `flags`; a `Row` sets its key
   * through `sink` before returning.
   */
  line(bytes: Uint8Array, start: number, end: number, flags: number, sink: KeySink): number;
  /** Bytes of state retained now (at most {@link PARSER_STATE_BYTES}). */
  retainedBytes(): number;
}

/** The most state a {@link LineParser} keeps (a current file or directory name, a few flags). */
export const PARSER_STATE_BYTES = 512;

/** A typed reducer kind's family: its parser and its summary wording. */
export interface Family {
  /** A row, singular: `match`, `entry`, `commit`, `changed line`, `change`. */
  readonly rowNoun: string;
  /** A primary key, singular: `file`, `directory`, `group`; "" when rows have no key. */
  readonly keyNoun: string;
  /** A secondary key, singular (`extension`), or "" when none. */
  readonly key2Noun: string;
  /** Samples kept per key for diverse examples. */
  readonly samplesPerKey: number;
  /**
   * True when a failure line in the text selects the failure policy even on
   * exit 0 (test, build, install); false for data families, whose rows and
   * messages quote code that says "error".
   */
  readonly textShowsFailure: boolean;
  /** True when rows are best shown from the start (log: newest commits) rather than by key. */
  readonly headRows: boolean;
  /** A fresh parser for one stream. */
  create(): LineParser;
}

/** Bytes of `bytes[start, end)` equal to ASCII `text` at `at`. */
export function startsWith(bytes: Uint8Array, at: number, end: number, text: string): boolean {
  if (end - at < text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** Offset of the first byte that is not a space or tab. */
export function skipBlanks(bytes: Uint8Array, at: number, end: number): number {
  while (at < end && (bytes[at] === 0x20 || bytes[at] === 0x09)) at++;
  return at;
}

/** Offset of the first `byte` in `bytes[at, end)`, or -1. */
export function find(bytes: Uint8Array, byte: number, at: number, end: number): number {
  for (let i = at; i < end; i++) if (bytes[i] === byte) return i;
  return -1;
}

/** A {@link LineParser} without state, from a pure line function. */
export function stateless(
  line: (bytes: Uint8Array, start: number, end: number, flags: number, sink: KeySink) => number,
): () => LineParser {
  return () => ({ line, retainedBytes: () => 0 });
}
