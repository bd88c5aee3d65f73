/**
 * A bounded store of whole lines in one circular byte buffer plus fixed
 * per-line bookkeeping; the head buffer and the tail ring are both made of
 * it. Each stored line is its (possibly cut) content followed by its own
 * ending bytes. The byte buffer grows by doubling up to `maxBytes` and is
 * never larger; the bookkeeping holds exactly `maxLines` entries. The caller
 * decides what to evict; the store only checks nothing overflows.
 *
 * A line may be appended *deferred*: its room is reserved and its bytes are
 * copied by {@link LineStore.flush} from the same chunk at the end of a
 * push (lines appended directly meanwhile take their own room). A tail ring evicts most lines of a chunk before the chunk ends, so
 * deferring skips nearly every copy on long streams.
 *
 * @module
 */
import { LINE_END_CRLF, LINE_END_LF, type LineEnding } from "../bytes/mod.ts";
import { LINE_META_BYTES } from "./budget.ts";

const INITIAL_BYTES = 4096;
const SHORT_COPY = 32;

/** Copies `src[start, end)` to `dst` at `at`; a loop for short runs avoids a view allocation. */
export function copyRange(
  src: Uint8Array,
  start: number,
  end: number,
  dst: Uint8Array,
  at: number,
): void {
  if (end - start <= SHORT_COPY) {
    for (let i = start; i < end; i++) dst[at++] = src[i];
  } else {
    dst.set(src.subarray(start, end), at);
  }
}

/** Lines in arrival order; index 0 is the oldest stored line. */
export class LineStore {
  private readonly _maxBytes: number;
  private readonly _maxLines: number;
  private _bytes = new Uint8Array(0);
  /** Byte offset of the oldest line and bytes in use (circular). */
  private _head = 0;
  private _used = 0;
  private readonly _starts: Int32Array;
  private readonly _lengths: Int32Array;
  private readonly _hidden: Float64Array;
  private readonly _source: Float64Array;
  private readonly _endings: Uint8Array;
  /** Where a deferred line's content starts in the pending chunk; -1 once written. */
  private readonly _chunkStarts: Int32Array;
  /** Slot of the oldest line and number of lines (circular). */
  private _first = 0;
  private _count = 0;
  /** The newest `_recent` lines were appended since the last {@link flush}. */
  private _recent = 0;

  /** At most `maxLines` lines and `maxBytes` stored bytes. */
  constructor(maxLines: number, maxBytes: number) {
    this._maxLines = maxLines;
    this._maxBytes = maxBytes;
    this._starts = new Int32Array(maxLines);
    this._lengths = new Int32Array(maxLines);
    this._hidden = new Float64Array(maxLines);
    this._source = new Float64Array(maxLines);
    this._endings = new Uint8Array(maxLines);
    this._chunkStarts = new Int32Array(maxLines);
  }

  /** Lines stored. */
  get count(): number {
    return this._count;
  }

  /** Bytes stored (contents and endings). */
  get usedBytes(): number {
    return this._used;
  }

  /** Allocated bytes: buffer capacity plus bookkeeping. */
  retainedBytes(): number {
    return this._bytes.byteLength + this._maxLines * LINE_META_BYTES;
  }

  /** Stored size (content + ending) of the oldest line; 0 when empty. */
  oldestSize(): number {
    if (this._count === 0) return 0;
    const slot = this._first;
    return this._lengths[slot] + this._endings[slot];
  }

  /**
   * Appends a line: content `src[start, end)`, its ending, the content bytes
   * already cut from it (`hidden`) and its size in the source. When
   * `deferred`, the bytes are copied later by {@link flush}, which must then
   * be given the same `src`. The caller guarantees `count < maxLines` and
   * `usedBytes + size ≤ maxBytes`.
   */
  append(
    src: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    hidden: number,
    source: number,
    deferred: boolean,
  ): void {
    const len = end - start;
    const size = len + ending;
    if (this._count >= this._maxLines || this._used + size > this._maxBytes) {
      throw new RangeError("line store overflow");
    }
    if (this._used + size > this._bytes.length) this._grow(this._used + size);
    const cap = this._bytes.length;
    let at = this._head + this._used;
    if (at >= cap) at -= cap;
    const slot = (this._first + this._count) % this._maxLines;
    this._starts[slot] = at;
    this._lengths[slot] = len;
    this._hidden[slot] = hidden;
    this._source[slot] = source;
    this._endings[slot] = ending;
    this._used += size;
    this._count++;
    this._recent++;
    if (deferred) {
      this._chunkStarts[slot] = start;
    } else {
      this._chunkStarts[slot] = -1;
      this._write(src, start, len, ending, at);
    }
  }

  /** Copies the deferred lines that are still stored from `chunk`, the buffer they were appended from. */
  flush(chunk: Uint8Array): void {
    for (let k = this._count - this._recent; k < this._count; k++) {
      const slot = (this._first + k) % this._maxLines;
      const from = this._chunkStarts[slot];
      if (from < 0) continue;
      this._write(
        chunk,
        from,
        this._lengths[slot],
        this._endings[slot] as LineEnding,
        this._starts[slot],
      );
      this._chunkStarts[slot] = -1;
    }
    this._recent = 0;
  }

  private _write(
    src: Uint8Array,
    start: number,
    len: number,
    ending: LineEnding,
    at: number,
  ): void {
    const buf = this._bytes;
    const cap = buf.length;
    const end = start + len;
    if (at + len + ending <= cap) {
      copyRange(src, start, end, buf, at);
      at += len;
    } else {
      for (let i = start; i < end; i++) {
        buf[at++] = src[i];
        if (at === cap) at = 0;
      }
    }
    if (ending === LINE_END_CRLF) {
      buf[at++] = 13;
      if (at === cap) at = 0;
      buf[at] = 10;
    } else if (ending === LINE_END_LF) {
      buf[at] = 10;
    }
  }

  /** Forgets every line (deferred ones included); keeps the allocated buffer. */
  clear(): void {
    this._head = 0;
    this._used = 0;
    this._first = 0;
    this._count = 0;
    this._recent = 0;
  }

  /** Forgets the oldest line. */
  evictOldest(): void {
    if (this._recent === this._count) this._recent--;
    const size = this.oldestSize();
    this._head += size;
    if (this._head >= this._bytes.length) this._head -= this._bytes.length;
    this._used -= size;
    this._first = (this._first + 1) % this._maxLines;
    this._count--;
  }

  /** Rotates the buffer so stored bytes start at offset 0; afterwards every line is contiguous. */
  linearize(): void {
    for (let k = this._count - this._recent; k < this._count; k++) {
      if (this._chunkStarts[(this._first + k) % this._maxLines] >= 0) {
        throw new Error("flush deferred lines before reading");
      }
    }
    this._recent = 0;
    const buf = this._bytes;
    const head = this._head;
    if (head === 0) return;
    buf.subarray(0, head).reverse();
    buf.subarray(head).reverse();
    buf.reverse();
    this._rebase(head, buf.length);
  }

  /** The buffer holding line bytes (valid for reading after {@link linearize}). */
  get bytes(): Uint8Array {
    return this._bytes;
  }

  /** Offset of line `i`'s content in {@link bytes}. */
  start(i: number): number {
    return this._starts[(this._first + i) % this._maxLines];
  }

  /** Stored content length of line `i`. */
  length(i: number): number {
    return this._lengths[(this._first + i) % this._maxLines];
  }

  /** Ending of line `i` (its byte length). */
  ending(i: number): LineEnding {
    return this._endings[(this._first + i) % this._maxLines] as LineEnding;
  }

  /** Content bytes of line `i` cut before it was stored. */
  hidden(i: number): number {
    return this._hidden[(this._first + i) % this._maxLines];
  }

  /** Source size of line `i` (content, cut bytes and removed sequences, ending). */
  source(i: number): number {
    return this._source[(this._first + i) % this._maxLines];
  }

  private _grow(need: number): void {
    let size = Math.max(this._bytes.length * 2, INITIAL_BYTES);
    while (size < need) size *= 2;
    const next = new Uint8Array(Math.min(size, this._maxBytes));
    const old = this._bytes;
    const head = this._head;
    const firstPart = Math.min(this._used, old.length - head);
    next.set(old.subarray(head, head + firstPart));
    next.set(old.subarray(0, this._used - firstPart), firstPart);
    this._bytes = next;
    this._rebase(head, old.length);
  }

  /** Moves every line start back by `head` (mod `oldCap`) after the bytes moved to offset 0. */
  private _rebase(head: number, oldCap: number): void {
    for (let k = 0; k < this._count; k++) {
      const slot = (this._first + k) % this._maxLines;
      const s = this._starts[slot] - head;
      this._starts[slot] = s < 0 ? s + oldCap : s;
    }
    this._head = 0;
  }
}
