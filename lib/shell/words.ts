/**
 * Literal word decoding: turns the source text of a bare word, a
 * single-quoted string or a double-quoted string without expansions into
 * the exact argument bash would pass (docs/architecture.md, "Parser", "Shell
 * source checks"). Anything bash would expand, glob or reinterpret is
 * refused, never guessed: `$` and backquotes anywhere outside single quotes,
 * unquoted `*`, `?`, `[`, a `~` where bash may expand it (at the start of a
 * word, or after `=` or `:`, as in `--dir=~/x` or `PATH=a:~/b`), and brace
 * expansion (`{a,b}`, `{1..3}`). A `~` elsewhere (`HEAD~1`, `x~`) is literal.
 *
 * Known misses: words that bash leaves literal but that look like a glob or
 * a tilde (`x[`, `--x=~/y`) are refused too.
 *
 * @module
 */

/** A decoded argument, or why the text is not a literal word. */
export type WordDecode = { readonly ok: true; readonly text: string } | {
  readonly ok: false;
  readonly reason: "expansion" | "glob" | "unsupported-syntax";
};

const EXPANSION = { ok: false, reason: "expansion" } as const;
const GLOB = { ok: false, reason: "glob" } as const;

/**
 * Decodes an unquoted word: `\c` gives `c`, backslash-newline disappears.
 * Refuses `$`, backquotes, unquoted glob characters, a `~` at the word's
 * start or after `=` or `:`, and brace expansion; a trailing lone backslash
 * or a bare newline (where bash ends the command) is `unsupported-syntax`. `before` is the decoded text that precedes this
 * piece in the same word (`""` when it starts the word).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeBareWord } from "./words.ts";
 * assert.deepEqual(decodeBareWord("a\\ b"), { ok: true, text: "a b" });
 * assert.deepEqual(decodeBareWord("*.ts"), { ok: false, reason: "glob" });
 * assert.deepEqual(decodeBareWord("HEAD~1"), { ok: true, text: "HEAD~1" });
 * assert.deepEqual(decodeBareWord("~/x"), { ok: false, reason: "glob" });
 * ```
 */
export function decodeBareWord(text: string, before = ""): WordDecode {
  if (hasBraceExpansion(text)) return GLOB;
  let out = "";
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === "\\") {
      if (index + 1 >= text.length) return { ok: false, reason: "unsupported-syntax" };
      const next = text[index + 1];
      index += 1;
      if (next !== "\n") out += next;
      continue;
    }
    if (char === "\n") return { ok: false, reason: "unsupported-syntax" };
    if (char === "$" || char === "`") return EXPANSION;
    if (char === "*" || char === "?" || char === "[") return GLOB;
    if (char === "~" && tildeMayExpand(index === 0 ? before.slice(-1) : text[index - 1])) {
      return GLOB;
    }
    out += char;
  }
  return { ok: true, text: out };
}

/** True when a `~` after `previous` (`""` at a word's start) may be a tilde prefix. */
function tildeMayExpand(previous: string): boolean {
  return previous === "" || previous === "=" || previous === ":";
}

/**
 * True when `text` has a `{` followed later by `}` with a `,` or `..` in
 * between: a possible brace expansion. Quotes are not considered, so a
 * quoted brace list counts too (a conservative miss).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasBraceExpansion } from "./words.ts";
 * assert.equal(hasBraceExpansion("x{a,b}"), true);
 * assert.equal(hasBraceExpansion("@{u}"), false);
 * ```
 */
export function hasBraceExpansion(text: string): boolean {
  const open = text.indexOf("{");
  if (open === -1) return false;
  const close = text.lastIndexOf("}");
  if (close < open) return false;
  const inner = text.slice(open + 1, close);
  return inner.includes(",") || inner.includes("..");
}

/**
 * Decodes the text between the quotes of a double-quoted string: `\` before
 * `$`, a backquote, `"`, `\` or a newline escapes it (backslash-newline
 * disappears); any other backslash stays. Refuses an unescaped `$` or
 * backquote.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeDoubleQuoted } from "./words.ts";
 * assert.deepEqual(decodeDoubleQuoted('a \\"b\\" \\n'), { ok: true, text: 'a "b" \\n' });
 * assert.deepEqual(decodeDoubleQuoted("$HOME"), { ok: false, reason: "expansion" });
 * ```
 */
export function decodeDoubleQuoted(inner: string): WordDecode {
  let out = "";
  for (let index = 0; index < inner.length; index += 1) {
    const char = inner[index];
    if (char === "\\" && index + 1 < inner.length) {
      const next = inner[index + 1];
      if (next === "$" || next === "`" || next === '"' || next === "\\") {
        out += next;
        index += 1;
        continue;
      }
      if (next === "\n") {
        index += 1;
        continue;
      }
    } else if (char === "$" || char === "`") {
      return EXPANSION;
    }
    out += char;
  }
  return { ok: true, text: out };
}
