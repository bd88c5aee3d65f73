/**
 * The `head_tail` reducer: every line is a candidate; the selected policy
 * keeps its first `headLines` and last `tailLines` within its byte limits
 * (see `retention.ts`). Once the head is full, the lines of a chunk that the
 * tail ring would evict before the chunk ends are only counted: work per
 * chunk is one byte count plus the lines that may be kept, and one search
 * of the lines past the head for the words a diagnostic form holds
 * (`_diagnostic_screen.ts`): each line there that the classifier calls a
 * diagnostic is reported to retention, which shows it between head and tail
 * within the failure budget, whatever the exit status, or counts it.
 *
 * State bound: `streamMemoryBound(rule)`: the head and tail stores, the
 * diagnostic store (at most `DIAGNOSTIC_RECORDS` lines within one line
 * store's bytes), the raw buffer and the line carry; nothing grows with the
 * input.
 *
 * @module
 */
import { countByte, LineSplitter } from "../bytes/mod.ts";
import type { ReductionRule } from "../rules/model.ts";
import { selectPolicy, streamEnvelope } from "./budget.ts";
import { LineRetention } from "./retention.ts";
import { screenDiagnostics } from "./_diagnostic_screen.ts";
import { diagnosticForm, NOT_DIAGNOSTIC } from "./diagnostics.ts";
import type { ChildStatus, Recovery, ReducedStream, StreamReducer } from "./types.ts";

const LF = 10;

/** Bounded head/tail reducer for one stream; state bound: `streamMemoryBound(rule)`. */
export class HeadTailStreamReducer implements StreamReducer {
  private readonly _rule: ReductionRule;
  private readonly _retention: LineRetention;
  private readonly _lines: LineSplitter;

  /** Prepares state for `rule` (its `reducer` is not consulted). */
  constructor(rule: ReductionRule) {
    this._rule = rule;
    const env = streamEnvelope(rule);
    this._retention = new LineRetention(env);
    this._lines = new LineSplitter(env.lineBytes);
  }

  /** Feeds one chunk. */
  push(chunk: Uint8Array): void {
    const retention = this._retention;
    const lines = this._lines;
    retention.observeChunk(chunk);
    lines.feed(chunk);
    let skipped = false;
    while (lines.next()) {
      if (!skipped && retention.headClosed) this._diagnosticLine();
      this._keep();
      if (!skipped && retention.headClosed) {
        skipped = true;
        const from = lines.position;
        const base = retention.candidates;
        const end = chunk.lastIndexOf(LF) + 1;
        if (end > from) {
          screenDiagnostics(chunk, from, end, (bytes, start, stop, ending, before) => {
            retention.keepDiagnostic(
              bytes,
              start,
              stop,
              ending,
              0,
              stop - start + ending,
              base + before,
            );
          }, (bytes, a, b) => countByte(bytes, LF, a, b));
        }
        const to = retention.survivorsStart(chunk, from);
        if (to > from) {
          const skipped = countByte(chunk, LF, from, to);
          retention.skipLines(skipped, skipped);
          lines.skipTo(to);
        }
      }
    }
    retention.endChunk();
  }

  /** Renders under the policy `status` selects. */
  finish(status: ChildStatus, recovery: Recovery): ReducedStream {
    if (this._lines.finish()) {
      if (this._retention.headClosed) this._diagnosticLine();
      this._keep();
    }
    const policy = selectPolicy(this._rule, status);
    return this._retention.render(policy, recovery, this._rule.failure.maxOutputBytes);
  }

  /** Bytes of state retained now. */
  retainedBytes(): number {
    return this._retention.retainedBytes() + this._lines.retainedBytes();
  }

  /** Reports the splitter's current line, bound for the tail, when it is a diagnostic. */
  private _diagnosticLine(): void {
    const l = this._lines;
    if (diagnosticForm(l.bytes, l.start, l.end) === NOT_DIAGNOSTIC) return;
    const source = l.end - l.start + l.droppedBytes + l.ending;
    this._retention.keepDiagnostic(
      l.bytes,
      l.start,
      l.end,
      l.ending,
      l.droppedBytes,
      source,
      this._retention.candidates,
    );
  }

  /** Keeps the splitter's current line as a candidate. */
  private _keep(): void {
    const l = this._lines;
    const start = l.start;
    const end = l.end;
    const ending = l.ending;
    const dropped = l.droppedBytes;
    this._retention.keepLine(l.bytes, start, end, ending, dropped, end - start + dropped + ending);
  }
}
