/**
 * The `line_filter` reducer, in the seed's order: split, cut to the line
 * limit, remove ANSI sequences (when `stripAnsi`), omit lines matching any
 * `drop` pattern, then, when `keep` is non-empty, omit lines matching none of
 * it; the remaining lines are candidates for the bounded head and tail (see
 * `retention.ts`). Each line is stripped on its own: a sequence never spans
 * lines, and a line's sequences are removed whatever chunks carried them.
 * With `keep` patterns, runs of lines that cannot match any (see
 * `_line_screen.ts`) are counted as omitted without a per-line look; without
 * them, `_drop_screen.ts` passes runs of dropped lines and, once the head is
 * full, counts the lines whose candidates the tail ring would evict before
 * the chunk ends, so only the ring's survivors are kept one by one.
 *
 * Diagnostics: the complete lines of each chunk after its first are
 * screened up front (`_diagnostic_screen.ts`); the first line of a chunk
 * (it may have begun in the previous one) and the stream's last line are
 * classified on their own. A line is classified as shown: cut to the line
 * limit, ANSI sequences removed (the classifier removes them, whether or
 * not the rule strips them from what it shows). The fast paths stop at
 * each diagnostic line,
 * which is then read on its own: filtered out, it is kept as evidence
 * (`LineRetention.keepEvidence`) where it sits; a candidate past the head
 * is reported with its candidate index (`LineRetention.keepDiagnostic`).
 * Either way retention shows it within the failure budget, whatever the
 * exit status, or counts it as not shown. Once the head is closed and
 * retention stores no more diagnostics, a chunk's are only counted and the
 * fast paths run as without them. A stream without diagnostics
 * gives the same bytes as without the screen. Besides the bounded state,
 * a push holds the offsets of its chunk's diagnostic lines.
 *
 * @module
 */
import { type LineEnding, LinePatternSet, LineSplitter } from "../bytes/mod.ts";
import type { LineFilterReducer, ReductionRule } from "../rules/model.ts";
import { selectPolicy, streamEnvelope } from "./budget.ts";
import { LineRetention } from "./retention.ts";
import { screenDiagnostics } from "./_diagnostic_screen.ts";
import { diagnosticForm, NOT_DIAGNOSTIC } from "./diagnostics.ts";
import { DropScreen } from "./_drop_screen.ts";
import { LineContent } from "./_line_content.ts";
import { LineScreen } from "./_line_screen.ts";
import type { ChildStatus, Recovery, ReducedStream, StreamReducer } from "./types.ts";

/**
 * How many times longer than the span that held a ring's worth of candidates
 * the rest of a chunk must be for `_walk` to look for the ring's survivors.
 */
const EVICTION_SPANS = 8;
const LF = 10;

/** Bounded filtering reducer for one stream; state bound: `streamMemoryBound(rule)`. */
export class LineFilterStreamReducer implements StreamReducer {
  private readonly _rule: ReductionRule;
  private readonly _retention: LineRetention;
  private readonly _lines: LineSplitter;
  private readonly _content: LineContent;
  private readonly _drop: LinePatternSet;
  private readonly _keep: LinePatternSet;
  /** Present when `keep` is non-empty: finds runs of lines that cannot be candidates. */
  private readonly _keepScreen: LineScreen | null;
  /** Present when `keep` is empty: classifies the lines of a chunk without the splitter. */
  private readonly _dropScreen: DropScreen | null;
  /** The larger `tailLines` of the two policies. */
  private readonly _tailLines: number;
  /** Where the diagnostic lines of the chunk being pushed start, in order (see the module comment). */
  private readonly _marks: number[] = [];
  /** `diagnosticForm` of a line's content (see the module comment). */
  private readonly _form: (bytes: Uint8Array, start: number, end: number) => number;

  /** Compiles `spec`'s patterns once and prepares state for `rule`. */
  constructor(rule: ReductionRule, spec: LineFilterReducer) {
    this._rule = rule;
    const env = streamEnvelope(rule);
    this._retention = new LineRetention(env);
    this._content = new LineContent(spec.stripAnsi, env.lineBytes);
    this._drop = new LinePatternSet(spec.drop);
    this._keep = new LinePatternSet(spec.keep);
    const keeps = this._keep.size > 0;
    this._keepScreen = keeps ? new LineScreen(this._keep, spec.stripAnsi) : null;
    this._dropScreen = keeps
      ? null
      : new DropScreen(this._drop, this._content, env.lineBytes, spec.stripAnsi);
    this._lines = new LineSplitter(env.lineBytes);
    this._tailLines = env.tailLines;
    const lineBytes = env.lineBytes;
    // The classifier reads a line as shown (ANSI removed): its content is the cut line.
    this._form = (bytes, start, end) =>
      diagnosticForm(bytes, start, Math.min(end, start + lineBytes));
  }

  /** Feeds one chunk. */
  push(chunk: Uint8Array): void {
    const lines = this._lines;
    const keepScreen = this._keepScreen;
    const dropScreen = this._dropScreen;
    this._retention.observeChunk(chunk);
    this._content.forget();
    lines.feed(chunk);
    if (lines.next()) {
      this._line(
        lines.bytes,
        lines.start,
        lines.end,
        lines.ending,
        lines.droppedBytes,
        null,
      );
      const marks = this._marks;
      marks.length = 0;
      const end = chunk.lastIndexOf(LF) + 1;
      const retention = this._retention;
      if (end > lines.position && retention.headClosed && retention.diagnosticsFull) {
        // Past the head, with no room left to store one: each is only counted.
        let n = 0;
        screenDiagnostics(
          chunk,
          lines.position,
          end,
          () => {
            n++;
          },
          noFeeds,
          this._form,
        );
        if (n > 0) retention.countDiagnostics(n);
      } else if (end > lines.position) {
        screenDiagnostics(
          chunk,
          lines.position,
          end,
          (_, start) => {
            marks.push(start);
          },
          noFeeds,
          this._form,
        );
      }
      let mark = 0;
      for (;;) {
        const to = mark < marks.length ? marks[mark] : chunk.length;
        if (keepScreen !== null) this._skipQuiet(chunk, keepScreen, to);
        else lines.skipTo(this._walk(chunk, dropScreen!, lines.position, to));
        const at = lines.position;
        if (!lines.next()) break;
        const diagnostic = at === to && mark < marks.length;
        if (diagnostic) mark++;
        this._line(
          lines.bytes,
          lines.start,
          lines.end,
          lines.ending,
          lines.droppedBytes,
          diagnostic,
        );
      }
    }
    this._retention.endChunk();
  }

  /** Renders under the policy `status` selects. */
  finish(status: ChildStatus, recovery: Recovery): ReducedStream {
    const lines = this._lines;
    this._content.forget();
    if (lines.finish()) {
      this._line(
        lines.bytes,
        lines.start,
        lines.end,
        lines.ending,
        lines.droppedBytes,
        null,
      );
    }
    const policy = selectPolicy(this._rule, status);
    return this._retention.render(policy, recovery, this._rule.failure.maxOutputBytes);
  }

  /** Bytes of state retained now. */
  retainedBytes(): number {
    return this._retention.retainedBytes() + this._lines.retainedBytes() +
      this._content.retainedBytes() + this._drop.retainedBytes() + this._keep.retainedBytes();
  }

  /**
   * Filters and counts one line; `screened` says whether the screen called
   * it a diagnostic, or is null for a line it did not see (then its content
   * is classified here).
   */
  private _line(
    bytes: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    dropped: number,
    screened: boolean | null,
  ): void {
    const source = end - start + dropped + ending;
    const content = this._content;
    const retention = this._retention;
    if (content.read(bytes, start, end)) retention.markAltered();
    const b = content.bytes;
    const from = content.start;
    const to = content.end;
    const diagnostic = screened ?? diagnosticForm(b, from, to) !== NOT_DIAGNOSTIC;
    if (
      (this._keepScreen !== null && !this._keepScreen.mayHoldValue(b, from, to)) ||
      this._drop.matchesAny(b, from, to) ||
      (this._keep.size > 0 && !this._keep.matchesAny(b, from, to))
    ) {
      if (diagnostic) retention.keepEvidence(b, from, to, ending, dropped, source);
      retention.omitLine(ending);
      return;
    }
    if (diagnostic && retention.headClosed) {
      retention.keepDiagnostic(b, from, to, ending, dropped, source, retention.candidates);
    }
    retention.keepLine(b, from, to, ending, dropped, source);
  }

  /**
   * Counts as omitted the run of complete lines of `chunk[…, to)`, from the
   * splitter's position, that `screen` finds cannot be candidates, and
   * moves the splitter past them. Called between lines, after the first;
   * `to` starts a line or is the chunk's length.
   */
  private _skipQuiet(chunk: Uint8Array, screen: LineScreen, to: number): void {
    const from = this._lines.position;
    // The screen walks to its buffer's end: give it one that ends at `to`.
    const end = screen.quietEnd(to === chunk.length ? chunk : chunk.subarray(0, to), from);
    if (end === from) return;
    this._retention.omitLines(screen.lines);
    this._lines.skipTo(end);
  }

  /**
   * Reads the complete lines of `chunk[from, to)` (`from` a line start,
   * after the stream's first line; `to` a line start or the chunk's length)
   * for a rule without `keep` patterns and returns where they end. Once more than a ring's worth of this chunk's candidates
   * went to the tail (the head being closed), within some span of bytes, and
   * the rest of the chunk is at least {@link EVICTION_SPANS} such spans long,
   * the lines whose candidates the ring would evict before the chunk ends
   * are only counted; to find them, at most two spans are read backwards.
   * Where candidates are sparser, keeping them one by one costs less than
   * finding the ring's survivors.
   */
  private _walk(chunk: Uint8Array, screen: DropScreen, from: number, to: number): number {
    const retention = this._retention;
    const content = this._content;
    const tailLines = this._tailLines;
    let omitted = 0;
    let tailed = 0;
    let tailFrom = 0;
    let at = from;
    for (;;) {
      const lf = screen.nextCandidate(chunk, at, to);
      omitted += screen.lines;
      if (lf === -1) break;
      if (screen.altered) retention.markAltered();
      const { bytes, start, end } = content;
      retention.keepLine(bytes, start, end, screen.ending, screen.cut, lf + 1 - screen.start);
      at = lf + 1;
      if (tailed > tailLines || !retention.headClosed) continue;
      if (tailed === 0) tailFrom = screen.start;
      if (++tailed <= tailLines) continue;
      const span = at - tailFrom;
      if (to - at < EVICTION_SPANS * span) continue;
      const ring = to === chunk.length ? chunk : chunk.subarray(0, to);
      const survivors = retention.survivorsStart(ring, at, screen, 2 * span);
      if (survivors > at) {
        screen.count(chunk, at, survivors);
        retention.skipLines(screen.lines, screen.candidates);
        at = survivors;
      }
    }
    retention.omitLines(omitted);
    return screen.start;
  }
}

/** `screenDiagnostics`' line-feed count, which the reducer does not use. */
function noFeeds(): number {
  return 0;
}
