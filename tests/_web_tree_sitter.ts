/**
 * The reference for the parser parity test: web-tree-sitter 0.25.10 with
 * tree-sitter-bash 0.25.1's own WebAssembly grammar (both pinned in
 * deno.json, used by tests only), and the shell model computed on its trees
 * the way `lib/shell/mod.ts` did before the static module. Also
 * {@link treeLines}, a node-by-node rendering of a tree for comparing two
 * parsers' trees.
 *
 * @module
 */
import { createRequire } from "node:module";
import type { ShellParse, SyntaxCensus } from "../lib/shell/mod.ts";
import { acceptTree, precheckSource } from "../lib/shell/parse.ts";
import { attachNested, NESTED_SHELL_DEPTH } from "../lib/shell/parser.ts";
import { type CensusNode, censusTree } from "../lib/shell/census.ts";

/** The node surface both parsers offer and {@link treeLines} reads. */
export interface ComparableNode extends CensusNode {
  readonly children: readonly (ComparableNode | null)[];
}

/** web-tree-sitter's parse and shell model of a source. */
export interface ReferenceParser {
  /** Calls `read` with the root of `source`'s tree (freed afterwards). */
  withTree<T>(source: string, read: (root: ComparableNode) => T): T;
  /**
   * The shell model of `source` as lib/shell/mod.ts computed it: no parse
   * when the source check refuses it, else one parse for both verdicts.
   */
  model(source: string): { parse: ShellParse; census: SyntaxCensus };
}

/** Starts web-tree-sitter and the package's bash grammar. */
export async function loadReferenceParser(): Promise<ReferenceParser> {
  const { Parser, Language } = await import("web-tree-sitter");
  await Parser.init();
  const grammar = createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
  const parser = new Parser();
  parser.setLanguage(await Language.load(await Deno.readFile(grammar)));
  const withTree = <T>(source: string, read: (root: ComparableNode) => T): T => {
    const tree = parser.parse(source);
    if (tree === null) throw new Error("web-tree-sitter returned no tree");
    try {
      return read(tree.rootNode as unknown as ComparableNode);
    } finally {
      tree.delete();
    }
  };
  return {
    withTree,
    model(source) {
      const early = precheckSource(source);
      if (early !== undefined) {
        return { parse: { ok: false, reason: early }, census: { features: [], parse: early } };
      }
      /** As lib/shell/parser.ts: nested `bash -c`/`su -c` literals parsed after their source. */
      const nested = (script: string, depth: number): ShellParse => {
        const refused = precheckSource(script);
        if (refused !== undefined) return { ok: false, reason: refused };
        return withTree(script, (root) => withNested(acceptTree(script, root), depth));
      };
      const withNested = (parsed: ShellParse, depth: number): ShellParse =>
        parsed.ok
          ? attachNested(
            parsed.program,
            (script) =>
              depth >= NESTED_SHELL_DEPTH
                ? { ok: false, reason: "too-deep" }
                : nested(script, depth + 1),
          )
          : parsed;
      return withTree(source, (root) => {
        const parse = withNested(acceptTree(source, root), 0);
        return { parse, census: censusTree(source, root, parse) };
      });
    },
  };
}

/**
 * One line per node in pre-order: depth, field name in the parent (through
 * `fieldNameForChild`), type, named/missing/error flags, span, child count
 * and descendant count.
 */
export function treeLines(root: ComparableNode): string[] {
  const lines: string[] = [];
  const stack: [ComparableNode | null, number, string | null][] = [[root, 0, null]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [node, depth, field] = entry;
    if (node === null) {
      lines.push(`${depth} ${field} null`);
      continue;
    }
    lines.push(
      `${depth} ${field} ${JSON.stringify(node.type)} ${+node.isNamed}${+node.isMissing}` +
        `${+node.hasError} ${node.startIndex}-${node.endIndex} ${node.childCount} ` +
        `${node.descendantCount}`,
    );
    const children = node.children;
    for (let index = children.length - 1; index >= 0; index -= 1) {
      stack.push([children[index], depth + 1, node.fieldNameForChild(index)]);
    }
  }
  return lines;
}
