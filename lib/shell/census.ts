/**
 * The privacy-safe shell syntax census (docs/architecture.md, "Offline analysis"): which
 * fixed public syntax ids occur anywhere in one command source, found by
 * walking its tree-sitter-bash tree, inside substitutions, compound commands
 * and ERROR nodes too. A census holds ids and the parser's verdict only,
 * never command text, so counts over a private corpus can be published.
 *
 * Ids come from node kinds and tokens, plus three source checks: the gaps
 * between sibling nodes (`multi-line`, `sequence`), a redirection's target
 * (`redirect-null` is a bare `/dev/null`), and the unquoted parts of a word
 * (`glob`, `tilde`, `brace-expansion`); see docs/shell.md, "Syntax census".
 *
 * Known misses: `$"…"` parses as `$` and a string (`quoting` only); an
 * operator token inside an ERROR node counts even where it was meant as an
 * arithmetic or `[[ ]]` operator; `glob` also counts words inside `[[ ]]`
 * and here strings, which bash does not expand; a quoted `"/dev/null"`
 * target counts as `redirect-file`.
 *
 * @module
 */
import type { ShellParse, ShellRejectReason } from "./model.ts";
import { SHELL_LIMITS } from "./model.ts";
import type { SyntaxNode } from "./parse.ts";
import { hasBraceExpansion } from "./words.ts";

/** Every public syntax id, sorted; reports list them all, zero counts included. */
export const SYNTAX_IDS = [
  "and-chain",
  "ansi-c-string",
  "arithmetic",
  "assignment",
  "background",
  "brace-expansion",
  "command-substitution",
  "comment",
  "compound",
  "declaration",
  "function-definition",
  "glob",
  "group",
  "heredoc",
  "herestring",
  "multi-line",
  "negation",
  "or-chain",
  "parameter-expansion",
  "pipe-stderr",
  "pipeline",
  "process-substitution",
  "quoting",
  "redirect-dup",
  "redirect-file",
  "redirect-null",
  "sequence",
  "subshell",
  "test-command",
  "tilde",
] as const;

/** One fixed public syntax id (see {@link SYNTAX_IDS}). */
export type SyntaxId = typeof SYNTAX_IDS[number];

/** The census of one command source: ids only, never command text. */
export interface SyntaxCensus {
  /** The ids present anywhere in the source, sorted, without duplicates. */
  readonly features: readonly SyntaxId[];
  /** `"ok"` when the parser accepts the source, else its rejection reason. */
  readonly parse: "ok" | ShellRejectReason;
}

/** The part of a tree-sitter node the census reads (web-tree-sitter's `Node` fits). */
export interface CensusNode extends SyntaxNode {
  /** True for a zero-width token the parser inserted; it is not in the source. */
  readonly isMissing: boolean;
  /** All children in source order, read in one call (`child(i)` costs O(i)). */
  readonly children: readonly (CensusNode | null)[];
  child(index: number): CensusNode | null;
}

/**
 * Tokens and node kinds that are an id wherever they occur. Opening tokens
 * (`$(`, `${`, `"`, `if`, …) rather than whole nodes where the grammar has
 * them, so a construct cut short inside an ERROR node still counts.
 */
const KIND_IDS: ReadonlyMap<string, SyntaxId> = new Map<string, SyntaxId>([
  ["$(", "command-substitution"],
  ["`", "command-substitution"],
  ["${", "parameter-expansion"],
  ["simple_expansion", "parameter-expansion"],
  ["$((", "arithmetic"],
  ["$[", "arithmetic"],
  ["((", "arithmetic"],
  ["<(", "process-substitution"],
  [">(", "process-substitution"],
  ["<<<", "herestring"],
  ['"', "quoting"],
  ["raw_string", "quoting"],
  ["translated_string", "quoting"],
  ["ansi_c_string", "ansi-c-string"],
  ["if", "compound"],
  ["for", "compound"],
  ["select", "compound"],
  ["while", "compound"],
  ["until", "compound"],
  ["case", "compound"],
  ["brace_expression", "brace-expansion"],
  ["variable_assignment", "assignment"],
  ["variable_assignments", "assignment"],
  ["declaration_command", "declaration"],
  ["unset_command", "declaration"],
  ["subshell", "subshell"],
  ["function_definition", "function-definition"],
  ["negated_command", "negation"],
  ["test_command", "test-command"],
  ["comment", "comment"],
]);

/**
 * Operator tokens, which count except inside an arithmetic or `[[ ]]`
 * expression (`&&`, `|`, `&`, `<<` are logical, bitwise and shift operators
 * there) and between the patterns of a `case` item (`a|b)`).
 */
const OPERATOR_IDS: ReadonlyMap<string, readonly SyntaxId[]> = new Map<string, SyntaxId[]>([
  ["|", ["pipeline"]],
  ["|&", ["pipe-stderr", "pipeline"]],
  ["&&", ["and-chain"]],
  ["||", ["or-chain"]],
  ["&", ["background"]],
  ["<<", ["heredoc"]],
  ["<<-", ["heredoc"]],
]);

/** The grammar's `_statement` kinds (node-types.json): what a `;` or `&` may separate. */
const STATEMENT_KINDS: ReadonlySet<string> = new Set([
  "c_style_for_statement",
  "case_statement",
  "command",
  "compound_statement",
  "declaration_command",
  "for_statement",
  "function_definition",
  "if_statement",
  "list",
  "negated_command",
  "pipeline",
  "redirected_statement",
  "subshell",
  "test_command",
  "unset_command",
  "variable_assignment",
  "variable_assignments",
  "while_statement",
]);

/** Containers whose inner line breaks are text, not command separators. */
const TEXT_KINDS: ReadonlySet<string> = new Set(["string", "translated_string", "heredoc_body"]);

/**
 * The census of `source` from its tree-sitter-bash tree `root` and the
 * parser's verdict on that same tree (`acceptTree(source, root)`), so one
 * parse serves both. Walks at most {@link SHELL_LIMITS}`.nodes` nodes with an
 * explicit stack (nesting depth does not matter); a tree over that limit
 * gives no features. Never throws, never keeps any text of the source.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadShellParser } from "./mod.ts";
 * const parser = await loadShellParser();
 * assert.deepEqual(parser.census("cargo test 2>&1 | tail -n $N"), {
 *   features: ["parameter-expansion", "pipeline", "redirect-dup"],
 *   parse: "expansion",
 * });
 * ```
 */
export function censusTree(source: string, root: CensusNode, verdict: ShellParse): SyntaxCensus {
  const parse = verdict.ok ? "ok" : verdict.reason;
  if (root.descendantCount > SHELL_LIMITS.nodes) return { features: [], parse };
  const found = new Set<SyntaxId>();
  const stack: CensusNode[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    let previous: CensusNode | null = null;
    for (const child of node.children) {
      if (child === null || child.isMissing) continue;
      if (previous !== null) gapIds(source, node, previous, child, found);
      childIds(node, child, found);
      if (child.childCount > 0) stack.push(child);
      previous = child;
    }
  }
  return { features: SYNTAX_IDS.filter((id) => found.has(id)), parse };
}

/** Ids of `child` itself, given its parent: kinds, operators, redirections, words. */
function childIds(parent: CensusNode, child: CensusNode, found: Set<SyntaxId>): void {
  const id = KIND_IDS.get(child.type);
  if (id !== undefined) found.add(id);
  const operatorIds = OPERATOR_IDS.get(child.type);
  if (operatorIds !== undefined) {
    if (parent.type !== "binary_expression" && parent.type !== "case_item") {
      for (const operatorId of operatorIds) found.add(operatorId);
    }
    return;
  }
  switch (child.type) {
    case "compound_statement":
      if (child.child(0)?.type === "{") found.add("group");
      return;
    case "file_redirect":
      found.add(redirectId(child));
      return;
    case "word":
    case "concatenation":
      if (parent.type !== "concatenation") wordIds(parent, child, found);
      return;
  }
}

/**
 * Ids of the source between two siblings. A line break is `multi-line`
 * unless it is text (inside a string or a here-document body) or only frames
 * a here-document: before its body, or after its end line when no statement
 * follows (`"$(cat <<EOF … EOF\n)"`). A `;` or `&` followed on the same line
 * by a statement is `sequence` (not the `;` inside `for ((…))`).
 */
function gapIds(
  source: string,
  parent: CensusNode,
  previous: CensusNode,
  next: CensusNode,
  found: Set<SyntaxId>,
): void {
  const lineBreak = source.slice(previous.endIndex, next.startIndex).includes("\n");
  const statement = STATEMENT_KINDS.has(next.type);
  if (
    lineBreak && !TEXT_KINDS.has(parent.type) && next.type !== "heredoc_body" &&
    next.type !== "heredoc_end" && (statement || !endsHeredoc(previous))
  ) {
    found.add("multi-line");
  }
  if (
    !lineBreak && statement && (previous.type === ";" || previous.type === "&") &&
    parent.type !== "c_style_for_statement"
  ) {
    found.add("sequence");
  }
}

/** True when the last token of `node` is a here-document's end line. */
function endsHeredoc(node: CensusNode): boolean {
  let last: CensusNode | null = node;
  while (last !== null && last.childCount > 0) last = last.child(last.childCount - 1);
  return last?.type === "heredoc_end";
}

/**
 * `>&-` and `<&-` close a descriptor and `>&`/`<&` duplicate one unless
 * their target is a literal word (`>& file` writes a file); every other
 * operator opens its target, which is `redirect-null` when it is `/dev/null`.
 */
function redirectId(node: CensusNode): SyntaxId {
  let operator = "";
  let target: CensusNode | null = null;
  for (let index = 0; index < node.childCount; index += 1) {
    const child = node.child(index);
    if (child === null) continue;
    if (node.fieldNameForChild(index) === "destination") target ??= child;
    else if (!child.isNamed && operator === "") operator = child.type;
  }
  if (operator === ">&-" || operator === "<&-") return "redirect-dup";
  if ((operator === ">&" || operator === "<&") && target?.type !== "word") return "redirect-dup";
  return target?.type === "word" && target.text === "/dev/null" ? "redirect-null" : "redirect-file";
}

/**
 * `tilde`, `glob` and `brace-expansion` of one shell word (a `word` or a
 * `concatenation`), read from its unquoted `word` parts only. Assignment
 * values are tilde-expanded but neither globbed nor brace-expanded.
 */
function wordIds(parent: CensusNode, node: CensusNode, found: Set<SyntaxId>): void {
  const first = node.type === "word" ? node : node.child(0);
  if (first?.type === "word" && first.text.startsWith("~")) found.add("tilde");
  if (parent.type === "variable_assignment") return;
  const bare = node.type === "word" ? node.text : unquotedText(node);
  if (hasBraceExpansion(bare)) found.add("brace-expansion");
  if (hasGlobPattern(bare)) found.add("glob");
}

/** The `word` children of a concatenation, joined: the parts bash may glob or brace-expand. */
function unquotedText(node: CensusNode): string {
  let text = "";
  for (const child of node.children) if (child?.type === "word") text += child.text;
  return text;
}

/** True for an unescaped `*` or `?`, or an unescaped `[` with a `]` after it. */
function hasGlobPattern(text: string): boolean {
  let bracket = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === "\\") index += 1;
    else if (char === "*" || char === "?") return true;
    else if (char === "[") bracket = true;
    else if (char === "]" && bracket) return true;
  }
  return false;
}
