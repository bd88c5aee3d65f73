/**
 * Finds the diagnostic lines (`diagnosticForm`, `diagnostics.ts`) among the
 * complete lines of a chunk range without classifying every line. Each
 * window of the range (whole lines, decoded one character per byte: as
 * UTF-8 when that gives as many characters as bytes, else as below)
 * is searched for every text a diagnostic form holds: one native
 * regular-expression search for the marker words (`MARKER_WORDS`, any
 * case), `DIAGNOSTIC_ANCHORS`, `fatal`, `critical`, `caused by` and
 * `not ok` (each led by a letter, which keeps V8's search fast), and one
 * native `indexOf` scan for each lead of the other word-less forms
 * (`mayLeadForm`), as the classifier matches them: `-->`, `*** `,
 * `* What`, `ERR` (`npm ERR!`, `ERR_PNPM_`), `File "`; then one search for
 * Kotlin's and pytest's `e: `, `w: `, `E  ` at a line start and, in a
 * window that is not ASCII, the first two bytes of the marks `✕ ✗ ✖ ● ⚠ ×`. A line holding none is never a form; each
 * line holding one is classified by `diagnosticForm`, once, in order.
 *
 * Bound: no state but the compiled search; one window of at most
 * {@link WINDOW_BYTES} bytes is decoded at a time, with at most one line
 * start recorded per line of it.
 *
 * @module
 */
import { DIAGNOSTIC_ANCHORS, diagnosticForm, MARKER_WORDS, NOT_DIAGNOSTIC } from "./evidence.ts";
import { trieAlternation } from "./_word_candidates.ts";

const LF = 10;
const CR = 13;

const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder();
const encoder = new TextEncoder();
/** Bytes decoded and searched at a time (whole lines: a window ends after a line feed). */
const WINDOW_BYTES = 16384;
/** Bytes decoded and searched at a time (whole lines: a window ends after a line feed). */

/** The words searched in any case. */
const WORDS = new RegExp(
  trieAlternation([
    ...MARKER_WORDS,
    ...DIAGNOSTIC_ANCHORS,
    "fatal",
    "critical",
    "caused by",
    "not ok",
  ]),
  "gi",
);
/** Leads searched as written with `indexOf`, in every window: their first bytes are rare. */
const RARE_LEADS = ["-->", "*** ", "* What", "ERR", 'File "']; // ERR: npm ERR!, ERR_PNPM_

/**
 * A window that is not ASCII is decoded from a copy in which the bytes
 * 0x80–0x9F become 0xA0–0xBF, so every character is one byte (windows-1252
 * would decode them to characters above U+00FF, a two-byte string V8
 * searches several times slower); a lead matched there may be a false hit,
 * never a miss, and `diagnosticForm` reads the true bytes.
 */
const scratch = new Uint8Array(WINDOW_BYTES);
/** `bytes` with 0x80–0x9F moved to 0xA0–0xBF, decoded one character per byte. */
function decodeHigh(bytes: Uint8Array): string {
  const copy = bytes.length <= scratch.length ? scratch.subarray(0, bytes.length) : bytes.slice();
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    copy[i] = (b & 0xe0) === 0x80 ? b | 0x20 : b;
  }
  return latin1.decode(copy);
}

/** Kotlin's and pytest's leads at a line start (after a line feed): one search, every line a try. */
const COLUMN0 = String.raw`\n(?:e: |w: |E  )`;
/** The marks' first two bytes as {@link decodeHigh} gives them (each is followed by more). */
const MARKS = ["✕", "✗", "✖", "●", "⚠", "×"].map((mark) =>
  RegExp.escape(decodeHigh(encoder.encode(mark)).slice(0, 2))
);
const LINE_LEADS = new RegExp(COLUMN0, "g");
const LINE_OR_MARK_LEADS = new RegExp(`${COLUMN0}|${MARKS.join("|")}`, "g");
/** The leads matched at a window's first line (no line feed before it). */
const FIRST_LINE = ["e: ", "w: ", "E  "];

/** Receives one diagnostic line: content `chunk[start, end)`, its ending, and the line feeds before it in the range. */
export type DiagnosticSink = (
  chunk: Uint8Array,
  start: number,
  end: number,
  ending: 1 | 2,
  before: number,
) => void;

/**
 * Calls `sink` for each line of `chunk[from, to)` (`from` starts a line,
 * `to` follows a line feed) that `form` (by default `diagnosticForm`; a
 * caller that shows lines stripped of ANSI sequences classifies them so)
 * calls a diagnostic, in order; `countFeeds(chunk, a, b)` counts the line
 * feeds of a range (the caller's `countByte`).
 */
export function screenDiagnostics(
  chunk: Uint8Array,
  from: number,
  to: number,
  sink: DiagnosticSink,
  countFeeds: (bytes: Uint8Array, start: number, end: number) => number,
  form: (bytes: Uint8Array, start: number, end: number) => number = diagnosticForm,
): void {
  let counted = from;
  let before = 0;
  const starts: number[] = [];
  let ascii = true;
  for (let window = from; window < to;) {
    let stop = Math.min(to, window + WINDOW_BYTES);
    if (stop < to) stop = chunk.lastIndexOf(LF, stop - 1) + 1;
    if (stop <= window) stop = chunk.indexOf(LF, window) + 1;
    const bytes = chunk.subarray(window, stop);
    let text = ascii ? utf8.decode(bytes) : "";
    // UTF-8 decodes ASCII fastest; after a window that is not ASCII the rest goes to decodeHigh.
    if (text.length !== bytes.length) {
      ascii = false;
      text = decodeHigh(bytes);
    }
    starts.length = 0;
    const lineOf = (hit: number) => chunk.lastIndexOf(LF, window + hit - 1) + 1;
    WORDS.lastIndex = 0;
    while (WORDS.test(text)) {
      const start = Math.max(window, lineOf(WORDS.lastIndex - 1));
      starts.push(start);
      const lf = chunk.indexOf(LF, start);
      WORDS.lastIndex = lf + 1 - window;
    }
    const words = starts.length;
    for (const lead of RARE_LEADS) {
      for (let at = text.indexOf(lead); at !== -1; at = text.indexOf(lead, at + 1)) {
        starts.push(Math.max(window, lineOf(at)));
      }
    }
    const leads = ascii ? LINE_LEADS : LINE_OR_MARK_LEADS;
    leads.lastIndex = 0;
    for (let m = leads.exec(text); m !== null; m = leads.exec(text)) {
      starts.push(Math.max(window, lineOf(m.index + (text.charCodeAt(m.index) === LF ? 1 : 0))));
    }
    if (FIRST_LINE.some((lead) => text.startsWith(lead))) starts.push(window);
    if (starts.length > words) starts.sort((a, b) => a - b);
    let last = -1;
    for (const start of starts) {
      if (start === last) continue;
      last = start;
      const lf = chunk.indexOf(LF, start);
      const ending = lf > start && chunk[lf - 1] === CR ? 2 : 1;
      const end = lf + 1 - ending;
      if (form(chunk, start, end) === NOT_DIAGNOSTIC) continue;
      before += countFeeds(chunk, counted, start);
      counted = start;
      sink(chunk, start, end, ending, before);
    }
    window = stop;
  }
}
