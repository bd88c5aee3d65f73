/**
 * Reads Pi coding agent session files (JSONL v3, Pi 0.73.1; docs/corpus.md,
 * "Import"). The first line is the header `{type:"session", version, id,
 * cwd}`; each later line is an entry of the session tree. A bash call is an
 * assistant message block `{type:"toolCall", id, name:"bash",
 * arguments:{command}}`, answered by a message `{role:"toolResult",
 * toolCallId, toolName:"bash", content:[{type:"text", text}], details,
 * isError}`. Branches of the tree are read in file order; a result is paired
 * with its call by id.
 *
 * The stored text is stdout and stderr interleaved (`combined`), after Pi's
 * own formatting, which this reader undoes:
 * - an empty output is stored as `(no output)`;
 * - a truncated output keeps its last 2000 lines or 50 KiB and ends with
 *   `\n\n[Showing lines S-E of N. Full output: PATH]` (or the `(50.0KB
 *   limit)` and `[Showing last … of line N (line is …)…]` variants), with
 *   `details.truncation` on success; such a result is `pi-truncation`;
 * - a failed call (`isError`) ends with `\n\nCommand exited with code N`,
 *   `Command timed out after T seconds` or `Command aborted` (alone when
 *   there was no output); the exit code is N, null for a timeout or abort.
 *
 * What Pi does not record: stdout and stderr apart; the raw bytes (output is
 * decoded as UTF-8, invalid bytes become U+FFFD); the exit status of a
 * command killed by a signal (Pi reports it as a success, so it reads as 0);
 * the part of a truncated output that only the `pi-bash-*.log` file kept.
 *
 * Already reduced: a result carrying YARP's marker or a `yarp` /
 * `archiveId` key in `details` is `yarp`; a failed result without Pi's
 * status line (a blocked call, an extension's error), a content that is not
 * one text part, or `details` keys Pi never writes are `other`. Known miss:
 * an extension that replaces the text and keeps Pi's shape goes unnoticed.
 * An output that is exactly `(no output)` reads as empty.
 *
 * @module
 */
import {
  type CallSink,
  carriesYarpMarker,
  combinedStreams,
  exitCodeFromDigits,
  isObject,
  type PriorReduction,
  type SessionReader,
  type SessionRuntime,
} from "../session.ts";

/** Pi's placeholder for an empty output. */
const NO_OUTPUT = "(no output)";
/** Pi's status line of a failed call, the whole text after the last blank line. */
const STATUS =
  /^(?:Command exited with code (\d+)|Command timed out after [^\n]* seconds|Command aborted)$/;
/** Pi's truncation notice, the whole text after the last blank line. */
const NOTICE =
  /^\[Showing (?:lines \d+-\d+ of \d+(?: \([^)\n]*\))?|last [^\n]* of line \d+ \(line is [^)\n]*\))\. Full output: [^\n]*\]$/;
/** The only `details` keys Pi's bash tool writes. */
const PI_DETAIL_KEYS: readonly string[] = ["truncation", "fullOutputPath"];
/** `details` keys that mark a result YARP's Pi extension reduced. */
const YARP_DETAIL_KEYS: readonly string[] = ["yarp", "archiveId"];

/** What {@link stripPiFormatting} found in a stored bash result text. */
export interface PiResultText {
  /** The tool's own output. */
  readonly output: string;
  /** The exit code; null when unknown (timeout, abort, missing status line). */
  readonly exitCode: number | null;
  /** True when Pi's truncation notice was removed. */
  readonly truncated: boolean;
  /** True when a failed result had no Pi status line (so Pi did not write it). */
  readonly foreign: boolean;
}

/**
 * Splits `text` at its last blank line (`\n\n`) when the part after it
 * matches `pattern`; the whole text counts when it has no blank line.
 */
function splitTrailer(
  text: string,
  pattern: RegExp,
): { body: string; match: RegExpExecArray } | undefined {
  const at = text.lastIndexOf("\n\n");
  const match = pattern.exec(at === -1 ? text : text.slice(at + 2));
  if (match === null) return undefined;
  return { body: at === -1 ? "" : text.slice(0, at), match };
}

/**
 * Undoes Pi 0.73.1's formatting of a bash result `text` (see the module
 * comment): removes the status line of a failed result (`isError`) and the
 * truncation notice, and turns `(no output)` back into an empty output. The
 * notice is looked for on a failed result, or on a successful one only when
 * `truncatedBySuccess` (Pi's `details.truncation`) says it is there, so a
 * successful output that merely ends like a notice is kept whole.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { stripPiFormatting } from "./session.ts";
 * deepEqual(stripPiFormatting("failing\n\n\nCommand exited with code 3", true, false), {
 *   output: "failing\n",
 *   exitCode: 3,
 *   truncated: false,
 *   foreign: false,
 * });
 * ```
 */
export function stripPiFormatting(
  text: string,
  isError: boolean,
  truncatedBySuccess: boolean,
): PiResultText {
  let body = text;
  let exitCode: number | null = 0;
  let placeholder = true;
  if (isError) {
    const status = splitTrailer(text, STATUS);
    if (status === undefined) {
      return { output: text, exitCode: null, truncated: false, foreign: true };
    }
    body = status.body;
    const digits = status.match[1];
    exitCode = digits === undefined ? null : exitCodeFromDigits(digits);
    // A timeout or abort leaves an empty output empty; only an exit writes the placeholder.
    placeholder = digits !== undefined;
  }
  let truncated = false;
  if (isError || truncatedBySuccess) {
    const notice = splitTrailer(body, NOTICE);
    if (notice !== undefined) {
      body = notice.body;
      truncated = true;
    }
  }
  if (placeholder && body === NO_OUTPUT) body = "";
  return { output: body, exitCode, truncated: truncated || truncatedBySuccess, foreign: false };
}

/** The text of a content array that is exactly one text part; undefined otherwise. */
function singleText(content: unknown): string | undefined {
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const part = content[0];
  return isObject(part) && part.type === "text" && typeof part.text === "string"
    ? part.text
    : undefined;
}

/** All text parts of a content array joined, for a result Pi's shape does not fit. */
function joinedText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (isObject(part) && typeof part.text === "string") text += part.text;
  }
  return text;
}

class PiReader implements SessionReader {
  private readonly _sink: CallSink;
  /** Command of each bash call still waiting for its result, by call id. */
  private readonly _calls = new Map<string, string>();

  constructor(sink: CallSink) {
    this._sink = sink;
  }

  push(entry: unknown): void {
    if (!isObject(entry) || entry.type !== "message" || !isObject(entry.message)) return;
    const message = entry.message;
    if (message.role === "assistant") this._readCalls(message.content);
    else if (message.role === "toolResult") this._readResult(message);
  }

  finish(): number {
    return this._calls.size;
  }

  private _readCalls(content: unknown): void {
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (!isObject(block) || block.type !== "toolCall" || block.name !== "bash") continue;
      const command = isObject(block.arguments) ? block.arguments.command : undefined;
      if (typeof block.id !== "string" || typeof command !== "string") {
        this._sink.skip("bash call without an id or a command");
        continue;
      }
      this._calls.set(block.id, command);
    }
  }

  private _readResult(message: Record<string, unknown>): void {
    const callId = message.toolCallId;
    if (typeof callId !== "string") return;
    const command = this._calls.get(callId);
    if (command === undefined) return;
    this._calls.delete(callId);
    const details = isObject(message.details) ? message.details : {};
    const text = singleText(message.content);
    const shaped = text !== undefined &&
      Object.keys(details).every((key) => PI_DETAIL_KEYS.includes(key));
    const truncation = details.truncation;
    const result = stripPiFormatting(
      text ?? joinedText(message.content),
      message.isError === true,
      isObject(truncation) && truncation.truncated === true,
    );
    let prior: PriorReduction | null = null;
    if (
      YARP_DETAIL_KEYS.some((key) => key in details) || carriesYarpMarker(result.output)
    ) prior = "yarp";
    else if (result.truncated) prior = "pi-truncation";
    else if (!shaped || result.foreign) prior = "other";
    this._sink.call({
      callId,
      command,
      exitCode: result.exitCode,
      streams: combinedStreams(result.output),
      priorReduction: prior,
    });
  }
}

/** Pi coding agent session files. */
export const piRuntime: SessionRuntime = {
  name: "pi",
  recognizes: (entry) =>
    isObject(entry) && entry.type === "session" && typeof entry.id === "string" &&
    typeof entry.cwd === "string",
  createReader: (sink) => new PiReader(sink),
};
