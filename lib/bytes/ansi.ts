/**
 * A bounded ANSI-stripping byte state machine. It removes 7-bit escape
 * sequences and passes every other byte through unchanged:
 *
 * - CSI: `ESC [`, parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, one
 *   final byte 0x40–0x7E (colours, cursor moves, erase).
 * - Strings: OSC `ESC ]`, DCS `ESC P`, SOS `ESC X`, PM `ESC ^`, APC `ESC _`,
 *   each ended by BEL (0x07) or ST (`ESC \`) (hyperlinks, titles).
 * - Other escapes: `ESC`, intermediates 0x20–0x2F, one final byte 0x30–0x7E
 *   (`ESC 7`, `ESC =`, `ESC ( B`).
 *
 * Known misses, deliberately: 8-bit C1 introducers (0x9B, 0x9D, 0x90…) are
 * not recognised, because those bytes are UTF-8 continuation bytes in
 * ordinary text. Malformed input is data: a byte that cannot continue the
 * current sequence ends it (the bytes consumed so far stay removed) and is
 * then processed as text; LF always ends a sequence and is kept, so a stray
 * escape never swallows more than the rest of its line.
 *
 * Bound: the machine buffers no sequence bytes at all; its state is one small
 * integer and a length counter. A sequence longer than `maxSequenceBytes` is
 * abandoned: its bytes so far are removed and the following bytes are text.
 * A sequence split across chunks is removed exactly as if it were whole.
 * {@link AnsiStripper.stripLine} strips up to a line's LF, finding it in the
 * same pass.
 *
 * @module
 */

const ESC = 0x1b;
const BEL = 0x07;
const LF = 0x0a;
const CR = 0x0d;

const GROUND = 0;
const ESCAPE = 1;
const ESCAPE_INTERMEDIATE = 2;
const CSI = 3;
const STRING = 4;
const STRING_ESCAPE = 5;

/** A `stop` byte no input byte equals: strip everything. */
const NO_STOP = -1;

/** Default bound on one escape sequence's length, introducer included. */
export const ANSI_MAX_SEQUENCE_BYTES = 4096;

/**
 * The lines one {@link AnsiStripper.stripLines} call recorded: for line
 * `k < count`, its LF in the source and its content `[start, end)` in the
 * destination. Holds at most `capacity` lines (three 32-bit entries each).
 */
export class StrippedLines {
  readonly lf: Int32Array;
  readonly start: Int32Array;
  readonly end: Int32Array;
  count = 0;

  /** Room for `capacity` lines. */
  constructor(capacity: number) {
    this.lf = new Int32Array(capacity);
    this.start = new Int32Array(capacity);
    this.end = new Int32Array(capacity);
  }

  /** Bytes retained: the three tables. */
  retainedBytes(): number {
    return StrippedLines.bytesFor(this.lf.length);
  }

  /** The bytes a table with room for `capacity` lines retains. */
  static bytesFor(capacity: number): number {
    return 3 * Int32Array.BYTES_PER_ELEMENT * capacity;
  }
}

/**
 * Removes ANSI escape sequences from a byte stream fed in any chunking.
 * Retained state is constant (no bytes are buffered).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { AnsiStripper } from "./ansi.ts";
 * const src = new TextEncoder().encode("\x1b[31mred\x1b[0m");
 * const dst = new Uint8Array(src.length);
 * const end = new AnsiStripper().strip(src, 0, src.length, dst, 0);
 * equal(new TextDecoder().decode(dst.subarray(0, end)), "red");
 * ```
 */
export class AnsiStripper {
  private readonly _maxSequence: number;
  private _state = GROUND;
  /** Bytes of the current sequence seen so far. */
  private _seqLen = 0;
  private _stoppedAt = 0;

  /** `maxSequenceBytes` (≥ 2) bounds one sequence; default {@link ANSI_MAX_SEQUENCE_BYTES}. */
  constructor(maxSequenceBytes: number = ANSI_MAX_SEQUENCE_BYTES) {
    if (!Number.isSafeInteger(maxSequenceBytes) || maxSequenceBytes < 2) {
      throw new RangeError(`maxSequenceBytes must be an integer ≥ 2, got ${maxSequenceBytes}`);
    }
    this._maxSequence = maxSequenceBytes;
  }

  /** True while a sequence is open (its end may arrive in a later chunk). */
  get inSequence(): boolean {
    return this._state !== GROUND;
  }

  /** Forgets any open sequence (its bytes so far stay removed). */
  reset(): void {
    this._state = GROUND;
    this._seqLen = 0;
  }

  /** Where the last {@link stripLine} stopped: the LF it found, or its `end`. */
  get stoppedAt(): number {
    return this._stoppedAt;
  }

  /**
   * Strips `src[start, end)` into `dst` from `dstStart` and returns the end
   * of what it wrote. Never writes more than `end - start` bytes; `dst` may
   * be `src` when `dstStart ≤ start` (writes never overtake reads).
   */
  strip(src: Uint8Array, start: number, end: number, dst: Uint8Array, dstStart: number): number {
    return this._strip(src, start, end, dst, dstStart, NO_STOP);
  }

  /**
   * {@link strip} up to the first LF of `src[start, end)`, which it neither
   * consumes nor writes; {@link stoppedAt} is then that LF, or `end` when
   * there is none, and {@link inSequence} says whether a sequence was open
   * when it came. One pass over the bytes it reads, as {@link strip}.
   */
  stripLine(
    src: Uint8Array,
    start: number,
    end: number,
    dst: Uint8Array,
    dstStart: number,
  ): number {
    return this._strip(src, start, end, dst, dstStart, LF);
  }

  /**
   * Strips the lines of `src[start, end)` one after another, each as
   * {@link stripLine} strips it from a {@link reset} machine, into `dst` from
   * `dstStart`, and records each line that ends (with its LF) before `end`
   * in `lines` (cleared first): its LF and its content's bounds in `dst`,
   * the content without the line's ending (a CR before the LF is part of
   * the ending unless a sequence was open when the LF came). Stops when
   * `lines` is full, or after the first line that held no ESC; returns the
   * end of what it wrote (bytes after the last recorded line are
   * meaningless). Never writes more than `end - start` bytes. Throws a
   * RangeError when `lines` has no room at all.
   */
  stripLines(
    src: Uint8Array,
    start: number,
    end: number,
    dst: Uint8Array,
    dstStart: number,
    lines: StrippedLines,
  ): number {
    if (lines.lf.length === 0) throw new RangeError("stripLines needs room for one line");
    this.reset();
    lines.count = 0;
    const out = this._strip(src, start, end, dst, dstStart, LF, lines);
    this.reset();
    return out;
  }

  /**
   * {@link strip}, stopping before the first byte equal to `stop`: LF, or
   * {@link NO_STOP}; with `lines`, each LF is recorded there and passed
   * instead (see {@link stripLines}). (The text loop relies on `stop` being
   * below 0x20.)
   */
  private _strip(
    src: Uint8Array,
    start: number,
    end: number,
    dst: Uint8Array,
    dstStart: number,
    stop: number,
    lines: StrippedLines | null = null,
  ): number {
    let out = dstStart;
    let state = this._state;
    let seqLen = this._seqLen;
    const max = this._maxSequence;
    let i = start;
    /** With `lines`: where the current line starts in `src` and `dst`, and whether a sequence was open at its LF. */
    let lineStart = start;
    let lineOut = out;
    let openAtLf = false;
    while (i < end) {
      if (state === GROUND) {
        let b = src[i];
        // ESC and LF are control bytes: most text is passed after one comparison.
        while (b >= 0x20 || (b !== ESC && b !== stop)) {
          dst[out++] = b;
          if (++i === end) break;
          b = src[i];
        }
        if (i === end) break;
        if (b === stop) {
          if (lines === null) break;
          const n = lines.count;
          lines.lf[n] = i;
          lines.start[n] = lineOut;
          lines.end[n] = !openAtLf && i > lineStart && src[i - 1] === CR ? out - 1 : out;
          lines.count = n + 1;
          // ESC is always removed: a line whose bytes were all written held none.
          if (n + 1 === lines.lf.length || out - lineOut === i - lineStart) break;
          openAtLf = false;
          lineStart = ++i;
          lineOut = out;
          continue;
        }
        // Fast path for the common whole CSI sequence (`ESC [ 1 ; 31 m`): when its final
        // byte lies in this range and within the bound, skip it at once; the machine
        // below would remove exactly the same bytes.
        if (i + 1 < end && src[i + 1] === 0x5b) {
          let j = i + 2;
          while (j < end && src[j] >= 0x20 && src[j] <= 0x3f) j++;
          if (j < end && src[j] >= 0x40 && src[j] <= 0x7e && j - i < max) {
            i = j + 1;
            continue;
          }
        }
        state = ESCAPE;
        seqLen = 1;
        i++;
        continue;
      }
      const b = src[i];
      if (b === LF || ++seqLen > max) {
        if (b === stop) {
          if (lines === null) break;
          // LF ends the sequence: record the line as text does, noting the open sequence.
          openAtLf = true;
          state = GROUND;
          continue;
        }
        // LF always ends a sequence; so does the byte past the length bound. Both are text.
        state = GROUND;
        dst[out++] = b;
        i++;
        continue;
      }
      switch (state) {
        case ESCAPE:
          if (b === 0x5b) state = CSI;
          else if (b === 0x5d || b === 0x50 || b === 0x58 || b === 0x5e || b === 0x5f) {
            state = STRING;
          } else if (b >= 0x20 && b <= 0x2f) state = ESCAPE_INTERMEDIATE;
          else if (b >= 0x30 && b <= 0x7e) state = GROUND;
          else if (b === ESC) seqLen = 1;
          else {
            state = GROUND;
            dst[out++] = b;
          }
          break;
        case ESCAPE_INTERMEDIATE:
          if (b >= 0x30 && b <= 0x7e) state = GROUND;
          else if (b === ESC) {
            state = ESCAPE;
            seqLen = 1;
          } else if (b < 0x20 || b > 0x2f) {
            state = GROUND;
            dst[out++] = b;
          }
          break;
        case CSI:
          if (b >= 0x40 && b <= 0x7e) state = GROUND;
          else if (b === ESC) {
            state = ESCAPE;
            seqLen = 1;
          } else if (b < 0x20 || b > 0x3f) {
            state = GROUND;
            dst[out++] = b;
          }
          break;
        case STRING:
          if (b === BEL) state = GROUND;
          else if (b === ESC) state = STRING_ESCAPE;
          break;
        default: // STRING_ESCAPE
          if (b !== 0x5c) {
            // The ESC ended the string and starts a new sequence: read this byte again there.
            state = ESCAPE;
            seqLen = 1;
            continue;
          }
          state = GROUND;
      }
      i++;
    }
    this._state = state;
    this._seqLen = seqLen;
    this._stoppedAt = i;
    return out;
  }
}
