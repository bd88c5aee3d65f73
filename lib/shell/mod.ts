/**
 * The shell parser: one conservative parser for simple commands, chains and
 * pipelines (seed 001). `loadShellParser` starts the tree-sitter runtime
 * once per process; its `parse` returns the shell model or one rejection
 * reason, and its `census` the fixed syntax ids of a source (offline
 * analysis). Neither throws, executes, expands or resolves anything.
 *
 * @module
 */
import { censusTree, type SyntaxCensus } from "./census.ts";
import type { ShellParse, ShellProgram, ShellRejectReason } from "./model.ts";
import { shellScriptOperand } from "./stage_forms.ts";
import { acceptTree, precheckSource } from "./parse.ts";
import type { BashNode, BashParser } from "./bash_parser.ts";

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

/** How deep `bash -c 'bash -c …'` nests before the parser refuses it (`too-deep`). */
const NESTED_SHELL_DEPTH = 3;

/**
 * `program` with every `bash -c 'LITERAL'` stage ({@link shellScriptOperand})
 * carrying the literal's accepted program as `nested`; the first literal
 * that `parseScript` rejects rejects the whole source with its reason.
 */
function attachNested(
  program: ShellProgram,
  parseScript: (script: string) => ShellParse,
): ShellParse {
  let rejected: ShellParse | undefined;
  const lists = program.lists.map((list) => ({
    ...list,
    pipelines: list.pipelines.map((pipeline) => ({
      ...pipeline,
      stages: pipeline.stages.map((stage) => {
        if (rejected !== undefined) return stage;
        const script = shellScriptOperand(stage.words.map((word) => word.text));
        if (script === undefined) return stage;
        const inner = parseScript(script);
        if (!inner.ok) {
          rejected = inner;
          return stage;
        }
        return { ...stage, nested: inner.program };
      }),
    })),
  }));
  return rejected ?? { ok: true, program: { lists } };
}

/**
 * A ready parser: both methods are synchronous, total and never throw. The
 * last source's model is kept (it is read-only data), so asking `parse`
 * again for that source, or after `census` of it, does not parse again.
 */
export interface ShellParser {
  /** The shell model of `source`, or one rejection reason. */
  parse(source: string): ShellParse;
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
  let tree: BashParser;
  try {
    tree = await (await import("./_runtime.ts")).loadBashTreeParser();
  } catch {
    return {
      parse: () => ({ ok: false, reason: "parser-unavailable" }),
      census: () => ({ features: [], parse: "parser-unavailable" }),
    };
  }
  /** Reads the tree of `source` with `read`, or hands `refuse` the reason there is none. */
  const withTree = <T>(
    source: string,
    read: (root: BashNode) => T,
    refuse: (reason: ShellRejectReason) => T,
  ): T => {
    const early = precheckSource(source);
    if (early !== undefined) return refuse(early);
    let parsed;
    try {
      parsed = tree.parse(source);
    } catch {
      return refuse("parser-unavailable");
    }
    if (parsed === null) return refuse("parser-unavailable");
    return read(parsed.rootNode);
  };
  let lastSource: string | undefined;
  let lastParse: ShellParse = { ok: false, reason: "parser-unavailable" };
  /** `parsed`, remembered as the model of `source`. */
  const remember = (source: string, parsed: ShellParse): ShellParse => {
    lastSource = source;
    lastParse = parsed;
    return parsed;
  };
  const refused = (reason: ShellRejectReason): ShellParse => ({ ok: false, reason });
  /** `source` parsed, with the literal scripts of `bash -c` stages parsed as nested programs. */
  const parseNested = (source: string, depth: number): ShellParse => {
    const parsed = withTree(source, (root) => acceptTree(source, root), refused);
    return parsed.ok
      ? attachNested(
        parsed.program,
        (script) =>
          depth >= NESTED_SHELL_DEPTH ? refused("too-deep") : parseNested(script, depth + 1),
      )
      : parsed;
  };
  const accept = (source: string, root: BashNode): ShellParse => {
    const parsed = acceptTree(source, root);
    return parsed.ok ? attachNested(parsed.program, (script) => parseNested(script, 1)) : parsed;
  };
  return {
    parse: (source) =>
      source === lastSource ? lastParse : remember(
        source,
        withTree(source, (root) => accept(source, root), refused),
      ),
    census: (source) =>
      withTree(
        source,
        (root) => censusTree(source, root, remember(source, accept(source, root))),
        (reason) => {
          remember(source, refused(reason));
          return { features: [], parse: reason };
        },
      ),
  };
}
