/**
 * Conservative shell parsing over a tree-sitter-bash syntax tree (docs/architecture.md,
 * "Parser", "Shell model"). `acceptTree` turns a tree into a
 * {@link ShellProgram} only when every check passes: the source is non-empty,
 * NUL-free and at most 256 KiB; the root covers the whole source with no
 * ERROR or MISSING node; the tree has at most 16,384 nodes and 64 levels of
 * statement and word nesting; there are at most 256 simple commands; every
 * node kind is in the reviewed subset (program, list, pipeline, command,
 * redirected statement, comment, literal words, reviewed redirections,
 * literal `NAME=value` assignments before a command, alone or after
 * `export`);
 * every word decodes to a literal; redirections are `N>&M` for N, M in
 * {1, 2} or 1/2/`&` to `/dev/null`. Anything else is one rejection reason.
 *
 * Operator precedence is rebuilt from the token order, not taken from the
 * tree: tree-sitter-bash nests `a && b | c` as `(a && b) | c` where bash
 * runs `a && (b | c)`, and hangs `a && b 2>&1` on the whole list where bash
 * applies it to `b`. Commands and operators are flattened in source order
 * and regrouped as bash does (newline, then `;` `&&` `||`, then `|` `|&`);
 * a redirection belongs to the command it follows.
 *
 * Text between tokens must be text bash also reads as blank. The grammar
 * skips `\ `, `\<tab>`, `\r`, `\v` and `\f` and every backslash-newline as
 * blank, where bash reads the first ones as word text and a backslash-newline
 * glued to a word as joining it to the next: `grep \ -0` is `[grep, " -0"]`
 * and `git lo\<newline>g` is `[git, log]` to bash. Such a gap is
 * `unsupported-syntax` (`blankGapsOnly`), as are two word nodes with no gap
 * between them outside a concatenation (`"a"\b` is one word to bash, two
 * to the grammar) and a bare word that holds a newline (bash ends the
 * command there).
 *
 * With `opaqueWords` (the global output cap's check only, never for
 * planning or rewriting), a word or assignment value that would be refused
 * as `glob` or `expansion` is kept as an opaque word instead: text "" and
 * `opaque: true`, since its expanded text is unknown (`substitutes: true`
 * too when it holds a command, process or arithmetic substitution or a
 * `${NAME?…}`, which run or print something of their own). A plain
 * here-document on a command (`python3 - <<'EOF' … EOF`, one per command,
 * nothing else in the redirection) is kept as `stdinDocument: true`: its
 * body is the command's stdin, never output.
 *
 * Parsing never executes, expands or resolves anything, and never throws
 * for any input.
 *
 * @module
 */
import type {
  Assignment,
  CommandList,
  Connector,
  LiteralWord,
  Pipeline,
  Redirection,
  ShellParse,
  ShellProgram,
  ShellRejectReason,
  SimpleCommand,
} from "./model.ts";
import { SHELL_LIMITS } from "./model.ts";
import { decodeBareWord, decodeDoubleQuoted, hasBraceExpansion } from "./words.ts";

/** The part of a tree-sitter node this module reads (web-tree-sitter's `Node` fits). */
export interface SyntaxNode {
  readonly type: string;
  readonly isNamed: boolean;
  readonly text: string;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly childCount: number;
  readonly descendantCount: number;
  readonly hasError: boolean;
  child(index: number): SyntaxNode | null;
  fieldNameForChild(index: number): string | null;
}

type Operator = "|" | "|&" | "&&" | "||" | ";" | "\n";
type Item = SimpleCommand | Operator;

class Reject {
  constructor(readonly reason: ShellRejectReason, readonly nodeKind?: string) {}
}

function reject(reason: ShellRejectReason, nodeKind?: string): never {
  throw new Reject(reason, nodeKind);
}

const UTF8 = new TextEncoder();

/**
 * Checks that only depend on the source: empty (whitespace only), NUL byte,
 * over the byte limit. Returns the reason, or undefined when the source may
 * be parsed.
 */
export function precheckSource(source: string): ShellRejectReason | undefined {
  if (
    source.length * 3 > SHELL_LIMITS.sourceBytes &&
    UTF8.encode(source).length > SHELL_LIMITS.sourceBytes
  ) {
    return "source-too-large";
  }
  if (source.includes("\0")) return "nul-byte";
  if (source.trim() === "") return "empty";
  return undefined;
}

/** How {@link acceptTree} reads words. */
export interface AcceptOptions {
  /** Keep glob and expansion words as opaque words (see the module contract); false by default. */
  readonly opaqueWords?: boolean;
}

/**
 * Accepts or rejects the syntax tree `root` of `source` (see the module
 * contract). Never throws.
 */
export function acceptTree(
  source: string,
  root: SyntaxNode,
  options: AcceptOptions = {},
): ShellParse {
  const opaqueWords = options.opaqueWords === true;
  try {
    if (root.type !== "program") return { ok: false, reason: "syntax-error" };
    if (root.hasError) return { ok: false, reason: "syntax-error" };
    if (root.endIndex !== source.length || source.slice(0, root.startIndex).trim() !== "") {
      return { ok: false, reason: "incomplete-cover" };
    }
    if (root.descendantCount > SHELL_LIMITS.nodes) return { ok: false, reason: "too-many-nodes" };
    const items: Item[] = [];
    walkProgram(root, items, opaqueWords);
    if (!blankGapsOnly(source, root)) return { ok: false, reason: "unsupported-syntax" };
    if (countCommands(items) > SHELL_LIMITS.stages) return { ok: false, reason: "too-many-stages" };
    return { ok: true, program: regroup(items) };
  } catch (error) {
    if (error instanceof Reject) {
      return error.nodeKind === undefined
        ? { ok: false, reason: error.reason }
        : { ok: false, reason: error.reason, nodeKind: error.nodeKind };
    }
    if (error instanceof RangeError) return { ok: false, reason: "too-deep" };
    return { ok: false, reason: "syntax-error" };
  }
}

/** Nodes whose inner text is content, not token gaps (a string's newline is a gap in its tree). */
const CONTENT_NODES = new Set([
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "comment",
  "heredoc_body",
  "heredoc_redirect",
]);

/** Nodes bash reads as (part of) one word: two of them with no gap are one word to bash. */
const WORD_NODES = new Set([
  "command_name",
  "word",
  "number",
  "string",
  "raw_string",
  "concatenation",
  "ansi_c_string",
  "translated_string",
  "simple_expansion",
  "expansion",
  "command_substitution",
]);

/**
 * The gap the grammar leaves for a lone `-` operand right before a
 * here-document (`python3 - <<'EOF'`): tree-sitter-bash 0.25.1 drops that
 * word from the tree, so the opaque-word walk restores it.
 */
const DASH_BEFORE_DOCUMENT = /^[ \t]+-[ \t]+$/;

/** Tokens after which bash reads a newline as blank (the pipeline or list goes on). */
const CONTINUING_OPERATORS = new Set(["|", "|&", "&&", "||"]);

/**
 * True when every gap between sibling nodes of `root` (strings and comments
 * excepted) is one bash reads as the same blank: spaces and tabs, a
 * backslash-newline after a space or tab, and a newline only between
 * statements or after `|`, `|&`, `&&`, `||`; and no two word nodes touch
 * outside a concatenation. Iterative, so a deep tree cannot overflow the
 * stack.
 */
function blankGapsOnly(source: string, root: SyntaxNode): boolean {
  const pending: SyntaxNode[] = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node.childCount === 0 || CONTENT_NODES.has(node.type)) continue;
    let cursor = node.startIndex;
    let previous: SyntaxNode | undefined;
    for (let index = 0; index < node.childCount; index += 1) {
      const child = node.child(index)!;
      const newlines = node.type === "program" ||
        (previous !== undefined && CONTINUING_OPERATORS.has(previous.type));
      const dashOperand = child.type === "heredoc_redirect" &&
        DASH_BEFORE_DOCUMENT.test(source.slice(cursor, child.startIndex));
      if (!dashOperand && !isBlankGap(source, cursor, child.startIndex, newlines)) return false;
      const glued = previous !== undefined && cursor === child.startIndex &&
        node.type !== "concatenation" && WORD_NODES.has(previous.type) &&
        WORD_NODES.has(child.type);
      if (glued) return false;
      cursor = child.endIndex;
      previous = child;
      pending.push(child);
    }
    if (!isBlankGap(source, cursor, node.endIndex, node.type === "program")) return false;
  }
  return true;
}

/** True when `source[start, end)` is blank to bash as it is to the grammar (see {@link blankGapsOnly}). */
function isBlankGap(source: string, start: number, end: number, newlines: boolean): boolean {
  for (let index = start; index < end; index += 1) {
    const char = source[index];
    if (char === " " || char === "\t" || (char === "\n" && newlines)) continue;
    const continuation = char === "\\" && source[index + 1] === "\n" && index + 1 < end &&
      index > start && (source[index - 1] === " " || source[index - 1] === "\t");
    if (!continuation) return false;
    index += 1;
  }
  return true;
}

/** The walk's readers share `opaqueWords`: keep glob and expansion words as opaque words. */
function walkProgram(root: SyntaxNode, items: Item[], opaqueWords: boolean): void {
  let previousWasStatement = false;
  for (let index = 0; index < root.childCount; index += 1) {
    const child = root.child(index)!;
    if (!child.isNamed) {
      if (child.type === ";") {
        items.push(";");
        previousWasStatement = false;
        continue;
      }
      if (child.type === "&") reject("background");
      reject("unsupported-syntax", child.type);
    }
    if (child.type === "comment") continue;
    if (previousWasStatement) items.push("\n");
    walkStatement(child, items, 1, opaqueWords);
    previousWasStatement = true;
  }
}

function walkStatement(
  node: SyntaxNode,
  items: Item[],
  depth: number,
  opaqueWords: boolean,
): void {
  if (depth > SHELL_LIMITS.depth) reject("too-deep");
  switch (node.type) {
    case "command":
      items.push(readCommand(node, depth, opaqueWords));
      return;
    case "pipeline":
    case "list":
      for (let index = 0; index < node.childCount; index += 1) {
        const child = node.child(index)!;
        if (child.isNamed) {
          if (child.type !== "comment") walkStatement(child, items, depth + 1, opaqueWords);
          continue;
        }
        const op = child.type;
        if (op === "|" || op === "|&" || op === "&&" || op === "||" || op === ";") {
          items.push(op);
        } else if (op === "&") {
          reject("background");
        } else {
          reject("unsupported-syntax", op);
        }
      }
      return;
    case "redirected_statement":
      return walkRedirected(node, items, depth, opaqueWords);
    case "variable_assignment":
    case "variable_assignments":
    case "declaration_command":
      items.push(readAssignmentStatement(node, depth, opaqueWords));
      return;
    default:
      return reject("unsupported-syntax", node.type);
  }
}

/**
 * Reads a literal `NAME=value` (`=` only: `+=` and arrays are refused).
 * Bash does not glob or split an assignment value, but it does expand a
 * leading `~` and `$`; the value decodes like a word, so those are refused.
 */
function readAssignment(node: SyntaxNode, depth: number, opaqueWords: boolean): Assignment {
  let name: string | undefined;
  let value = "";
  let marks: ReturnType<typeof opaqueMarks> | undefined;
  let sawEquals = false;
  for (let index = 0; index < node.childCount; index += 1) {
    const child = node.child(index)!;
    const field = node.fieldNameForChild(index);
    if (field === "name" && child.type === "variable_name") name = child.text;
    else if (field === "value") {
      value = opaqueOr(opaqueWords, () => decodeWord(child, depth + 1), () => {
        marks = opaqueMarks(child);
        return "";
      });
    } else if (child.type === "=") sawEquals = true;
    else reject("assignment");
  }
  if (name === undefined || !sawEquals) reject("assignment");
  return { name, value, start: node.startIndex, end: node.endIndex, ...marks };
}

/**
 * An assignment-only statement (`NAME=value`, words empty) or `export
 * NAME=value…` (words `["export"]`); any other declaration (`declare`,
 * `local`, `export -p`, `export NAME`) is refused as `assignment`.
 */
function readAssignmentStatement(
  node: SyntaxNode,
  depth: number,
  opaqueWords: boolean,
): SimpleCommand {
  const assignments: Assignment[] = [];
  const words: LiteralWord[] = [];
  if (node.type === "variable_assignment") {
    assignments.push(readAssignment(node, depth, opaqueWords));
  } else {
    for (let index = 0; index < node.childCount; index += 1) {
      const child = node.child(index)!;
      if (child.type === "variable_assignment") {
        assignments.push(readAssignment(child, depth, opaqueWords));
      } else if (node.type === "declaration_command" && index === 0 && child.type === "export") {
        words.push({ text: "export", start: child.startIndex, end: child.endIndex });
      } else reject("assignment");
    }
  }
  if (assignments.length === 0 || (node.type === "declaration_command" && words.length !== 1)) {
    reject("assignment");
  }
  return { words, redirects: [], start: node.startIndex, end: node.endIndex, assignments };
}

function countCommands(items: readonly Item[]): number {
  let count = 0;
  for (const item of items) if (typeof item !== "string") count += 1;
  return count;
}

function walkRedirected(
  node: SyntaxNode,
  items: Item[],
  depth: number,
  opaqueWords: boolean,
): void {
  for (let index = 0; index < node.childCount; index += 1) {
    const child = node.child(index)!;
    const field = node.fieldNameForChild(index);
    if (field === "body") {
      walkStatement(child, items, depth + 1, opaqueWords);
      continue;
    }
    if (!child.isNamed && child.type !== "&") reject("unsupported-syntax", child.type);
    if (child.type === "&") reject("background");
    if (child.type === "comment") continue;
    const last = items.at(-1);
    if (last === undefined || typeof last === "string") reject("redirect-unsupported");
    if (opaqueWords && isPlainHereDocument(child) && last.stdinDocument === undefined) {
      const gap = node.text.slice(last.end - node.startIndex, child.startIndex - node.startIndex);
      const dash = gap.indexOf("-") + last.end;
      const words = DASH_BEFORE_DOCUMENT.test(gap)
        ? [...last.words, { text: "-", start: dash, end: dash + 1 }]
        : last.words;
      items[items.length - 1] = { ...last, words, stdinDocument: true };
      continue;
    }
    const redirect = readRedirect(child);
    items[items.length - 1] = {
      ...last,
      redirects: [...last.redirects, redirect],
      end: Math.max(last.end, redirect.end),
    };
  }
}

/**
 * True for a here-document redirection with nothing else in it: `<<` or
 * `<<-`, the delimiter, the body (absent when empty) and the end line; a
 * descriptor, a second redirection or an operator after the delimiter is
 * not plain.
 */
function isPlainHereDocument(node: SyntaxNode): boolean {
  if (node.type !== "heredoc_redirect") return false;
  const kinds: string[] = [];
  for (let index = 0; index < node.childCount; index += 1) kinds.push(node.child(index)!.type);
  const [operator, start, ...rest] = kinds;
  return (operator === "<<" || operator === "<<-") && start === "heredoc_start" &&
    (rest.join(",") === "heredoc_body,heredoc_end" || rest.join(",") === "heredoc_end");
}

function readCommand(node: SyntaxNode, depth: number, opaqueWords: boolean): SimpleCommand {
  const words: LiteralWord[] = [];
  const redirects: Redirection[] = [];
  const assignments: Assignment[] = [];
  for (let index = 0; index < node.childCount; index += 1) {
    const child = node.child(index)!;
    switch (child.type) {
      case "command_name": {
        if (child.childCount !== 1) reject("unsupported-syntax", child.type);
        words.push(readWord(child.child(0)!, depth + 1, opaqueWords));
        break;
      }
      case "variable_assignment":
        if (words.length > 0) reject("assignment");
        assignments.push(readAssignment(child, depth, opaqueWords));
        break;
      case "file_redirect":
        redirects.push(readRedirect(child));
        break;
      case "heredoc_redirect":
      case "herestring_redirect":
        reject("redirect-unsupported", child.type);
        break;
      case "comment":
        break;
      default:
        if (!child.isNamed) reject("unsupported-syntax", child.type);
        words.push(readWord(child, depth + 1, opaqueWords));
    }
  }
  if (words.length === 0) reject("unsupported-syntax", "command");
  const command = { words, redirects, start: node.startIndex, end: node.endIndex };
  return assignments.length === 0 ? command : { ...command, assignments };
}

function readWord(node: SyntaxNode, depth: number, opaqueWords: boolean): LiteralWord {
  const start = node.startIndex;
  const end = node.endIndex;
  return opaqueOr(
    opaqueWords,
    () => ({ text: decodeWord(node, depth), start, end }),
    () => ({ text: "", start, end, ...opaqueMarks(node) }),
  );
}

/** Node kinds whose expansion runs a command or may print an error of its own. */
const SUBSTITUTING_NODES = new Set([
  "command_substitution",
  "process_substitution",
  "arithmetic_expansion",
]);

/**
 * The marks of an opaque word or value: always `opaque`, and `substitutes`
 * when some node inside runs a command or may print (see
 * `LiteralWord.substitutes`). Iterative over the node's subtree.
 */
function opaqueMarks(node: SyntaxNode): { opaque: true; substitutes?: true } {
  const pending: SyntaxNode[] = [node];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (SUBSTITUTING_NODES.has(next.type)) return { opaque: true, substitutes: true };
    if (next.type === "expansion" && next.text.includes("?")) {
      return { opaque: true, substitutes: true }; // `${NAME:?message}` prints and exits
    }
    for (let index = 0; index < next.childCount; index += 1) pending.push(next.child(index)!);
  }
  return { opaque: true };
}

/** `read()`, or with `opaqueWords` `opaque()` when `read` refuses a glob or an expansion. */
function opaqueOr<T>(opaqueWords: boolean, read: () => T, opaque: () => T): T {
  if (!opaqueWords) return read();
  try {
    return read();
  } catch (error) {
    if (error instanceof Reject && (error.reason === "glob" || error.reason === "expansion")) {
      return opaque();
    }
    throw error;
  }
}

/** Decodes `node`; `before` is the decoded text preceding it in the same word. */
function decodeWord(node: SyntaxNode, depth: number, before = ""): string {
  if (depth > SHELL_LIMITS.depth) reject("too-deep");
  switch (node.type) {
    case "word":
    case "number": {
      const decoded = decodeBareWord(node.text, before);
      if (!decoded.ok) reject(decoded.reason);
      return decoded.text;
    }
    case "raw_string":
      return node.text.slice(1, -1);
    case "string": {
      for (let index = 0; index < node.childCount; index += 1) {
        const child = node.child(index)!;
        if (child.type === '"' || child.type === "string_content") continue;
        reject("expansion");
      }
      const decoded = decodeDoubleQuoted(node.text.slice(1, -1));
      if (!decoded.ok) reject(decoded.reason);
      return decoded.text;
    }
    case "concatenation": {
      if (hasBraceExpansion(node.text)) reject("glob");
      let text = "";
      for (let index = 0; index < node.childCount; index += 1) {
        text += decodeWord(node.child(index)!, depth + 1, before + text);
      }
      return text;
    }
    case "brace_expression":
      return reject("glob");
    case "simple_expansion":
    case "expansion":
    case "command_substitution":
    case "arithmetic_expansion":
    case "process_substitution":
    case "ansi_c_string":
    case "translated_string":
      return reject("expansion");
    default:
      return reject("unsupported-syntax", node.type);
  }
}

function descriptorOf(text: string): 1 | 2 {
  if (text === "1") return 1;
  if (text === "2") return 2;
  return reject("redirect-unsupported");
}

function readRedirect(node: SyntaxNode): Redirection {
  if (node.type !== "file_redirect") reject("redirect-unsupported", node.type);
  let descriptor: 1 | 2 | undefined;
  let operator: string | undefined;
  let destination: SyntaxNode | undefined;
  for (let index = 0; index < node.childCount; index += 1) {
    const child = node.child(index)!;
    const field = node.fieldNameForChild(index);
    if (field === "descriptor") descriptor = descriptorOf(child.text);
    else if (field === "destination") {
      if (destination !== undefined) reject("redirect-unsupported");
      destination = child;
    } else if (!child.isNamed && operator === undefined) operator = child.type;
    else reject("redirect-unsupported");
  }
  if (operator === undefined || destination === undefined) reject("redirect-unsupported");
  const target = decodeWord(destination, 1);
  const span = { start: node.startIndex, end: node.endIndex };
  switch (operator) {
    case ">":
    case ">>":
    case ">|":
      if (target !== "/dev/null") reject("redirect-unsupported");
      return { kind: "null", fd: descriptor ?? 1, ...span };
    case "&>":
    case "&>>":
      if (target !== "/dev/null" || descriptor !== undefined) reject("redirect-unsupported");
      return { kind: "null", fd: "both", ...span };
    case ">&":
      return { kind: "dup", fd: descriptor ?? 1, from: descriptorOf(target), ...span };
    default:
      return reject("redirect-unsupported");
  }
}

/** Regroups flat commands and operators with bash precedence. */
function regroup(items: readonly Item[]): ShellProgram {
  const lists: CommandList[] = [];
  let pipelines: Pipeline[] = [];
  let connectors: Connector[] = [];
  let stages: SimpleCommand[] = [];
  let merge = false;
  let expectCommand = true;
  const endPipeline = () => {
    pipelines.push({ stages, mergeStderr: merge });
    stages = [];
    merge = false;
  };
  const endList = () => {
    if (pipelines.length > 0) lists.push({ pipelines, connectors });
    pipelines = [];
    connectors = [];
  };
  for (const item of items) {
    if (typeof item !== "string") {
      if (!expectCommand) reject("unsupported-syntax");
      stages.push(item);
      expectCommand = false;
      continue;
    }
    if (item === ";" || item === "\n") {
      if (expectCommand) {
        if (item === "\n") continue; // a blank separator
        reject("unsupported-syntax", ";"); // `;` with no command before it
      }
      endPipeline();
      if (item === "\n") endList();
      else connectors.push("sequence");
      expectCommand = true;
      continue;
    }
    if (expectCommand) reject("unsupported-syntax", item);
    if (item === "|" || item === "|&") {
      if (item === "|&") merge = true;
    } else {
      endPipeline();
      connectors.push(item === "&&" ? "and" : "or");
    }
    expectCommand = true;
  }
  if (stages.length > 0) endPipeline();
  else if (connectors.length === pipelines.length && connectors.length > 0) {
    // A trailing `;` leaves one connector too many.
    if (connectors.at(-1) !== "sequence") reject("unsupported-syntax");
    connectors.pop();
  }
  endList();
  if (lists.length === 0) reject("empty");
  return { lists };
}
