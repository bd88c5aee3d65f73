/**
 * Text from the archive made safe to print on a terminal. An archived
 * command or output may hold terminal control sequences (clear screen, an
 * OSC window title, BEL, cursor moves); printed raw by `yarp search` or an
 * archive message they would act on the reader's terminal. Exact bytes are
 * for `yarp read`, which prints them unchanged on purpose; everything else
 * that shows archived text goes through {@link printableText}.
 *
 * Escaped: the C0 controls U+0000–U+001F except TAB and LF, DEL (U+007F),
 * the C1 controls U+0080–U+009F, and the bidirectional controls (U+061C,
 * U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) that can make text read
 * differently from what it is. Known miss, by design: a backslash is not
 * escaped, so `\x1b` typed literally and an escaped ESC look alike; the
 * output is for reading, `yarp read` and `--json` are for exactness.
 *
 * @module
 */

// deno-lint-ignore no-control-regex -- matching controls is the point
const ESCAPED = /[\0-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// deno-lint-ignore no-control-regex -- matching controls is the point
const ANY_ESCAPED = /[\0-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function escapeOne(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every control character listed in the module doc written as
 * a visible escape: `\xHH` (two lower-case hex digits) up to U+00FF,
 * `\uHHHH` above. Everything else, TAB and LF included, is unchanged, so
 * text without controls comes back identical (and the same string). The
 * result never contains an escaped character, so applying it twice changes
 * nothing more. Pure; linear in the length of `text`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { printableText } from "./printable_text.ts";
 * equal(printableText("printf '\x1b]0;owned\x07'"), "printf '\\x1b]0;owned\\x07'");
 * equal(printableText("tab\tand\nnewline"), "tab\tand\nnewline");
 * equal(printableText("csi \u009b2J"), "csi \\x9b2J");
 * ```
 */
export function printableText(text: string): string {
  return ANY_ESCAPED.test(text) ? text.replace(ESCAPED, escapeOne) : text;
}

/**
 * `json` (text produced by `JSON.stringify`) with DEL, the C1 controls and
 * the bidirectional controls of {@link printableText} written as `\uHHHH`
 * escapes, which `JSON.stringify` leaves raw (it escapes only C0). The
 * result parses to the same value and prints no control character.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { printableJson } from "./printable_text.ts";
 * equal(printableJson(JSON.stringify("a\u009bb")), '"a\\u009bb"');
 * ```
 */
export function printableJson(json: string): string {
  return ANY_ESCAPED.test(json)
    ? json.replace(ESCAPED, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)
    : json;
}

/** How much of an argument an error line quotes before it cuts (characters). */
export const QUOTED_ARG_CHARS = 80;

/**
 * `arg` as an error line quotes it: control characters escaped (so the line
 * stays one line and acts on no terminal) and cut to
 * {@link QUOTED_ARG_CHARS} characters with the full length said.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { quotedArg } from "./printable_text.ts";
 * equal(quotedArg("id\n"), "id\\x0a");
 * equal(quotedArg("x".repeat(100)), "x".repeat(80) + "… (100 characters)");
 * ```
 */
export function quotedArg(arg: string): string {
  const cut = arg.length > QUOTED_ARG_CHARS
    ? `${arg.slice(0, QUOTED_ARG_CHARS)}… (${arg.length} characters)`
    : arg;
  return printableText(cut).replaceAll("\n", "\\x0a");
}
