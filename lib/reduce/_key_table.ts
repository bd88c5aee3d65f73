/**
 * The typed engine's bounded table of row keys (`typed.ts`): a file, a
 * directory, an extension, with row counts and sample slots per key. A row
 * is counted for nearly every line of a listing or a search, so a key is
 * found by its fingerprint, its last eight bytes read as two 32-bit
 * integers with its length: a key of at most eight bytes (an extension, a
 * short directory) is compared as three integers, and a longer one is
 * compared byte by byte only when its fingerprint matches. Measured in
 * `bench/reduce_typed.ts` (list kind, 256 MiB, in process): byte-wise
 * compares and a separate hash pass ran at 160 MB/s, fingerprints at
 * 185 MB/s.
 *
 * Both open-addressed indexes take their slot from the hashes through a
 * full 32-bit finalizer ({@link mix}). Before, the slot was the hashes'
 * low bits, which for paths that differ in a digit or two (`src/w12`,
 * `src/w13`) fall in a narrow run: 2,000 paths `src/components/widgetN`
 * took 80 probes per insert into the further keys' table and 6 into the
 * index, the list bench's directories 11.6 (1.0–1.2 now). Measured in
 * process, old and new interleaved (9 rounds, median ns per row counted):
 * rows of 1,500 such paths in a shuffled order 84 → 30 ns, the list
 * bench's directory and extension 55 → 41 ns (the key last counted, the probe and the further keys' hash now
 * share one pass that keeps the fingerprint in locals).
 *
 * @module
 */
import { KEY_BYTES, OTHER_KEYS } from "./typed_budget.ts";

/** Slots of the further keys' hash table: at most half full. */
const OTHER_SLOTS = 2 * OTHER_KEYS;
/** A bounded table of keys with row counts and the first rows of each as samples. */
export class KeyTable {
  /** The keys, in the order first counted. */
  readonly keys: Uint8Array[] = [];
  /** Rows counted per key (diff: added lines), for the first {@link keys}`.length` entries. */
  readonly counts: Float64Array;
  /** Removed lines counted per key (diff only), as {@link counts}. */
  readonly minus: Float64Array;
  /** Sample record slots per key, kept by the engine. */
  readonly sampleSlots: number[][] = [];
  /** Rows whose key did not fit the table. */
  otherRows = 0;
  /**
   * Distinct keys that did not fit the table, told apart by a hash of their
   * bytes and their fingerprint, up to {@link OTHER_KEYS}; past that, {@link otherKeysExact}
   * is false and this is a lower bound.
   */
  otherKeys = 0;
  /** False once more than {@link OTHER_KEYS} keys did not fit: {@link otherKeys} is then "over". */
  otherKeysExact = true;
  private readonly _max: number;
  /** Open-addressed key index + 1 by fingerprint hash (0: empty), at most a quarter full. */
  private readonly _slots: Int32Array;
  /** Fingerprint of each key: its last eight bytes as two integers, and its length. */
  private readonly _low: Int32Array;
  private readonly _high: Int32Array;
  private readonly _length: Int32Array;
  /** The key last counted (rows of one key tend to come together), or -1. */
  private _last = -1;
  /** Hashes of the keys beyond the table, two integers per slot (0, 0: empty); made at first need. */
  private _other: Int32Array | null = null;

  /** A table of at most `max` keys. */
  constructor(max: number) {
    this._max = max;
    let size = 4;
    while (size < 4 * max) size *= 2;
    this._slots = new Int32Array(size);
    this._low = new Int32Array(max);
    this._high = new Int32Array(max);
    this._length = new Int32Array(max);
    this.counts = new Float64Array(max);
    this.minus = new Float64Array(max);
  }

  /**
   * Counts a row of key `key[start, start + length)` (as a removed line when
   * `minus`); returns the key's index, or -1 when the table is full and the
   * key is not in it (the row is then counted in {@link otherRows}).
   */
  count(key: Uint8Array, start: number, length: number, minus: boolean): number {
    const found = this.register(key, start, length);
    if (found < 0) {
      this.otherRows++;
      return -1;
    }
    if (minus) this.minus[found]++;
    else this.counts[found]++;
    return found;
  }

  /**
   * Registers key `key[start, start + length)` without counting a row (a
   * diff's file header: a file with no changed line is still a file);
   * returns its index, or -1 when it does not fit (it is then counted in
   * {@link otherKeys}, once).
   */
  register(key: Uint8Array, start: number, length: number): number {
    const end = start + length;
    let low = 0;
    let high = 0;
    if (length >= 8) {
      low = key[end - 8] | (key[end - 7] << 8) | (key[end - 6] << 16) | (key[end - 5] << 24);
      high = key[end - 4] | (key[end - 3] << 8) | (key[end - 2] << 16) | (key[end - 1] << 24);
    } else {
      for (let i = start; i < end; i++) {
        high = (high << 8) | (low >>> 24);
        low = (low << 8) | key[i];
      }
    }
    // The key last counted first, then an open-addressed probe of the index.
    const slots = this._slots;
    const mask = slots.length - 1;
    let held = this._last;
    let at = -1;
    for (;;) {
      if (
        held >= 0 && this._low[held] === low && this._high[held] === high &&
        this._length[held] === length && (length <= 8 || this._sameBytes(held, key, start, length))
      ) {
        this._last = held;
        return held;
      }
      at = at < 0
        ? mix(low ^ Math.imul(high, 0x9e3779b1) ^ Math.imul(length, 0x85ebca6b)) & mask
        : (at + 1) & mask;
      held = slots[at] - 1;
      if (held < 0) break;
    }
    const index = this.keys.length;
    if (index >= this._max) {
      this._countOther(key, start, length, low, high);
      return -1;
    }
    slots[at] = index + 1;
    this._low[index] = low;
    this._high[index] = high;
    this._length[index] = length;
    this.keys.push(key.slice(start, start + length));
    this.sampleSlots.push([]);
    this._last = index;
    return index;
  }

  /** The number of distinct keys seen, exact while {@link otherKeysExact}. */
  get distinct(): number {
    return this.keys.length + this.otherKeys;
  }

  /** Bytes held: each key's copy and bookkeeping, the index and the hashes of further keys. */
  retainedBytes(): number {
    return this.keys.length * (KEY_BYTES + 64) + this._slots.byteLength +
      3 * this._low.byteLength + (this._other?.byteLength ?? 0);
  }

  /**
   * Counts `key[start, start + length)`, not in the table and of
   * fingerprint `low`, `high`, among the distinct further keys: told apart by
   * its fingerprint (its last eight bytes and length) with a 32-bit
   * FNV-style hash of the bytes before those, four at a time (the list
   * kind's bench, where most rows' directories are beyond the table: a byte
   * at a time this hash took 11.6% of the CPU profile, four at a time 7.0%),
   * so two keys are one only when all of those agree.
   */
  private _countOther(
    key: Uint8Array,
    start: number,
    length: number,
    low: number,
    high: number,
  ): void {
    if (!this.otherKeysExact) return;
    // The fingerprint holds the last eight bytes and the length; the hash covers the rest.
    let h1 = 0x811c9dc5 ^ length;
    const stop = start + length - 8;
    let i = start;
    // Four bytes a step (a step is a bijection of h1 for each word, so one word apart is apart).
    for (; i + 4 <= stop; i += 4) {
      const word = key[i] | (key[i + 1] << 8) | (key[i + 2] << 16) | (key[i + 3] << 24);
      h1 = Math.imul(h1 ^ word, 0x01000193);
      h1 ^= h1 >>> 15;
    }
    for (; i < stop; i++) h1 = Math.imul(h1 ^ key[i], 0x01000193);
    h1 |= 1; // (0, 0) marks an empty slot
    const h2 = low ^ Math.imul(high, 0x9e3779b1) ^ length;
    const table = this._other ??= new Int32Array(2 * OTHER_SLOTS);
    const mask = OTHER_SLOTS - 1;
    let at = mix(h2 ^ Math.imul(h1, 0x85ebca6b)) & mask;
    for (;;) {
      const held = table[2 * at];
      if (held === 0) break;
      if (held === h1 && table[2 * at + 1] === h2) return;
      at = (at + 1) & mask;
    }
    if (this.otherKeys >= OTHER_KEYS) {
      this.otherKeysExact = false;
      return;
    }
    table[2 * at] = h1;
    table[2 * at + 1] = h2;
    this.otherKeys++;
  }

  /** True when key `index`'s bytes before its last eight equal `key[start, …)`'s (`length` > 8). */
  private _sameBytes(index: number, key: Uint8Array, start: number, length: number): boolean {
    const stored = this.keys[index];
    for (let i = length - 9; i >= 0; i--) if (stored[i] !== key[start + i]) return false;
    return true;
  }
}

/** A 32-bit finalizer (multiply, shift, xor): every input bit moves the low bits a slot index takes. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
