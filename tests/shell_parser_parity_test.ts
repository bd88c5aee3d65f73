/**
 * Parity of the static parser module (lib/shell/bash_parser.ts) with
 * web-tree-sitter 0.25.10 and tree-sitter-bash 0.25.1's own grammar module:
 * the same shell model (`parse` and `census`) and the same tree, node by
 * node, on every command of both recorded corpora (`$YARP_CORPUS_DIR`, read
 * at test time, never copied; ignored when unset: docs/corpus.md), on 40,000 generated commands of real
 * shapes and on random text that exercises error recovery.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { generatedSources } from "../bench/_shell_robustness.ts";
import { CORPUS_NAMES, corpusTest } from "./_shell_corpus.ts";
import { loadBashTreeParser } from "../lib/shell/_runtime.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import { type ComparableNode, loadReferenceParser, treeLines } from "./_web_tree_sitter.ts";

const reference = await loadReferenceParser();
const shell = await loadShellParser();
const trees = await loadBashTreeParser();

/**
 * The first source on which the two parsers differ, with what differs;
 * undefined when none. Both sides make the same parses in the same order:
 * one for the tree, one for the model (`census`, whose verdict `parse` then
 * returns as is). The order matters: tree-sitter-bash's scanner keeps some
 * state from one parse to the next (docs/shell.md, "Parser module").
 */
function firstDifference(sources: readonly string[]): string | undefined {
  for (const [index, source] of sources.entries()) {
    const mine = treeLines(trees.parse(source)!.rootNode as ComparableNode).join("\n");
    const census = JSON.stringify(shell.census(source));
    const model = JSON.stringify(shell.parse(source));
    const theirs = reference.withTree(source, treeLines).join("\n");
    const expected = reference.model(source);
    // Node text is the source slice of the span both render, so spans cover it.
    if (mine !== theirs) return `source ${index}: tree differs`;
    if (model !== JSON.stringify(expected.parse)) return `source ${index}: parse differs`;
    if (census !== JSON.stringify(expected.census)) return `source ${index}: census differs`;
  }
  return undefined;
}

for (const name of CORPUS_NAMES) {
  corpusTest(
    name,
    `parity: every command of ${name} parses as web-tree-sitter parses it`,
    (commands) => {
      assert.ok(commands.length > 1_000);
      // Messages name the index only: corpus text never reaches the test output.
      assert.equal(firstDifference(commands), undefined);
    },
  );
}

Deno.test("parity: 40,000 generated commands parse as web-tree-sitter parses them", () => {
  // The generator's 1,000-6,000 character words only test length (the
  // random-text test and tests/shell_parse_test.ts cover that); cut to 64
  // characters they keep the shapes and the run short.
  const sources = generatedSources(40_000, 16).map((source) =>
    source.replace(/w{65,}/g, "w".repeat(64))
  );
  assert.ok(new Set(sources).size > 30_000);
  const difference = firstDifference(sources);
  const index = difference === undefined ? -1 : Number(/\d+/.exec(difference)![0]);
  assert.equal(difference, undefined, JSON.stringify(sources[index]));
});

Deno.test("parity: random text, error recovery and UTF-16 offsets included", () => {
  const shellish = fc.string({
    unit: fc.constantFrom(..."ab1 \t\n|&;<>()[]{}$`'\"\\#*?~=!-".split(""), "é", "😀", "\ud800"),
    maxLength: 40,
  });
  fc.assert(
    fc.property(fc.oneof(shellish, fc.string({ unit: "binary", maxLength: 30 })), (source) => {
      assert.equal(
        firstDifference([source]),
        undefined,
        JSON.stringify(source),
      );
    }),
    { numRuns: 3_000, seed: 16 },
  );
});
