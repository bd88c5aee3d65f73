/**
 * The extension's decisions, as pure functions over data: which tool calls
 * are shell commands, how YARP's replies are read, when a wrapper is applied
 * and when a reduced result may replace what Pi would show. Anything these
 * functions cannot read gives a pass-through reason, never a guess.
 *
 * @module
 */

/** The input field that holds the command: `command` for Pi's `bash`, `cmd` for `exec_command`. */
export type CommandField = "command" | "cmd";

/** A shell tool call the extension handles. */
export interface ShellCall {
  readonly field: CommandField;
  readonly command: string;
}

/** Tool names and the input field that carries their shell source. */
const SHELL_TOOLS: Readonly<Record<string, CommandField>> = {
  bash: "command",
  exec_command: "cmd",
};

/**
 * The shell command of a tool call, or undefined when the tool is not a
 * shell tool or its input has no non-empty string command. Never throws on
 * any input shape.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { shellCall } from "./decisions.ts";
 * deepEqual(shellCall("exec_command", { cmd: "ls" }), { field: "cmd", command: "ls" });
 * deepEqual(shellCall("read", { path: "x" }), undefined);
 * ```
 */
export function shellCall(toolName: unknown, input: unknown): ShellCall | undefined {
  if (typeof toolName !== "string" || !Object.hasOwn(SHELL_TOOLS, toolName)) return undefined;
  const field = SHELL_TOOLS[toolName];
  if (typeof input !== "object" || input === null) return undefined;
  const command = (input as Record<string, unknown>)[field];
  return typeof command === "string" && command.trim() !== "" ? { field, command } : undefined;
}

/**
 * True when the command is a call of YARP itself (`yarp read ID`, `yarp
 * search …`, `/path/to/yarp …`, also after leading spaces): its output is
 * already exact recovery or YARP's own report and is never reduced again.
 */
export function isYarpCommand(command: string): boolean {
  return /^\s*(?:[^\s'"]*\/)?yarp(?:\s|$)/.test(command);
}

/** Why the extension left a command or result exactly as it was (the extension's own codes). */
export type PassReason =
  | "disabled"
  | "off"
  | "yarp-command"
  | "compound"
  | "malformed-reply"
  | "pack-changed"
  | "timeout"
  | "exit-nonzero"
  | "spawn-failed"
  | "wrapped"
  | "not-text"
  | "small"
  | "full-output-unavailable"
  | "unchanged"
  | "no-archived-copy"
  | "not-smaller";

/** What YARP's process gave back, as the shell reports it. */
export type ProcessOutcome =
  | {
    readonly kind: "exit";
    readonly code: number;
    readonly stdout: string;
    readonly stderr: string;
  }
  | { readonly kind: "timeout" }
  | { readonly kind: "spawn-error"; readonly message: string };

/** The pass-through reason of a process outcome that is not a clean exit 0, else undefined. */
export function processFailure(outcome: ProcessOutcome): PassReason | undefined {
  if (outcome.kind === "timeout") return "timeout";
  if (outcome.kind === "spawn-error") return "spawn-failed";
  return outcome.code === 0 ? undefined : "exit-nonzero";
}

/**
 * `yarp rewrite --json`'s decision, read strictly. A declined source may
 * name the rule that declined it (`guarded`, `transform-only`).
 */
export type RewriteDecision =
  | { readonly rewrite: true; readonly rule: string; readonly command: string }
  | { readonly rewrite: false; readonly reason: string; readonly rule?: string };

const REASON_CODE = /^[a-z][a-z0-9-]{0,63}(?::[a-z][a-z0-9-]{0,63})?$/;
const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9._\/-]{0,199}$/;
const KEYS = ["rewrite", "reason", "rule", "command"];

/** The extension's host for `rewrite` and `result-reduce`, so `yarp gain --host pi` counts Pi's reductions. */
export const PI_HOST = ["--host", "pi"] as const;

/**
 * Reads `yarp rewrite --json`'s reply (docs/shell.md, `yarp rewrite`): exit
 * 0 and exactly one line holding one JSON object with only `rewrite`
 * (boolean), `reason` (a code such as `rewritten`, `not-simple-command`,
 * `parse:syntax-error`), `rule` (the rule id: always when `rewrite` is
 * true, and when a rule declined the source, as for `guarded` and
 * `transform-only`) and, exactly when `rewrite` is true (`reason` is
 * `rewritten`), `command` (the wrapper line: `yarp run --host pi --expect-rule
 * RULE … -- …`: the extension asks with {@link PI_HOST}, so a wrapper that would
 * not record its reduction under host `pi` is malformed). Anything else gives the pass-through reason that leaves the
 * command as written.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { readRewriteJson } from "./decisions.ts";
 * const exit = (stdout: string) => ({ kind: "exit" as const, code: 0, stdout, stderr: "" });
 * const command = "yarp run --host pi --expect-rule git/log -- git log";
 * deepEqual(readRewriteJson(exit(JSON.stringify({ rewrite: true, reason: "rewritten", rule: "git/log", command }) + "\n")), {
 *   decision: { rewrite: true, rule: "git/log", command },
 * });
 * deepEqual(readRewriteJson(exit('{"rewrite":false,"reason":"redirect"}\n')), {
 *   decision: { rewrite: false, reason: "redirect" },
 * });
 * deepEqual(readRewriteJson(exit('{"rewrite":false,"reason":"guarded","rule":"exact/sed"}\n')), {
 *   decision: { rewrite: false, reason: "guarded", rule: "exact/sed" },
 * });
 * deepEqual(readRewriteJson(exit("yarp run -- git log\n")), { reason: "malformed-reply" });
 * ```
 */
export function readRewriteJson(
  outcome: ProcessOutcome,
): { readonly decision: RewriteDecision } | { readonly reason: PassReason } {
  const failure = processFailure(outcome);
  if (failure !== undefined || outcome.kind !== "exit") {
    return { reason: failure ?? "spawn-failed" };
  }
  const malformed = { reason: "malformed-reply" as const };
  const line = outcome.stdout;
  if (!line.endsWith("\n") || line.indexOf("\n") !== line.length - 1) {
    return malformed;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return malformed;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return malformed;
  }
  const record = parsed as Record<string, unknown>;
  if (Object.keys(record).some((key) => !KEYS.includes(key))) return malformed;
  const { rewrite, reason, rule, command } = record;
  if (
    typeof rewrite !== "boolean" || typeof reason !== "string" ||
    !REASON_CODE.test(reason) || rewrite !== (reason === "rewritten")
  ) {
    return malformed;
  }
  const ruleId = typeof rule === "string" && RULE_ID.test(rule) ? rule : undefined;
  if (rule !== undefined && ruleId === undefined) return malformed;
  if (!rewrite) {
    if (command !== undefined) return malformed;
    return {
      decision: ruleId === undefined ? { rewrite, reason } : { rewrite, reason, rule: ruleId },
    };
  }
  if (ruleId === undefined || typeof command !== "string") return malformed;
  const wrapper = `yarp run ${PI_HOST.join(" ")} --expect-rule ${ruleId} `;
  if (!command.startsWith(wrapper) || !command.includes(" -- ") || command.includes("\n")) {
    return malformed;
  }
  return { decision: { rewrite, rule: ruleId, command } };
}

/** A rule pack the wrapper names, with the digest `yarp run` must find again. */
export interface WrapperPack {
  readonly path: string;
  readonly digest: string;
}

/**
 * The wrapper line `command` (`yarp run …`, from {@link readRewriteJson})
 * with its leading `yarp` replaced by `invocation`, the shell-quoted words
 * that start the binary this extension uses.
 */
export function withInvocation(command: string, invocation: string): string {
  return invocation + command.slice("yarp".length);
}

/**
 * `yarp --version --build` prints `yarp X.Y.Z (build D)` (16 hex digits; a
 * YARP without build digests prints `yarp X.Y.Z`); returns the version and
 * the build, or undefined for anything else.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { readVersionReply } from "./decisions.ts";
 * const reply = { kind: "exit" as const, code: 0, stdout: "yarp 0.1.0 (build 0123456789abcdef)\n", stderr: "" };
 * deepEqual(readVersionReply(reply), { version: "0.1.0", build: "0123456789abcdef" });
 * ```
 */
export function readVersionReply(
  outcome: ProcessOutcome,
): { readonly version: string; readonly build: string | undefined } | undefined {
  if (processFailure(outcome) !== undefined || outcome.kind !== "exit") return undefined;
  const match = /^yarp (\S+?)(?: \(build ([0-9a-f]{16})\))?\n?$/.exec(outcome.stdout);
  return match === null ? undefined : { version: match[1], build: match[2] };
}

const MARKER = /\[yarp: [^\n\]]*· exact: yarp read ([0-9a-f]{4,64})[ \]]/;

/**
 * The archive id named by YARP's recovery marker (`[yarp: … · exact: yarp
 * read ID …]`) in the last non-empty line that carries one, or undefined.
 */
export function markerArchiveId(text: string): string | undefined {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = MARKER.exec(lines[i]);
    if (match !== null) return match[1];
  }
  return undefined;
}

/** `yarp gain --json`'s total: results reduced and characters before, after and saved (signed). */
export interface GainFigures {
  readonly calls: number;
  readonly charsBefore: number;
  readonly charsAfter: number;
  readonly saved: number;
}

/**
 * The `total` of `yarp gain --json`'s stdout, read strictly; undefined when
 * it is not the documented object.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { readGainJson } from "./decisions.ts";
 * const stdout = '{"since":null,"hosts":[],"total":{"calls":1,"chars_before":9,"chars_after":4,"saved":5}}\n';
 * deepEqual(readGainJson(stdout), { calls: 1, charsBefore: 9, charsAfter: 4, saved: 5 });
 * equal(readGainJson("yarp gain: no archive"), undefined);
 * ```
 */
export function readGainJson(stdout: string): GainFigures | undefined {
  try {
    const total = (JSON.parse(stdout) as { total?: Record<string, unknown> } | null)?.total;
    const figures = ["calls", "chars_before", "chars_after", "saved"].map((key) => total?.[key]);
    if (!figures.every(Number.isSafeInteger)) return undefined;
    const [calls, charsBefore, charsAfter, saved] = figures as number[];
    return { calls, charsBefore, charsAfter, saved };
  } catch {
    return undefined;
  }
}

/** What to do with a finished result after `yarp result-reduce`. */
export type ResultDecision =
  | { readonly replace: true; readonly text: string; readonly archiveId: string }
  | { readonly replace: false; readonly reason: PassReason };

/**
 * Decides whether `yarp result-reduce`'s reply replaces the result whose
 * full text was `input`: only a clean exit whose stdout differs from the
 * input, is shorter, and carries a marker naming an archived copy.
 */
export function decideReducedResult(input: string, outcome: ProcessOutcome): ResultDecision {
  const failure = processFailure(outcome);
  if (failure !== undefined || outcome.kind !== "exit") {
    return { replace: false, reason: failure ?? "spawn-failed" };
  }
  const output = outcome.stdout;
  if (output === input) return { replace: false, reason: "unchanged" };
  const archiveId = markerArchiveId(output);
  if (archiveId === undefined) return { replace: false, reason: "no-archived-copy" };
  if (output.length >= input.length) return { replace: false, reason: "not-smaller" };
  return { replace: true, text: output, archiveId };
}

/**
 * Reads one reply line of `yarp result-reduce --serve` for the result whose
 * full text was `input` as the outcome a one-shot `yarp result-reduce` would
 * have had: stdout is the reply's `output` when `changed` is true, else the
 * input itself. Undefined for a reply that is not such an object (the
 * caller then closes the server and runs the one-shot process).
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * const reply = '{"changed":true,"rule":"build/make","archive_id":"0ec789c2","output":"kept\\n"}';
 * deepEqual(readServedReduction(reply, "long\n"), {
 *   kind: "exit",
 *   code: 0,
 *   stdout: "kept\n",
 *   stderr: "",
 * });
 * equal(readServedReduction('{"changed":false}', "same\n")?.stdout, "same\n");
 * equal(readServedReduction('{"changed":true}', "x"), undefined);
 * ```
 */
export function readServedReduction(
  line: string,
  input: string,
): ProcessOutcome | undefined {
  try {
    const reply = JSON.parse(line) as
      | { changed?: unknown; output?: unknown }
      | null;
    if (reply?.changed === false) {
      return { kind: "exit", code: 0, stdout: input, stderr: "" };
    }
    if (reply?.changed !== true || typeof reply.output !== "string") {
      return undefined;
    }
    return { kind: "exit", code: 0, stdout: reply.output, stderr: "" };
  } catch {
    return undefined;
  }
}

/**
 * Quotes one word for bash: bare when it has only safe characters, else in
 * single quotes with each `'` written as `'\''`.
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
