/**
 * Finds the diagnostic lines (`diagnosticForm`, `diagnostics.ts`) among the
 * complete lines of a chunk range without classifying every line: one
 * native regular-expression search of the range (decoded one character per
 * byte) for every word a diagnostic form may hold: the marker words
 * (`MARKER_WORDS`, any case), `DIAGNOSTIC_ANCHORS`, and the leads of the
 * word-less forms (`mayLeadForm`: `✕ ✗ ✖ ● ⚠ ×`, `-->`, `File "`,
 * `not ok`, `npm ERR!`, `ERR_PNPM_`, `*** `, `* What`, `Caused by`, `fatal`,
 * `critical`, and `e:`, `w:`, `E ` at a line start). A line holding none is
 * never a form; a line holding one is classified by `diagnosticForm`.
 *
 * Bound: no state but the compiled search; each search decodes at most
 * {@link WINDOW_BYTES} at a time.
 *
 * @module
 */
import { DIAGNOSTIC_ANCHORS, diagnosticForm, MARKER_WORDS, NOT_DIAGNOSTIC } from "./evidence.ts";
import { trieAlternation } from "./_word_candidates.ts";

const LF = 10;
const CR = 13;
/** Bytes decoded and searched at a time (whole lines: a window ends after a line feed). */
const WINDOW_BYTES = 65536;

const latin1 = new TextDecoder("latin1");
const encoder = new TextEncoder();
/** `text`'s UTF-8 bytes as one latin1 character each, escaped for a pattern. */
const asBytes = (text: string) => RegExp.escape(String.fromCharCode(...encoder.encode(text)));

const WORDLESS = [
  "✕",
  "✗",
  "✖",
  "●",
  "⚠",
  "×",
  "-->",
  'File "',
  "not ok",
  "npm ERR!",
  "ERR_PNPM_",
  "*** ",
  "* What",
  "Caused by",
  "fatal",
  "critical",
];

/** The search: words anywhere (any case), then the column-0 leads. */
const SEARCH = new RegExp(
  `${trieAlternation([...MARKER_WORDS, ...DIAGNOSTIC_ANCHORS])}|${
    WORDLESS.map(asBytes).join("|")
  }` +
    `|^(?:e:|w:|E )`,
  "gim",
);

/** Receives one diagnostic line: content `chunk[start, end)`, its ending, and the line feeds before it in the range. */
export type DiagnosticSink = (
  chunk: Uint8Array,
  start: number,
  end: number,
  ending: 1 | 2,
  before: number,
  strength: number,
) => void;

/**
 * Calls `sink` for each line of `chunk[from, to)` (`from` starts a line,
 * `to` follows a line feed) that `diagnosticForm` calls a diagnostic, in
 * order; `countFeeds(chunk, a, b)`
 * counts the line feeds of a range (the caller's `countByte`).
 */
export function screenDiagnostics(
  chunk: Uint8Array,
  from: number,
  to: number,
  sink: DiagnosticSink,
  countFeeds: (bytes: Uint8Array, start: number, end: number) => number,
): void {
  let counted = from;
  let before = 0;
  for (let window = from; window < to;) {
    let stop = Math.min(to, window + WINDOW_BYTES);
    if (stop < to) stop = chunk.lastIndexOf(LF, stop - 1) + 1;
    if (stop <= window) stop = chunk.indexOf(LF, window) + 1;
    const text = latin1.decode(chunk.subarray(window, stop));
    SEARCH.lastIndex = 0;
    while (SEARCH.test(text)) {
      const hit = window + SEARCH.lastIndex - 1;
      const lf = chunk.indexOf(LF, hit);
      const start = chunk.lastIndexOf(LF, hit - 1) + 1;
      const lineStart = start < window ? window : start;
      let end = lf;
      const ending = end > lineStart && chunk[end - 1] === CR ? 2 : 1;
      if (ending === 2) end--;
      const strength = diagnosticForm(chunk, lineStart, end);
      if (strength !== NOT_DIAGNOSTIC) {
        before += countFeeds(chunk, counted, lineStart);
        counted = lineStart;
        sink(chunk, lineStart, end, ending, before, strength);
      }
      SEARCH.lastIndex = lf + 1 - window;
    }
    window = stop;
  }
}
