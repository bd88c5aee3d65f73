/**
 * The `line_filter` reducer, in the seed's order: split, cut to the line
 * limit, remove ANSI sequences (when `stripAnsi`), omit lines matching any
 * `drop` pattern, then, when `keep` is non-empty, omit lines matching none of
 * it; the remaining lines are candidates for the bounded head and tail (see
 * `retention.ts`). Each line is stripped on its own: a sequence never spans
 * lines, and a line's sequences are removed whatever chunks carried them.
 *
 * @module
 */
import {
  AnsiStripper,
  ByteFinder,
  type LineEnding,
  LinePatternSet,
  LineSplitter,
} from "../bytes/mod.ts";
import type { LineFilterReducer, ReductionRule } from "../rules/model.ts";
import { selectPolicy, streamEnvelope } from "./budget.ts";
import { LineRetention } from "./retention.ts";
import type { ChildStatus, Recovery, ReducedStream, StreamReducer } from "./types.ts";

const ESC = 0x1b;
const INITIAL_SCRATCH_BYTES = 1024;

/** Bounded filtering reducer for one stream; state bound: `streamMemoryBound(rule)`. */
export class LineFilterStreamReducer implements StreamReducer {
  private readonly _rule: ReductionRule;
  private readonly _retention: LineRetention;
  private readonly _splitter: LineSplitter;
  private readonly _stripper: AnsiStripper | null;
  private readonly _drop: LinePatternSet;
  private readonly _keep: LinePatternSet;
  private readonly _lineBytes: number;
  private _scratch = new Uint8Array(0);
  /** ESC search over `_escBuffer`; `_escAt` is the next ESC at or after the last line start. */
  private _escBuffer: Uint8Array | null = null;
  private _escFinder: ByteFinder | null = null;
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
    this._splitter = new LineSplitter(
      env.lineBytes,
      (bytes: Uint8Array, start: number, end: number, ending: LineEnding, dropped: number) =>
        this._line(bytes, start, end, ending, dropped),
    );
  }

  /** Feeds one chunk. */
  push(chunk: Uint8Array): void {
    this._retention.observeChunk(chunk);
    this._escBuffer = null;
    this._splitter.push(chunk);
    this._retention.endChunk();
  }

  /** Renders under the policy `status` selects. */
  finish(status: ChildStatus, recovery: Recovery): ReducedStream {
    this._escBuffer = null;
    this._splitter.finish();
    return this._retention.render(selectPolicy(this._rule, status), recovery);
  }

  /** Bytes of state retained now. */
  retainedBytes(): number {
    return this._retention.retainedBytes() + this._splitter.retainedBytes() +
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
      this._drop.matchesAny(content, from, to) ||
      (this._keep.size > 0 && !this._keep.matchesAny(content, from, to))
    ) {
      this._retention.omitLine(ending);
      return;
    }
    this._retention.keepLine(content, from, to, ending, dropped, source);
  }

  /** True when `bytes[start, end)` holds ESC; amortised linear over one buffer's lines. */
  private _hasEscape(bytes: Uint8Array, start: number, end: number): boolean {
    if (this._escBuffer !== bytes) {
      this._escBuffer = bytes;
      this._escFinder = new ByteFinder(bytes, ESC);
      this._escAt = -1;
    }
    if (this._escAt < start) {
      const at = this._escFinder!.next(start);
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
