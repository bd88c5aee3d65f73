/**
 * Editing YARP's entries in a host's hook settings (`yarp setup`;
 * docs/hosts.md, "Install"). Claude Code's `settings.json` and Codex's
 * `hooks.json` hold hooks the same way:
 *
 * ```json
 * {"hooks": {"PreToolUse": [{"matcher": "Bash",
 *   "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}
 * ```
 *
 * so one pure editor serves both: it adds YARP's group to each event list,
 * or removes exactly the hook entries whose command is a YARP hook command
 * for that host (`… hook claude-code`), dropping a group, event list or
 * `hooks` object only when YARP's removal emptied it. Every other key,
 * hook and setting stays, in its order; the text is written back with the
 * file's own indentation and final newline. Idempotent: installing what is
 * installed changes nothing.
 *
 * Gemini CLI's `settings.json` holds them the same way, with the shell
 * tool's name `run_shell_command` as matcher and the timeout in
 * milliseconds.
 *
 * Codex's hooks go in `hooks.json` (JSON) rather than `[hooks]` in
 * `config.toml`: Codex reads both (HOSTS-E2E.md), and a JSON file can be
 * rewritten without the risk of losing a TOML file's comments and layout.
 *
 * Refused (one line, nothing written): text that is not strict JSON
 * (duplicate keys included: a rewrite would silently drop one), a top level
 * that is not an object, and a `hooks` value or event list of the wrong
 * shape.
 *
 * @module
 */
import { parseStrictJson } from "../rules/strict_json.ts";
import { formatDiagnostic } from "../rules/diagnostics.ts";
import { isObject } from "./session.ts";

/** A host `yarp setup` installs into. */
export type SetupHost = "claude-code" | "codex" | "gemini";

/** The events YARP hooks, per host: no `PostToolUseFailure` (its output cannot be replaced). */
export const HOOK_EVENTS: Readonly<Record<SetupHost, readonly string[]>> = {
  "claude-code": ["PreToolUse", "PostToolUse"],
  codex: ["PreToolUse", "PostToolUse"],
  // Gemini CLI's AfterTool answer cannot replace the output (lib/hosts/gemini/hook.ts).
  gemini: ["BeforeTool"],
};

/** The tool matcher of YARP's hook group: the shell tool's name, per host. */
const SHELL_MATCHER: Readonly<Record<SetupHost, string>> = {
  "claude-code": "Bash",
  codex: "Bash",
  gemini: "run_shell_command",
};

/** How a host reads a hook's `timeout`: seconds, or milliseconds for Gemini CLI. */
const TIMEOUT_UNIT: Readonly<Record<SetupHost, number>> = {
  "claude-code": 1,
  codex: 1,
  gemini: 1000,
};

/** Seconds a host waits for YARP's hook (YARP bounds itself well below). */
export const HOOK_TIMEOUT_SECONDS = 30;

/**
 * What follows `hook gemini` in Gemini CLI's hook command. Gemini reads a
 * hook that exits with a status other than 0 or 1 and prints anything as
 * "deny" (a missing YARP, status 127 and the shell's message, blocked every
 * shell call): the shell's message is dropped and the status made 0, so a
 * broken or missing YARP lets the call run untouched.
 */
const GEMINI_FAIL_OPEN = " 2>/dev/null || true";

/**
 * The command a host runs for YARP's hook: this YARP's invocation, then
 * `hook HOST` (for Gemini CLI followed by what makes a failure pass).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { hookCommandLine } from "./hook_settings.ts";
 * equal(hookCommandLine("/y/bin/yarp", "codex"), "/y/bin/yarp hook codex");
 * equal(hookCommandLine("/y/bin/yarp", "gemini"), "/y/bin/yarp hook gemini 2>/dev/null || true");
 * ```
 */
export function hookCommandLine(invocation: string, host: SetupHost): string {
  return `${invocation} hook ${host}${host === "gemini" ? GEMINI_FAIL_OPEN : ""}`;
}

/**
 * The YARP invocation a hook command for `host` starts (what precedes
 * ` hook HOST`), or undefined when `command` is not a YARP hook command for
 * `host` (see {@link isYarpHookCommand}).
 */
export function hookInvocation(command: unknown, host: SetupHost): string | undefined {
  if (typeof command !== "string") return undefined;
  let line = command.trimEnd();
  if (host === "gemini" && line.endsWith(GEMINI_FAIL_OPEN)) {
    line = line.slice(0, -GEMINI_FAIL_OPEN.length).trimEnd();
  }
  const suffix = ` hook ${host}`;
  if (!line.endsWith(suffix)) return undefined;
  const invocation = line.slice(0, -suffix.length);
  return /(?:^|[\/\s'"])yarp(?:\.js)?['"]?$/.test(invocation) ? invocation : undefined;
}

/**
 * True when `command` is a YARP hook command for `host`: it ends with
 * ` hook HOST` (for Gemini CLI, optionally followed by ` 2>/dev/null || true`) and what precedes names a `yarp` (a path, a compiled binary
 * or the single-file `yarp.js`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { isYarpHookCommand } from "./hook_settings.ts";
 * equal(isYarpHookCommand("/opt/yarp/bin/yarp hook codex", "codex"), true);
 * equal(isYarpHookCommand("/opt/yarp/bin/yarp hook codex", "claude-code"), false);
 * equal(isYarpHookCommand("rtk hook claude-code", "claude-code"), false);
 * ```
 */
export function isYarpHookCommand(command: unknown, host: SetupHost): boolean {
  return hookInvocation(command, host) !== undefined;
}

/** The parsed settings and the formatting to write them back with. */
interface ParsedSettings {
  readonly root: Record<string, unknown>;
  readonly indent: string | number;
  readonly finalNewline: boolean;
}

function parseSettings(file: string, text: string | undefined): ParsedSettings | { error: string } {
  if (text === undefined || text.trim() === "") {
    return { root: {}, indent: 2, finalNewline: true };
  }
  const strict = parseStrictJson(file, text);
  if (!strict.ok || strict.reader.diagnostics.length > 0) {
    const diagnostics = strict.ok ? strict.reader.diagnostics : strict.diagnostics;
    return { error: formatDiagnostic(diagnostics[0]) };
  }
  const root = JSON.parse(text) as unknown;
  if (!isObject(root)) return { error: `${file}: the top level is not a JSON object` };
  const hooks = root.hooks;
  if (hooks !== undefined && !isObject(hooks)) return { error: `${file}: /hooks is not an object` };
  for (const [event, groups] of Object.entries(hooks ?? {})) {
    if (!Array.isArray(groups) || !groups.every(isObject)) {
      return { error: `${file}: /hooks/${event} is not a list of objects` };
    }
    for (const [index, group] of groups.entries()) {
      if (group.hooks !== undefined && !Array.isArray(group.hooks)) {
        return { error: `${file}: /hooks/${event}/${index}/hooks is not a list` };
      }
    }
  }
  const indentMatch = /\n([ \t]+)"/.exec(text);
  return {
    root,
    indent: indentMatch === null ? 2 : indentMatch[1],
    finalNewline: text.endsWith("\n"),
  };
}

/** The outcome of an edit: the new text (equal to the old when nothing changed) and what changed. */
export interface SettingsEdit {
  readonly text: string;
  readonly changed: boolean;
  /** Events YARP's hook was added to. */
  readonly added: readonly string[];
  /** YARP hook entries removed (an install removes old ones first, a reinstall replaces them). */
  readonly removed: number;
}

type Group = Record<string, unknown> & { hooks?: unknown[] };

/** `root` without YARP's hook entries for `host`; counts what went. */
function withoutYarp(root: Record<string, unknown>, host: SetupHost): {
  root: Record<string, unknown>;
  removed: number;
} {
  if (!isObject(root.hooks)) return { root, removed: 0 };
  let removed = 0;
  // Built from entries (never by assignment), so a key such as `__proto__` stays a plain key.
  const hookEntries: [string, unknown][] = [];
  for (const [event, groups] of Object.entries(root.hooks)) {
    const kept: Group[] = [];
    let emptied = false;
    for (const group of groups as Group[]) {
      if (!Array.isArray(group.hooks)) {
        kept.push(group);
        continue;
      }
      const entries = group.hooks.filter((hook) =>
        !(isObject(hook) && isYarpHookCommand(hook.command, host))
      );
      removed += group.hooks.length - entries.length;
      if (entries.length === group.hooks.length) kept.push(group);
      else if (entries.length > 0) kept.push({ ...group, hooks: entries });
      else emptied = true;
    }
    if (kept.length > 0 || !emptied) hookEntries.push([event, kept]);
  }
  const keepHooks = hookEntries.length > 0 || Object.keys(root.hooks).length === 0;
  const next = Object.fromEntries(
    Object.entries(root).flatMap(([key, value]): [string, unknown][] =>
      key !== "hooks" ? [[key, value]] : keepHooks ? [[key, Object.fromEntries(hookEntries)]] : []
    ),
  );
  return { root: next, removed };
}

function render(parsed: ParsedSettings, root: Record<string, unknown>): string {
  return JSON.stringify(root, null, parsed.indent) + (parsed.finalNewline ? "\n" : "");
}

/**
 * Installs YARP's hooks for `host` running `invocation` into a settings
 * text (`undefined` for a file that does not exist yet), or removes them
 * when `invocation` is undefined. `file` names the file in an error line.
 *
 * @example
 * ```ts
 * import { equal, deepEqual } from "node:assert/strict";
 * import { editHookSettings } from "./hook_settings.ts";
 * const text = '{\n  "model": "opus"\n}\n';
 * const installed = editHookSettings("s.json", text, "claude-code", "/y/bin/yarp");
 * if ("error" in installed) throw new Error(installed.error);
 * deepEqual(installed.added, ["PreToolUse", "PostToolUse"]);
 * const again = editHookSettings("s.json", installed.text, "claude-code", "/y/bin/yarp");
 * equal("error" in again ? again.error : again.changed, false);
 * const removed = editHookSettings("s.json", installed.text, "claude-code", undefined);
 * equal("error" in removed ? removed.error : removed.text, text);
 * ```
 */
export function editHookSettings(
  file: string,
  text: string | undefined,
  host: SetupHost,
  invocation: string | undefined,
): SettingsEdit | { error: string } {
  const parsed = parseSettings(file, text);
  if ("error" in parsed) return parsed;
  const { root, removed } = withoutYarp(parsed.root, host);
  let next = root;
  const added: string[] = [];
  if (invocation !== undefined) {
    const hooks: Record<string, unknown> = isObject(next.hooks) ? { ...next.hooks } : {};
    for (const event of HOOK_EVENTS[host]) {
      const groups = Array.isArray(hooks[event]) ? hooks[event] as unknown[] : [];
      hooks[event] = [...groups, {
        matcher: SHELL_MATCHER[host],
        hooks: [{
          type: "command",
          command: hookCommandLine(invocation, host),
          timeout: HOOK_TIMEOUT_SECONDS * TIMEOUT_UNIT[host],
        }],
      }];
      added.push(event);
    }
    next = { ...next, hooks };
  }
  const rendered = render(parsed, next);
  // Unchanged when the same entries were replaced by themselves, or there was nothing to remove.
  const same = text !== undefined &&
    JSON.stringify(JSON.parse(text.trim() === "" ? "{}" : text)) === JSON.stringify(next);
  if (same) return { text: text ?? "", changed: false, added: [], removed: 0 };
  return { text: rendered, changed: true, added, removed };
}

/**
 * The YARP hook commands for `host` in a settings text, by event, or one
 * error line. An absent file has none.
 */
export function installedHookCommands(
  file: string,
  text: string | undefined,
  host: SetupHost,
): { event: string; command: string }[] | { error: string } {
  const parsed = parseSettings(file, text);
  if ("error" in parsed) return parsed;
  const found: { event: string; command: string }[] = [];
  const hooks = parsed.root.hooks;
  if (!isObject(hooks)) return found;
  for (const [event, groups] of Object.entries(hooks)) {
    for (const group of groups as Group[]) {
      for (const hook of Array.isArray(group.hooks) ? group.hooks : []) {
        if (isObject(hook) && isYarpHookCommand(hook.command, host)) {
          found.push({ event, command: String(hook.command) });
        }
      }
    }
  }
  return found;
}

/** Where a scope's settings file is; `env` reads variables, `cwd` is the project root. */
export function hookSettingsPath(
  host: SetupHost,
  scope: "user" | "project",
  env: (name: string) => string | undefined,
  cwd: string,
): string | { error: string } {
  if (host === "gemini") return geminiSettingsPath(scope, env, cwd);
  if (scope === "project") {
    return host === "claude-code"
      ? `${cwd}/.claude/settings.local.json`
      : `${cwd}/.codex/hooks.json`;
  }
  const variable = host === "claude-code" ? "CLAUDE_CONFIG_DIR" : "CODEX_HOME";
  const configured = env(variable);
  if (configured !== undefined && configured.startsWith("/")) {
    return `${configured.replace(/\/+$/, "")}/${
      host === "claude-code" ? "settings.json" : "hooks.json"
    }`;
  }
  const home = env("HOME");
  if (home === undefined || !home.startsWith("/")) {
    return { error: `no home directory (set HOME or ${variable})` };
  }
  return `${home.replace(/\/+$/, "")}/${
    host === "claude-code" ? ".claude/settings.json" : ".codex/hooks.json"
  }`;
}

/** Gemini CLI's settings file: `./.gemini/settings.json` (project) or `~/.gemini/settings.json` (user). */
function geminiSettingsPath(
  scope: "user" | "project",
  env: (name: string) => string | undefined,
  cwd: string,
): string | { error: string } {
  if (scope === "project") return `${cwd}/.gemini/settings.json`;
  const home = env("HOME");
  if (home === undefined || !home.startsWith("/")) return { error: "no home directory (set HOME)" };
  return `${home.replace(/\/+$/, "")}/.gemini/settings.json`;
}
