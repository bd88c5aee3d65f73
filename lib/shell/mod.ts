/**
 * The shell parser: one conservative parser for simple commands, chains and
 * pipelines (docs/architecture.md, "Parser"). `loadShellParser` starts the tree-sitter runtime
 * once per process; its `parse` returns the shell model or one rejection
 * reason, and its `census` the fixed syntax ids of a source (offline
 * analysis). Neither throws, executes, expands or resolves anything.
 * Commands that only parse import `parser.ts` (the same parser without the
 * census) instead, so they load neither the census nor the planner.
 *
 * @module
 */
import { censusTree, type SyntaxCensus } from "./census.ts";
import { loadShellTreeParser, type ShellSourceParser } from "./parser.ts";

export type { ShellSourceParser } from "./parser.ts";

export { SYNTAX_IDS, type SyntaxCensus, type SyntaxId } from "./census.ts";
export type * from "./model.ts";
export { SHELL_LIMITS } from "./model.ts";
export { acceptTree, precheckSource } from "./parse.ts";
export {
  combineStates,
  effectiveRule,
  hasExactStage,
  hasStageDiagnostics,
  type OutputState,
  type PlanOutcome,
  type PlanReason,
  planResult,
  reducerFamily,
  type ResultPlan,
  type StatusConfidence,
  type TypedOutput,
} from "./plan.ts";
export { decodeBareWord, decodeDoubleQuoted, type WordDecode } from "./words.ts";
export {
  assignmentEffect,
  frontEndOperand,
  isActivateScript,
  peelWrappers,
  shellScriptOperand,
  type StageFormReason,
} from "./stage_forms.ts";
export { lexicalProgramName, programNameOf, publicProgramName } from "./program_name.ts";

/**
 * A ready parser: both methods are synchronous, total and never throw. The
 * last source's model is kept (it is read-only data), so asking `parse`
 * again for that source, or after `census` of it, does not parse again.
 */
export interface ShellParser extends ShellSourceParser {
  /**
   * The syntax ids present anywhere in `source` and `parse(source)`'s
   * verdict, from one tree-sitter parse. No features for an empty source, a
   * NUL byte, a source over the byte limit or a tree over the node limit.
   * Never holds command text.
   */
  census(source: string): SyntaxCensus;
}

/**
 * Starts the tree-sitter runtime and bash grammar (once per process) and
 * returns a parser. When the runtime cannot start, the parser rejects every
 * source with `parser-unavailable`; this function never rejects.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadShellParser } from "./mod.ts";
 * const parser = await loadShellParser();
 * const parsed = parser.parse("git diff --stat");
 * assert.ok(parsed.ok && parsed.program.lists[0].pipelines[0].stages[0].words.length === 3);
 * assert.deepEqual(parser.parse("echo $HOME"), { ok: false, reason: "expansion" });
 * assert.deepEqual(parser.census("echo $HOME && ls"), {
 *   features: ["and-chain", "parameter-expansion"],
 *   parse: "expansion",
 * });
 * ```
 */
export async function loadShellParser(): Promise<ShellParser> {
  const parser = await loadShellTreeParser();
  return {
    parse: parser.parse,
    parseOpaque: parser.parseOpaque,
    census: (source) =>
      parser.readTree(
        source,
        (root, parsed) => censusTree(source, root, parsed),
        (reason) => ({ features: [], parse: reason }),
      ),
  };
}
