/**
 * Reads Gemini CLI chat files (`~/.gemini/tmp/<project>/chats/session-*.jsonl`,
 * Gemini CLI 0.61.0; docs/corpus.md, "Import"). The first line is the
 * session header `{sessionId, projectHash, startTime, lastUpdated, kind}`;
 * then one message a line (`{id, type:"user"|"gemini", …}`) or an update
 * `{"$set":{…}}` whose `messages`, when present, lists messages again. A
 * shell call is a `gemini` message's `toolCalls` entry `{id,
 * name:"run_shell_command", args:{command}, result:[{functionResponse:
 * {response:{output}}}], status}`; the same message is written again as it
 * grows, so a call is reported once, the first time it carries a result.
 * An older single-object file (the header with a `messages` list) reads the
 * same way.
 *
 * The output is the text the model read: `<untrusted_context>` around
 * `Output: TEXT` (`(empty)` for none), then `Error: …`, `Exit Code: N` (only
 * when not 0), `Signal: S`, `Background PIDs: …` and `Process Group PGID: N`
 * lines, and after a hook changed the input a `[System] Tool input
 * parameters … were modified by a hook` line. stdout and stderr arrive
 * interleaved (`combined`); the exit code is N, 0 without an `Exit Code`
 * line, and null with an `Error` or `Signal` line.
 *
 * A long result (over 40,000 characters) is cut by Gemini to its head and
 * tail around `... [N characters omitted] ...`, after a line `Output too
 * large. … For full output see: FILE`; such a call is `other` (already
 * reduced), one carrying YARP's marker `yarp`. Skipped: a result that does
 * not start `Output: ` (a cancelled, backgrounded, blocked or denied call).
 * Known miss: an output whose own last lines look like Gemini's status
 * lines is read as ending before them.
 *
 * @module
 */
import {
  type CallSink,
  carriesYarpMarker,
  combinedStreams,
  exitCodeFromDigits,
  isObject,
  type RecordedCall,
  type SessionReader,
  type SessionRuntime,
} from "../session.ts";
import { GEMINI_SHELL_TOOL } from "./hook.ts";

/** The line Gemini puts before a long output it cut to its head and tail (the whole text in a file). */
const TOO_LARGE = /^Output too large\. [^\n]*\n/;
const UNTRUSTED = /^<untrusted_context>\n([\s\S]*)\n<\/untrusted_context>$/;
const HOOK_NOTE =
  /\n\n\[System\] Tool input parameters (?:\([^)\n]*\) )?were modified by a hook before execution\.$/;
const SECTIONS =
  /^Output: ([\s\S]*?)(\nError: [\s\S]*?)?(?:\nExit Code: (\d+))?(\nSignal: .*)?(?:\nBackground PIDs: .*)?(?:\nProcess Group PGID: \d+)?$/;
const CUT = /\.\.\. \[[\d,]+ characters omitted\] \.\.\./;

/**
 * The command output and exit code in the text Gemini gave the model for a
 * shell call, or undefined when the text is not a finished call's output.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { parseShellResult } from "./session.ts";
 * deepEqual(
 *   parseShellResult("<untrusted_context>\nOutput: a\nb\nExit Code: 3\nProcess Group PGID: 7\n</untrusted_context>"),
 *   { output: "a\nb", exitCode: 3 },
 * );
 * deepEqual(parseShellResult("Output: (empty)\nProcess Group PGID: 7"), { output: "", exitCode: 0 });
 * deepEqual(
 *   parseShellResult("Output too large. Showing … see: /f\n<untrusted_context>\nOutput: a\n... [9 characters omitted] ...\nb\n</untrusted_context>"),
 *   { output: "a\n... [9 characters omitted] ...\nb", exitCode: 0 },
 * );
 * equal(parseShellResult("Command was cancelled by user before it could complete."), undefined);
 * ```
 */
export function parseShellResult(
  text: string,
): { output: string; exitCode: number | null } | undefined {
  const whole = text.replace(TOO_LARGE, "").replace(HOOK_NOTE, "");
  const inner = UNTRUSTED.exec(whole)?.[1] ?? whole;
  const match = SECTIONS.exec(inner.replace(HOOK_NOTE, ""));
  if (match === null) return undefined;
  const [, output, error, code, signal] = match;
  const exitCode = error !== undefined || signal !== undefined
    ? null
    : code === undefined
    ? 0
    : exitCodeFromDigits(code);
  return { output: output === "(empty)" ? "" : output, exitCode };
}

/** The `output` text of a tool call's first function response, if any. */
function resultText(result: unknown): string | undefined {
  if (!Array.isArray(result)) return undefined;
  for (const part of result) {
    if (!isObject(part) || !isObject(part.functionResponse)) continue;
    const response = part.functionResponse.response;
    if (isObject(response) && typeof response.output === "string") return response.output;
  }
  return undefined;
}

class GeminiReader implements SessionReader {
  readonly #sink: CallSink;
  /** Calls seen without a result yet. */
  readonly #open = new Set<string>();
  /** Calls already reported (or skipped). */
  readonly #done = new Set<string>();

  constructor(sink: CallSink) {
    this.#sink = sink;
  }

  push(entry: unknown): void {
    if (!isObject(entry)) return;
    const update = entry.$set;
    const messages = isObject(update)
      ? update.messages
      : Array.isArray(entry.messages)
      ? entry.messages
      : [entry];
    if (!Array.isArray(messages)) return;
    for (const message of messages) this.#message(message);
  }

  #message(message: unknown): void {
    if (!isObject(message) || message.type !== "gemini" || !Array.isArray(message.toolCalls)) {
      return;
    }
    for (const call of message.toolCalls) {
      if (!isObject(call) || call.name !== GEMINI_SHELL_TOOL) continue;
      const id = call.id;
      if (typeof id !== "string" || this.#done.has(id)) continue;
      const command = isObject(call.args) ? call.args.command : undefined;
      if (typeof command !== "string" || command.trim() === "") {
        this.#done.add(id);
        this.#sink.skip("no-command");
        continue;
      }
      const text = resultText(call.result);
      if (text === undefined) {
        this.#open.add(id);
        continue;
      }
      this.#open.delete(id);
      this.#done.add(id);
      const parsed = parseShellResult(text);
      if (parsed === undefined) {
        this.#sink.skip("not-command-output");
        continue;
      }
      const recorded: RecordedCall = {
        callId: id,
        command,
        exitCode: parsed.exitCode,
        streams: combinedStreams(parsed.output),
        priorReduction: carriesYarpMarker(parsed.output)
          ? "yarp"
          : CUT.test(parsed.output)
          ? "other"
          : null,
      };
      this.#sink.call(recorded);
    }
  }

  finish(): number {
    return this.#open.size;
  }
}

/**
 * Gemini CLI's chat files: recognised by the header's `sessionId` and
 * `projectHash`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { geminiRuntime } from "./session.ts";
 * equal(geminiRuntime.recognizes({ sessionId: "s", projectHash: "h", startTime: "t" }), true);
 * equal(geminiRuntime.recognizes({ sessionId: "s" }), false);
 * ```
 */
export const geminiRuntime: SessionRuntime = {
  name: "gemini",
  recognizes: (entry) =>
    isObject(entry) && typeof entry.sessionId === "string" &&
    typeof entry.projectHash === "string",
  createReader: (sink) => new GeminiReader(sink),
};
