/**
 * The stream-reducer contract shared by every reducer kind and by the
 * runner: what a reducer is fed, what it learns at the end and what it
 * returns. Types only.
 *
 * @module
 */

/** Exit facts known after the child ended. success = code === 0 and no signal. */
export interface ChildStatus {
  readonly code: number;
  readonly signal?: string;
}

/** What the marker may say about recovery. Until the archive exists the runner passes {kind:"none"}. */
export type Recovery =
  | { readonly kind: "none" }
  | {
    readonly kind: "archived";
    readonly id: string;
    /** The archived call is larger than one recovery page: the marker names the paged form (`marker.ts`). */
    readonly paged?: boolean;
  }
  | { readonly kind: "unarchived" };

/** The rendered result for one stream and the facts behind it. */
export interface ReducedStream {
  /** What to print for this stream; never longer than the selected policy's `maxOutputBytes` when `changed`. */
  readonly bytes: Uint8Array;
  /** False means `bytes` are exactly the input bytes. */
  readonly changed: boolean;
  /** Source lines not present in `bytes` (0 when unchanged). */
  readonly omittedLines: number;
  /** Source bytes of the omitted lines (0 when unchanged). */
  readonly omittedBytes: number;
  /** Kept lines shown with a truncation marker (0 when unchanged). */
  readonly truncatedLines: number;
  /** Bytes pushed into the reducer. */
  readonly inputBytes: number;
  /** Lines in the input; a final line without LF counts. */
  readonly inputLines: number;
}

/** The result that shows `bytes`, the exact input of `inputBytes` bytes in `inputLines` lines, as it was. */
export function unchangedStream(
  bytes: Uint8Array,
  inputBytes: number,
  inputLines: number,
): ReducedStream {
  return {
    bytes,
    changed: false,
    omittedLines: 0,
    omittedBytes: 0,
    truncatedLines: 0,
    inputBytes,
    inputLines,
  };
}

/**
 * A bounded byte-stream reducer. `push` is total: any bytes are valid data.
 * `finish` is called once, after the last `push`.
 */
export interface StreamReducer {
  /** Feeds one chunk of the stream. The chunk is read, never modified or kept. */
  push(chunk: Uint8Array): void;
  /** Ends the stream, selects the policy from `status` and renders. */
  finish(status: ChildStatus, recovery: Recovery): ReducedStream;
  /** Bytes of state retained now; never above `streamMemoryBound(rule)`. */
  retainedBytes(): number;
}
