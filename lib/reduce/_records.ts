/**
 * Bounded line records for the typed reducers: an append-only store that
 * stops accepting once full (with optional exact-duplicate folding) and a
 * ring that keeps the last lines. Each record is a copy of at most a cap of
 * a line's content bytes plus its facts: source line index, content bytes
 * not copied, line ending, source bytes and repetition count. Memory: the
 * byte capacity given plus a few numbers per record slot; nothing grows with
 * the input.
 *
 * @module
 */
import type { LineEnding } from "../bytes/mod.ts";

/** Bookkeeping bytes per record slot (index, offset, length, cut, ending, source, count, hash). */
export const RECORD_META_BYTES = 8 * 8;

/** FNV-1a of `bytes[start, end)`. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

/** Bytes below which {@link copyBytes} copies in a loop rather than through a view. */
const SHORT_COPY = 64;

/** Copies `length` bytes of `from` at `start` into `to` at `at` (short runs without a view). */
function copyBytes(
  from: Uint8Array,
  start: number,
  length: number,
  to: Uint8Array,
  at: number,
): void {
  if (length < SHORT_COPY) {
    for (let i = 0; i < length; i++) to[at + i] = from[start + i];
  } else to.set(from.subarray(start, start + length), at);
}

/** Append-only line records within `maxBytes` of content and `maxRecords` slots. */
export class RecordStore {
  readonly maxBytes: number;
  readonly maxRecords: number;
  private readonly _lineCap: number;
  private _bytes = new Uint8Array(0);
  private _used = 0;
  readonly index: number[] = [];
  readonly offset: number[] = [];
  readonly length: number[] = [];
  /** Content bytes of the line not copied. */
  readonly cut: number[] = [];
  readonly ending: LineEnding[] = [];
  /** Source bytes of the line (content, cut part and ending) times its count. */
  readonly source: number[] = [];
  /** How many identical lines this record stands for. */
  readonly count: number[] = [];
  /** A tag the caller chooses (e.g. context or diagnostic). */
  readonly tag: number[] = [];
  private readonly _hashes: Map<number, number> | null;

  /** Records of at most `lineCap` content bytes each; folds exact duplicates when `fold`. */
  constructor(maxBytes: number, maxRecords: number, lineCap: number, fold = false) {
    this.maxBytes = maxBytes;
    this.maxRecords = maxRecords;
    this._lineCap = lineCap;
    this._hashes = fold ? new Map() : null;
  }

  /** Records held. */
  get size(): number {
    return this.index.length;
  }

  /** The stored bytes (records lie at `offset[i]`, `length[i]` bytes). */
  get bytes(): Uint8Array {
    return this._bytes;
  }

  /** Bytes retained: the content buffer and the slot bookkeeping. */
  retainedBytes(): number {
    return this._bytes.byteLength + this.index.length * RECORD_META_BYTES;
  }

  /**
   * Adds the line `line[start, end)` (`dropped` more content bytes already
   * cut by the splitter); returns true when stored or folded into an
   * identical record, false when the store is full.
   */
  add(
    line: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    dropped: number,
    index: number,
    tag: number,
  ): boolean {
    const source = end - start + dropped + ending;
    const hashes = this._hashes;
    let hash = 0;
    if (hashes !== null && dropped === 0) {
      hash = hashBytes(line, start, end);
      const at = hashes.get(hash);
      if (at !== undefined && this._same(at, line, start, end)) {
        this.count[at]++;
        this.source[at] += source;
        return true;
      }
    }
    const keep = Math.min(end - start, this._lineCap);
    if (this.index.length >= this.maxRecords || this._used + keep > this.maxBytes) return false;
    this._reserve(this._used + keep);
    copyBytes(line, start, keep, this._bytes, this._used);
    const slot = this.index.length;
    this.index.push(index);
    this.offset.push(this._used);
    this.length.push(keep);
    this.cut.push(end - start - keep + dropped);
    this.ending.push(ending);
    this.source.push(source);
    this.count.push(1);
    this.tag.push(tag);
    this._used += keep;
    if (hashes !== null && dropped === 0 && !hashes.has(hash)) hashes.set(hash, slot);
    return true;
  }

  /** Starts a new fold scope: later lines fold only into records added from now on. */
  newScope(): void {
    this._hashes?.clear();
  }

  private _same(at: number, line: Uint8Array, start: number, end: number): boolean {
    if (this.cut[at] !== 0 || this.length[at] !== end - start) return false;
    const off = this.offset[at];
    for (let i = 0; i < end - start; i++) {
      if (this._bytes[off + i] !== line[start + i]) return false;
    }
    return true;
  }

  private _reserve(need: number): void {
    if (need <= this._bytes.length) return;
    const grown = new Uint8Array(
      Math.min(this.maxBytes, Math.max(need, this._bytes.length * 2, 256)),
    );
    grown.set(this._bytes.subarray(0, this._used));
    this._bytes = grown;
  }
}

/**
 * The last `slots` lines, each cut to `lineCap` content bytes. A line may
 * be added as deferred: only its place in the source is noted, and its
 * bytes are copied at {@link RecordRing.settle} unless newer lines evict it
 * first (so a long run of lines costs one copy per slot, not per line). The
 * source of deferred lines must stay unchanged until `settle`.
 */
export class RecordRing {
  private readonly _slots: number;
  private readonly _lineCap: number;
  private readonly _data: Uint8Array[] = [];
  private readonly _index: Float64Array;
  private readonly _length: Int32Array;
  private readonly _cut: Float64Array;
  private readonly _ending: Uint8Array;
  /** Per slot: the offset in {@link _deferred} of a line not copied yet, or -1. */
  private readonly _from: Int32Array;
  private _deferred: Uint8Array | null = null;
  private _next = 0;
  private _size = 0;

  /** A ring of `slots` lines of at most `lineCap` bytes. */
  constructor(slots: number, lineCap: number) {
    this._slots = slots;
    this._lineCap = lineCap;
    this._index = new Float64Array(slots);
    this._length = new Int32Array(slots);
    this._cut = new Float64Array(slots);
    this._ending = new Uint8Array(slots);
    this._from = new Int32Array(slots).fill(-1);
  }

  /** Bytes retained. */
  retainedBytes(): number {
    let bytes = this._index.length * RECORD_META_BYTES;
    for (const d of this._data) bytes += d.byteLength;
    return bytes;
  }

  /**
   * Keeps the line, evicting the oldest when full; with `defer`, copies it
   * only at {@link settle} (every deferred line must come from one buffer).
   */
  add(
    line: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    dropped: number,
    index: number,
    defer = false,
  ): void {
    if (this._slots === 0) return;
    const slot = this._next;
    const keep = Math.min(end - start, this._lineCap);
    if (defer) {
      this._deferred = line;
      this._from[slot] = start;
    } else {
      this._from[slot] = -1;
      copyBytes(line, start, keep, this._slot(slot, keep), 0);
    }
    this._index[slot] = index;
    this._length[slot] = keep;
    this._cut[slot] = end - start - keep + dropped;
    this._ending[slot] = ending;
    this._next = slot + 1 === this._slots ? 0 : slot + 1;
    if (this._size < this._slots) this._size++;
  }

  /** Copies the deferred lines still held; call before their source changes. */
  settle(): void {
    const source = this._deferred;
    if (source === null) return;
    for (let s = 0; s < this._from.length; s++) {
      const from = this._from[s];
      if (from < 0) continue;
      copyBytes(source, from, this._length[s], this._slot(s, this._length[s]), 0);
      this._from[s] = -1;
    }
    this._deferred = null;
  }

  /** The buffer of `slot`, grown to hold `keep` bytes. */
  private _slot(slot: number, keep: number): Uint8Array {
    let data = this._data[slot];
    if (data === undefined || data.length < keep) {
      data = new Uint8Array(Math.min(this._lineCap, Math.max(keep, 64)));
      this._data[slot] = data;
    }
    return data;
  }

  /** Copies the ring's lines, oldest first, into `store` (which must have room), tagged `tag`; settles first. */
  drainInto(store: RecordStore, tag: number): void {
    this.settle();
    const first = (this._next - this._size + this._slots) % this._slots;
    for (let k = 0; k < this._size; k++) {
      const s = (first + k) % this._slots;
      store.add(
        this._data[s],
        0,
        this._length[s],
        this._ending[s] as LineEnding,
        this._cut[s],
        this._index[s],
        tag,
      );
    }
  }
}
