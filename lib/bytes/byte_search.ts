/**
 * Searching and counting one byte value in a buffer, tuned for the line
 * loop. `Uint8Array.prototype.indexOf` is fast over long runs but costs
 * tens of nanoseconds per call, so {@link indexOfByte} looks at the first
 * bytes itself and calls it only for the rest (on a view ending at the
 * range's end, so the work never exceeds the range); {@link countByte} tests four
 * bytes per step through an aligned 32-bit view. Neither allocates more
 * than one view per call. {@link ByteScanner} finds one value again and
 * again in one buffer (the line splitter's LF), four bytes per step through
 * a 32-bit view made once per buffer: over 64 KiB of 35-byte lines it split
 * at 2.6 GB/s where a byte loop ran at 1.6 and `indexOf` calls at 1.2, and
 * it stays ahead from 20-byte to 4 KiB lines.
 *
 * @module
 */

/** Bytes {@link indexOfByte} scans itself before it calls the native search. */
const SHORT_SCAN = 64;
/** Below this many bytes {@link countByte} does not set up a 32-bit view. */
const SHORT_COUNT = 64;
const LOW7_X4 = 0x7f7f7f7f;

/**
 * Index of the first byte equal to `value` in `bytes[from, end)`, or -1.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { indexOfByte } from "./byte_search.ts";
 * const b = new TextEncoder().encode("ab\ncd\n");
 * equal(indexOfByte(b, 10, 0, b.length), 2);
 * equal(indexOfByte(b, 10, 3, b.length), 5);
 * equal(indexOfByte(b, 10, 3, 5), -1);
 * ```
 */
export function indexOfByte(bytes: Uint8Array, value: number, from: number, end: number): number {
  const stop = end - from > SHORT_SCAN ? from + SHORT_SCAN : end;
  for (let i = from; i < stop; i++) if (bytes[i] === value) return i;
  if (stop === end) return -1;
  // The native search runs to the end of its array: bound it by a view when `end` comes earlier.
  if (end < bytes.length) {
    const at = bytes.subarray(stop, end).indexOf(value);
    return at === -1 ? -1 : stop + at;
  }
  return bytes.indexOf(value, stop);
}

/**
 * How many bytes of `bytes[start, end)` equal `value`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { countByte } from "./byte_search.ts";
 * const b = new TextEncoder().encode("a\nb\n\nc");
 * equal(countByte(b, 10, 0, b.length), 3);
 * equal(countByte(b, 10, 2, 4), 1);
 * ```
 */
export function countByte(bytes: Uint8Array, value: number, start: number, end: number): number {
  let count = 0;
  let i = start;
  if (end - start >= SHORT_COUNT) {
    // Whole aligned words: a byte of `w ^ pattern` is zero exactly where `value` is; the
    // expression below sets the high bit of each zero byte and no other bit.
    const lead = (4 - ((bytes.byteOffset + start) & 3)) & 3;
    for (; i < start + lead; i++) if (bytes[i] === value) count++;
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (end - i) >>> 2);
    const pattern = value * 0x01010101;
    for (let w = 0; w < words.length; w++) {
      const x = words[w] ^ pattern;
      const zeroHighBits = ~(((x & LOW7_X4) + LOW7_X4) | x | LOW7_X4);
      count += Math.imul(zeroHighBits >>> 7, 0x01010101) >>> 24;
    }
    i += words.length * 4;
  }
  for (; i < end; i++) if (bytes[i] === value) count++;
  return count;
}

const NO_WORDS = new Uint32Array(0);

/**
 * Finds one byte value in a buffer from any offset, four bytes per step:
 * {@link ByteScanner.reset} makes the aligned 32-bit view of a buffer once,
 * and each {@link ByteScanner.indexFrom} then costs no allocation.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { ByteScanner } from "./byte_search.ts";
 * const scanner = new ByteScanner(10);
 * scanner.reset(new TextEncoder().encode("ab\ncdefghijk\n"));
 * equal(scanner.indexFrom(0), 2);
 * equal(scanner.indexFrom(3), 13);
 * equal(scanner.indexFrom(14), -1);
 * ```
 */
export class ByteScanner {
  private readonly _value: number;
  private readonly _pattern: number;
  private _bytes: Uint8Array = new Uint8Array(0);
  /** The whole aligned words of {@link _bytes}, from offset {@link _lead}. */
  private _words: Uint32Array = NO_WORDS;
  private _lead = 0;

  /** A scanner for byte `value` (0–255). */
  constructor(value: number) {
    this._value = value;
    this._pattern = Math.imul(value, 0x01010101);
  }

  /** Scans `bytes` from now on (until the next reset). */
  reset(bytes: Uint8Array): void {
    this._bytes = bytes;
    const lead = (4 - (bytes.byteOffset & 3)) & 3;
    if (bytes.length - lead < 4) {
      this._lead = bytes.length;
      this._words = NO_WORDS;
      return;
    }
    this._lead = lead;
    this._words = new Uint32Array(
      bytes.buffer,
      bytes.byteOffset + lead,
      (bytes.length - lead) >>> 2,
    );
  }

  /** Index of the first byte equal to the value at or after `from`, or -1. */
  indexFrom(from: number): number {
    const bytes = this._bytes;
    const value = this._value;
    const words = this._words;
    const lead = this._lead;
    let i = from;
    // The first whole word at or after `from`: bytes before it one by one, then word by word.
    const first = i <= lead ? 0 : (i - lead + 3) >>> 2;
    if (first < words.length) {
      const boundary = lead + first * 4;
      for (; i < boundary; i++) if (bytes[i] === value) return i;
      const pattern = this._pattern;
      let w = first;
      for (; w < words.length; w++) {
        const x = words[w] ^ pattern;
        if (~(((x & LOW7_X4) + LOW7_X4) | x | LOW7_X4) !== 0) break; // a zero byte: `value`
      }
      i = lead + w * 4;
    }
    for (; i < bytes.length; i++) if (bytes[i] === value) return i;
    return -1;
  }
}

/**
 * Decodes each byte to one UTF-16 unit, a different unit for each of the 256
 * byte values (WHATWG windows-1252), so two byte runs are equal exactly when
 * their texts are.
 */
const BYTE_TEXT = new TextDecoder("windows-1252");

/**
 * From this length on, {@link bytesEqual} compares natively through
 * {@link BYTE_TEXT}: in a fresh process a JavaScript loop over 40 KiB took
 * about 4.5 ms (not yet compiled), the two decodes and a string compare 0.7.
 */
const NATIVE_COMPARE_BYTES = 256;

const UTF8_TEXT = new TextDecoder();

/**
 * `bytes` as text of one UTF-16 unit per byte, so string offsets are byte
 * offsets and an ASCII byte is its own character: decoded as UTF-8 when
 * that gives as many units as bytes (ASCII, the fastest decode), else as
 * windows-1252. Native string searches can then run over bytes.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { byteText } from "./byte_search.ts";
 * equal(byteText(new TextEncoder().encode("a:b")).indexOf(":"), 1);
 * equal(byteText(new TextEncoder().encode("é:b")).indexOf(":"), 2);
 * ```
 */
export function byteText(bytes: Uint8Array): string {
  const text = UTF8_TEXT.decode(bytes);
  return text.length === bytes.length ? text : BYTE_TEXT.decode(bytes);
}

/** True when `a` and `b` hold the same bytes in the same order. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  if (a.length >= NATIVE_COMPARE_BYTES) return BYTE_TEXT.decode(a) === BYTE_TEXT.decode(b);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
