/**
 * Literal line patterns matched on bytes (docs/architecture.md, "Line patterns"). A
 * {@link LiteralPattern} is compiled once into a {@link LineMatcher}; matching
 * then compares bytes with no decoding, no regular expressions and no
 * allocation. `ascii_insensitive` folds only `A`–`Z` (on both sides); every
 * other byte, including invalid UTF-8 and NUL, compares exactly. `trim`
 * skips ASCII spaces and tabs at the chosen edges before comparing; it never
 * changes the line. Work is linear in the line length for every kind:
 * `contains` runs Horspool (which skips up to the pattern length per step)
 * while its comparisons stay within twice the line length, then finishes
 * with Knuth–Morris–Pratt, so adversarial lines cannot make it quadratic.
 *
 * Callers pass line content without its ending bytes.
 *
 * @module
 */

/**
 * The literal pattern this module compiles. The rule model's `LinePattern`
 * has this shape; it is restated here because `bytes` sits below `rules`.
 */
export interface LiteralPattern {
  readonly kind: "exact" | "prefix" | "suffix" | "contains";
  /** Non-empty; compared as its UTF-8 bytes. */
  readonly value: string;
  /** `ascii_insensitive` folds only `A`–`Z`. */
  readonly caseMode: "sensitive" | "ascii_insensitive";
  /** Edges that lose ASCII spaces and tabs before comparing. */
  readonly trim: "none" | "start" | "both";
}

const SPACE = 0x20;
const TAB = 0x09;

const EXACT = 0;
const PREFIX = 1;
const SUFFIX = 2;
const CONTAINS = 3;

const KIND_CODES = { exact: EXACT, prefix: PREFIX, suffix: SUFFIX, contains: CONTAINS } as const;

const IDENTITY = new Uint8Array(256).map((_, i) => i);
const ASCII_FOLD = IDENTITY.map((b) => (b >= 0x41 && b <= 0x5a ? b + 0x20 : b));

const encoder = new TextEncoder();

/**
 * A compiled literal pattern. `matches` is pure and allocation-free; its
 * retained state is the pattern bytes plus, for `contains`, one 32-bit
 * failure entry per pattern byte.
 */
export class LineMatcher {
  /** Byte length of the pattern value: no shorter line matches. */
  readonly length: number;
  private readonly _kind: number;
  private readonly _needle: Uint8Array;
  private readonly _fold: Uint8Array;
  private readonly _trimStart: boolean;
  private readonly _trimEnd: boolean;
  private readonly _failure: Int32Array;
  /** Horspool shift per raw byte (case folding built in), for `contains`. */
  private readonly _shift: Int32Array;

  /** Compiles `pattern`; throws a RangeError when its value is empty. */
  constructor(pattern: LiteralPattern) {
    this._fold = pattern.caseMode === "ascii_insensitive" ? ASCII_FOLD : IDENTITY;
    const needle = encoder.encode(pattern.value);
    if (needle.length === 0) throw new RangeError("a line pattern value must not be empty");
    for (let i = 0; i < needle.length; i++) needle[i] = this._fold[needle[i]];
    this._needle = needle;
    this.length = needle.length;
    this._kind = KIND_CODES[pattern.kind];
    this._trimStart = pattern.trim !== "none";
    this._trimEnd = pattern.trim === "both";
    const contains = this._kind === CONTAINS;
    this._failure = contains ? failureTable(needle) : new Int32Array(0);
    this._shift = contains ? shiftTable(needle, this._fold) : new Int32Array(0);
  }

  /** Bytes retained: the pattern bytes plus the `contains` failure table. */
  retainedBytes(): number {
    return this._needle.byteLength + this._failure.byteLength + this._shift.byteLength;
  }

  /** True when the line content `bytes[start, end)` matches the pattern. */
  matches(bytes: Uint8Array, start: number, end: number): boolean {
    if (this._trimStart) {
      while (start < end && (bytes[start] === SPACE || bytes[start] === TAB)) start++;
    }
    if (this._trimEnd) {
      while (end > start && (bytes[end - 1] === SPACE || bytes[end - 1] === TAB)) end--;
    }
    return this._compare(bytes, start, end);
  }

  /**
   * {@link matches} for a line whose blanks at each edge are already known:
   * `bytes[start, end)` is the content, `first` its first byte after leading
   * blanks and `trimmedEnd` the end before trailing blanks (both `end` for a
   * line of blanks).
   */
  matchesTrimmed(
    bytes: Uint8Array,
    start: number,
    end: number,
    first: number,
    trimmedEnd: number,
  ): boolean {
    return this._compare(
      bytes,
      this._trimStart ? first : start,
      this._trimEnd ? trimmedEnd : end,
    );
  }

  /** Compares the (trimmed) content `bytes[start, end)` as the pattern's kind does. */
  private _compare(bytes: Uint8Array, start: number, end: number): boolean {
    // One flat function: on short lines the calls, not the comparisons, were the cost.
    const needle = this._needle;
    const fold = this._fold;
    const n = needle.length;
    const len = end - start;
    if (len < n) return false;
    const kind = this._kind;
    if (kind === CONTAINS) {
      // Horspool while its comparisons stay within twice the line length, then KMP.
      const shift = this._shift;
      const lastNeedle = needle[n - 1];
      let budget = 2 * len;
      let at = start;
      while (at + n <= end) {
        const last = bytes[at + n - 1];
        if (fold[last] === lastNeedle) {
          let k = n - 2;
          while (k >= 0 && fold[bytes[at + k]] === needle[k]) k--;
          if (k < 0) return true;
          budget -= n - 1 - k;
          if (budget < 0) return this._kmp(bytes, at, end);
        }
        at += shift[last];
      }
      return false;
    }
    if (kind === EXACT && len !== n) return false;
    const at = kind === SUFFIX ? end - n : start;
    for (let i = 0; i < n; i++) {
      if (fold[bytes[at + i]] !== needle[i]) return false;
    }
    return true;
  }

  /**
   * Where the value would end at index `last` of `bytes`, starting at or
   * after `from` (compared as the pattern compares, kind and trim aside):
   * -1 when it does, else the number of bytes compared before a mismatch
   * (at most `length`).
   */
  endsAt(bytes: Uint8Array, last: number, from: number): number {
    const needle = this._needle;
    const fold = this._fold;
    const at = last + 1 - needle.length;
    if (at < from) return 0;
    for (let k = needle.length - 1; k >= 0; k--) {
      if (fold[bytes[at + k]] !== needle[k]) return needle.length - k;
    }
    return -1;
  }

  /** True when the raw `byte` compares equal to the value's byte at `index`. */
  comparesEqual(byte: number, index: number): boolean {
    return this._fold[byte] === this._needle[index];
  }

  /** Knuth–Morris–Pratt from `start`: strictly linear. */
  private _kmp(bytes: Uint8Array, start: number, end: number): boolean {
    const needle = this._needle;
    const fold = this._fold;
    const failure = this._failure;
    const n = needle.length;
    let j = 0;
    for (let i = start; i < end; i++) {
      const c = fold[bytes[i]];
      while (j > 0 && c !== needle[j]) j = failure[j - 1];
      if (c === needle[j] && ++j === n) return true;
    }
    return false;
  }
}

/**
 * Horspool's bad-character shifts, indexed by the raw byte under the
 * window's last position: every byte that folds to a needle byte shifts as
 * that needle byte does.
 */
function shiftTable(needle: Uint8Array, fold: Uint8Array): Int32Array {
  const n = needle.length;
  const shift = new Int32Array(256).fill(n);
  for (let b = 0; b < 256; b++) {
    const f = fold[b];
    for (let i = n - 2; i >= 0; i--) {
      if (needle[i] === f) {
        shift[b] = n - 1 - i;
        break;
      }
    }
  }
  return shift;
}

/**
 * The bytes a compiled `pattern` retains ({@link LineMatcher.retainedBytes}),
 * computed without compiling it: one byte per value byte, plus for
 * `contains` four per value byte and a 1 KiB shift table.
 */
export function linePatternRetainedBytes(pattern: LiteralPattern): number {
  const n = encoder.encode(pattern.value).length;
  return pattern.kind === "contains" ? n * 5 + 1024 : n;
}

/** KMP failure function: longest proper border of each needle prefix. */
function failureTable(needle: Uint8Array): Int32Array {
  const failure = new Int32Array(needle.length);
  let k = 0;
  for (let i = 1; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = failure[k - 1];
    if (needle[i] === needle[k]) k++;
    failure[i] = k;
  }
  return failure;
}

/** Offsets in {@link LinePatternSet}'s dispatch table, one 256-entry part per anchor. */
const FIRST_RAW = 0;
const FIRST_TRIMMED = 256;
const LAST_RAW = 512;
const LAST_TRIMMED = 768;
/** Pattern `i` belongs to dispatch group `i % GROUPS`, one bit of a table entry. */
const GROUPS = 8;

/**
 * Any-of matching over a list of patterns compiled once. An empty set
 * matches nothing. Before comparing, a line is screened through a dispatch
 * table: for each anchored pattern, the bytes its value can start (prefix,
 * exact) or end (suffix) with, at the raw or trimmed edge it compares;
 * `contains` patterns always pass. Only the patterns whose group passes are
 * compared, so most lines are rejected by four table lookups. Work per line
 * is linear in the line length times the number of patterns (at most 256
 * per reducer); the table is 1 KiB of fixed state.
 */
export class LinePatternSet {
  private readonly _matchers: readonly LineMatcher[];
  /** The shortest pattern's byte length (none matches an empty set). */
  private readonly _minLength: number;
  /** Per anchor and byte, a bit per group holding a pattern that may match a line with that byte there. */
  private readonly _dispatch = new Uint8Array(4 * 256);
  /** Groups holding a `contains` pattern: compared on every line at least {@link _containsLength} long. */
  private _always = 0;
  /** The shortest `contains` pattern's byte length. */
  private _containsLength = Infinity;

  /** Compiles every pattern in order. */
  constructor(patterns: readonly LiteralPattern[]) {
    this._matchers = patterns.map((p) => new LineMatcher(p));
    this._minLength = Math.min(...this._matchers.map((m) => m.length));
    patterns.forEach((p, i) => this._route(p, this._matchers[i], 1 << (i % GROUPS)));
  }

  /** The compiled patterns, in order. */
  get matchers(): readonly LineMatcher[] {
    return this._matchers;
  }

  /**
   * Whether some value ends at index `last` of `bytes`, starting at or after
   * `from`: -1 when one does, else the bytes compared (for a caller's work
   * bound). Kinds and trims aside, a line holding no value matches nothing.
   */
  endsAt(bytes: Uint8Array, last: number, from: number): number {
    const matchers = this._matchers;
    let compared = 0;
    for (let i = 0; i < matchers.length; i++) {
      const c = matchers[i].endsAt(bytes, last, from);
      if (c < 0) return -1;
      compared += c;
    }
    return compared;
  }

  /** Number of patterns in the set. */
  get size(): number {
    return this._matchers.length;
  }

  /** True when any pattern matches the line content `bytes[start, end)`. */
  matchesAny(bytes: Uint8Array, start: number, end: number): boolean {
    const len = end - start;
    if (len < this._minLength) return false;
    const dispatch = this._dispatch;
    let first = start;
    while (first < end && (bytes[first] === SPACE || bytes[first] === TAB)) first++;
    let last = end - 1;
    while (last > first && (bytes[last] === SPACE || bytes[last] === TAB)) last--;
    // A line of blanks trims to nothing at its end.
    const trimmedEnd = first < end ? last + 1 : end;
    // A line of blanks has no trimmed edge: `first === end`, and no trimming pattern matches it.
    let groups = (len >= this._containsLength ? this._always : 0) |
      dispatch[FIRST_RAW + bytes[start]] |
      dispatch[LAST_RAW + bytes[end - 1]];
    if (first < end) {
      groups |= dispatch[FIRST_TRIMMED + bytes[first]] | dispatch[LAST_TRIMMED + bytes[last]];
    }
    const matchers = this._matchers;
    for (; groups !== 0; groups &= groups - 1) {
      for (let i = 31 - Math.clz32(groups & -groups); i < matchers.length; i += GROUPS) {
        const m = matchers[i];
        if (len >= m.length && m.matchesTrimmed(bytes, start, end, first, trimmedEnd)) return true;
      }
    }
    return false;
  }

  /** Bytes retained by the compiled patterns (needles and failure tables). */
  retainedBytes(): number {
    let total = 0;
    for (const m of this._matchers) total += m.retainedBytes();
    return total;
  }

  /** Sets `group` at every table entry where `p` may match (see the class comment). */
  private _route(p: LiteralPattern, m: LineMatcher, group: number): void {
    if (p.kind === "contains") {
      this._always |= group;
      this._containsLength = Math.min(this._containsLength, m.length);
      return;
    }
    const suffix = p.kind === "suffix";
    const trimmed = suffix ? p.trim === "both" : p.trim !== "none";
    const base = suffix
      ? (trimmed ? LAST_TRIMMED : LAST_RAW)
      : (trimmed ? FIRST_TRIMMED : FIRST_RAW);
    const index = suffix ? m.length - 1 : 0;
    for (let b = 0; b < 256; b++) {
      if (m.comparesEqual(b, index)) this._dispatch[base + b] |= group;
    }
  }
}
