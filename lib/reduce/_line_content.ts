/**
 * What `line_filter` matches and keeps of a line: its (cut) bytes, with ANSI
 * sequences removed when the rule strips them. A line without ESC is its own
 * content and is never copied; a line with ESC is stripped on its own (a
 * sequence never spans lines) into one reused scratch buffer. Whether a line
 * holds ESC is answered, for lines read in order, from one search per ESC
 * (or per buffer when there is none), so the check is amortised linear.
 *
 * Lines read in order are stripped a window at a time (see
 * {@link LineContent.stripLines}): one call strips a run of lines into the
 * scratch buffer and records where each one's content lies, so the lines
 * after the first are only looked up.
 *
 * State: the scratch buffer (at most `lineBytes`, grown by doubling), the
 * window's line tables ({@link WINDOW_TABLE_BYTES}), the stripper's constant
 * state and a few offsets; no input bytes are kept.
 *
 * @module
 */
import { AnsiStripper, ByteScanner, indexOfByte, StrippedLines } from "../bytes/mod.ts";

const ESC = 0x1b;
const NO_BYTES = new Uint8Array(0);
const INITIAL_SCRATCH_BYTES = 1024;
/** The scratch size a window asks for (when `lineBytes` allows). */
const WINDOW_BYTES = 4096;
/** Lines one window holds at most. */
const WINDOW_LINES = 128;

/** Bytes of a stripping {@link LineContent}'s window tables. */
export const WINDOW_TABLE_BYTES = StrippedLines.bytesFor(WINDOW_LINES);

/** Reads line contents; the current one is `bytes[start, end)`. */
export class LineContent {
  private readonly _stripper: AnsiStripper | null;
  private readonly _lineBytes: number;
  private _scratch = new Uint8Array(0);
  /** Buffer of the last in-order read; `_escAt` is its next ESC at or after the last line start. */
  private _escBuffer: Uint8Array | null = null;
  private _escAt = 0;
  private readonly _escapes = new ByteScanner(ESC);
  /** Buffer the window was stripped from, or null when the scratch holds no window. */
  private _windowSource: Uint8Array | null = null;
  /** The window's lines (contents in the scratch), the next one to look up, and where it starts. */
  private readonly _window: StrippedLines;
  private _windowNext = 0;
  private _windowAt = 0;
  /** The current content. */
  bytes: Uint8Array = this._scratch;
  start = 0;
  end = 0;

  /** Strips ANSI sequences when `stripAnsi`; lines are at most `lineBytes` long. */
  constructor(stripAnsi: boolean, lineBytes: number) {
    this._stripper = stripAnsi ? new AnsiStripper() : null;
    this._lineBytes = lineBytes;
    this._window = new StrippedLines(stripAnsi ? WINDOW_LINES : 0);
  }

  /** Bytes retained: the scratch buffer and the window tables. */
  retainedBytes(): number {
    return this._scratch.byteLength + this._window.retainedBytes();
  }

  /** Forgets what the in-order reads learned; call whenever a buffer may have been refilled. */
  forget(): void {
    this._escBuffer = null;
    this._escapes.reset(NO_BYTES);
    this._windowSource = null;
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
      this._escapes.reset(src);
      this._escAt = -1;
    }
    if (this._escAt < start) {
      const at = this._escapes.indexFrom(start);
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
    this._windowSource = null;
    this.bytes = this._scratch;
    this.start = 0;
    this.end = stripper.strip(src, start, end, this._scratch, 0);
    return true;
  }

  /**
   * Makes the line that starts at `src[start]` and ends at the first LF of
   * `src[start, limit)` the current content, stripped of ANSI sequences and
   * without its ending, and returns that LF; or returns -1, the content then
   * meaningless, when no LF comes before `limit` or before the line
   * outgrows the scratch buffer (at most `lineBytes`, so a line found is
   * never cut). The following lines of `src`, each ending before `limit`, are
   * stripped in the same pass, a window of them: up to the scratch buffer's
   * size, {@link WINDOW_LINES} lines, or the first line without ESC,
   * whichever comes first; {@link windowLine} then looks them up. Each byte
   * is read once. Only when stripping.
   */
  stripLines(src: Uint8Array, start: number, limit: number): number {
    const size = WINDOW_BYTES < this._lineBytes ? WINDOW_BYTES : this._lineBytes;
    if (this._scratch.length < size) this._growScratch(size);
    const stop = limit - start < this._scratch.length ? limit : start + this._scratch.length;
    this._stripper!.stripLines(src, start, stop, this._scratch, 0, this._window);
    this._windowSource = src;
    this._windowNext = 0;
    this._windowAt = start;
    return this.windowLine(src, start, limit);
  }

  /**
   * Makes the next line of the last {@link stripLines} window current when
   * it starts at `src[start]` and its LF comes before `limit`, and returns
   * that LF; else -1, the content unchanged. Lines are looked up in order.
   */
  windowLine(src: Uint8Array, start: number, limit: number): number {
    const window = this._window;
    const next = this._windowNext;
    if (this._windowSource !== src || next === window.count || this._windowAt !== start) {
      return -1;
    }
    const lf = window.lf[next];
    if (lf >= limit) return -1;
    this.bytes = this._scratch;
    this.start = window.start[next];
    this.end = window.end[next];
    this._windowNext = next + 1;
    this._windowAt = lf + 1;
    return lf;
  }

  private _growScratch(need: number): void {
    let size = Math.max(this._scratch.length * 2, INITIAL_SCRATCH_BYTES);
    while (size < need) size *= 2;
    this._scratch = new Uint8Array(Math.min(size, this._lineBytes));
    this._windowSource = null;
  }
}
