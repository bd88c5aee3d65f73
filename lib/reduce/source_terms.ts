/**
 * The literal terms a search command looks for, read from its argv alone
 * (docs/architecture.md, "Evidence selection": one sample for every source term). Pure and
 * total: it never throws, and anything it cannot read confidently gives no
 * terms rather than a guess.
 *
 * Tools: `grep`, `egrep`, `fgrep`, `git grep`, `rg`, `ag` and `ack` (the
 * program is the last path segment of `argv[0]`; for git, `argv[1]` must be
 * `grep`). Each tool's option table says which options take a value (short
 * clusters such as `-rnA3` or `-rne PAT`, `--opt=value` and `--opt value`),
 * which set the matcher or the case, and which make the output something
 * other than matched lines (`-v`, `--files`, git's `--not`): those, and any
 * option not in the table, give no terms. The patterns are every
 * `-e`/`--regexp` value (ack: `--match`) when there is one, else the first
 * operand (after `--` too); grep, rg and ag take options after operands,
 * git grep stops at the first one; `-f FILE` without `-e` names no pattern
 * operand, so it gives no terms.
 *
 * A pattern is split on newlines (grep reads one pattern per line; rg only
 * with `-F`) and, unless fixed (`-F`, `fgrep`, `ag -Q`, `ack -Q`), on
 * top-level alternation (`\|` in a basic regex, `|` in extended, Perl and
 * Rust syntax); an alternative is a term only when it is literal once
 * punctuation escapes (`\.`) are undone. A pattern with a bracket
 * expression or unbalanced groups gives no terms. Case: `-i` (and the last
 * of the case options wins); smart case (rg `-S`, ag by default, ack `-S`)
 * only when no pattern has an upper-case letter.
 *
 * Bounds: at most {@link MAX_TERMS} terms of at most {@link MAX_TERM_BYTES}
 * UTF-8 bytes; terms under {@link MIN_TERM_BYTES} bytes are left out, and
 * an over-long term drops all of them (a cut term could match lines the
 * command did not).
 *
 * @module
 */

/** The terms a search command looks for; `terms` is empty when none could be read. */
export interface SourceTerms {
  /** Literal terms, in the order the command gives them, without duplicates. */
  readonly terms: readonly string[];
  /** True when the command matches them in any case (compare with ASCII case folding). */
  readonly ignoreCase: boolean;
}

/** The most terms read from one command. */
export const MAX_TERMS = 16;
/** The longest term, in UTF-8 bytes. */
export const MAX_TERM_BYTES = 64;
/** The shortest term kept, in UTF-8 bytes. */
export const MIN_TERM_BYTES = 2;

/** No terms. */
export const NO_TERMS: SourceTerms = { terms: [], ignoreCase: false };

/** What an option does. */
type Effect =
  | "flag" // no value, no effect on the terms
  | "value" // takes a value that is not a pattern
  | "optional" // takes a value only when attached (`--color=always`, ag's `-C3`)
  | "pattern" // takes a pattern
  | "file" // takes a file of patterns
  | "icase"
  | "case"
  | "smart"
  | "basic"
  | "extended"
  | "perl"
  | "fixed"
  | "stop"; // the output is not lines matched by the patterns, or unreadable

/** Regex syntaxes of a pattern. */
type Syntax = "basic" | "extended" | "perl" | "fixed";

interface Tool {
  /** Options by name: one character for a short option, more for a long one. */
  readonly options: ReadonlyMap<string, Effect>;
  /** True when options may follow operands (GNU getopt permutation). */
  readonly permute: boolean;
  readonly syntax: Syntax;
  /** True when the program name sets the syntax (egrep, fgrep): a matcher option then conflicts. */
  readonly named?: boolean;
  /** Operands that are operators (git grep's `(` and `)`): they stop the reading. */
  readonly operators?: readonly string[];
  /** True when the tool is case-insensitive for an all-lower-case pattern by default. */
  readonly smart: boolean;
  /** True when every pattern may hold several newline-separated patterns. */
  readonly splitLines: boolean;
}

function table(groups: Partial<Record<Effect, string>>): Map<string, Effect> {
  const options = new Map<string, Effect>();
  for (const [effect, names] of Object.entries(groups)) {
    for (const name of names.split(" ")) if (name !== "") options.set(name, effect as Effect);
  }
  return options;
}

const DIGITS = "0 1 2 3 4 5 6 7 8 9";

const GREP_OPTIONS = table({
  flag: `${DIGITS} a b c h H I l L n o q r R s T u U w x Z z ` +
    "byte-offset count no-filename with-filename files-with-matches files-without-match " +
    "line-number line-buffered only-matching quiet silent recursive dereference-recursive " +
    "no-messages initial-tab text binary unix-byte-offsets word-regexp line-regexp null " +
    "null-data no-group-separator",
  value: "A B C d D m after-context before-context context directories devices max-count " +
    "include exclude exclude-from exclude-dir label binary-files group-separator",
  optional: "color colour",
  pattern: "e regexp",
  file: "f file",
  icase: "i y ignore-case",
  case: "no-ignore-case",
  basic: "G basic-regexp",
  extended: "E extended-regexp",
  perl: "P perl-regexp",
  fixed: "F fixed-strings fixed-regexp",
  stop: "v X V invert-match help version",
});

const GIT_GREP_OPTIONS = table({
  flag: `${DIGITS} a c h H I l L n o p q r W w z ` +
    "cached untracked no-index no-exclude-standard exclude-standard recurse-submodules text " +
    "textconv no-textconv word-regexp line-number column full-name heading break " +
    "show-function function-context files-with-matches name-only files-without-match " +
    "null count quiet no-color",
  value: "A B C m after-context before-context context max-count max-depth threads",
  optional: "O color open-files-in-pager",
  pattern: "e",
  file: "f",
  icase: "i ignore-case",
  basic: "G basic-regexp",
  extended: "E extended-regexp",
  perl: "P perl-regexp",
  fixed: "F fixed-strings",
  stop: "v invert-match and or not all-match",
});

const RG_OPTIONS = table({
  flag: "a b c H I l L n N o p q u w x z 0 U " +
    "text byte-offset count count-matches files-with-matches files-without-match " +
    "with-filename no-filename no-heading heading hidden no-hidden line-number no-line-number " +
    "only-matching quiet unrestricted word-regexp line-regexp search-zip null multiline " +
    "no-ignore no-ignore-vcs no-ignore-dot no-ignore-parent no-ignore-global no-messages " +
    "follow column no-column vimgrep trim no-config stats one-file-system no-unicode " +
    "no-fixed-strings max-columns-preview crlf binary no-require-git block-buffered " +
    "line-buffered",
  value: "A B C d E g j M m t T after-context before-context context max-depth encoding " +
    "glob iglob threads max-columns max-count type type-not type-add type-clear " +
    "sort sortr max-filesize ignore-file pre pre-glob path-separator context-separator " +
    "colors engine dfa-size-limit regex-size-limit",
  optional: "color",
  pattern: "e regexp",
  file: "f file",
  icase: "i ignore-case",
  case: "s case-sensitive",
  smart: "S smart-case",
  perl: "P pcre2",
  fixed: "F fixed-strings",
  stop: "v r invert-match replace files type-list passthru passthrough json h help V version " +
    "generate",
});

const AG_OPTIONS = table({
  flag: "a c f H n r t u U w z 0 " +
    "all-types all-text count follow column noheading nofilename filename nocolor " +
    "files-with-matches files-without-matches group nogroup hidden line-numbers " +
    "only-matching print-long-lines search-binary silent skip-vcs-ignores unrestricted " +
    "word-regexp null stats vimgrep numbers nobreak break heading",
  value: "A B G m p after before file-search-regex max-count depth ignore ignore-dir " +
    "path-to-ignore " +
    "pager workers width",
  optional: "C context color",
  icase: "i ignore-case",
  case: "s case-sensitive",
  smart: "S smart-case",
  fixed: "Q F literal fixed-strings",
  stop: "v invert-match g l L list-file-types help version",
});

const ACK_OPTIONS = table({
  flag: "c h H l L n s w x 1 " +
    "count no-filename with-filename files-with-matches files-without-matches word-regexp " +
    "line column no-column heading noheading break nobreak group nogroup color nocolor " +
    "follow nofollow recurse no-recurse r R",
  value: "A B m after-context before-context max-count type ignore-dir noignore-dir " +
    "ignore-file",
  pattern: "match",
  icase: "i ignore-case",
  case: "I no-ignore-case",
  smart: "S smart-case",
  fixed: "Q literal",
  stop: "v invert-match f g o output C context help version",
});

const GREP: Tool = {
  options: GREP_OPTIONS,
  permute: true,
  syntax: "basic",
  smart: false,
  splitLines: true,
};

const TOOLS: ReadonlyMap<string, Tool> = new Map([
  ["grep", GREP],
  ["egrep", { ...GREP, syntax: "extended", named: true }],
  ["fgrep", { ...GREP, syntax: "fixed", named: true }],
  ["git grep", {
    options: GIT_GREP_OPTIONS,
    permute: false,
    syntax: "basic",
    operators: ["(", ")"],
    smart: false,
    splitLines: true,
  }],
  ["rg", { options: RG_OPTIONS, permute: true, syntax: "perl", smart: false, splitLines: false }],
  ["ag", { options: AG_OPTIONS, permute: true, syntax: "perl", smart: true, splitLines: false }],
  ["ack", { options: ACK_OPTIONS, permute: true, syntax: "perl", smart: false, splitLines: false }],
]);

/** What the options of one command say. */
interface Reading {
  readonly patterns: string[];
  readonly operands: string[];
  fromFile: boolean;
  syntax: Syntax | null;
  /** The last case option: true for `-i`, false for case-sensitive, "smart", or null. */
  icase: boolean | "smart" | null;
}

/**
 * The literal terms `argv` searches for (see the module contract).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { sourceTerms } from "./source_terms.ts";
 * deepEqual(sourceTerms(["grep", "-rn", "parse\\|lexer\\.next", "src"]), {
 *   terms: ["parse", "lexer.next"],
 *   ignoreCase: false,
 * });
 * deepEqual(sourceTerms(["rg", "-i", "-e", "foo", "-e", "a.*b"]), { terms: ["foo"], ignoreCase: true });
 * deepEqual(sourceTerms(["grep", "-v", "foo"]), { terms: [], ignoreCase: false });
 * ```
 */
export function sourceTerms(argv: readonly string[]): SourceTerms {
  const program = (argv[0] ?? "").slice((argv[0] ?? "").lastIndexOf("/") + 1);
  const git = program === "git";
  if (git && argv[1] !== "grep") return NO_TERMS;
  const tool = TOOLS.get(git ? "git grep" : program);
  if (tool === undefined) return NO_TERMS;
  const reading = readOptions(tool, argv.slice(git ? 2 : 1));
  if (reading === null) return NO_TERMS;
  let patterns = reading.patterns;
  if (patterns.length === 0) {
    if (reading.fromFile || reading.operands.length === 0) return NO_TERMS;
    patterns = [reading.operands[0]];
  }
  const syntax = reading.syntax ?? tool.syntax;
  const terms: string[] = [];
  for (const pattern of patterns) {
    const lines = tool.splitLines || syntax === "fixed" ? pattern.split("\n") : [pattern];
    for (const line of lines) {
      const alternatives = syntax === "fixed" ? [line] : literalAlternatives(line, syntax);
      if (alternatives === null) return NO_TERMS;
      for (const term of alternatives) {
        const bytes = utf8Length(term);
        if (bytes > MAX_TERM_BYTES) return NO_TERMS;
        if (bytes >= MIN_TERM_BYTES && !terms.includes(term)) terms.push(term);
      }
    }
  }
  const icase = reading.icase ?? (tool.smart ? "smart" : false);
  const ignoreCase = icase === "smart" ? patterns.every((p) => p === p.toLowerCase()) : icase;
  return { terms: terms.slice(0, MAX_TERMS), ignoreCase };
}

/** Reads the options and operands of `args`; null when some option cannot be read. */
function readOptions(tool: Tool, args: readonly string[]): Reading | null {
  const reading: Reading = {
    patterns: [],
    operands: [],
    fromFile: false,
    syntax: tool.named ? tool.syntax : null,
    icase: null,
  };
  /** Applies `effect` of a value-less option; false when it stops the reading. */
  const apply = (effect: Effect): boolean => {
    switch (effect) {
      case "icase":
        reading.icase = true;
        return true;
      case "case":
        reading.icase = false;
        return true;
      case "smart":
        reading.icase = "smart";
        return true;
      case "basic":
      case "extended":
      case "perl":
      case "fixed":
        // Two different matchers: grep refuses or takes the last; either way, no guess.
        if (reading.syntax !== null && reading.syntax !== effect) return false;
        reading.syntax = effect;
        return true;
      case "stop":
        return false;
      default:
        return true;
    }
  };
  /** Takes the value of a value option. */
  const take = (effect: Effect, value: string) => {
    if (effect === "pattern") reading.patterns.push(value);
    else if (effect === "file") reading.fromFile = true;
  };
  const takesValue = (effect: Effect) =>
    effect === "value" || effect === "pattern" || effect === "file";
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      index++;
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = arg.slice(2, eq === -1 ? undefined : eq);
      const effect = tool.options.get(name);
      if (effect === undefined || name.length < 2) return null;
      if (takesValue(effect)) {
        if (eq !== -1) take(effect, arg.slice(eq + 1));
        else if (index + 1 < args.length) take(effect, args[++index]);
        else return null;
      } else if (eq !== -1 && effect !== "optional") return null;
      else if (!apply(effect)) return null;
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      for (let at = 1; at < arg.length; at++) {
        const effect = tool.options.get(arg[at]);
        if (effect === undefined) return null;
        if (takesValue(effect)) {
          if (at + 1 < arg.length) take(effect, arg.slice(at + 1));
          else if (index + 1 < args.length) take(effect, args[++index]);
          else return null;
          break;
        }
        if (effect === "optional") break; // the rest of the cluster is its value
        if (!apply(effect)) return null;
      }
      continue;
    }
    if (tool.operators?.includes(arg)) return null;
    reading.operands.push(arg);
    if (!tool.permute) {
      index++;
      break;
    }
  }
  reading.operands.push(...args.slice(index));
  return reading;
}

/** Characters that make an alternative of each syntax more than a literal (a line break too). */
const META: Record<Exclude<Syntax, "fixed">, string> = {
  basic: ".[]*^$\n",
  extended: ".[]{}()*+?^$|\n",
  perl: ".[]{}()*+?^$|\n",
};

/** Characters whose escape stands for the character itself in each syntax. */
const ESCAPED: Record<Exclude<Syntax, "fixed">, string> = {
  basic: ".[]*^$\\/",
  extended: '.[]{}()*+?^$|\\/-:,;=!@%&~#"_ ',
  perl: '.[]{}()*+?^$|\\/-:,;=!@%&~#"_ ',
};

/**
 * The literal top-level alternatives of `pattern`, unescaped (an
 * alternative that is not literal is left out); null when the pattern has
 * a bracket expression or unbalanced groups.
 */
function literalAlternatives(pattern: string, syntax: Exclude<Syntax, "fixed">): string[] | null {
  const basic = syntax === "basic";
  const alternatives: string[] = [];
  let text = "";
  let literal = true;
  let depth = 0;
  const end = () => {
    if (literal) alternatives.push(text);
    text = "";
    literal = true;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[++i];
      if (next === undefined) return null;
      if (basic && next === "|" && depth === 0) end();
      else if (basic && next === "(") {
        depth++;
        literal = false;
      } else if (basic && next === ")") {
        if (--depth < 0) return null;
      } else if (ESCAPED[syntax].includes(next)) text += next;
      else literal = false;
      continue;
    }
    if (c === "[") return null;
    if (!basic && c === "|" && depth === 0) {
      end();
      continue;
    }
    if (!basic && c === "(") depth++;
    else if (!basic && c === ")" && --depth < 0) return null;
    if (META[syntax].includes(c)) literal = false;
    else text += c;
  }
  if (depth !== 0) return null;
  end();
  return alternatives;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}
