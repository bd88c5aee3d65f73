/**
 * Two cheap, pure readings of shell source that let the extension skip work
 * without ever changing a decision (YARP's parser still makes every one):
 *
 * - {@link certainlyCompound}: true only when the source certainly is not
 *   one simple command without redirects (an unquoted `|`, `&&`, `<`, `>`,
 *   or a second command after `;`, `&` or a newline, seen before anything
 *   the scan does not follow, such as `$`, a backtick or a parenthesis).
 *   `yarp rewrite` never wraps such a source, so the extension does not ask
 *   it (each ask is a process start).
 * - {@link literalArgv}: the argv bash makes of a source that is one simple
 *   command of literal words (bare safe characters, single quotes, double
 *   quotes without expansions, backslash escapes), else undefined. The
 *   extension builds the wrapper from it when `yarp rewrite --json` says to
 *   wrap, since the JSON reply never carries command text.
 *
 * Both scans give up (not compound; no argv) on whatever they do not read
 * exactly; tests/pi_shell_words_test.ts checks them against YARP's parser
 * over the shell corpora and against bash itself.
 *
 * @module
 */

const BLANK = new Set([" ", "\t"]);

/** Characters after which the compound scan stops reading (expansions, grouping, globs). */
const STOP = new Set(["$", "`", "(", ")", "{", "}"]);

/**
 * True only when `source` is certainly not one simple command without
 * redirects; false whenever unsure. Never throws.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { certainlyCompound } from "./shell_words.ts";
 * equal(certainlyCompound("grep -rn x . | head"), true);
 * equal(certainlyCompound("grep 'a|b' file"), false);
 * equal(certainlyCompound("echo $(a | b)"), false);
 * ```
 */
export function certainlyCompound(source: string): boolean {
  let quote: "'" | '"' | undefined;
  let wordStart = true;
  /** A word of the current command was seen. */
  let seenWord = false;
  /** A `;`, `&` or newline ended a command: any further word is a second command. */
  let ended = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      continue;
    }
    if (quote === '"') {
      if (c === "\\") i++;
      else if (c === '"') quote = undefined;
      else if (c === "$" || c === "`") return false;
      continue;
    }
    if (BLANK.has(c)) {
      wordStart = true;
      continue;
    }
    if (c === "#" && wordStart) {
      const newline = source.indexOf("\n", i);
      if (newline < 0) return false;
      i = newline - 1;
      continue;
    }
    if (c === "\n" || c === ";" || c === "&") {
      if (c === "&" && source[i + 1] === "&") return true;
      if (c === "&" && source[i + 1] === ">") return true;
      if (c === ";" && source[i + 1] === ";") return false;
      ended = seenWord;
      wordStart = true;
      continue;
    }
    if (c === "|" || c === "<" || c === ">") return true;
    if (STOP.has(c)) return false;
    if (ended) return true;
    wordStart = false;
    seenWord = true;
    if (c === "\\") {
      i++;
    } else if (c === "'" || c === '"') {
      quote = c;
    }
  }
  return false;
}

/** Unquoted characters a literal word may hold: those bash never reinterprets. */
const BARE = /^[A-Za-z0-9_@%+=:,./^-]$/;

/** Words that bash reads as syntax at the start of a command. */
const RESERVED = new Set([
  "!",
  "[[",
  "]]",
  "{",
  "}",
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "time",
  "until",
  "while",
]);

/** In double quotes, a backslash escapes only these (a newline is removed with it). */
const DQ_ESCAPED = new Set(["$", "`", '"', "\\", "\n"]);

/**
 * The argv bash makes of `source` when it is one simple command of literal
 * words (see the module doc), else undefined. Never throws.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { literalArgv } from "./shell_words.ts";
 * deepEqual(literalArgv(`git log --format='%h %s' "a b"\n`), ["git", "log", "--format=%h %s", "a b"]);
 * deepEqual(literalArgv("ls ~"), undefined);
 * ```
 */
export function literalArgv(source: string): string[] | undefined {
  const words: string[] = [];
  const raw: string[] = [];
  let word = "";
  let rawWord = "";
  let inWord = false;
  let trailing = false;
  const close = () => {
    if (inWord) {
      words.push(word);
      raw.push(rawWord);
    }
    word = "";
    rawWord = "";
    inWord = false;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (trailing) {
      if (c !== "\n" && !BLANK.has(c)) return undefined;
      continue;
    }
    if (BLANK.has(c)) {
      close();
      continue;
    }
    if (c === "\n") {
      close();
      trailing = true;
      continue;
    }
    if (c === "\\") {
      const next = source[i + 1];
      if (next === undefined) return undefined;
      i++;
      rawWord += c + next;
      if (next === "\n") continue;
      word += next;
      inWord = true;
      continue;
    }
    if (c === "'") {
      const end = source.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word += source.slice(i + 1, end);
      rawWord += source.slice(i, end + 1);
      inWord = true;
      i = end;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      for (; j < source.length && source[j] !== '"'; j++) {
        const d = source[j];
        if (d === "$" || d === "`" || d === "!") return undefined;
        if (d === "\\" && DQ_ESCAPED.has(source[j + 1])) {
          j++;
          if (source[j] !== "\n") word += source[j];
        } else {
          word += d;
        }
      }
      if (j >= source.length) return undefined;
      rawWord += source.slice(i, j + 1);
      inWord = true;
      i = j;
      continue;
    }
    // `~` expands at a word's start and after `=` or `:` in assignment-like words only.
    const tilde = c === "~" && rawWord !== "" && !rawWord.includes("=") &&
      !rawWord.endsWith(":");
    // `!` is history expansion only in an interactive shell, and syntax only as a first word.
    const bang = c === "!" && words.length > 0;
    if (!tilde && !bang && !BARE.test(c)) return undefined;
    word += c;
    rawWord += c;
    inWord = true;
  }
  close();
  if (words.length === 0 || RESERVED.has(raw[0]) || raw[0].includes("=")) {
    return undefined;
  }
  return words;
}
