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
  /**
   * A passing result that repeats per unit (go's bare `PASS` after each package): dropped, and
   * never a summary the engine must show, however many there are.
   */
  Passed: 6,
  /**
   * The heading of the findings after it (eslint's file path): kept with the warnings, and it
   * starts a new fold scope, so the same warning under two headings is shown under each
   * instead of once with a count.
   */
  Heading: 7,
  /**
   * A structural line shown only under the failure budget (diff's `diff --git`, `index`,
   * `---`/`+++` headers and later hunk headers): on success the summary line names what it
   * says.
   */
  Detail: 8,
} as const;

/**
 * How a family's successful result is shown beyond its mandatory evidence:
 * the floor of facts it keeps first (docs/rules.md, "Floors").
 */
export interface Floor {
  /** The share of the success budget the summary line of keys may use (it then says "N more"). */
  readonly keyShare: number;
  /** True: keys listed in the order first seen (diff: file order); false: the busiest first. */
  readonly keysInOrder: boolean;
  /**
   * True: structure and samples are picked together in input order (diff:
   * each file's first hunk header with its first changed lines), after the
   * summary line.
   */
  readonly examplesInOrder: boolean;
}

/** The floor of families whose summary line lists their busiest keys. */
export const BUSIEST_FIRST: Floor = { keyShare: 1 / 3, keysInOrder: false, examplesInOrder: false };

/** Where a parser puts a row's keys. */
export interface KeySink {
  /**
   * Sets the row's primary key to `bytes[start, end)` (the engine copies at
   * most 96 bytes). A `Structure` or `Detail` line may set one too: the key
   * is then counted as seen with no row (a diff's file with no changed line).
   */
  key(bytes: Uint8Array, start: number, end: number): void;
  /** Sets the row's secondary key (list: the extension). */
  key2(bytes: Uint8Array, start: number, end: number): void;
  /** For diff: 1 when the row is a removed line (counted apart from added lines). */
  minus: boolean;
}

/** A per-stream parser: bounded state, one call per line in order. */
export interface LineParser {
  /**
   * The {@link Role} of the content line `bytes[start, end)`; `flags` has
   * `Evidence.Passing` (`evidence.ts`) for a passing-test line (when the
   * family {@link Family.readsPassing}) and
   * {@link NO_FAMILY_WORDS} when none of the family's {@link Family.words}
   * occurs in the line. A `Row` sets its key through `sink` before
   * returning.
   */
  line(bytes: Uint8Array, start: number, end: number, flags: number, sink: KeySink): number;
  /** Bytes of state retained now (at most {@link PARSER_STATE_BYTES}). */
  retainedBytes(): number;
}

/** Parser flag: none of the family's {@link Family.words} occurs in the line (any case). */
export const NO_FAMILY_WORDS = 64;

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
  /**
   * True when rows are best shown from the start (log: newest commits)
   * rather than by key: each row and the structure lines after it form a
   * group shown whole or not at all.
   */
  readonly headRows: boolean;
  /** The floor of a successful result. */
  readonly floor: Floor;
  /**
   * ASCII words the parser searches lines for in any case (install: its
   * keep words): the engine's chunk search looks for them too and tells the
   * parser, by {@link NO_FAMILY_WORDS}, of a line that holds none.
   */
  readonly words?: readonly string[];
  /**
   * True when nearly every line of the family's output is a data row (list,
   * status, search, log): the chunk search then skips the form words, which
   * only other lines need, and those lines are scanned whole.
   */
  readonly rowsOnly?: boolean;
  /**
   * True when the parser reads `Evidence.Passing` in its flags (test): the
   * engine then finds passing-test lines for it; for other families the
   * flag is never set.
   */
  readonly readsPassing?: boolean;
  /** A fresh parser for one stream. */
  create(): LineParser;
}

/** Bytes of `bytes[start, end)` equal to ASCII `text` at `at`. */
export function startsWith(bytes: Uint8Array, at: number, end: number, text: string): boolean {
  if (end - at < text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * A fixed set of line prefixes (any text, matched as UTF-8 bytes), looked
 * up by their first byte so a line is compared only with the prefixes that
 * share its lead byte.
 */
export class PrefixSet {
  private readonly _byLead: Uint8Array[][] = [];

  /** The set of `prefixes` (each non-empty). */
  constructor(prefixes: readonly string[]) {
    const encoder = new TextEncoder();
    for (const p of prefixes) {
      const bytes = encoder.encode(p);
      (this._byLead[bytes[0]] ??= []).push(bytes);
    }
  }

  /** True when `bytes[at, end)` starts with one of the prefixes. */
  matchAt(bytes: Uint8Array, at: number, end: number): boolean {
    if (at >= end) return false;
    const list = this._byLead[bytes[at]];
    if (list === undefined) return false;
    for (let p = 0; p < list.length; p++) {
      const prefix = list[p];
      if (end - at < prefix.length) continue;
      let k = 1;
      while (k < prefix.length && bytes[at + k] === prefix[k]) k++;
      if (k === prefix.length) return true;
    }
    return false;
  }
}

/**
 * A fixed set of ASCII words found anywhere in a line in any ASCII case, in
 * one pass. Non-ASCII bytes never equal an ASCII letter, so a search agrees
 * with a case-insensitive regular expression of the alternatives over the
 * decoded text.
 */
export class FoldedWords {
  private readonly _byLead: Uint8Array[][] = [];
  /** 1 for a byte that starts some word (either case). */
  private readonly _lead = new Uint8Array(256);

  /** The set of `words` (ASCII, each non-empty). */
  constructor(words: readonly string[]) {
    for (const w of words) {
      const lower = new TextEncoder().encode(w.toLowerCase());
      const lead = lower[0];
      (this._byLead[lead] ??= []).push(lower);
      this._lead[lead] = 1;
      if (lead >= 0x61 && lead <= 0x7a) {
        (this._byLead[lead - 0x20] ??= []).push(lower);
        this._lead[lead - 0x20] = 1;
      }
    }
  }

  /** True when one of the words occurs in `bytes[start, end)`. */
  foundIn(bytes: Uint8Array, start: number, end: number): boolean {
    const lead = this._lead;
    for (let i = start; i < end; i++) {
      if (lead[bytes[i]] === 0) continue;
      const list = this._byLead[bytes[i]];
      for (let w = 0; w < list.length; w++) {
        const word = list[w];
        if (end - i < word.length) continue;
        let k = 1;
        while (k < word.length && foldedEqual(bytes[i + k], word[k])) k++;
        if (k === word.length) return true;
      }
    }
    return false;
  }
}

/** True when byte `b` equals `lower`, or is its upper case when `lower` is an ASCII letter. */
export function foldedEqual(b: number, lower: number): boolean {
  return b === lower || (lower >= 0x61 && lower <= 0x7a && b === lower - 0x20);
}

/** Offset of the first byte that is not a space or tab. */
export function skipBlanks(bytes: Uint8Array, at: number, end: number): number {
  while (at < end && (bytes[at] === 0x20 || bytes[at] === 0x09)) at++;
  return at;
}

/** True when `bytes[start, end)` is one non-empty word: no space, tab or control byte. */
export function isWord(bytes: Uint8Array, start: number, end: number): boolean {
  if (start >= end) return false;
  for (let i = start; i < end; i++) if (bytes[i] <= 0x20) return false;
  return true;
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
