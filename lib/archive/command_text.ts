/**
 * The command text stored and searched for a `yarp run` call: argv joined
 * by spaces, each word shell-quoted only when it needs it, so the text
 * reads like what a person typed and pastes back into a POSIX shell.
 *
 * @module
 */

const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * `argv` as one line of POSIX shell: plain words as-is, others in single
 * quotes (`'` written as `'\''`), an empty word as `''`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { commandText } from "./command_text.ts";
 * equal(commandText(["git", "log", "--format=%h %s", "", "it's"]), "git log '--format=%h %s' '' 'it'\\''s'");
 * ```
 */
export function commandText(argv: readonly string[]): string {
  return argv.map((word) => PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)
    .join(" ");
}
