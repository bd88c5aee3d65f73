/**
 * The byte screen in front of the notice and summary regular expressions of
 * `evidence.ts`: a necessary condition, read on the line's bytes without
 * decoding, for any of those expressions to match the line's window. A
 * window the screen rejects cannot match (so the screen never changes a
 * classification, it only saves the decode and the regular expressions);
 * a window it accepts may or may not. The screen and the expressions must
 * change together: `tests/reduce_evidence_test.ts` checks that every
 * window the expressions match passes the screen.
 *
 * The expressions are anchored at the line start (after white space) save
 * a few, so the screen asks:
 *
 * 1. does the first non-space byte start one of the anchored forms' literal
 *    prefixes (`Command `, `test result: `, `Tests`, `added`, a count, …)?
 *    Non-ASCII leads pass only for the forms' own marks (`ℹ ✖ × ✨`) and for
 *    Unicode white space, which the expressions' `\s` reads past;
 * 2. for go test's `pkg  0.12s` rows (after leading white space, `ok`,
 *    `FAIL` or `---`): does the window end with a digit or `.` and `s`?
 * 3. does a word of an unanchored form start anywhere in the window
 *    (`truncated`, `due`, `persisted`, `limit`, `large` in any case;
 *    `run`, `BUILD`, `passed`, `failed`, `vulnerabilities` as written)?
 *
 * Pure, no state, no allocation.
 *
 * @module
 */

const encoder = new TextEncoder();

/** ASCII word bytes, as the expressions' `\b` and `\w` read them. */
const WORD = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  if (
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f
  ) WORD[b] = 1;
}

/** Literal prefixes of the anchored forms, by lead byte (case as written). */
const PREFIXES: Uint8Array[][] = [];
for (
  const p of [
    // Outcomes.
    "Command ",
    "Exit code",
    "exit ",
    "Process ",
    "Segmentation fault",
    "Killed",
    "Terminated",
    "Aborted",
    "Bus error",
    "timeout: ",
    "error: ",
    "The command ",
    "Error: ",
    // Summaries.
    "test result: ",
    "Summary [",
    "Test",
    "Snapshots:",
    "Suites:",
    "Assertions:",
    "# ",
    "FAIL",
    "=",
    "Passed!",
    "Failed!",
    "Total tests: ",
    "Build ",
    "Found ",
    "Finished ",
    "warning: ",
    "added",
    "removed",
    "changed",
    "up to date",
    "audited",
    "found ",
    "Done in ",
    "Packages: ",
    "Successfully ",
    "Installed ",
    "Resolved ",
    "Prepared ",
    "Audited ",
    "Uninstalled ",
    "ninja: no work",
    "make",
    "-- Configuring done",
    "-- Generating done",
    "-- Build files have been written to: ",
  ]
) {
  const bytes = encoder.encode(p);
  (PREFIXES[bytes[0]] ??= []).push(bytes);
}

/** Prefixes matched in any ASCII case (the host notices' expression is case-insensitive). */
const FOLDED_PREFIXES = ["[showing ", "[yarp: ", "[100%] built target "].map((p) =>
  encoder.encode(p)
);

/** Words of the unanchored forms, by lead byte; `folded` ones match in any ASCII case. */
const WORDS: { word: Uint8Array; folded: boolean }[][] = [];
/** Per byte: 1 for a word byte, 2 more when some word starts with it. */
const CLASS = WORD.slice();
function addWord(text: string, folded: boolean): void {
  const word = encoder.encode(text);
  const leads = folded ? [word[0], word[0] ^ 0x20] : [word[0]];
  for (const lead of leads) {
    (WORDS[lead] ??= []).push({ word, folded });
    CLASS[lead] = 3;
  }
}
/** Rule 3's words matched in any ASCII case. */
export const FOLDED_FORM_WORDS: readonly string[] = [
  "truncated",
  "due",
  "persisted",
  "limit",
  "large",
];
/** Rule 3's words matched as written. */
export const EXACT_FORM_WORDS: readonly string[] = [
  "run",
  "BUILD",
  "passed",
  "failed",
  "vulnerabilities",
];
for (const w of FOLDED_FORM_WORDS) addWord(w, true);
for (const w of EXACT_FORM_WORDS) addWord(w, false);

/** True when `bytes[at, end)` starts with `text`; with `folded`, ASCII letters in any case. */
function has(
  bytes: Uint8Array,
  at: number,
  end: number,
  text: Uint8Array,
  folded: boolean,
): boolean {
  if (end - at < text.length) return false;
  for (let k = 0; k < text.length; k++) {
    const b = bytes[at + k];
    const t = text[k];
    if (b === t) continue;
    if (!folded || (b | 0x20) !== (t | 0x20) || (t | 0x20) < 0x61 || (t | 0x20) > 0x7a) {
      return false;
    }
  }
  return true;
}

function isSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
}

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

/** True when the non-ASCII bytes at `at` may be a form's mark or Unicode white space. */
function nonAsciiLead(bytes: Uint8Array, at: number, end: number): boolean {
  const b0 = bytes[at];
  if (b0 === 0xe1 || b0 === 0xe3 || b0 === 0xef) return true; // U+1680, U+3000, U+FEFF
  const b1 = at + 1 < end ? bytes[at + 1] : -1;
  const b2 = at + 2 < end ? bytes[at + 2] : -1;
  if (b0 === 0xc3) return b1 === 0x97; // ×
  if (b0 !== 0xe2) return false;
  if (b1 === 0x80 || b1 === 0x81) return true; // U+2000–U+205F spaces
  if (b1 === 0x84) return b2 === 0xb9; // ℹ
  return b1 === 0x9c && (b2 === 0x96 || b2 === 0xa8); // ✖ ✨
}

/** True when the window, less trailing white space, ends with a digit or `.` and `s` (or non-ASCII). */
function durationTail(bytes: Uint8Array, start: number, end: number): boolean {
  let i = end - 1;
  while (i >= start && isSpace(bytes[i])) i--;
  if (i < start) return false;
  if (bytes[i] >= 0x80) return true;
  return bytes[i] === 0x73 && i > start && (isDigit(bytes[i - 1]) || bytes[i - 1] === 0x2e);
}

/**
 * go test's `ok  pkg  (cached)` shape after `ok` at `at`: white space, a
 * field, white space, then a digit, `.`, `(` or `[` (or any non-ASCII byte,
 * which may be white space).
 */
function goRow(bytes: Uint8Array, at: number, end: number): boolean {
  let i = at;
  for (let k = at; k < end; k++) if (bytes[k] >= 0x80) return true;
  for (let field = 0; field < 3; field++) {
    const from = i;
    const space = field !== 1;
    while (i < end && isSpace(bytes[i]) === space) i++;
    if (i === from || i === end) return false;
  }
  const b = bytes[i];
  return isDigit(b) || b === 0x2e || b === 0x28 || b === 0x5b;
}

/** Rule 1 (and 2 for its leads): an anchored form's lead at `at`. */
function anchored(bytes: Uint8Array, start: number, at: number, end: number): boolean {
  const b = bytes[at];
  if (b >= 0x80) return nonAsciiLead(bytes, at, end);
  if (isDigit(b)) {
    let i = at + 1;
    while (i < end && isDigit(bytes[i])) i++;
    return i < end && (bytes[i] === 0x20 || bytes[i] === 0x25);
  }
  if (b === 0x5b) {
    for (const p of FOLDED_PREFIXES) if (has(bytes, at, end, p, true)) return true;
    return false;
  }
  if (b === 0x6f && at + 1 < end && bytes[at + 1] === 0x6b) { // ok
    return has(bytes, at + 2, end, PIPE, false) || goRow(bytes, at + 2, end) ||
      durationTail(bytes, start, end);
  }
  if (b === 0x50 && has(bytes, at, end, PASS, false)) { // PASS alone
    for (let i = at + 4; i < end; i++) if (!isSpace(bytes[i]) && bytes[i] < 0x80) return false;
    return true;
  }
  if (b === 0x2d && has(bytes, at, end, DASHES, false)) return durationTail(bytes, start, end);
  const list = PREFIXES[b];
  if (list !== undefined) { for (const p of list) if (has(bytes, at, end, p, false)) return true; }
  return false;
}

const PIPE = encoder.encode(" |");
const PASS = encoder.encode("PASS");
const DASHES = encoder.encode("---");

/** Rule 3: a word of an unanchored form starts in `bytes[at, end)`. */
function unanchored(bytes: Uint8Array, at: number, end: number): boolean {
  let prev = 0;
  for (let i = at; i < end; i++) {
    const c = CLASS[bytes[i]];
    if (c === 3 && prev === 0 && formWordAt(bytes, i, end)) return true;
    prev = c;
  }
  return false;
}

/** True when byte `b` may start a word of an unanchored form (rule 3). */
export function isFormWordLead(b: number): boolean {
  return CLASS[b] === 3;
}

/** True when a word of an unanchored form (rule 3) is spelled at `bytes[i]` (the caller knows `i` starts a word). */
export function formWordAt(bytes: Uint8Array, i: number, end: number): boolean {
  const list = WORDS[bytes[i]];
  if (list === undefined) return false;
  for (let w = 0; w < list.length; w++) {
    if (has(bytes, i, end, list[w].word, list[w].folded)) return true;
  }
  return false;
}

/**
 * False when no notice or summary form of `evidence.ts` can match the
 * window `bytes[start, end)` (see the module contract); `at` is the offset
 * of its first byte after leading ASCII white space and U+00A0. `words` is
 * 1 or 0 when the caller's own scan of the whole line found (or did not
 * find) a word of rule 3 starting in it, -1 to scan the window here.
 */
export function mayHoldForm(
  bytes: Uint8Array,
  start: number,
  at: number,
  end: number,
  words: number,
): boolean {
  if (at >= end) return false;
  if (anchored(bytes, start, at, end)) return true;
  if (at > start && durationTail(bytes, start, end)) return true;
  return words === -1 ? unanchored(bytes, at, end) : words === 1;
}
