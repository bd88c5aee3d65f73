/**
 * Reads Claude Code session files (`~/.claude/projects/<project>/<uuid>.jsonl`
 * and subagent files beside them; docs/corpus.md, "Import"). Each line is an
 * entry with a `type`; a Bash call is an `assistant` entry whose
 * `message.content` holds `{type:"tool_use", id, name:"Bash",
 * input:{command, …}}`, answered by a `user` entry whose `message.content`
 * holds `{type:"tool_result", tool_use_id, content, is_error}` (content a
 * string or text parts) and, when it is the entry's only result, a top-level
 * `toolUseResult`.
 *
 * - Success: `toolUseResult` is `{stdout, stderr, interrupted, isImage, …}`;
 *   its streams are kept apart (`separate`) and the exit code is 0, or null
 *   when `returnCodeInterpretation` says a non-zero status was not an error
 *   (`grep` finding nothing). Without `toolUseResult` the content is the
 *   output (`combined`), `(Bash completed with no output)` meaning empty.
 * - Failure: `is_error` with content `Exit code N\n` + (the interruption
 *   notice) + stderr + `\n` + stdout (empty parts dropped; `toolUseResult`
 *   is then only that text prefixed `Error: `); the exit code is N and the
 *   rest is the output (`combined`), the notice removed.
 *
 * What Claude Code does not record: the exit status of a successful call;
 * stdout and stderr of a failed call apart; leading and trailing blank lines
 * of stdout (stripped before storing, so a final newline is gone); the raw
 * bytes (decoded as UTF-8); and, in recent versions, stderr apart at all:
 * the shell's streams share one descriptor, so `stdout` holds both and
 * `stderr` only Claude Code's own notices.
 *
 * Already reduced (`other`): a failure whose text was cut in the middle
 * (`... [N characters truncated] ...`), a content cut by line
 * (`... [N lines truncated] ...`) or moved to a file (`<persisted-output>`,
 * `persistedOutputPath`), an interrupted, image or background call, and an
 * error without `Exit code N` (a denied or blocked call, whose text is not
 * command output). A result carrying YARP's marker is `yarp`.
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
  type RecordedCall,
  type RecordedStreams,
  separateStreams,
  type SessionReader,
  type SessionRuntime,
} from "../session.ts";

/** Claude Code's tool result text for a successful call with no output. */
const NO_OUTPUT = "(Bash completed with no output)";
/** The first line of a failed call's text. */
const EXIT_LINE = /^(?:Error: )?Exit code (\d+)(?:\n|$)/;
/** The line Claude Code inserts after `Exit code N` when the user interrupted the call. */
const INTERRUPTED_LINE = "[Request interrupted by user for tool use]";
/** Claude Code's cut marks: a failure's middle, an old content's middle, a moved output. */
const CUT = /\.\.\. \[\d+ (?:characters|lines) truncated\] \.\.\.|^<persisted-output>/m;

/** The text of a tool result's content (a string or text parts); undefined for other parts. */
function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let text = "";
  for (const part of content) {
    if (!isObject(part) || part.type !== "text" || typeof part.text !== "string") return undefined;
    text += part.text;
  }
  return text;
}

/** Reads one Bash tool result; `toolUseResult` only when it belongs to this result alone. */
function readResult(
  callId: string,
  command: string,
  result: Record<string, unknown>,
  toolUseResult: unknown,
): RecordedCall {
  const content = contentText(result.content);
  const text = content ?? "";
  let exitCode: number | null = 0;
  let streams: RecordedStreams;
  let other = content === undefined || CUT.test(text);
  let visible: string;
  if (result.is_error === true) {
    const exit = EXIT_LINE.exec(text);
    if (exit === null) {
      exitCode = null;
      other = true;
      visible = text;
    } else {
      exitCode = exitCodeFromDigits(exit[1]);
      visible = text.slice(exit[0].length);
      if (visible === INTERRUPTED_LINE) visible = "";
      else if (visible.startsWith(INTERRUPTED_LINE + "\n")) {
        visible = visible.slice(INTERRUPTED_LINE.length + 1);
      }
    }
    streams = combinedStreams(visible);
  } else if (isObject(toolUseResult) && typeof toolUseResult.stdout === "string") {
    const stdout = toolUseResult.stdout;
    const stderr = typeof toolUseResult.stderr === "string" ? toolUseResult.stderr : "";
    const interpretation = toolUseResult.returnCodeInterpretation;
    if (typeof interpretation === "string" && interpretation !== "") exitCode = null;
    other ||= toolUseResult.interrupted === true || toolUseResult.isImage === true ||
      typeof toolUseResult.backgroundTaskId === "string" ||
      typeof toolUseResult.persistedOutputPath === "string";
    visible = stdout + stderr;
    streams = separateStreams(stdout, stderr);
  } else {
    visible = text === NO_OUTPUT ? "" : text;
    streams = combinedStreams(visible);
  }
  const prior: PriorReduction | null = carriesYarpMarker(visible) ? "yarp" : other ? "other" : null;
  return { callId, command, exitCode, streams, priorReduction: prior };
}

class ClaudeCodeReader implements SessionReader {
  private readonly _sink: CallSink;
  /** Command of each Bash call still waiting for its result, by tool use id. */
  private readonly _calls = new Map<string, string>();

  constructor(sink: CallSink) {
    this._sink = sink;
  }

  push(entry: unknown): void {
    if (!isObject(entry) || !isObject(entry.message)) return;
    const content = entry.message.content;
    if (!Array.isArray(content)) return;
    if (entry.type === "assistant") this._readCalls(content);
    else if (entry.type === "user") this._readResults(content, entry.toolUseResult);
  }

  finish(): number {
    return this._calls.size;
  }

  private _readCalls(content: readonly unknown[]): void {
    for (const block of content) {
      if (!isObject(block) || block.type !== "tool_use") continue;
      if (block.name !== "Bash" && block.name !== "bash") continue;
      const command = isObject(block.input) ? block.input.command : undefined;
      if (typeof block.id !== "string" || typeof command !== "string") {
        this._sink.skip("Bash call without an id or a command");
        continue;
      }
      this._calls.set(block.id, command);
    }
  }

  private _readResults(content: readonly unknown[], toolUseResult: unknown): void {
    const results = content.filter((block) => isObject(block) && block.type === "tool_result");
    for (const block of results as Record<string, unknown>[]) {
      const callId = block.tool_use_id;
      if (typeof callId !== "string") continue;
      const command = this._calls.get(callId);
      if (command === undefined) continue;
      this._calls.delete(callId);
      this._sink.call(
        readResult(callId, command, block, results.length === 1 ? toolUseResult : undefined),
      );
    }
  }
}

/** Claude Code session files. */
export const claudeCodeRuntime: SessionRuntime = {
  name: "claude-code",
  recognizes: (entry) =>
    isObject(entry) && typeof entry.type === "string" &&
    (typeof entry.sessionId === "string" || typeof entry.leafUuid === "string" ||
      entry.type === "file-history-snapshot"),
  createReader: (sink) => new ClaudeCodeReader(sink),
};
