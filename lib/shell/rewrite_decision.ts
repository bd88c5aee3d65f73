/**
 * The rewrite decision (docs/architecture.md, "Shell source checks", "Rewrite and run
 * agreement"): shell source that is one simple command selected by exactly
 * one reduction rule becomes `yarp run --expect-rule ID -- ARGV…`; anything
 * else stays as written, with a stable reason code. Shared by `yarp rewrite`
 * and the corpus analysis, which replays the runner path for rewritten
 * commands.
 *
 * @module
 */
import type { RuleRegistry } from "../rules/registry.ts";
import { RENAMED_PROGRAM_FORMS } from "../rules/program_alias.ts";
import type { ShellSourceParser } from "./parser.ts";

/** Why `rewrite` did or did not print a wrapper; stable codes, never command text. */
export type RewriteReason =
  | "rewritten"
  | "not-simple-command"
  | "redirect"
  | "assignment"
  | "guarded"
  | "ambiguous"
  | "transform-only"
  | "unknown-program"
  | "no-rule-matched"
  | "no-program"
  | "invalid-pack"
  | "source-too-large"
  | `parse:${string}`;

/** The decision for one source. */
export interface RewriteDecision {
  readonly rewrite: boolean;
  readonly reason: RewriteReason;
  readonly rule?: string;
  /** The wrapper command line (without a newline) when `rewrite`. */
  readonly command?: string;
  /** The child's argv the wrapper runs, when `rewrite`. */
  readonly argv?: readonly string[];
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Quotes `word` so that bash reads it back as exactly `word`: safe words
 * stay bare, everything else is single-quoted with `'\''` for a quote.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shellQuote } from "./rewrite_decision.ts";
 * assert.equal(shellQuote("--stat"), "--stat");
 * assert.equal(shellQuote("it's a b"), "'it'\\''s a b'");
 * assert.equal(shellQuote(""), "''");
 * ```
 */
export function shellQuote(word: string): string {
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Decides the rewrite for `source` with a parser and a rule registry
 * already loaded; a `host` goes into the wrapper as `--host HOST` (who runs
 * it, for `yarp gain`). Pure apart from the parser's own state; never throws.
 */
export function decideRewrite(
  source: string,
  parser: ShellSourceParser,
  registry: RuleRegistry,
  packs: readonly { readonly path: string; readonly digest: string }[],
  host?: string,
): RewriteDecision {
  const parsed = parser.parse(source);
  if (!parsed.ok) {
    return { rewrite: false, reason: `parse:${parsed.reason}` };
  }
  const lists = parsed.program.lists;
  const pipelines = lists.length === 1 ? lists[0].pipelines : [];
  const stages = pipelines.length === 1 ? pipelines[0].stages : [];
  if (stages.length !== 1) return { rewrite: false, reason: "not-simple-command" };
  const command = stages[0];
  if (command.redirects.length > 0) return { rewrite: false, reason: "redirect" };
  // `NAME=value cmd` would lose its environment in a wrapper: only result-reduce plans it.
  if (command.assignments !== undefined) return { rewrite: false, reason: "assignment" };
  const argv = command.words.map((word) => word.text);
  const selection = registry.select(argv);
  switch (selection.outcome) {
    case "reduce": {
      const id = selection.match.rule.id;
      const words = ["yarp", "run", ...(host === undefined ? [] : ["--host", host])];
      words.push("--expect-rule", id);
      for (const pack of packs) words.push("--rule-pack", pack.path, "--pack-digest", pack.digest);
      words.push("--", ...argv);
      return {
        rewrite: true,
        reason: "rewritten",
        rule: id,
        command: words.map(shellQuote).join(" "),
        argv,
      };
    }
    case "transform":
      return { rewrite: false, reason: "transform-only", rule: selection.match.rule.id };
    case "guarded":
      return { rewrite: false, reason: "guarded", rule: selection.guards[0].rule.id };
    case "ambiguous":
      return { rewrite: false, reason: "ambiguous" };
    case "unsupported":
      return { rewrite: false, reason: selection.reason };
    case "invalid-pack":
      return { rewrite: false, reason: "invalid-pack" };
  }
}

/**
 * What a caller needs to know, without a parser, that {@link decideRewrite}
 * cannot wrap a source: a rewrite needs a simple command whose literal
 * argv[0] names a rule program, so a source whose first word is a plain
 * literal (no quote, expansion, `=` or `/`, and no reserved word) that is
 * neither among `programs` nor matched by a pattern in `patterns` is never
 * rewritten (`yarp rewrite --lead-words`; the Pi extension skips such
 * sources without starting YARP).
 */
export interface RewriteLeadWords {
  /** Every program name a rule of the registry is filed under, sorted. */
  readonly programs: readonly string[];
  /** Regular-expression sources of argv[0] forms renamed to a rule program (`go1.22.0`). */
  readonly patterns: readonly string[];
}

/**
 * The {@link RewriteLeadWords} of `registry`. Pure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinRuleSource, createRuleRegistry } from "../rules/registry.ts";
 * import { rewriteLeadWords } from "./rewrite_decision.ts";
 * const words = rewriteLeadWords(createRuleRegistry([builtinRuleSource()]));
 * assert.ok(words.programs.includes("git") && !words.programs.includes("seq"));
 * assert.ok(words.patterns.some((source) => new RegExp(source).test("go1.22.0")));
 * ```
 */
export function rewriteLeadWords(registry: RuleRegistry): RewriteLeadWords {
  return {
    programs: registry.programs(),
    patterns: RENAMED_PROGRAM_FORMS.map((form) => form.source),
  };
}
