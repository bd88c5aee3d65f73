/**
 * Whether YARP may wrap a Bash command in Claude Code without changing what
 * the user's permissions decide for it (docs/hosts.md, "Permissions"). Pure
 * over the settings files' texts and the host's argv, which the CLI reads.
 *
 * Why a proof is needed: Claude Code checks its allow/ask/deny rules
 * against the command a hook hands back, so `yarp run -- git log` matches
 * neither an allow rule `Bash(git log:*)` (the call would be asked about)
 * nor an ask or deny rule written for `git log` (it would escape them); and
 * `permissionDecision:"allow"` skips the check altogether. So the wrapper
 * is answered with "allow" only when the answer for the original command is
 * provably "allowed, without asking" too:
 *
 * 1. the permission mode is `default`, `acceptEdits`, `dontAsk` (an allow
 *    rule must then match) or `bypassPermissions` (no allow rule needed);
 *    `plan` and anything unknown never;
 * 2. the host's command line was found and carries no flag that adds rules
 *    or settings YARP cannot see (`--disallowedTools`, `--settings`,
 *    `--setting-sources`, …);
 * 3. every settings file Claude Code may read parses (a file that does not
 *    is no proof);
 * 4. an allow rule of a file Claude Code reads matches the command for sure
 *    (`Bash`, `Bash(*)`, `Bash(EXACT)`, `Bash(PREFIX:*)`, `Bash(PREFIX *)`),
 *    not counting user and project files when the managed settings set
 *    `allowManagedPermissionRulesOnly`;
 * 5. no ask or deny rule of any file it may read could match the command
 *    or the wrapper (a deny rule beats a hook's "allow"): a rule
 *    "could match" when all its literal pieces (the text between `*`s)
 *    occur in the command, compared without case and with runs of blanks
 *    as one space. This over-approximates every matching form (prefixes,
 *    wildcards, rules for other tools that name a path in the command), so
 *    an unknown syntax only costs a wrap, never a permission.
 *
 * Known misses: rules granted in an interactive session and not saved, and
 * rules given by the SDK (`canUseTool`), are invisible; condition 2 and the
 * "allowed without a rule" read-only commands make YARP wrap less, never
 * more.
 *
 * @module
 */
import { isObject } from "../session.ts";
import { baseName, type PermissionProof } from "../hook.ts";

/** The permission rules of one settings file. */
export interface ClaudeRules {
  readonly allow: readonly string[];
  readonly ask: readonly string[];
  readonly deny: readonly string[];
  /** `allowManagedPermissionRulesOnly` (meaningful in managed settings only). */
  readonly managedOnly: boolean;
}

/** One settings file as the CLI found it: its text, or undefined when it does not exist. */
export interface SettingsFile {
  readonly path: string;
  readonly text: string | undefined;
  /** Where it sits: its allow rules count only for `user`, `project` and `managed`. */
  readonly scope: "user" | "project" | "managed" | "nearby";
}

/** What the proof looks at. */
export interface ClaudePermissionFacts {
  /** The original command source. */
  readonly command: string;
  /** The wrapper that would run instead: no ask or deny rule may concern it either. */
  readonly wrapper: string;
  readonly permissionMode: string | undefined;
  /** Every settings file Claude Code may read (and nearby ones that only restrict). */
  readonly files: readonly SettingsFile[];
  /** Claude Code's own argv, or undefined when it could not be found. */
  readonly hostArgv: readonly string[] | undefined;
}

/** Flags of the host's command line that add rules or settings YARP does not read. */
const OPAQUE_FLAGS = [
  "--disallowedTools",
  "--disallowed-tools",
  "--settings",
  "--setting-sources",
  "--permission-prompt-tool",
  "--agents",
];

const MODES_WITH_RULES = new Set(["default", "acceptEdits", "dontAsk"]);

/**
 * Reads the `permissions` of one settings file's text; `{ error }` when it
 * is not a JSON object or its rule lists are not lists of strings.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { readClaudeRules } from "./permissions.ts";
 * deepEqual(readClaudeRules('{"permissions":{"allow":["Bash(git log:*)"]}}'), {
 *   allow: ["Bash(git log:*)"], ask: [], deny: [], managedOnly: false,
 * });
 * deepEqual(readClaudeRules("{"), { error: "not valid JSON" });
 * ```
 */
export function readClaudeRules(text: string): ClaudeRules | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: "not valid JSON" };
  }
  if (!isObject(value)) return { error: "not a JSON object" };
  const permissions = value.permissions ?? {};
  if (!isObject(permissions)) return { error: "permissions: not an object" };
  const lists: Record<string, string[]> = {};
  for (const name of ["allow", "ask", "deny"]) {
    const list = permissions[name] ?? [];
    if (!Array.isArray(list) || !list.every((rule) => typeof rule === "string")) {
      return { error: `permissions.${name}: not a list of strings` };
    }
    lists[name] = list as string[];
  }
  const managedOnly = value.allowManagedPermissionRulesOnly === true ||
    permissions.allowManagedPermissionRulesOnly === true;
  return { allow: lists.allow, ask: lists.ask, deny: lists.deny, managedOnly };
}

/** True when `argv` is Claude Code's process: the native `claude` or its Node wrapper. */
export function isClaudeProcess(argv: readonly string[]): boolean {
  return argv.slice(0, 2).some((word) => {
    const name = baseName(word);
    return name === "claude" || name === "claude.exe" ||
      (/^(?:cli-wrapper\.cjs|cli\.js|cli\.mjs)$/.test(name) && word.includes("claude-code"));
  });
}

function normalized(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

/** The tool name and the text in parentheses of a rule (`Bash(git log:*)`), content undefined for a bare tool. */
function splitRule(rule: string): { tool: string; content: string | undefined } {
  const open = rule.indexOf("(");
  if (open < 0 || !rule.endsWith(")")) return { tool: rule.trim(), content: undefined };
  return { tool: rule.slice(0, open).trim(), content: rule.slice(open + 1, -1) };
}

/**
 * True when an ask or deny `rule` could match `command` (module doc, 5): a
 * bare `Bash` or a rule whose literal pieces all occur in the command. A
 * bare rule for another tool never concerns a Bash command.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { mayMatch } from "./permissions.ts";
 * equal(mayMatch("Bash(git push:*)", "git log --stat"), false);
 * equal(mayMatch("Bash(git log:*)", "GIT  log --stat"), true);
 * equal(mayMatch("Bash(git * --force)", "git push origin --force"), true);
 * equal(mayMatch("Read(./secrets/**)", "cat secrets/key"), true);
 * equal(mayMatch("WebFetch", "curl x"), false);
 * ```
 */
export function mayMatch(rule: string, command: string): boolean {
  const { tool, content } = splitRule(rule);
  if (content === undefined) return tool === "Bash";
  const text = normalized(command);
  const body = tool === "Bash" ? content.replace(/:\*\s*$/, "") : content;
  const pieces = normalized(body).split("*").map((piece) =>
    tool === "Bash" ? piece.trim() : piece.replace(/^(?:\.\/|~\/|\/+)/, "").trim()
  ).filter((piece) => piece !== "");
  return pieces.every((piece) => text.includes(piece));
}

/**
 * True when an allow `rule` matches `command` for sure (module doc, 4):
 * `Bash`, `Bash(*)`, `Bash(EXACT)`, `Bash(PREFIX:*)` (the command is the
 * prefix or continues it after a blank) and `Bash(PREFIX *)` (continues it
 * after a blank). Other wildcard forms are not a proof.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { surelyAllows } from "./permissions.ts";
 * equal(surelyAllows("Bash(git log:*)", "git log --stat"), true);
 * equal(surelyAllows("Bash(git log:*)", "git logx"), false);
 * equal(surelyAllows("Bash(git * main)", "git log main"), false);
 * ```
 */
export function surelyAllows(rule: string, command: string): boolean {
  const { tool, content } = splitRule(rule);
  if (tool !== "Bash") return false;
  if (content === undefined || content.trim() === "*") return true;
  const text = command.trim();
  if (content.endsWith(":*")) {
    const prefix = content.slice(0, -2);
    return !prefix.includes("*") && prefix !== "" &&
      (text === prefix || text.startsWith(`${prefix} `));
  }
  if (content.endsWith(" *")) {
    const prefix = content.slice(0, -2);
    return !prefix.includes("*") && prefix.trim() !== "" && text.startsWith(`${prefix} `);
  }
  return !content.includes("*") && text === content;
}

/**
 * Proves (or not) that Claude Code would allow `facts.command` without
 * asking; see the module doc for the conditions, checked in order.
 */
export function proveClaudeAllows(facts: ClaudePermissionFacts): PermissionProof {
  const mode = facts.permissionMode;
  if (mode === undefined || (!MODES_WITH_RULES.has(mode) && mode !== "bypassPermissions")) {
    return { proven: false, reason: `permission-mode:${mode ?? "unknown"}` };
  }
  if (facts.hostArgv === undefined) return { proven: false, reason: "host-not-found" };
  const flag = facts.hostArgv.find((arg) =>
    OPAQUE_FLAGS.some((name) => arg === name || arg.startsWith(`${name}=`))
  );
  if (flag !== undefined) return { proven: false, reason: `host-flag:${flag.split("=")[0]}` };
  if (/[\n\r]/.test(facts.command)) return { proven: false, reason: "multi-line" };
  const read: { file: SettingsFile; rules: ClaudeRules }[] = [];
  for (const file of facts.files) {
    if (file.text === undefined) continue;
    const rules = readClaudeRules(file.text);
    if ("error" in rules) return { proven: false, reason: "unreadable-settings" };
    read.push({ file, rules });
  }
  for (const { rules } of read) {
    for (const rule of [...rules.deny, ...rules.ask]) {
      if (mayMatch(rule, facts.command) || mayMatch(rule, facts.wrapper)) {
        return { proven: false, reason: "ask-or-deny-rule" };
      }
    }
  }
  if (mode === "bypassPermissions") return { proven: true, by: "bypassPermissions" };
  const managedOnly = read.some(({ file, rules }) => file.scope === "managed" && rules.managedOnly);
  for (const { file, rules } of read) {
    if (file.scope === "nearby" || (managedOnly && file.scope !== "managed")) continue;
    const rule = rules.allow.find((candidate) => surelyAllows(candidate, facts.command));
    if (rule !== undefined) return { proven: true, by: rule };
  }
  return { proven: false, reason: "no-allow-rule" };
}
