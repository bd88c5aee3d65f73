/**
 * A chunked byte line splitter. It never decodes text: a line is the bytes up
 * to and including LF (`\n`); a CR directly before that LF belongs to the
 * ending (CRLF), any other CR is content. The last line of a stream may have
 * no ending. Line content is delivered as a range of a buffer, so a line that
 * lies inside one chunk costs no copy and no allocation; only a line carried
 * across chunks is copied, into one reused carry buffer.
 *
 * Bound: a line longer than `maxLineBytes` keeps only its first
 * `maxLineBytes` content bytes; the rest is counted, not stored. The carry
 * buffer therefore never holds more than `maxLineBytes` bytes, whatever the
 * input. Output is identical for every way of cutting the same bytes into
 * chunks.
 *
 * @module
 */
import { ByteFinder } from "./byte_finder.ts";

/** The line ending codes; each code equals the ending's length in bytes. */
export const LINE_END_NONE = 0;
/** The line ended with `\n`. */
export const LINE_END_LF = 1;
/** The line ended with `\r\n`. */
export const LINE_END_CRLF = 2;

/** How a line ended: none (last line of a stream), LF or CRLF; equals the ending's byte length. */
export type LineEnding = typeof LINE_END_NONE | typeof LINE_END_LF | typeof LINE_END_CRLF;

/**
 * Receives one line: content is `bytes[start, end)` (ending excluded, at most
 * `maxLineBytes` long), `ending` says how the line ended and `droppedBytes`
 * how many content bytes after `end` were cut off by the line limit. `bytes`
 * may be the caller's chunk or the splitter's reused carry buffer: copy the
 * range before the callback returns if it must outlive it.
 */
export type LineSink = (
  bytes: Uint8Array,
  start: number,
  end: number,
  ending: LineEnding,
  droppedBytes: number,
) => void;

const LF = 10;
const CR = 13;
const INITIAL_CARRY_BYTES = 1024;

/**
 * Splits a byte stream into lines and hands each to a {@link LineSink}.
 * Retained state: a carry buffer of at most `maxLineBytes` bytes plus a few
 * counters.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { LineSplitter } from "./line_splitter.ts";
 * const lines: string[] = [];
 * const s = new LineSplitter(256, (b, start, end, ending) => {
 *   lines.push(new TextDecoder().decode(b.subarray(start, end)) + "/" + ending);
 * });
 * s.push(new TextEncoder().encode("a\r\nb"));
 * s.push(new TextEncoder().encode("c\n"));
 * s.finish();
 * deepEqual(lines, ["a/2", "bc/1"]);
 * ```
 */
export class LineSplitter {
  private readonly _max: number;
  private readonly _sink: LineSink;
  private _carry: Uint8Array = new Uint8Array(0);
  /** Bytes of the partial line stored in the carry buffer (≤ max). */
  private _carryLen = 0;
  /** Raw bytes of the partial line seen so far, stored or not. */
  private _rawLen = 0;
  /** Last raw byte of the partial line (to recognise CRLF across chunks). */
  private _lastByte = -1;

  /** `maxLineBytes` (≥ 1) bounds the content bytes kept per line. */
  constructor(maxLineBytes: number, sink: LineSink) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`);
    }
    this._max = maxLineBytes;
    this._sink = sink;
  }

  /** Bytes currently allocated for the carry buffer (≤ `maxLineBytes`). */
  retainedBytes(): number {
    return this._carry.byteLength;
  }

  /** Feeds one chunk; delivers every line that it completes. */
  push(chunk: Uint8Array): void {
    const n = chunk.length;
    const max = this._max;
    const sink = this._sink;
    const finder = new ByteFinder(chunk, LF);
    let pos = 0;
    while (pos < n) {
      const lf = finder.next(pos);
      if (lf === -1) {
        this._append(chunk, pos, n);
        return;
      }
      if (this._rawLen === 0) {
        let end = lf;
        let ending: LineEnding = LINE_END_LF;
        if (end > pos && chunk[end - 1] === CR) {
          end--;
          ending = LINE_END_CRLF;
        }
        const len = end - pos;
        if (len > max) sink(chunk, pos, pos + max, ending, len - max);
        else sink(chunk, pos, end, ending, 0);
      } else {
        this._append(chunk, pos, lf);
        this._emitCarry(true);
      }
      pos = lf + 1;
    }
  }

  /** Delivers the final line when the stream did not end with LF. */
  finish(): void {
    if (this._rawLen > 0) this._emitCarry(false);
  }

  private _append(chunk: Uint8Array, start: number, end: number): void {
    const len = end - start;
    if (len === 0) return;
    const room = this._max - this._carryLen;
    const take = len < room ? len : room;
    if (take > 0) {
      const need = this._carryLen + take;
      if (need > this._carry.length) this._growCarry(need);
      this._carry.set(chunk.subarray(start, start + take), this._carryLen);
      this._carryLen = need;
    }
    this._rawLen += len;
    this._lastByte = chunk[end - 1];
  }

  private _growCarry(need: number): void {
    let size = Math.max(this._carry.length * 2, INITIAL_CARRY_BYTES);
    while (size < need) size *= 2;
    const next = new Uint8Array(Math.min(size, this._max));
    next.set(this._carry.subarray(0, this._carryLen));
    this._carry = next;
  }

  private _emitCarry(terminated: boolean): void {
    let contentLen = this._rawLen;
    let ending: LineEnding = LINE_END_NONE;
    if (terminated) {
      ending = LINE_END_LF;
      if (this._lastByte === CR) {
        contentLen--;
        ending = LINE_END_CRLF;
      }
    }
    const kept = contentLen < this._carryLen ? contentLen : this._carryLen;
    this._carryLen = 0;
    this._rawLen = 0;
    this._lastByte = -1;
    this._sink(this._carry, 0, kept, ending, contentLen - kept);
  }
}
