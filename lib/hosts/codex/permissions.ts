/**
 * Whether YARP may wrap a shell command in Codex without changing what the
 * user's approval policy, sandbox and rules decide (docs/hosts.md,
 * "Permissions"). Pure over the host's argv and the rules files' texts.
 *
 * Codex applies a rewrite only with `permissionDecision:"allow"`, and then
 * evaluates its execpolicy rules (`prefix_rule(pattern=[…],
 * decision="allow"|"prompt"|"forbidden")`) against the wrapper's text, runs
 * the wrapper in its sandbox (where YARP could not write its archive) and
 * asks for approval by its own policy. YARP can prove "unchanged" only in
 * the one configuration where neither a sandbox nor an approval applies and
 * no rule concerns either command:
 *
 * 1. Codex's command line was found and carries
 *    `--dangerously-bypass-approvals-and-sandbox` (or `--yolo`);
 * 2. every rules file reads as `prefix_rule(…)` calls with literal
 *    arguments only (anything else is no proof);
 * 3. no rule's literals name the command's program or the wrapper's (so no
 *    rule could match either, whatever its decision).
 *
 * Everywhere else the command runs untouched and only the result path
 * applies. Known miss: an approval policy and sandbox that a config file
 * sets to the same effect are not read, so YARP wraps less, never more.
 *
 * @module
 */
import { baseName, type PermissionProof } from "../hook.ts";

/** What the proof looks at. */
export interface CodexPermissionFacts {
  /** The first word of the original command, as bash reads it. */
  readonly program: string;
  /** The wrapper's first word (the YARP binary). */
  readonly wrapperProgram: string;
  /** Codex's argv, or undefined when it could not be found. */
  readonly hostArgv: readonly string[] | undefined;
  /** The text of every execpolicy rules file Codex may read. */
  readonly rulesFiles: readonly string[];
}

const BYPASS = new Set(["--dangerously-bypass-approvals-and-sandbox", "--yolo"]);

/** True when `argv` is Codex's process: the native `codex` binary or its Node launcher. */
export function isCodexProcess(argv: readonly string[]): boolean {
  return argv.slice(0, 2).some((word) => {
    const name = baseName(word);
    return name === "codex" || (name === "codex.js" && word.includes("codex"));
  });
}

const LITERAL = /"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'/g;
/** What may remain of a rules file once literals and comments are gone: prefix_rule calls only. */
const RULES_SHAPE =
  /^(?:\s|prefix_rule|pattern|decision|justification|match|not_match|[()[\],=]|True|False)*$/;

/**
 * The string literals of a rules file, or undefined when the file is not
 * only `prefix_rule(…)` calls with literal arguments.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { rulesLiterals } from "./permissions.ts";
 * deepEqual(rulesLiterals('prefix_rule(pattern=["rm"], decision="forbidden")  # no rm\n'), [
 *   "rm", "forbidden",
 * ]);
 * equal(rulesLiterals('X = ["rm"]\nprefix_rule(pattern=X)'), undefined);
 * ```
 */
export function rulesLiterals(text: string): string[] | undefined {
  const literals: string[] = [];
  const rest = text.replace(LITERAL, (_all, double?: string, single?: string) => {
    literals.push(double ?? single ?? "");
    return " ";
  }).replace(/#[^\n]*/g, " ");
  return RULES_SHAPE.test(rest) ? literals : undefined;
}

/** Proves (or not) that wrapping changes nothing Codex decides; see the module doc. */
export function proveCodexUnchanged(facts: CodexPermissionFacts): PermissionProof {
  if (facts.hostArgv === undefined) return { proven: false, reason: "host-not-found" };
  if (!facts.hostArgv.some((arg) => BYPASS.has(arg))) {
    return { proven: false, reason: "approvals-or-sandbox" };
  }
  const names = new Set(
    [facts.program, facts.wrapperProgram].flatMap((word) => [word, baseName(word)]),
  );
  for (const text of facts.rulesFiles) {
    const literals = rulesLiterals(text);
    if (literals === undefined) return { proven: false, reason: "unreadable-rules" };
    if (literals.some((literal) => names.has(literal) || names.has(baseName(literal)))) {
      return { proven: false, reason: "rule-may-match" };
    }
  }
  return { proven: true, by: "--dangerously-bypass-approvals-and-sandbox" };
}
