/**
 * What `yarp hook HOST` shares across hosts (docs/hosts.md): which commands
 * are YARP's own, when a result is too small to be worth a reduction, and
 * how a host process is recognised among the hook's ancestors. Pure over
 * data; the process and file I/O stay in `lib/cli/hook.ts`.
 *
 * @module
 */
import { isObject } from "./session.ts";

/**
 * Results shorter than this many characters are left alone without loading
 * the parser or the archive: a recovery marker alone is about 100
 * characters, so no reduction of them passes the savings gates (the Pi
 * extension uses the same figure).
 */
export const MIN_REDUCE_CHARS = 512;

/**
 * True when `command` runs YARP itself: its first word is `yarp` (bare or a
 * path ending in `/yarp`), or it starts with `invocation` (the words that
 * start this YARP, as a hook's wrapper writes them). Such a command is never
 * wrapped, and its result (already reduced by `yarp run`, or a `yarp read`
 * that must stay exact) is never reduced again.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { isYarpCommand } from "./hook.ts";
 * equal(isYarpCommand("yarp read 0c0ffee0", undefined), true);
 * equal(isYarpCommand("  /opt/y/bin/yarp run -- git log", undefined), true);
 * equal(isYarpCommand("'/x y/yarp' run -- ls", "'/x y/yarp'"), true);
 * equal(isYarpCommand("yarpx --help", undefined), false);
 * ```
 */
export function isYarpCommand(command: string, invocation: string | undefined): boolean {
  const trimmed = command.trimStart();
  if (invocation !== undefined && invocation !== "" && trimmed.startsWith(invocation)) {
    const next = trimmed.charAt(invocation.length);
    if (next === "" || /\s/.test(next)) return true;
  }
  return /^(?:\S*\/)?yarp(?:\s|$)/.test(trimmed);
}

/**
 * True when `command` opts out of YARP for this one call: its source starts
 * with the assignment `YARP=off` (which the command's own shell then sets,
 * harmlessly). The hook leaves such a command and its result exactly alone.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { optsOut } from "./hook.ts";
 * equal(optsOut("YARP=off git log --stat"), true);
 * equal(optsOut("git log --grep YARP=off"), false);
 * ```
 */
export function optsOut(command: string): boolean {
  return /^\s*YARP=off(?:\s|$)/.test(command);
}

/**
 * The argv of the nearest process in `ancestors` (the hook's parent first,
 * then its parent, …) that `isHost` recognises, or undefined when none
 * does. Hosts start hooks through a shell and YARP's launcher, so the host
 * is a few levels up.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { hostArgv } from "./hook.ts";
 * const chain = [["/bin/sh", "-c", "yarp hook codex"], ["codex", "exec", "--json"]];
 * deepEqual(hostArgv(chain, (argv) => argv[0] === "codex"), ["codex", "exec", "--json"]);
 * ```
 */
export function hostArgv(
  ancestors: readonly (readonly string[])[],
  isHost: (argv: readonly string[]) => boolean,
): readonly string[] | undefined {
  return ancestors.find((argv) => argv.length > 0 && isHost(argv));
}

/** The part of a Bash tool hook event both hosts send alike. */
export interface BashToolEvent {
  readonly name: "PreToolUse" | "PostToolUse";
  /** The whole event object, for the host's own fields. */
  readonly event: Readonly<Record<string, unknown>>;
  /** The whole tool input (a hook's `updatedInput` replaces all of it). */
  readonly toolInput: Readonly<Record<string, unknown>>;
  readonly command: string;
  /** The event's absolute working directory, if it names one. */
  readonly cwd: string | undefined;
}

/**
 * Reads what Claude Code and Codex share in a hook event: `PreToolUse` or
 * `PostToolUse`, `tool_name: "Bash"`, `tool_input.command` a non-blank
 * string, `cwd`. Anything else is `{ ignore: code }`. Never throws.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { readBashToolEvent } from "./hook.ts";
 * const read = readBashToolEvent({
 *   hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, cwd: "/w",
 * });
 * equal("command" in read && read.command, "ls");
 * deepEqual(readBashToolEvent({ hook_event_name: "Stop" }), { ignore: "other-event" });
 * ```
 */
export function readBashToolEvent(value: unknown): BashToolEvent | { readonly ignore: string } {
  if (!isObject(value)) return { ignore: "not-an-object" };
  const name = value.hook_event_name;
  if (name !== "PreToolUse" && name !== "PostToolUse") return { ignore: "other-event" };
  if (value.tool_name !== "Bash") return { ignore: "other-tool" };
  const input = value.tool_input;
  if (!isObject(input) || typeof input.command !== "string" || input.command.trim() === "") {
    return { ignore: "no-command" };
  }
  const cwd = typeof value.cwd === "string" && value.cwd.startsWith("/") ? value.cwd : undefined;
  return { name, event: value, toolInput: input, command: input.command, cwd };
}

/**
 * The `PreToolUse` answer that runs `wrapper` instead of the command, in
 * the schema both hosts read: the tool input with only `command` replaced
 * (it replaces the whole input), allowed. Only a caller holding a
 * permission proof may give it (docs/hosts.md, "Permissions").
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { wrapAnswer } from "./hook.ts";
 * const answer = wrapAnswer({ command: "git log", timeout: 60000 }, "yarp run -- git log", "r");
 * deepEqual(answer.hookSpecificOutput.updatedInput, { command: "yarp run -- git log", timeout: 60000 });
 * ```
 */
export function wrapAnswer(
  toolInput: Readonly<Record<string, unknown>>,
  wrapper: string,
  reason: string,
) {
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: reason,
      updatedInput: { ...toolInput, command: wrapper },
    },
  } as const;
}

/** A permission proof's answer: what decides "allowed" for both commands, or why no proof exists (a stable code). */
export type PermissionProof =
  | { readonly proven: true; readonly by: string }
  | { readonly proven: false; readonly reason: string };

/** The last path component of `path`. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
