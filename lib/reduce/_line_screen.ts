/**
 * Screening lines for the values of a `line_filter` pattern set: kinds and
 * trims aside, a line whose content holds no value matches no pattern. With
 * `keep` patterns, such a line cannot be a candidate; with `drop` patterns
 * only, it is one. When ANSI sequences are
 * removed, the content is the line with its sequences removed, and removal
 * can join a value's bytes; but before the line's first ESC the content is
 * the raw bytes, and after it every content byte is a raw byte, so a value
 * can still end only on a raw byte that can end a value.
 * {@link LineScreen.quietEnd} walks a chunk once, counting lines, up to the
 * first line that may hold a value, so the lines before it are omitted (or
 * counted as candidates) without splitting, stripping or matching them one
 * by one;
 * {@link LineScreen.mayHoldValue} applies the test to one line's content.
 *
 * Each byte is classified through a 256-entry table; only a byte that can
 * end a value is checked further, against a hashed set of value-ending byte
 * pairs, and values are compared only where a pair hits. Work is linear in
 * the bytes walked: a walk stops early (treating the line as one that needs
 * a look) once its comparisons exceed twice the bytes walked. State: the two
 * tables (384 bytes, fixed) and one counter; no input bytes are kept.
 *
 * @module
 */
import type { LineMatcher, LinePatternSet } from "../bytes/mod.ts";

const LF = 10;
const ESC = 0x1b;

/** Byte classes in {@link LineScreen}'s table. */
const PLAIN = 0;
const LINE_END = 1;
const ESCAPE = 2;
const VALUE_END = 3;

/** Finds lines whose content can hold no value of a pattern set; see the module comment. */
export class LineScreen {
  private readonly _patterns: LinePatternSet;
  /** Class of each byte value: PLAIN, LINE_END (LF), ESCAPE (ESC, when stripping) or VALUE_END. */
  private readonly _classes = new Uint8Array(256);
  /** 1,024 bits, set at {@link pairHash} of each byte pair that can end a value. */
  private readonly _endPairs = new Uint32Array(32);
  private _lines = 0;

  /** Screens for any value of `patterns`, and for ESC when `escapes`. */
  constructor(patterns: LinePatternSet, escapes: boolean) {
    this._patterns = patterns;
    for (const m of patterns.matchers) {
      for (const [prev, last] of endPairs(m)) {
        this._classes[last] = VALUE_END;
        const h = pairHash(prev, last);
        this._endPairs[h >>> 5] |= 1 << (h & 31);
      }
    }
    this._classes[LF] = LINE_END;
    if (escapes) this._classes[ESC] = ESCAPE;
  }

  /** Complete lines in the run the last {@link quietEnd} found. */
  get lines(): number {
    return this._lines;
  }

  /**
   * The end of the run of complete lines of `chunk`, from `from` (a line
   * start), whose content can hold no value: the raw bytes hold none, and,
   * when stripping, no byte after the line's first ESC can end one. The
   * number of those lines is then {@link lines}.
   */
  quietEnd(chunk: Uint8Array, from: number): number {
    const classes = this._classes;
    const n = chunk.length;
    let lines = 0;
    let lineStart = from;
    let prev = LF;
    let escaped = false;
    let compared = 0;
    let i = from;
    while (i < n) {
      // The tight loop passes plain bytes; everything else is decided below it.
      let b = 0;
      let cls = PLAIN;
      for (; i < n; i++) {
        b = chunk[i];
        cls = classes[b];
        if (cls !== PLAIN) break;
        prev = b;
      }
      if (i === n) break;
      if (cls === LINE_END) {
        lines++;
        lineStart = ++i;
        prev = LF;
        escaped = false;
        continue;
      }
      if (cls === ESCAPE) {
        escaped = true;
        prev = b;
        i++;
        continue;
      }
      if (escaped) break;
      const c = this._valueEndsAt(chunk, prev, i, lineStart);
      if (c < 0) break;
      compared += c;
      if (compared > 2 * (i + 1 - from)) break;
      prev = b;
      i++;
    }
    this._lines = lines;
    return lineStart;
  }

  /** False when no value occurs in `bytes[start, end)` (ESC and LF count as plain bytes). */
  mayHoldValue(bytes: Uint8Array, start: number, end: number): boolean {
    const classes = this._classes;
    let prev = LF;
    let compared = 0;
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      if (classes[b] === VALUE_END) {
        const c = this._valueEndsAt(bytes, prev, i, start);
        if (c < 0) return true;
        compared += c;
        if (compared > 2 * (i + 1 - start)) return true;
      }
      prev = b;
    }
    return false;
  }

  /**
   * -1 when a value ends at `bytes[i]` (preceded by `prev`) and starts at or
   * after `from`; else the bytes compared to rule it out.
   */
  private _valueEndsAt(bytes: Uint8Array, prev: number, i: number, from: number): number {
    const h = pairHash(prev, bytes[i]);
    if (((this._endPairs[h >>> 5] >>> (h & 31)) & 1) === 0) return 0;
    return this._patterns.endsAt(bytes, i, from);
  }
}

/** A 10-bit hash of a byte pair (the byte before a value's last byte, and that byte). */
function pairHash(prev: number, last: number): number {
  return ((prev << 2) ^ last) & 1023;
}

/**
 * Every pair of raw bytes that can end `m`'s value in a line: its last two
 * bytes, or, for a one-byte value, any byte (LF at a line start) then it.
 */
function endPairs(m: LineMatcher): [number, number][] {
  const all = Array.from({ length: 256 }, (_, b) => b);
  const n = m.length;
  const lasts = all.filter((b) => m.comparesEqual(b, n - 1));
  const prevs = n === 1 ? all : all.filter((b) => m.comparesEqual(b, n - 2));
  return prevs.flatMap((prev) => lasts.map((last): [number, number] => [prev, last]));
}
