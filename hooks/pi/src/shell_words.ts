/**
 * A cheap, pure reading of shell source that lets the extension skip a
 * process start without ever changing a decision (YARP's parser still makes
 * every one): {@link certainlyCompound} is true only when the source
 * certainly is not one simple command without redirects (an unquoted `|`,
 * `&&`, `<`, `>`, or a second command after `;`, `&` or a newline, seen
 * before anything the scan does not follow, such as `$`, a backtick or a
 * parenthesis). `yarp rewrite` never wraps such a source, so the extension
 * does not ask it.
 *
 * The scan gives up (not compound) on whatever it does not read exactly;
 * tests/pi_shell_words_test.ts checks it against YARP's parser over the
 * shell corpora and generated commands.
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
    // A backslash-newline outside quotes is removed before words are read: it joins, never ends.
    if (c === "\\" && source[i + 1] === "\n") {
      i++;
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
