/**
 * Codex CLI's command hooks, as YARP reads and answers them (Codex 0.169.0;
 * docs/hosts.md). Pure over data.
 *
 * Events read (anything else is no event): `PreToolUse` and `PostToolUse`
 * for `tool_name:"Bash"` with `tool_input:{command}` a string, `cwd`,
 * `tool_use_id`, `transcript_path`; `PostToolUse` fires on success and
 * failure alike with `tool_response` only the merged, already cut text and
 * no exit status.
 *
 * The result path therefore reads the call's end from the session's
 * rollout file (`transcript_path`; 0.169.0 writes an `item_completed`
 * `CommandExecution` item there before the hook runs): its exit code and
 * whole output (see {@link findEndedCall}). Without both the result is left alone.
 *
 * Answers:
 * - before the call (`wrapAnswer` in `../hook.ts`): `updatedInput` takes effect only with
 *   `permissionDecision:"allow"` (permissions.ts decides when that is
 *   provably no wider than without YARP).
 * - after the call: `{"decision":"block","reason":TEXT}`, which the model
 *   receives as exactly TEXT when it called the shell tool directly; in
 *   code mode (a nested `tools.exec_command` call, `tool_use_id`
 *   `exec-…`) the same answer makes the script throw, which reads as an
 *   error, so there YARP answers nothing. Direct mode is recognised by a
 *   `call_…` tool_use_id (the Responses API's function call ids); any other
 *   id is left alone. TEXT keeps Codex's status line: `Process exited with
 *   code N\nOutput:\n…`.
 *
 * @module
 */
import type { RecordedCall } from "../session.ts";
import { readBashToolEvent } from "../hook.ts";
import { codexRuntime } from "./session.ts";

/** A `PreToolUse` event for Codex's shell tool. */
export interface CodexBeforeCall {
  readonly kind: "before";
  readonly command: string;
  readonly toolInput: Readonly<Record<string, unknown>>;
  readonly cwd: string | undefined;
}

/** A `PostToolUse` event for Codex's shell tool. */
export interface CodexAfterCall {
  readonly kind: "after";
  readonly command: string;
  readonly cwd: string | undefined;
  /** The cut, merged text Codex is about to show (stdout and stderr interleaved). */
  readonly visible: string;
  readonly toolUseId: string;
  /** The rollout file, when the event names one. */
  readonly transcriptPath: string | undefined;
  /** True when the call was the shell tool called directly (its block reason is plain output). */
  readonly direct: boolean;
}

/** One event YARP acts on, or why it does not. */
export type CodexHookEvent = CodexBeforeCall | CodexAfterCall | { readonly ignore: string };

/**
 * Reads one hook event (the parsed stdin JSON). Never throws.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { readCodexEvent } from "./hook.ts";
 * const event = readCodexEvent({
 *   hook_event_name: "PostToolUse", tool_name: "Bash", cwd: "/w", tool_use_id: "exec-1",
 *   tool_input: { command: "ls" }, tool_response: "a\n",
 * });
 * equal("kind" in event && event.kind === "after" && event.direct, false);
 * ```
 */
export function readCodexEvent(value: unknown): CodexHookEvent {
  const read = readBashToolEvent(value);
  if ("ignore" in read) return read;
  const { name, event, toolInput, command, cwd } = read;
  if (name === "PreToolUse") return { kind: "before", command, toolInput, cwd };
  const id = event.tool_use_id;
  if (typeof event.tool_response !== "string" || typeof id !== "string") {
    return { ignore: "no-response" };
  }
  const transcript = event.transcript_path;
  return {
    kind: "after",
    command,
    cwd,
    visible: event.tool_response,
    toolUseId: id,
    transcriptPath: typeof transcript === "string" && transcript.startsWith("/")
      ? transcript
      : undefined,
    direct: /^call_/.test(id),
  };
}

/**
 * The call `callId` read from rollout lines (the tail of the session file,
 * parsed one JSON value a line; the first line may be a cut one and is
 * skipped when it does not parse) with Codex's session reader: its whole
 * output and exit code, or undefined when the lines hold no end event with
 * an exit code for it, or the call was already reduced.
 */
export function findEndedCall(lines: readonly string[], callId: string): RecordedCall | undefined {
  let found: RecordedCall | undefined;
  const reader = codexRuntime.createReader({
    call: (call) => {
      if (call.callId === callId) found = call;
    },
    skip: () => {},
  });
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    reader.push(value);
    if (found !== undefined) break;
  }
  if (found === undefined || found.exitCode === null || found.priorReduction !== null) {
    return undefined;
  }
  return found;
}

/** The text of a recorded call's output as Codex's model would read it: stdout then stderr, or the merged output. */
export function recordedText(call: RecordedCall): Uint8Array {
  const streams = call.streams;
  if (streams.mode === "combined") return streams.output;
  const both = new Uint8Array(streams.stdout.length + streams.stderr.length);
  both.set(streams.stdout);
  both.set(streams.stderr, streams.stdout.length);
  return both;
}

/**
 * The direct-mode `PostToolUse` answer showing `text` for a call that
 * exited with `exitCode`, in the status form Codex itself uses.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { codexResultAnswer } from "./hook.ts";
 * deepEqual(codexResultAnswer(1, "err\n"), {
 *   decision: "block", reason: "Process exited with code 1\nOutput:\nerr\n",
 * });
 * ```
 */
export function codexResultAnswer(exitCode: number, text: string) {
  return { decision: "block", reason: `Process exited with code ${exitCode}\nOutput:\n${text}` };
}
