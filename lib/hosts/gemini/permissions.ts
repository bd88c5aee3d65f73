/**
 * Whether YARP may wrap a shell command in Gemini CLI without changing what
 * the user's approval mode and policy rules decide (docs/hosts.md,
 * "Permissions"). Pure over the host's argv and the rule files' texts.
 *
 * Gemini CLI 0.61.0 runs `BeforeTool` hooks first and then checks its
 * policy engine against the rewritten arguments (source:
 * `Scheduler._processToolCall`); a hook has no "allow" to give. So a
 * wrapper `yarp run … -- git log` would meet rules written for `git`
 * differently: an allow rule for `git` no longer matches (Gemini would ask,
 * or deny in `-p`), a deny or ask rule for `git` is escaped. YARP can prove
 * "unchanged" only where the outcome does not depend on the command text:
 *
 * 1. Gemini's command line was found and runs in YOLO mode (`--yolo`, `-y`,
 *    `--approval-mode yolo` or `--approval-mode=yolo`), where the built-in
 *    policy allows every tool call;
 * 2. no rule text (policy `.toml` files of the user, the workspace and the
 *    system; the settings files' values outside `hooks`) uses
 *    `commandRegex` or `argsPattern` (a pattern may match any text) or
 *    names the command's program or the wrapper's as a word.
 *
 * Everywhere else the command runs untouched. Known miss: YOLO set in a
 * settings file (`general.defaultApprovalMode`) is not read, so YARP wraps
 * less, never more.
 *
 * @module
 */
import { baseName, type PermissionProof } from "../hook.ts";
import { isObject } from "../session.ts";

/** What the proof looks at. */
export interface GeminiPermissionFacts {
  /** The first word of the original command, as bash reads it. */
  readonly program: string;
  /** The wrapper's first word (the YARP binary). */
  readonly wrapperProgram: string;
  /** Gemini's argv, or undefined when it could not be found. */
  readonly hostArgv: readonly string[] | undefined;
  /** The text of every policy `.toml` file Gemini may read. */
  readonly policyFiles: readonly string[];
  /** The text of every settings file Gemini may read (JSON; `""` for one that could not be read). */
  readonly settingsFiles: readonly string[];
}

/** True when `argv` is Gemini CLI's process: `gemini` or its bundled `gemini.js` among its first words. */
export function isGeminiProcess(argv: readonly string[]): boolean {
  return argv.slice(0, 2).some((word) => {
    const name = baseName(word);
    return name === "gemini" || (name === "gemini.js" && word.includes("gemini"));
  });
}

/**
 * True when Gemini's argv turns on YOLO mode.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { isYoloArgv } from "./permissions.ts";
 * equal(isYoloArgv(["node", "gemini.js", "-p", "x", "--approval-mode", "yolo"]), true);
 * equal(isYoloArgv(["gemini", "--approval-mode=auto_edit"]), false);
 * ```
 */
export function isYoloArgv(argv: readonly string[]): boolean {
  return argv.some((word, index) =>
    word === "--yolo" || word === "-y" || word === "--approval-mode=yolo" ||
    (word === "--approval-mode" && argv[index + 1] === "yolo")
  );
}

/** A settings text without its `hooks` (YARP's own entry names the wrapper), or undefined when it is not a JSON object. */
function settingsRules(text: string): string | undefined {
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  return JSON.stringify(
    Object.fromEntries(Object.entries(value).filter(([key]) => key !== "hooks")),
  );
}

/** True when `text` holds `name` as a word (not inside a longer name or path). */
function namesWord(text: string, name: string): boolean {
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = text.charAt(at - 1);
    const after = text.charAt(at + name.length);
    if (!/[\w.-]/.test(before) && !/[\w.-]/.test(after)) return true;
  }
  return false;
}

/**
 * Proves (or not) that wrapping changes nothing Gemini decides; see the
 * module doc.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { proveGeminiUnchanged } from "./permissions.ts";
 * const facts = {
 *   program: "git", wrapperProgram: "/y/bin/yarp", hostArgv: ["gemini", "--yolo"],
 *   policyFiles: [], settingsFiles: [],
 * };
 * deepEqual(proveGeminiUnchanged(facts), { proven: true, by: "YOLO mode" });
 * deepEqual(
 *   proveGeminiUnchanged({ ...facts, policyFiles: ['commandPrefix = "git push"'] }),
 *   { proven: false, reason: "rule-may-match" },
 * );
 * ```
 */
export function proveGeminiUnchanged(facts: GeminiPermissionFacts): PermissionProof {
  if (facts.hostArgv === undefined) return { proven: false, reason: "host-not-found" };
  if (!isYoloArgv(facts.hostArgv)) return { proven: false, reason: "not-yolo" };
  const texts: string[] = [...facts.policyFiles];
  for (const text of facts.settingsFiles) {
    const rules = settingsRules(text);
    if (rules === undefined) return { proven: false, reason: "unreadable-settings" };
    texts.push(rules);
  }
  const names = [
    ...new Set([facts.program, facts.wrapperProgram].flatMap((word) => [word, baseName(word)])),
  ].filter((name) => name !== "");
  for (const text of texts) {
    if (/commandRegex|argsPattern/.test(text)) return { proven: false, reason: "pattern-rule" };
    if (names.some((name) => namesWord(text, name))) {
      return { proven: false, reason: "rule-may-match" };
    }
  }
  return { proven: true, by: "YOLO mode" };
}
