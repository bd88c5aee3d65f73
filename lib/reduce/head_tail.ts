/**
 * The `head_tail` reducer: every line is a candidate; the selected policy
 * keeps its first `headLines` and last `tailLines` within its byte limits
 * (see `retention.ts`). Once the head is full, the lines of a chunk that the
 * tail ring would evict before the chunk ends are only counted: work per
 * chunk is one byte count plus the lines that may be kept.
 *
 * @module
 */
import { countByte, LineSplitter } from "../bytes/mod.ts";
import type { ReductionRule } from "../rules/model.ts";
import { selectPolicy, streamEnvelope } from "./budget.ts";
import { LineRetention } from "./retention.ts";
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
      this._keep();
      if (!skipped && retention.headClosed) {
        skipped = true;
        const from = lines.position;
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
    if (this._lines.finish()) this._keep();
    return this._retention.render(selectPolicy(this._rule, status), recovery);
  }

  /** Bytes of state retained now. */
  retainedBytes(): number {
    return this._retention.retainedBytes() + this._lines.retainedBytes();
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
