/**
 * What `line_filter` matches and keeps of a line: its (cut) bytes, with ANSI
 * sequences removed when the rule strips them. A line without ESC is its own
 * content and is never copied; a line with ESC is stripped on its own (a
 * sequence never spans lines) into one reused scratch buffer. Whether a line
 * holds ESC is answered, for lines read in order, from one search per ESC
 * (or per buffer when there is none), so the check is amortised linear.
 *
 * State: the scratch buffer (at most `lineBytes`, grown by doubling), the
 * stripper's constant state and two offsets; no input bytes are kept.
 *
 * @module
 */
import { AnsiStripper, indexOfByte } from "../bytes/mod.ts";

const ESC = 0x1b;
const CR = 13;
const INITIAL_SCRATCH_BYTES = 1024;

/** Reads line contents; the current one is `bytes[start, end)`. */
export class LineContent {
  private readonly _stripper: AnsiStripper | null;
  private readonly _lineBytes: number;
  private _scratch = new Uint8Array(0);
  /** Buffer of the last in-order read; `_escAt` is its next ESC at or after the last line start. */
  private _escBuffer: Uint8Array | null = null;
  private _escAt = 0;
  /** The current content. */
  bytes: Uint8Array = this._scratch;
  start = 0;
  end = 0;

  /** Strips ANSI sequences when `stripAnsi`; lines are at most `lineBytes` long. */
  constructor(stripAnsi: boolean, lineBytes: number) {
    this._stripper = stripAnsi ? new AnsiStripper() : null;
    this._lineBytes = lineBytes;
  }

  /** Bytes retained: the scratch buffer. */
  retainedBytes(): number {
    return this._scratch.byteLength;
  }

  /** Forgets what the in-order reads learned; call whenever a buffer may have been refilled. */
  forget(): void {
    this._escBuffer = null;
  }

  /**
   * Makes the content of line `src[start, end)` current; true when
   * sequences were removed. Lines of one buffer must be read in order
   * between {@link forget} calls; use {@link readAny} otherwise.
   */
  read(src: Uint8Array, start: number, end: number): boolean {
    return this.hasEscape(src, start, end)
      ? this.strip(src, start, end)
      : this.raw(src, start, end);
  }

  /** {@link read} for a line read in any order; its ESC search covers the line only. */
  readAny(src: Uint8Array, start: number, end: number): boolean {
    return this._stripper !== null && indexOfByte(src, ESC, start, end) !== -1
      ? this.strip(src, start, end)
      : this.raw(src, start, end);
  }

  /**
   * True when stripping and line `src[start, end)` holds ESC; lines of one
   * buffer must be asked in order between {@link forget} calls.
   */
  hasEscape(src: Uint8Array, start: number, end: number): boolean {
    return this.escapeAt(src, start) < end;
  }

  /**
   * The first ESC of `src` at or after `start`, or `src.length` when there
   * is none or when not stripping; asked in order as {@link hasEscape}.
   */
  escapeAt(src: Uint8Array, start: number): number {
    if (this._stripper === null) return src.length;
    if (this._escBuffer !== src) {
      this._escBuffer = src;
      this._escAt = -1;
    }
    if (this._escAt < start) {
      const at = indexOfByte(src, ESC, start, src.length);
      this._escAt = at === -1 ? src.length : at;
    }
    return this._escAt;
  }

  /** Makes `src[start, end)` itself the current content; false (nothing removed). */
  raw(src: Uint8Array, start: number, end: number): false {
    this.bytes = src;
    this.start = start;
    this.end = end;
    return false;
  }

  /** Makes `src[start, end)` stripped of ANSI sequences the current content; true. Only when stripping. */
  strip(src: Uint8Array, start: number, end: number): true {
    if (this._scratch.length < end - start) this._growScratch(end - start);
    const stripper = this._stripper!;
    stripper.reset();
    this.bytes = this._scratch;
    this.start = 0;
    this.end = stripper.strip(src, start, end, this._scratch, 0);
    return true;
  }

  /**
   * Makes the line that starts at `src[start]` and ends at the first LF of
   * `src[start, limit)` the current content, stripped of ANSI sequences and
   * without its ending, reading its bytes once; returns that LF, or -1 when
   * none comes before `limit` or before the line outgrows the scratch buffer
   * (at least {@link INITIAL_SCRATCH_BYTES} or `lineBytes`: it grows only
   * for lines read with {@link strip}); the content is then meaningless.
   * `limit - start` must be at most `lineBytes`, so a line found is never
   * cut. Only when
   * stripping.
   */
  stripLine(src: Uint8Array, start: number, limit: number): number {
    if (this._scratch.length === 0) this._growScratch(INITIAL_SCRATCH_BYTES);
    const stop = limit - start < this._scratch.length ? limit : start + this._scratch.length;
    const stripper = this._stripper!;
    stripper.reset();
    let end = stripper.stripLine(src, start, stop, this._scratch, 0);
    const lf = stripper.stoppedAt;
    if (lf === stop) return -1;
    // A CR before the LF is the ending; the stripper wrote it last exactly when no sequence
    // was open at the LF (else the CR was removed with the sequence, or stayed in a string).
    if (lf > start && src[lf - 1] === CR && !stripper.inSequence) end--;
    this.bytes = this._scratch;
    this.start = 0;
    this.end = end;
    return lf;
  }

  private _growScratch(need: number): void {
    let size = Math.max(this._scratch.length * 2, INITIAL_SCRATCH_BYTES);
    while (size < need) size *= 2;
    this._scratch = new Uint8Array(Math.min(size, this._lineBytes));
  }
}
