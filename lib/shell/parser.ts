/**
 * The shell parser without the census: `loadShellTreeParser` starts the
 * tree-sitter runtime once per process and returns `parse` (the shell model
 * or one rejection reason) and `readTree`, which hands one parse's tree and
 * model to a reader (mod.ts's census). `yarp rewrite` and `yarp
 * result-reduce` import this module rather than mod.ts, so they load neither
 * the census nor the planner's re-exports. Nothing here throws, executes,
 * expands or resolves anything.
 *
 * @module
 */
import type { ShellParse, ShellProgram, ShellRejectReason } from "./model.ts";
import { shellScriptOperand } from "./stage_forms.ts";
import { acceptTree, precheckSource } from "./parse.ts";
import type { BashNode, BashParser } from "./bash_parser.ts";

/** How deep `bash -c 'bash -c …'` nests before the parser refuses it (`too-deep`). */
export const NESTED_SHELL_DEPTH = 3;

/**
 * `program` with every `bash -c 'LITERAL'` stage ({@link shellScriptOperand})
 * carrying the literal's accepted program as `nested`; the first literal
 * that `parseScript` rejects rejects the whole source with its reason.
 */
export function attachNested(
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

/** A parser of shell source into the shell model: synchronous, total, never throws. */
export interface ShellSourceParser {
  /** The shell model of `source`, or one rejection reason. */
  parse(source: string): ShellParse;
  /**
   * The model of `source` with glob and expansion words kept as opaque
   * words (`acceptTree`'s `opaqueWords`; `bash -c` scripts are not parsed),
   * for the global output cap's exact-form check alone: never plan or
   * rewrite from it.
   */
  parseOpaque(source: string): ShellParse;
}

/**
 * A ready parser that can also lend one parse's tree. The last source's
 * model is kept (it is read-only data), so asking `parse` again for that
 * source, or after `readTree` of it, does not parse again.
 */
export interface ShellTreeParser extends ShellSourceParser {
  /**
   * Parses `source` once and calls `read` with its tree and its model (now
   * the kept model), or `refuse` with the reason there is no tree (an empty
   * or over-long source, a NUL byte, `parser-unavailable`).
   */
  readTree<T>(
    source: string,
    read: (root: BashNode, parsed: ShellParse) => T,
    refuse: (reason: ShellRejectReason) => T,
  ): T;
}

/**
 * Starts the tree-sitter runtime and bash grammar (once per process) and
 * returns a parser. When the runtime cannot start, `parse` rejects every
 * source with `parser-unavailable` and `readTree` refuses every source with
 * it; this function never rejects.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadShellTreeParser } from "./parser.ts";
 * const parser = await loadShellTreeParser();
 * assert.deepEqual(parser.parse("echo $HOME"), { ok: false, reason: "expansion" });
 * ```
 */
export async function loadShellTreeParser(): Promise<ShellTreeParser> {
  let tree: BashParser;
  try {
    tree = await (await import("./_runtime.ts")).loadBashTreeParser();
  } catch {
    return {
      parse: () => ({ ok: false, reason: "parser-unavailable" }),
      parseOpaque: () => ({ ok: false, reason: "parser-unavailable" }),
      readTree: (_source, _read, refuse) => refuse("parser-unavailable"),
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
    parseOpaque: (source) =>
      withTree(source, (root) => acceptTree(source, root, { opaqueWords: true }), refused),
    readTree: (source, read, refuse) =>
      withTree(
        source,
        (root) => read(root, remember(source, accept(source, root))),
        (reason) => {
          remember(source, refused(reason));
          return refuse(reason);
        },
      ),
  };
}
