/**
 * The `line_filter` reducer, in the seed's order: split, cut to the line
 * limit, remove ANSI sequences (when `stripAnsi`), omit lines matching any
 * `drop` pattern, then, when `keep` is non-empty, omit lines matching none of
 * it; the remaining lines are candidates for the bounded head and tail (see
 * `retention.ts`). Each line is stripped on its own: a sequence never spans
 * lines, and a line's sequences are removed whatever chunks carried them.
 * With `keep` patterns, runs of lines that cannot match any (see
 * `_line_screen.ts`) are counted as omitted without a per-line look.
 *
 * @module
 */
import {
  AnsiStripper,
  indexOfByte,
  type LineEnding,
  LinePatternSet,
  LineSplitter,
} from "../bytes/mod.ts";
import type { LineFilterReducer, ReductionRule } from "../rules/model.ts";
import { selectPolicy, streamEnvelope } from "./budget.ts";
import { LineRetention } from "./retention.ts";
import { LineScreen } from "./_line_screen.ts";
import type { ChildStatus, Recovery, ReducedStream, StreamReducer } from "./types.ts";

const ESC = 0x1b;
const INITIAL_SCRATCH_BYTES = 1024;

/** Bounded filtering reducer for one stream; state bound: `streamMemoryBound(rule)`. */
export class LineFilterStreamReducer implements StreamReducer {
  private readonly _rule: ReductionRule;
  private readonly _retention: LineRetention;
  private readonly _lines: LineSplitter;
  private readonly _stripper: AnsiStripper | null;
  private readonly _drop: LinePatternSet;
  private readonly _keep: LinePatternSet;
  /** Present when `keep` is non-empty: finds runs of lines that cannot be candidates. */
  private readonly _screen: LineScreen | null;
  private readonly _lineBytes: number;
  private _scratch = new Uint8Array(0);
  /** ESC search over `_escBuffer`; `_escAt` is the next ESC at or after the last line start. */
  private _escBuffer: Uint8Array | null = null;
  private _escAt = 0;

  /** Compiles `spec`'s patterns once and prepares state for `rule`. */
  constructor(rule: ReductionRule, spec: LineFilterReducer) {
    this._rule = rule;
    const env = streamEnvelope(rule);
    this._lineBytes = env.lineBytes;
    this._retention = new LineRetention(env);
    this._stripper = spec.stripAnsi ? new AnsiStripper() : null;
    this._drop = new LinePatternSet(spec.drop);
    this._keep = new LinePatternSet(spec.keep);
    this._screen = this._keep.size > 0 ? new LineScreen(this._keep, spec.stripAnsi) : null;
    this._lines = new LineSplitter(env.lineBytes);
  }

  /** Feeds one chunk. */
  push(chunk: Uint8Array): void {
    const lines = this._lines;
    const screen = this._screen;
    this._retention.observeChunk(chunk);
    this._escBuffer = null;
    lines.feed(chunk);
    while (lines.next()) {
      this._line(lines.bytes, lines.start, lines.end, lines.ending, lines.droppedBytes);
      if (screen !== null) this._skipQuiet(chunk, screen);
    }
    this._retention.endChunk();
  }

  /** Renders under the policy `status` selects. */
  finish(status: ChildStatus, recovery: Recovery): ReducedStream {
    const lines = this._lines;
    this._escBuffer = null;
    if (lines.finish()) {
      this._line(lines.bytes, lines.start, lines.end, lines.ending, lines.droppedBytes);
    }
    return this._retention.render(selectPolicy(this._rule, status), recovery);
  }

  /** Bytes of state retained now. */
  retainedBytes(): number {
    return this._retention.retainedBytes() + this._lines.retainedBytes() +
      this._scratch.byteLength + this._drop.retainedBytes() + this._keep.retainedBytes();
  }

  private _line(
    bytes: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    dropped: number,
  ): void {
    const source = end - start + dropped + ending;
    let content = bytes;
    let from = start;
    let to = end;
    if (this._stripper !== null && this._hasEscape(bytes, start, end)) {
      if (this._scratch.length < end - start) this._growScratch(end - start);
      this._stripper.reset();
      content = this._scratch;
      from = 0;
      to = this._stripper.strip(bytes, start, end, content, 0);
      this._retention.markAltered();
    }
    if (
      (this._screen !== null && !this._screen.mayHoldValue(content, from, to)) ||
      this._drop.matchesAny(content, from, to) ||
      (this._keep.size > 0 && !this._keep.matchesAny(content, from, to))
    ) {
      this._retention.omitLine(ending);
      return;
    }
    this._retention.keepLine(content, from, to, ending, dropped, source);
  }

  /**
   * Counts as omitted the run of complete lines of `chunk`, from the
   * splitter's position, that `screen` finds cannot be candidates, and
   * moves the splitter past them. Called between lines, after the first.
   */
  private _skipQuiet(chunk: Uint8Array, screen: LineScreen): void {
    const from = this._lines.position;
    const end = screen.quietEnd(chunk, from);
    if (end === from) return;
    this._retention.omitLines(screen.lines);
    this._lines.skipTo(end);
  }

  /** True when `bytes[start, end)` holds ESC; amortised linear over one buffer's lines. */
  private _hasEscape(bytes: Uint8Array, start: number, end: number): boolean {
    if (this._escBuffer !== bytes) {
      this._escBuffer = bytes;
      this._escAt = -1;
    }
    if (this._escAt < start) {
      const at = indexOfByte(bytes, ESC, start, bytes.length);
      this._escAt = at === -1 ? bytes.length : at;
    }
    return this._escAt < end;
  }

  private _growScratch(need: number): void {
    let size = Math.max(this._scratch.length * 2, INITIAL_SCRATCH_BYTES);
    while (size < need) size *= 2;
    this._scratch = new Uint8Array(Math.min(size, this._lineBytes));
  }
}
