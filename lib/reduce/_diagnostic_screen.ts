/**
 * Finds the diagnostic lines (`diagnosticForm`, `diagnostics.ts`) among the
 * complete lines of a chunk range without classifying every line. Each
 * window of the range (whole lines, decoded one character per byte: as
 * UTF-8 when that gives as many characters as bytes, as for ASCII, else as
 * windows-1252, which maps every byte to one character) is searched for
 * every text a diagnostic form holds: one native regular-expression search
 * for the marker words (`MARKER_WORDS`, any case, but `exception`),
 * `DIAGNOSTIC_ANCHORS`, `fatal`, `critical`, `caused by` and `not ok`, and
 * one native `indexOf` scan for `Exception` as written (the one form that
 * needs the word, an exception name, spells it so) and for each lead of
 * the other word-less forms (`mayLeadForm`), as the classifier matches
 * them: `-->`, `*** `, `* What`, `ERR` (`npm ERR!`, `ERR_PNPM_`), `File "`; then one
 * search for Kotlin's and pytest's `e: `, `w: `, `E  ` at a line start
 * and, in a window that is not ASCII, the first two bytes of the marks
 * `✕ ✗ ✖ ● ⚠ ×`. A line holding none is never a form; each line holding
 * one is classified by the caller's `form`, once, in order.
 *
 * Lines are screened as shown: the classifier reads a line with its ANSI
 * sequences removed, and every byte the stripper (`lib/bytes/ansi.ts`)
 * removes belongs to a sequence that starts with ESC. So in a window
 * holding ESC the searches above run on the raw text (a word the colours
 * only surround is there whole) and one more search finds the rest: an
 * ESC right after a character of a searched word or lead that another of
 * its characters follows ({@link SPLITS}, {@link SPACE_SPLITS}:
 * `err\x1b[0mor`, whatever the sequence), and a column-0 lead in a line
 * that starts with ESC ({@link COLUMN0_OR_AFTER_ESCAPE}); in a window
 * whose ESCs are sparse, the same lines are found ESC by ESC instead
 * ({@link escapedStarts}). It finds a superset: the caller's `form`
 * decides each line.
 *
 * Measured (in process, the 64 KiB blocks of `bench/reduce_throughput.ts`,
 * CPU time, old and new in the same run; load average 5–12 on 2 cores, so
 * each figure is one of two or three runs that differed by up to 40%):
 * searching `exception` in any case put `x` (its second letter) in every
 * position V8's skip table looks at, so a run of `x` cost 8 ns a byte
 * (filter_heavy, 42% `x`: 251 MB/s for the word search alone), and
 * `Exception` as written in the same search still did (605–653 MB/s);
 * without it, with `Exception` found by `indexOf`, the search runs at
 * 1,540–1,710. A window that was not ASCII was copied by a byte loop
 * (0x80–0x9F moved to 0xA0–0xBF so the string stayed one byte a
 * character), then decoded: the whole screen ran at 300–345 MB/s on
 * invalid UTF-8; decoded as windows-1252 without the copy, 360–390, and
 * 470–540 once a chunk whose first 256 bytes are not ASCII skips the UTF-8
 * try of its first window (UTF-8 decodes invalid bytes at about 360 MB/s,
 * windows-1252 at about 1 GB/s; ASCII as UTF-8 at several). The
 * whole screen on the blocks, old (bea92f8) against this one: short
 * 540–700 → 590–830, invalid_utf8 300–345 → 360–390, filter_heavy 270–330
 * (finding 41 diagnostics a block) → 220–330 (finding 108: its coloured
 * `error[E0…]` lines are now read as shown), ansi 1,100–1,400 → 280–560:
 * the split search costs one look behind each ESC, and that block has
 * one ESC every 9 bytes. Reducer figures: docs/rules.md, "Throughput".
 *
 * Bound: no state but the compiled searches; one window of at most
 * {@link WINDOW_BYTES} bytes is decoded at a time, with at most one line
 * start recorded per line of it.
 *
 * @module
 */
import { DIAGNOSTIC_ANCHORS, diagnosticForm, MARKER_WORDS, NOT_DIAGNOSTIC } from "./evidence.ts";
import { trieAlternation } from "./_word_candidates.ts";

const LF = 10;
const CR = 13;
const ESC = "\x1b";
const SPACE = 0x20;

const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder();
const encoder = new TextEncoder();
/** Bytes decoded and searched at a time (whole lines: a window ends after a line feed). */
const WINDOW_BYTES = 16384;
/** Bytes of a chunk's start that choose its first decoder. */
const SAMPLE_BYTES = 256;

/** True when `bytes` (a few hundred) are ASCII. */
function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] > 0x7f) return false;
  return true;
}

/** The words searched in any case (`Exception` is searched as written, with the rare leads). */
const ANY_CASE_WORDS = [
  ...MARKER_WORDS.filter((word) => word !== "exception"),
  ...DIAGNOSTIC_ANCHORS,
  "fatal",
  "critical",
  "caused by",
  "not ok",
];
const WORDS = new RegExp(trieAlternation(ANY_CASE_WORDS), "gi");
/**
 * Leads and words searched as written with `indexOf`, in every window: their first bytes are
 * rare, and `Exception` in the search above put its `x` where V8's skip table looks.
 */
const RARE_LEADS = ["-->", "*** ", "* What", "ERR", 'File "', "Exception"]; // ERR: npm ERR!, ERR_PNPM_

/** Kotlin's and pytest's leads at a line start (after a line feed): one search, every line a try. */
const COLUMN0 = String.raw`\n(?:e: |w: |E  )`;
/** The marks' first two bytes as windows-1252 decodes them (each is followed by more). */
const MARKS_BYTES = ["✕", "✗", "✖", "●", "⚠", "×"].map((mark) =>
  latin1.decode(encoder.encode(mark)).slice(0, 2)
);
const MARKS = MARKS_BYTES.map((mark) => RegExp.escape(mark));
const LINE_LEADS = new RegExp(COLUMN0, "g");
const LINE_OR_MARK_LEADS = new RegExp(`${COLUMN0}|${MARKS.join("|")}`, "g");
/** The leads matched at a window's first line (no line feed before it). */
const FIRST_LINE = ["e: ", "w: ", "E  "];
/** Every word and lead searched, in the case its search uses (the words in any case). */
const SEARCHED = [
  ...ANY_CASE_WORDS,
  ...RARE_LEADS,
  ...FIRST_LINE,
  ...MARKS_BYTES,
];
/**
 * A removed sequence starts at ESC, so a sequence inside a searched word
 * or lead (`err\x1b[0mor`) starts right after one of its characters that
 * another of its characters follows: after one of {@link SPLIT_AFTER}'s
 * characters (any case), or after a space that such a word holds
 * (`caused \x1b[1mby`), whose text before it ({@link SPLIT_AFTER_SPACE})
 * is matched whole. Neither `m` (the colours' final byte) nor `k` is one,
 * so a run of colour codes is not.
 */
const SPLIT_AFTER = new Set(
  SEARCHED.flatMap((word) => [...word.slice(0, -1)].filter((c) => c !== " ")).map((c) =>
    c.toLowerCase()
  ),
);
const SPLIT_AFTER_SPACE = new Set(
  SEARCHED.flatMap((word) =>
    [...word.slice(0, -1)].flatMap((c, k) => c === " " ? [word.slice(0, k + 1)] : [])
  ),
);
/** `c` in both cases, as a class member. */
const bothCases = (c: string) =>
  [...new Set([c.toLowerCase(), c.toUpperCase()])].map((x) =>
    "\\u" + x.charCodeAt(0).toString(16).padStart(4, "0")
  ).join("");
const SPLITS = new RegExp(`\x1b(?<=[${[...SPLIT_AFTER].map(bothCases).join("")}]\x1b)`, "g");
/** The spaces of {@link SPLIT_AFTER_SPACE} before an ESC, searched text first. */
const SPACE_SPLITS = new RegExp(
  `(?:${
    [...SPLIT_AFTER_SPACE].map((w) => [...w].map((c) => `[${bothCases(c)}]`).join("")).join("|")
  })\x1b`,
  "g",
);
/** {@link SPLITS}, {@link SPACE_SPLITS} and the column-0 search of a window holding ESC, in one. */
const ESCAPED = (marks: boolean) =>
  new RegExp(
    `${SPLITS.source}|${SPACE_SPLITS.source}|${COLUMN0_OR_AFTER_ESCAPE}${
      marks ? `|${MARKS.join("|")}` : ""
    }`,
    "g",
  );
/**
 * A line whose shown text starts with a column-0 lead that its raw text
 * does not start with starts with ESC (what is removed starts so): a
 * column-0 lead anywhere in a line that starts with ESC, the lead searched
 * first (a sequence inside the lead is one of {@link SPLITS}); in a window
 * holding ESC, one search for it and for a column-0 lead after a line
 * feed (and the marks, when not ASCII) stands for the column-0 search.
 */
const LEADS = FIRST_LINE.join("|");
const COLUMN0_OR_AFTER_ESCAPE = `(?:${LEADS})(?<=\n(?:\x1b[^\n]*)?[^\n]{3})`;
const ESCAPED_ASCII = ESCAPED(false);
const ESCAPED_OTHER = ESCAPED(true);
const FIRST_LEAD_AFTER_ESCAPE = new RegExp(`\x1b[^\n]*?(?:${LEADS})`, "y");
/** 1 at the character code of each of {@link SPLIT_AFTER}, in both cases (all below 256). */
const SPLIT_AFTER_CODE = new Uint8Array(256);
for (const c of SPLIT_AFTER) {
  for (const x of [c.toLowerCase(), c.toUpperCase()]) {
    if (x.length !== 1 || x.charCodeAt(0) > 255) throw new Error(`split character ${x}`);
    SPLIT_AFTER_CODE[x.charCodeAt(0)] = 1;
  }
}
/** {@link SPLIT_AFTER_SPACE} in lower case, to compare the text before an ESC with. */
const SPACE_SPLIT_TEXTS = [...SPLIT_AFTER_SPACE].map((w) => w.toLowerCase());
/**
 * A window holding at most one ESC per this many characters has its ESCs
 * looked at one by one ({@link escapedStarts}); a denser one is searched
 * by {@link ESCAPED}.
 */
const SPARSE_ESCAPES = 64;
/** Characters of a window whose ESCs are counted first, to send a dense window to the search at once. */
const PROBE = 1024;

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
 * `to` follows a line feed) that `form` (by default `diagnosticForm`)
 * calls a diagnostic, in order; `countFeeds(chunk, a, b)` counts the line
 * feeds of a range (the caller's `countByte`).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { screenDiagnostics } from "./_diagnostic_screen.ts";
 * const chunk = new TextEncoder().encode("ok\nmain.c:3:9: error: x\n\x1b[31merr\x1b[0mor: y\nok\n");
 * const found: number[] = [];
 * screenDiagnostics(chunk, 0, chunk.length, (_, start) => {
 *   found.push(start);
 * }, () => 0);
 * deepEqual(found, [3, 24]);
 * ```
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
    // UTF-8 decodes ASCII fastest, but bytes that are not UTF-8 slowest: a chunk whose first
    // SAMPLE_BYTES are not ASCII, and the rest of a chunk after a window that is not, are
    // windows-1252.
    if (window === from && !isAscii(bytes.subarray(0, SAMPLE_BYTES))) ascii = false;
    let text = ascii ? utf8.decode(bytes) : "";
    if (text.length !== bytes.length) {
      ascii = false;
      text = latin1.decode(bytes);
    }
    lineStarts(text, ascii, text.includes(ESC), starts);
    let last = -1;
    for (const start of starts) {
      if (start === last) continue;
      last = start;
      const at = window + start;
      const lf = chunk.indexOf(LF, at);
      const ending = lf > at && chunk[lf - 1] === CR ? 2 : 1;
      const end = lf + 1 - ending;
      if (form(chunk, at, end) === NOT_DIAGNOSTIC) continue;
      before += countFeeds(chunk, counted, at);
      counted = at;
      sink(chunk, at, end, ending, before);
    }
    window = stop;
  }
}

/**
 * Fills `starts` (cleared first) with the offsets in the window `text` of
 * the lines that hold a searched word or lead (and, when the window holds
 * ESC, those {@link ESCAPED} finds), ascending, a line
 * possibly more than once.
 */
function lineStarts(text: string, ascii: boolean, escaped: boolean, starts: number[]): void {
  starts.length = 0;
  const lineOf = (hit: number) => text.lastIndexOf("\n", hit - 1) + 1;
  WORDS.lastIndex = 0;
  while (WORDS.test(text)) {
    const start = lineOf(WORDS.lastIndex - 1);
    starts.push(start);
    const lf = text.indexOf("\n", start);
    if (lf === -1) break;
    WORDS.lastIndex = lf + 1;
  }
  const words = starts.length;
  for (const lead of RARE_LEADS) {
    for (let at = text.indexOf(lead); at !== -1; at = text.indexOf(lead, at + 1)) {
      starts.push(lineOf(at));
    }
  }
  const leads = ascii ? LINE_LEADS : LINE_OR_MARK_LEADS;
  const afterEscape = ascii ? ESCAPED_ASCII : ESCAPED_OTHER;
  const search = escaped && !escapedStarts(text, starts) ? afterEscape : leads;
  search.lastIndex = 0;
  for (let m = search.exec(text); m !== null; m = search.exec(text)) {
    starts.push(lineOf(m.index + (text.charCodeAt(m.index) === LF ? 1 : 0)));
  }
  FIRST_LEAD_AFTER_ESCAPE.lastIndex = 0;
  if (
    FIRST_LINE.some((lead) => text.startsWith(lead)) ||
    (escaped && FIRST_LEAD_AFTER_ESCAPE.test(text))
  ) starts.push(0);
  if (starts.length > words) starts.sort((a, b) => a - b);
}

/**
 * What {@link SPLITS}, {@link SPACE_SPLITS} and the column-0 lead after a
 * line's first ESC find in the window `text`, found ESC by ESC with a native
 * `indexOf`: pushes (unsorted) the start of each line holding an ESC right
 * after a character of {@link SPLIT_AFTER} or a text of
 * {@link SPLIT_AFTER_SPACE} (any case), and of each line that starts with
 * ESC and holds a column-0 lead after it; returns true. Returns false, the
 * lines pushed so far still right, once the ESCs outnumber one per
 * {@link SPARSE_ESCAPES} characters: the caller then searches the window
 * with {@link ESCAPED}; a window with more than 16 ESCs in its first
 * {@link PROBE} (1,024) characters goes there at once. Measured (in process, the 64 KiB blocks of
 * `bench/_reduce_data.ts`, old and new interleaved, 11 rounds, median of
 * CPU time, load average 3): the whole screen on filter_heavy (an ESC every
 * 300 bytes; its regular-expression pass was 10–12% of `line_filter`'s
 * profile) 387 → 440 MB/s; short, long, ansi (an ESC every 9 bytes, sent
 * to the search by the probe) and invalid_utf8 within 2%.
 */
function escapedStarts(text: string, starts: number[]): boolean {
  // A dense window shows so in its first PROBE characters: it goes to the search at once.
  let esc = text.indexOf(ESC);
  for (let seen = 0; esc !== -1 && esc < PROBE; esc = text.indexOf(ESC, esc + 1)) {
    if (++seen > PROBE / SPARSE_ESCAPES) return false;
  }
  const most = text.length / SPARSE_ESCAPES;
  let seen = 0;
  for (esc = text.indexOf(ESC); esc !== -1; esc = text.indexOf(ESC, esc + 1)) {
    if (++seen > most) return false;
    const before = esc === 0 ? LF : text.charCodeAt(esc - 1);
    if (before === LF) {
      FIRST_LEAD_AFTER_ESCAPE.lastIndex = esc;
      if (FIRST_LEAD_AFTER_ESCAPE.test(text)) starts.push(esc);
    } else if (
      (before < 256 && SPLIT_AFTER_CODE[before] === 1) ||
      (before === SPACE && SPACE_SPLIT_TEXTS.some((w) => endsWithFolded(text, esc, w)))
    ) starts.push(text.lastIndexOf("\n", esc - 1) + 1);
  }
  return true;
}

/** True when `text` before `end` ends with `lower` (lower case) in any ASCII case. */
function endsWithFolded(text: string, end: number, lower: string): boolean {
  const from = end - lower.length;
  if (from < 0) return false;
  for (let k = 0; k < lower.length; k++) {
    const want = lower.charCodeAt(k);
    const c = text.charCodeAt(from + k);
    if (c !== want && !(want >= 0x61 && want <= 0x7a && c === want - 0x20)) return false;
  }
  return true;
}
