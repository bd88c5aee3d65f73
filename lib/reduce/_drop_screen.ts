/**
 * Line classification for `line_filter` rules without `keep` patterns, where
 * a line is a candidate exactly when no `drop` pattern matches its content.
 * The reducer walks a chunk's complete lines with it, without the splitter:
 *
 * - {@link DropScreen.nextCandidate} passes the run of dropped lines that
 *   starts at a line start and leaves the candidate after it ready to keep;
 * - {@link DropScreen.count} classifies every line of a range whose
 *   candidates the tail ring would evict before the chunk ends (see
 *   `LineRetention.survivorsStart`), counting lines and candidates; runs of
 *   lines that can hold no `drop` value (see `_line_screen.ts`) are counted
 *   as candidates without a look each;
 * - {@link DropScreen.storedSize} classifies one line read in any order.
 *
 * A line is classified as the splitter would give it to the reducer: its
 * ending removed, cut to the line limit, ANSI sequences removed when
 * stripping (see `_line_content.ts`). Work is linear in the bytes read (the
 * pattern set's own bound per line, and the screen's). State: a few
 * counters and the screen's fixed tables; the content buffer is the
 * reducer's.
 *
 * @module
 */
import {
  indexOfByte,
  LINE_END_CRLF,
  LINE_END_LF,
  type LineEnding,
  type LinePatternSet,
} from "../bytes/mod.ts";
import type { LineContent } from "./_line_content.ts";
import { LineScreen } from "./_line_screen.ts";

const LF = 10;
const CR = 13;

/** Classifies whole lines against `drop` patterns; see the module comment. */
export class DropScreen {
  private readonly _drop: LinePatternSet;
  private readonly _content: LineContent;
  private readonly _quiet: LineScreen;
  private readonly _lineBytes: number;
  /** Dropped lines passed by the last {@link nextCandidate}, or lines read by the last {@link count}. */
  lines = 0;
  /** Candidates among the lines the last {@link count} read. */
  candidates = 0;
  /** Where the line {@link nextCandidate} found starts, or where the complete lines end. */
  start = 0;
  /** That line's ending. */
  ending: LineEnding = LINE_END_LF;
  /** That line's content bytes cut by the line limit. */
  cut = 0;
  /** Whether ANSI sequences were removed from that line's content. */
  altered = false;

  /**
   * Lines are cut to `lineBytes` and read through `content`, which the
   * reducer shares; `stripAnsi` says whether `content` removes sequences.
   */
  constructor(drop: LinePatternSet, content: LineContent, lineBytes: number, stripAnsi: boolean) {
    this._drop = drop;
    this._content = content;
    this._quiet = new LineScreen(drop, stripAnsi);
    this._lineBytes = lineBytes;
  }

  /**
   * Passes the complete, dropped lines of `chunk[from, to)` (`from` a line
   * start; lines of one chunk read in order, see `LineContent.read`),
   * counting them in {@link lines}, and returns the LF ending the next
   * candidate line, or -1 when the range's complete lines end first. The candidate starts at
   * {@link start}; its content is the shared content's, and {@link ending},
   * {@link cut} and {@link altered} describe it.
   */
  nextCandidate(chunk: Uint8Array, from: number, to: number): number {
    const content = this._content;
    const drop = this._drop;
    let lines = 0;
    let at = from;
    const end = to;
    let lf: number;
    for (;;) {
      // A line of the current window is only looked up, and described only if it is kept.
      lf = content.windowLine(chunk, at, end);
      const windowed = lf !== -1;
      if (!windowed) lf = this._read(chunk, at, end);
      if (lf === -1 || !drop.matchesAny(content.bytes, content.start, content.end)) {
        if (windowed) this._stripped(chunk, at, lf);
        break;
      }
      lines++;
      at = lf + 1;
    }
    this.lines = lines;
    this.start = at;
    return lf;
  }

  /** Counts the {@link lines} and {@link candidates} of `chunk[from, to)`, whole lines read in order. */
  count(chunk: Uint8Array, from: number, to: number): void {
    const quiet = this._quiet;
    const content = this._content;
    // The screen walks to its buffer's end: give it one that ends at `to`.
    const screened = to === chunk.length ? chunk : chunk.subarray(0, to);
    let lines = 0;
    let candidates = 0;
    for (let at = from; at < to; lines++) {
      const start = quiet.quietEnd(screened, at);
      lines += quiet.lines;
      candidates += quiet.lines;
      if (start === to) break;
      let lf = content.windowLine(chunk, start, to);
      if (lf === -1) lf = this._read(chunk, start, to);
      if (!this._drop.matchesAny(content.bytes, content.start, content.end)) candidates++;
      at = lf + 1;
    }
    this.lines = lines;
    this.candidates = candidates;
  }

  /**
   * The bytes a line store keeps for the complete line `chunk[start, lf]`
   * (content and ending), or -1 when the line is dropped; read in any order.
   */
  storedSize(chunk: Uint8Array, start: number, lf: number): number {
    const content = this._content;
    content.readAny(chunk, start, this._describe(chunk, start, lf));
    if (this._drop.matchesAny(content.bytes, content.start, content.end)) return -1;
    return content.end - content.start + this.ending;
  }

  /**
   * Makes the content of the line of `chunk[at, to)` that starts at `at`
   * (lines of one chunk read in order, see `LineContent.read`) current and
   * describes it in {@link ending}, {@link cut} and {@link altered}); returns
   * the LF ending it, or -1 when `to` comes first. A line whose content
   * holds ESC is stripped, with a window of the lines after it, in the pass
   * that finds its LF, unless it is too long for that (see
   * `LineContent.stripLines`); then, and for other lines, the LF is found
   * first. Reads each byte at most four times. Callers look a line up in the
   * current window (`LineContent.windowLine`) before reading it here.
   */
  private _read(chunk: Uint8Array, at: number, to: number): number {
    const content = this._content;
    const lineBytes = this._lineBytes;
    const esc = content.escapeAt(chunk, at);
    let lf = indexOfByte(chunk, LF, at, esc < to ? esc : to);
    if (lf !== -1) {
      // No ESC before the LF: the content is the raw line.
      content.raw(chunk, at, this._describe(chunk, at, lf));
      this.altered = false;
      return lf;
    }
    if (esc >= to) return -1;
    if (esc - at < lineBytes) {
      lf = content.stripLines(chunk, at, to);
      if (lf !== -1) return this._stripped(chunk, at, lf);
    }
    lf = indexOfByte(chunk, LF, esc, to);
    if (lf === -1) return -1;
    this.altered = content.read(chunk, at, this._describe(chunk, at, lf));
    return lf;
  }

  /**
   * Describes the line `chunk[at, lf]` whose content a window stripped
   * (never cut) in {@link ending}, {@link cut} and {@link altered}; returns `lf`.
   */
  private _stripped(chunk: Uint8Array, at: number, lf: number): number {
    const content = this._content;
    this.ending = lf > at && chunk[lf - 1] === CR ? LINE_END_CRLF : LINE_END_LF;
    this.cut = 0;
    // ESC is always removed: the content is shorter than the raw line exactly when one was there.
    this.altered = content.end - content.start < lf + 1 - this.ending - at;
    return lf;
  }

  /** {@link contentEnd} of the line; sets {@link ending} and {@link cut}. */
  private _describe(chunk: Uint8Array, start: number, lf: number): number {
    const end = contentEnd(chunk, start, lf, this._lineBytes);
    this.ending = lf > start && chunk[lf - 1] === CR ? LINE_END_CRLF : LINE_END_LF;
    this.cut = lf + 1 - this.ending - end;
    return end;
  }
}

/**
 * Where the content of the complete line `chunk[start, lf]` ends: before
 * its ending, cut to `lineBytes`, as the splitter gives it.
 */
function contentEnd(chunk: Uint8Array, start: number, lf: number, lineBytes: number): number {
  const end = lf > start && chunk[lf - 1] === CR ? lf - 1 : lf;
  return end - start > lineBytes ? start + lineBytes : end;
}
