/**
 * The `head_tail` reducer: every line is a candidate; the selected policy
 * keeps its first `headLines` and last `tailLines` within its byte limits
 * (see `retention.ts`).
 *
 * @module
 */
import { type LineEnding, LineSplitter } from "../bytes/mod.ts";
import type { ReductionRule } from "../rules/model.ts";
import { selectPolicy, streamEnvelope } from "./budget.ts";
import { LineRetention } from "./retention.ts";
import type { ChildStatus, Recovery, ReducedStream, StreamReducer } from "./types.ts";

/** Bounded head/tail reducer for one stream; state bound: `streamMemoryBound(rule)`. */
export class HeadTailStreamReducer implements StreamReducer {
  private readonly _rule: ReductionRule;
  private readonly _retention: LineRetention;
  private readonly _splitter: LineSplitter;

  /** Prepares state for `rule` (its `reducer` is not consulted). */
  constructor(rule: ReductionRule) {
    this._rule = rule;
    const env = streamEnvelope(rule);
    const retention = new LineRetention(env);
    this._retention = retention;
    this._splitter = new LineSplitter(
      env.lineBytes,
      (bytes: Uint8Array, start: number, end: number, ending: LineEnding, dropped: number) =>
        retention.keepLine(bytes, start, end, ending, dropped, end - start + dropped + ending),
    );
  }

  /** Feeds one chunk. */
  push(chunk: Uint8Array): void {
    this._retention.observeChunk(chunk);
    this._splitter.push(chunk);
    this._retention.endChunk();
  }

  /** Renders under the policy `status` selects. */
  finish(status: ChildStatus, recovery: Recovery): ReducedStream {
    this._splitter.finish();
    return this._retention.render(selectPolicy(this._rule, status), recovery);
  }

  /** Bytes of state retained now. */
  retainedBytes(): number {
    return this._retention.retainedBytes() + this._splitter.retainedBytes();
  }
}
