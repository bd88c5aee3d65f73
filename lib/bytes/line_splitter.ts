/**
 * A chunked byte line splitter. It never decodes text: a line is the bytes up
 * to and including LF (`\n`); a CR directly before that LF belongs to the
 * ending (CRLF), any other CR is content. The last line of a stream may have
 * no ending. The reader pulls lines: {@link LineSplitter.feed} a chunk, then
 * call {@link LineSplitter.next} until it returns false, reading the current
 * line's fields in between; no callback runs per line. A line that lies
 * inside one chunk is a range of that chunk (no copy, no allocation); only a
 * line carried across chunks is copied, into one reused carry buffer.
 *
 * Bound: a line longer than `maxLineBytes` keeps only its first
 * `maxLineBytes` content bytes; the rest is counted, not stored. The carry
 * buffer therefore never holds more than `maxLineBytes` bytes, whatever the
 * input. Output is identical for every way of cutting the same bytes into
 * chunks.
 *
 * @module
 */
import { ByteScanner } from "./byte_search.ts";

/** The line ending codes; each code equals the ending's length in bytes. */
export const LINE_END_NONE = 0;
/** The line ended with `\n`. */
export const LINE_END_LF = 1;
/** The line ended with `\r\n`. */
export const LINE_END_CRLF = 2;

/** How a line ended: none (last line of a stream), LF or CRLF; equals the ending's byte length. */
export type LineEnding = typeof LINE_END_NONE | typeof LINE_END_LF | typeof LINE_END_CRLF;

const LF = 10;
const CR = 13;
const INITIAL_CARRY_BYTES = 1024;
const EMPTY = new Uint8Array(0);

/**
 * Splits a byte stream into lines. The current line's content is
 * `bytes[start, end)` (ending excluded, at most `maxLineBytes` long),
 * `ending` says how it ended and `droppedBytes` how many content bytes after
 * `end` the line limit cut off. `bytes` is the fed chunk or the reused carry
 * buffer: copy the range before the next call if it must outlive it.
 * Retained state: a carry buffer of at most `maxLineBytes` bytes plus a few
 * counters.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { LineSplitter } from "./line_splitter.ts";
 * const s = new LineSplitter(256);
 * const lines: string[] = [];
 * const read = () => {
 *   lines.push(new TextDecoder().decode(s.bytes.subarray(s.start, s.end)) + "/" + s.ending);
 * };
 * s.feed(new TextEncoder().encode("a\r\nb"));
 * while (s.next()) read();
 * s.feed(new TextEncoder().encode("c\n"));
 * while (s.next()) read();
 * if (s.finish()) read();
 * deepEqual(lines, ["a/2", "bc/1"]);
 * ```
 */
export class LineSplitter {
  private readonly _max: number;
  private _carry: Uint8Array = EMPTY;
  /** Bytes of the partial line stored in the carry buffer (≤ max). */
  private _carryLen = 0;
  /** Raw bytes of the partial line seen so far, stored or not. */
  private _rawLen = 0;
  /** Last raw byte of the partial line (to recognise CRLF across chunks). */
  private _lastByte = -1;
  /** The chunk being read and the offset of its first unread byte. */
  private _chunk: Uint8Array = EMPTY;
  private _pos = 0;
  /** Finds the chunk's line feeds. */
  private readonly _feeds = new ByteScanner(LF);
  private _bytes: Uint8Array = EMPTY;
  private _start = 0;
  private _end = 0;
  private _ending: LineEnding = LINE_END_NONE;
  private _dropped = 0;

  /** `maxLineBytes` (≥ 1) bounds the content bytes kept per line. */
  constructor(maxLineBytes: number) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`);
    }
    this._max = maxLineBytes;
  }

  /** The buffer holding the current line's content. */
  get bytes(): Uint8Array {
    return this._bytes;
  }

  /** Start of the current line's content in {@link bytes}. */
  get start(): number {
    return this._start;
  }

  /** End of the current line's kept content in {@link bytes}. */
  get end(): number {
    return this._end;
  }

  /** How the current line ended. */
  get ending(): LineEnding {
    return this._ending;
  }

  /** Content bytes of the current line cut off by the line limit. */
  get droppedBytes(): number {
    return this._dropped;
  }

  /** Offset in the fed chunk of the first byte not yet read. */
  get position(): number {
    return this._pos;
  }

  /** Bytes currently allocated for the carry buffer (≤ `maxLineBytes`). */
  retainedBytes(): number {
    return this._carry.byteLength;
  }

  /** Starts reading `chunk`; read its lines with {@link next} before feeding another. */
  feed(chunk: Uint8Array): void {
    this._chunk = chunk;
    this._feeds.reset(chunk);
    this._pos = 0;
  }

  /**
   * Moves to the next line the fed chunk completes and returns true; returns
   * false, carrying the chunk's unterminated rest, when there is none.
   */
  next(): boolean {
    const chunk = this._chunk;
    const n = chunk.length;
    const pos = this._pos;
    if (pos === n) return false;
    const lf = this._feeds.indexFrom(pos);
    if (lf === -1) {
      this._append(chunk, pos, n);
      this._pos = n;
      return false;
    }
    this._pos = lf + 1;
    if (this._rawLen > 0) {
      this._append(chunk, pos, lf);
      this._takeCarry(true);
      return true;
    }
    let end = lf;
    let ending: LineEnding = LINE_END_LF;
    if (end > pos && chunk[end - 1] === CR) {
      end--;
      ending = LINE_END_CRLF;
    }
    const max = this._max;
    this._bytes = chunk;
    this._start = pos;
    this._ending = ending;
    if (end - pos > max) {
      this._end = pos + max;
      this._dropped = end - pos - max;
    } else {
      this._end = end;
      this._dropped = 0;
    }
    return true;
  }

  /**
   * Skips the fed chunk's bytes before `at`, which must start a line, as
   * if they were read; only between lines (no partial line carried).
   */
  skipTo(at: number): void {
    if (this._rawLen > 0 || at < this._pos || at > this._chunk.length) {
      throw new RangeError(`cannot skip from ${this._pos} to ${at}`);
    }
    this._pos = at;
  }

  /** Ends the stream; returns true when a final line without LF is now the current line. */
  finish(): boolean {
    this._chunk = EMPTY;
    this._feeds.reset(EMPTY);
    this._pos = 0;
    if (this._rawLen === 0) return false;
    this._takeCarry(false);
    return true;
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

  /** Makes the carried line current and empties the carry. */
  private _takeCarry(terminated: boolean): void {
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
    this._bytes = this._carry;
    this._start = 0;
    this._end = kept;
    this._ending = ending;
    this._dropped = contentLen - kept;
  }
}
