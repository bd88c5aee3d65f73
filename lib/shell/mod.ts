/**
 * The shell parser: one conservative parser for simple commands, chains and
 * pipelines (seed 001). `loadShellParser` starts the tree-sitter runtime
 * once per process; its `parse` returns the shell model or one rejection
 * reason and never throws, executes, expands or resolves anything.
 *
 * @module
 */
import type { ShellParse } from "./model.ts";
import { acceptTree, precheckSource } from "./parse.ts";

export type * from "./model.ts";
export { SHELL_LIMITS } from "./model.ts";
export { acceptTree, precheckSource } from "./parse.ts";
export {
  combineStates,
  effectiveRule,
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

/** A ready parser: `parse` is synchronous, total and never throws. */
export interface ShellParser {
  parse(source: string): ShellParse;
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
 * ```
 */
export async function loadShellParser(): Promise<ShellParser> {
  let tree: Awaited<ReturnType<typeof import("./_runtime.ts").loadBashTreeParser>>;
  try {
    tree = await (await import("./_runtime.ts")).loadBashTreeParser();
  } catch {
    return { parse: () => ({ ok: false, reason: "parser-unavailable" }) };
  }
  return {
    parse(source: string): ShellParse {
      const early = precheckSource(source);
      if (early !== undefined) return { ok: false, reason: early };
      let parsed;
      try {
        parsed = tree.parse(source);
      } catch {
        return { ok: false, reason: "parser-unavailable" };
      }
      if (parsed === null) return { ok: false, reason: "parser-unavailable" };
      try {
        return acceptTree(source, parsed.rootNode);
      } finally {
        parsed.delete();
      }
    },
  };
}
