/**
 * Claude Code's command hooks, as YARP reads and answers them (Claude Code
 * 2.1.328; docs/hosts.md). Pure over data.
 *
 * Events read (anything else, or any field of the wrong type, is no event):
 * - `PreToolUse` for `Bash`: `{hook_event_name, tool_name:"Bash",
 *   tool_input:{command, description?, timeout?, …}, cwd, permission_mode}`.
 * - `PostToolUse` for `Bash` (a successful call only; a failed one fires
 *   `PostToolUseFailure`, whose output no answer can replace):
 *   `tool_response:{stdout, stderr, interrupted, isImage, noOutputExpected?,
 *   returnCodeInterpretation?, persistedOutputPath?, persistedOutputSize?}`.
 *   A result over 30,000 characters arrives cut, its whole text in the file
 *   `persistedOutputPath`.
 *
 * Answers:
 * - before the call, a wrapper (`wrapAnswer` in `../hook.ts`, with
 *   `permissionDecision:"allow"` given only by a caller that proved the
 *   user's own rules allow the original command, `permissions.ts`, because
 *   without a decision Claude Code checks its rules against the wrapper's
 *   text);
 * - after the call, the new text: `updatedToolOutput` must carry `stdout`,
 *   `stderr` and `interrupted` or Claude Code silently drops it; the text
 *   goes in `stdout`, `stderr` is empty.
 *
 * @module
 */
import { isObject } from "../session.ts";
import { readBashToolEvent } from "../hook.ts";

/** A `PreToolUse` event for the Bash tool. */
export interface ClaudeBeforeCall {
  readonly kind: "before";
  readonly command: string;
  /** The whole tool input, to be handed back with only `command` changed. */
  readonly toolInput: Readonly<Record<string, unknown>>;
  readonly cwd: string | undefined;
  /** `default`, `acceptEdits`, `plan`, `bypassPermissions`, `dontAsk`, … as sent. */
  readonly permissionMode: string | undefined;
}

/** A `PostToolUse` event for the Bash tool. */
export interface ClaudeAfterCall {
  readonly kind: "after";
  readonly command: string;
  readonly cwd: string | undefined;
  /** What the model is about to see: stdout, and stderr after a newline when there is any. */
  readonly visible: string;
  /** The cut stdout the event carries. */
  readonly stdout: string;
  readonly stderr: string;
  /** The file holding the whole result when Claude Code cut it, else undefined. */
  readonly persistedOutputPath: string | undefined;
  /** 0, or undefined when Claude Code read a non-zero status as no error (`grep` finding nothing). */
  readonly exitCode: 0 | undefined;
  /** Why the result must be left alone (interrupted, an image, a background task), if so. */
  readonly untouchable: string | undefined;
}

/** One event YARP acts on, or why it does not. */
export type ClaudeHookEvent = ClaudeBeforeCall | ClaudeAfterCall | { readonly ignore: string };

/**
 * Reads one hook event (the parsed stdin JSON). Never throws.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { readClaudeEvent } from "./hook.ts";
 * const event = readClaudeEvent({
 *   hook_event_name: "PreToolUse", tool_name: "Bash", cwd: "/w", permission_mode: "default",
 *   tool_input: { command: "git log", description: "Log" },
 * });
 * equal("kind" in event && event.command, "git log");
 * equal("ignore" in readClaudeEvent({ hook_event_name: "PreToolUse", tool_name: "Read" }), true);
 * ```
 */
export function readClaudeEvent(value: unknown): ClaudeHookEvent {
  const read = readBashToolEvent(value);
  if ("ignore" in read) return read;
  const { name, event, toolInput, command, cwd } = read;
  if (name === "PreToolUse") {
    const mode = event.permission_mode;
    return {
      kind: "before",
      command,
      toolInput,
      cwd,
      permissionMode: typeof mode === "string" ? mode : undefined,
    };
  }
  const response = event.tool_response;
  if (!isObject(response)) return { ignore: "no-response" };
  const { stdout, stderr } = response;
  if (typeof stdout !== "string" || typeof stderr !== "string") return { ignore: "no-response" };
  const path = response.persistedOutputPath;
  const untouchable = response.interrupted === true
    ? "interrupted"
    : response.isImage === true
    ? "image"
    : typeof response.backgroundTaskId === "string"
    ? "background"
    : typeof response.interrupted !== "boolean"
    ? "no-response"
    : undefined;
  return {
    kind: "after",
    command,
    cwd,
    visible: stderr === "" ? stdout : stdout === "" ? stderr : `${stdout}\n${stderr}`,
    stdout,
    stderr,
    persistedOutputPath: typeof path === "string" && path.startsWith("/") ? path : undefined,
    exitCode: response.returnCodeInterpretation === undefined ? 0 : undefined,
    untouchable,
  };
}

/**
 * The `PostToolUse` answer that shows `text` instead of the result: all of
 * `stdout`, `stderr` and `interrupted` present (Claude Code drops a partial
 * shape without a word).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { claudeResultAnswer } from "./hook.ts";
 * deepEqual(claudeResultAnswer("kept\n").hookSpecificOutput.updatedToolOutput, {
 *   stdout: "kept\n", stderr: "", interrupted: false, isImage: false,
 * });
 * ```
 */
export function claudeResultAnswer(text: string) {
  return {
    hookSpecificOutput: {
      hookEventName: "PostToolUse",
      updatedToolOutput: { stdout: text, stderr: "", interrupted: false, isImage: false },
    },
  } as const;
}

/**
 * True when `whole` (read from `persistedOutputPath`) is the result whose
 * cut `stdout` the event carries: it starts with that text, so YARP never
 * reduces some other file in its place.
 */
export function isWholeOf(whole: string, cut: string): boolean {
  return cut.length > 0 && whole.length >= cut.length && whole.startsWith(cut);
}
