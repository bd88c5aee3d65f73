/**
 * Literal line patterns matched on bytes (seed 000, "Line patterns"). A
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
    const n = this._needle.length;
    const len = end - start;
    if (len < n) return false;
    switch (this._kind) {
      case EXACT:
        return len === n && this._equalAt(bytes, start);
      case PREFIX:
        return this._equalAt(bytes, start);
      case SUFFIX:
        return this._equalAt(bytes, end - n);
      default:
        return this._contains(bytes, start, end);
    }
  }

  private _equalAt(bytes: Uint8Array, at: number): boolean {
    const needle = this._needle;
    const fold = this._fold;
    for (let i = 0; i < needle.length; i++) {
      if (fold[bytes[at + i]] !== needle[i]) return false;
    }
    return true;
  }

  private _contains(bytes: Uint8Array, start: number, end: number): boolean {
    const needle = this._needle;
    const fold = this._fold;
    const shift = this._shift;
    const n = needle.length;
    const lastNeedle = needle[n - 1];
    let budget = 2 * (end - start);
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

/**
 * Any-of matching over a list of patterns compiled once. An empty set
 * matches nothing. Work per line is linear in the line length times the
 * number of patterns (at most 256 per reducer).
 */
export class LinePatternSet {
  private readonly _matchers: readonly LineMatcher[];

  /** Compiles every pattern in order. */
  constructor(patterns: readonly LiteralPattern[]) {
    this._matchers = patterns.map((p) => new LineMatcher(p));
  }

  /** Number of patterns in the set. */
  get size(): number {
    return this._matchers.length;
  }

  /** True when any pattern matches the line content `bytes[start, end)`. */
  matchesAny(bytes: Uint8Array, start: number, end: number): boolean {
    const matchers = this._matchers;
    for (let i = 0; i < matchers.length; i++) {
      if (matchers[i].matches(bytes, start, end)) return true;
    }
    return false;
  }

  /** Bytes retained by the compiled patterns (needles and failure tables). */
  retainedBytes(): number {
    let total = 0;
    for (const m of this._matchers) total += m.retainedBytes();
    return total;
  }
}
