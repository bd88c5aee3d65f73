/**
 * Gemini CLI's command hooks, as YARP reads and answers them (Gemini CLI
 * 0.61.0; docs/hosts.md). Pure over data.
 *
 * Events read (anything else is no event): `BeforeTool` for
 * `tool_name:"run_shell_command"` with `tool_input:{command}` a non-blank
 * string, and `cwd`. `AfterTool` is not read: in 0.61.0 its answer can only
 * block (the model then reads `Tool result blocked: R` as an error), append
 * `additionalContext` after the original output, or start another tool call
 * that goes through the approval checks again; none replaces the output as
 * a plain result, so YARP reduces Gemini's shell output only by wrapping
 * the command before it runs.
 *
 * Answer before the call: `hookSpecificOutput.tool_input`, merged by Gemini
 * into the call's arguments (so only `command` is sent), after which Gemini
 * checks its policy against the new arguments. There is no "allow"
 * decision: the caller gives this answer only with a proof that the
 * wrapper's policy outcome equals the original's (permissions.ts). Gemini
 * then appends `[System] Tool input parameters were modified by a hook
 * before execution.` to what the model reads.
 *
 * @module
 */
import { isObject } from "../session.ts";

/** Gemini CLI's shell tool. */
export const GEMINI_SHELL_TOOL = "run_shell_command";

/** A `BeforeTool` event for the shell tool. */
export interface GeminiBeforeCall {
  readonly kind: "before";
  readonly command: string;
  readonly cwd: string | undefined;
}

/** The event YARP acts on, or why it does not. */
export type GeminiHookEvent = GeminiBeforeCall | { readonly ignore: string };

/**
 * Reads one hook event (the parsed stdin JSON). Never throws.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { readGeminiEvent } from "./hook.ts";
 * deepEqual(readGeminiEvent({
 *   hook_event_name: "BeforeTool", tool_name: "run_shell_command", cwd: "/w",
 *   tool_input: { command: "git log" },
 * }), { kind: "before", command: "git log", cwd: "/w" });
 * deepEqual(readGeminiEvent({ hook_event_name: "AfterTool" }), { ignore: "other-event" });
 * ```
 */
export function readGeminiEvent(value: unknown): GeminiHookEvent {
  if (!isObject(value)) return { ignore: "not-an-object" };
  if (value.hook_event_name !== "BeforeTool") return { ignore: "other-event" };
  if (value.tool_name !== GEMINI_SHELL_TOOL) return { ignore: "other-tool" };
  const input = value.tool_input;
  if (!isObject(input) || typeof input.command !== "string" || input.command.trim() === "") {
    return { ignore: "no-command" };
  }
  const cwd = typeof value.cwd === "string" && value.cwd.startsWith("/") ? value.cwd : undefined;
  return { kind: "before", command: input.command, cwd };
}

/**
 * The `BeforeTool` answer that runs `wrapper` instead of the command: only
 * `command` changes (Gemini merges `tool_input` into the arguments, so the
 * others stay as the model sent them).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { geminiWrapAnswer } from "./hook.ts";
 * deepEqual(geminiWrapAnswer("yarp run -- git log"), {
 *   hookSpecificOutput: { hookEventName: "BeforeTool", tool_input: { command: "yarp run -- git log" } },
 * });
 * ```
 */
export function geminiWrapAnswer(wrapper: string) {
  return {
    hookSpecificOutput: { hookEventName: "BeforeTool", tool_input: { command: wrapper } },
  } as const;
}
