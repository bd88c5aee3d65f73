/**
 * The line-evidence classifier shared by the typed reducers, the global
 * output cap and the corpus metrics: what one line of output is worth to an
 * agent, as a set of {@link Evidence} flags. Pure and bounded: one pass over
 * the line's bytes for the diagnostic marker, and the notice and summary
 * forms are matched on at most the first {@link NOTICE_WINDOW_BYTES} bytes,
 * decoded only when a byte screen (`_form_screen.ts`) says a form may be
 * present. Nothing is kept between calls but one reused encoding buffer
 * and one reused buffer for a line stripped of ANSI sequences.
 *
 * The flags (a line may carry several):
 *
 * - {@link Evidence.HostNotice}: a host's own truncation notice, e.g.
 *   `... [120 lines truncated] ...`, `....stripped due to length....`,
 *   `<persisted-output>`, Pi's `[Showing lines 1-2000 of 5120. Full output: PATH]`,
 *   `[Showing last 50.0KB of line 3 (line is 2.1MB). …]`, and YARP's own marker.
 * - {@link Evidence.Outcome}: an exit, signal or timeout notice
 *   (`Command exited with code 2`, `Command timed out after 120 seconds`,
 *   `Exit code 1`, `exit status 2`, `Segmentation fault (core dumped)`, `Killed`).
 * - {@link Evidence.Diagnostic}: a diagnostic line by the one classifier
 *   (`diagnostics.ts`): a tool's diagnostic form (`file(1,2): error TS2322`,
 *   `error[E0308]:`, `main.c:3:9: error:`, `x.go:3:4: …`, `[ERROR]`, `✕ …`,
 *   `npm ERR!`, `make: *** …`, a traceback, …), or, on free text, an error,
 *   fail, panic, warning, traceback, exception or assertion marker: one of
 *   those words starting a word (any case: `Error:`, `FAILED`, `warning:`,
 *   `AssertionError`) or ending a camel-case name (`TypeError`,
 *   `IOException`, `DeprecationWarning`), on a line that is neither a
 *   passing-test line nor a known false positive (a zero-failure total, a
 *   DEBUG or TRACE line, a cmake probe). Identifiers that merely contain
 *   one (`_assertStatus`) are not. With `formOnly` (data rows and the data
 *   families' lines) only the forms count.
 *   {@link Evidence.Failure} is set with it unless it is only a warning.
 * - {@link Evidence.Passing}: a passing-test line (`✓ …`, `✔ …`, `√ …`, `ok …`,
 *   `PASS …` after leading white space, go's `--- PASS: …` and `--- SKIP: …`,
 *   Surefire's per-class `Tests run: 3, Failures: 0, Errors: 0, …, Time
 *   elapsed: …`) or go's per-test progress (`=== RUN   TestParseError`,
 *   `=== PAUSE …`, `=== CONT …`), whose names often say "error".
 * - {@link Evidence.Summary}: a test, build or install summary line
 *   (`test result: ok. 4 passed; …`, `Tests:  1 failed, 5 passed, 6 total`,
 *   `✔ 4004 passed, 0 failed`, `=== 3 passed in 0.1s ===`, `ok  pkg 0.1s`,
 *   `Found 2 errors in 1 file.`, `BUILD SUCCESSFUL in 3s`, `added 120 packages …`,
 *   cmake's `-- Build files have been written to: …`; Surefire's per-class
 *   `Tests run: … Time elapsed: …` lines are not summaries).
 *
 * Lines are classified as shown: a line holding ESC is classified with its
 * ANSI sequences removed (`lib/bytes/ansi.ts`, into a scratch buffer that
 * grows to the longest such line; the reducers strip first, so they never
 * pay for it), so a colour code inside or before a marker word
 * (`\x1b[31merr\x1b[0mor:`) hides nothing; the text form {@link classifyText}
 * encodes a string and classifies the same way, so the corpus and the
 * reducers share one definition. White space
 * before a passing mark is ASCII white space or U+00A0.
 *
 * @module
 */
import { AnsiStripper, indexOfByte } from "../bytes/mod.ts";
import { formWordAt, isFormWordLead, mayHoldForm } from "./_form_screen.ts";
import {
  diagnosticForm,
  FAILURE_DIAGNOSTIC,
  isQuietMarkerLine,
  mayLeadForm,
  NOT_DIAGNOSTIC,
  WARNING_DIAGNOSTIC,
} from "./diagnostics.ts";
export { EXACT_FORM_WORDS, FOLDED_FORM_WORDS } from "./_form_screen.ts";
export {
  DIAGNOSTIC_ANCHORS,
  diagnosticForm,
  FAILURE_DIAGNOSTIC,
  isQuietMarkerLine,
  mayLeadForm,
  NOT_DIAGNOSTIC,
  WARNING_DIAGNOSTIC,
} from "./diagnostics.ts";

/** Evidence flags of one line; combine with `|`, test with `&`. */
export const Evidence = {
  /** No evidence: an ordinary line. */
  None: 0,
  /** A host's own truncation notice: mandatory, always survives. */
  HostNotice: 1,
  /** An exit, signal or timeout notice: mandatory, always survives. */
  Outcome: 2,
  /** A diagnostic marker on a line that is not a passing-test line. */
  Diagnostic: 4,
  /** A passing-test line. */
  Passing: 8,
  /** A test, build or install summary line. */
  Summary: 16,
  /** With `Diagnostic`: the marker is an error, fail, panic, traceback, exception or assertion, not only a warning. */
  Failure: 32,
} as const;

/** Flags that make a line mandatory: it survives every reduction or the original is kept. */
export const MANDATORY = Evidence.HostNotice | Evidence.Outcome;

/** Bytes of a line's start the notice and summary forms are matched on. */
export const NOTICE_WINDOW_BYTES = 1024;

const HOST_NOTICE =
  /\[\d[\d,]* (?:more )?(?:lines?|characters?|chars|tokens?) truncated\]|\d[\d,]* (?:tokens?|chars|characters) truncated|stripped due to length|<\/?persisted-output>|^\s*\[Showing (?:lines \d+-\d+ of \d+|last [\d.]+\s?[KMG]?B of line \d+)|\(\d+(?:\.\d+)?\s?[KMG]B limit\)|^\[yarp: |Output too large|output (?:was )?truncated/i;

/**
 * The notice forms that may sit anywhere in a line (not only at its start),
 * with the dots or ellipses around them, over a latin1 decoding (one
 * character per byte, so a match's indices are byte offsets).
 */
const NOTICE_SPAN =
  /(?:\.{2,}|\xe2\x80\xa6)?\s?\[\d[\d,]* (?:more )?(?:lines?|characters?|chars|tokens?) truncated\]\s?(?:\.{2,}|\xe2\x80\xa6)?|(?:\xe2\x80\xa6|\.{2,})?\d[\d,]* (?:tokens?|chars|characters) truncated(?:\xe2\x80\xa6|\.{2,})?|\.*stripped due to length\.*|<\/?persisted-output>|\(\d+(?:\.\d+)?\s?[KMG]B limit\)|Output too large|output (?:was )?truncated/gi;

/** Bytes at the start of a notice-span search: the anchors of {@link NOTICE_SPAN}, lower case. */
const SPAN_ANCHORS = [
  "truncated",
  "stripped due to length",
  "persisted-output>",
  "b limit)",
  "output too large",
];

const latin1 = new TextDecoder("latin1");

/**
 * The byte ranges `[from, to)` (flat pairs, in order) of the host notices
 * that may sit anywhere in the line `bytes[start, end)`, however long:
 * `....stripped due to length....` at the end of an 8 KB line, `... [N
 * characters truncated] ...` in its middle, `<persisted-output>`, `(30KB
 * limit)`, `Output too large`. What a reducer that cuts the line must still
 * show, byte for byte. Work: one lower-casing pass over the line, and a
 * regular expression only when an anchor word is present.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { hostNoticeSpans } from "./evidence.ts";
 * const line = new TextEncoder().encode("x".repeat(8000) + "....stripped due to length....");
 * deepEqual(hostNoticeSpans(line, 0, line.length), [8000, 8030]);
 * ```
 */
export function hostNoticeSpans(bytes: Uint8Array, start: number, end: number): number[] {
  const text = latin1.decode(bytes.subarray(start, end));
  const lower = text.toLowerCase();
  if (!SPAN_ANCHORS.some((anchor) => lower.includes(anchor))) return [];
  const spans: number[] = [];
  for (const match of text.matchAll(NOTICE_SPAN)) {
    spans.push(start + match.index, start + match.index + match[0].length);
  }
  return spans;
}

const OUTCOME =
  /^\s*(?:Command (?:exited with code -?\d+|timed out after|aborted)|Exit code:? -?\d+|exit (?:status|code) -?\d+\s*$|Process (?:exited|finished|terminated) with (?:exit )?code|Segmentation fault|Killed\s*$|Terminated\s*$|Aborted(?: \(core dumped\))?\s*$|Bus error|timeout: |error: process didn't exit successfully|The command .* exited with code|Error: Process completed with exit code)/;

const SUMMARY = new RegExp(
  [
    String.raw`^\s*test result: `, // cargo
    String.raw`^\s*Summary \[`, // nextest
    String.raw`^\s*(?:Tests?|Test Suites|Test Files|Snapshots|Suites|Assertions):\s+\d`, // jest
    String.raw`^\s*(?:Test Files|Tests)\s+(?:\d+ (?:failed|passed|skipped)|\d+ \|)`, // vitest
    String.raw`^\s*(?:ℹ|#) (?:tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) \d`, // node --test, TAP
    String.raw`^\s*(?:ok|FAILED) \| \d+ passed`, // deno test
    String.raw`^\s*\d+ (?:passing|failing|pending)\b`, // mocha
    String.raw`^=+ .*\b(?:passed|failed|errors?|skipped|deselected|no tests ran)\b.* in [\d.]+s`, // pytest
    String.raw`^=+ short test summary info =+`, // pytest
    String
      .raw`^(?:ok|FAIL|---)?\s+\S+\s+[\d.]+s\s*$|^(?:ok|FAIL)\s+\S+\s+(?:[\d.]+s|\(cached\)|\[no test files\])`, // go test
    String.raw`^(?:PASS|FAIL)\s*$`, // go test
    String.raw`^\d+% tests passed, \d+ tests? failed out of \d+`, // ctest
    String.raw`^\s*(?:Passed|Failed)!\s+-\s+Failed:`, // dotnet test
    String.raw`^\s*Total tests: \d+`, // dotnet test
    String.raw`Tests run: \d+, Failures: \d+(?!.*, Time elapsed: )`, // Maven Surefire totals, not per class
    String.raw`\bBUILD (?:SUCCESS|SUCCESSFUL|FAILURE|FAILED)\b`, // Maven, Gradle
    String.raw`^\s*\d+ tests? completed, \d+ failed`, // Gradle
    String.raw`^\s*Build (?:succeeded|FAILED)\.`, // dotnet build
    String.raw`^\s*\d+ (?:Warning|Error)\(s\)`, // dotnet build
    String.raw`^Found \d+ errors?\b`, // tsc
    String.raw`^\s*[✖×] \d+ problems? \(`, // eslint
    String.raw`^\s*Finished .*target\(s\) in `, // cargo build
    String.raw`^(?:warning|error): .* generated \d+ (?:warnings?|errors?)`, // cargo
    String.raw`^error: could not compile `, // cargo
    String.raw`\b\d+ (?:passed|failed)(?:[,;]| \|| \(|\s*$)`, // generic test counts
    String.raw`^(?:added|removed|changed|up to date|audited)\b.*\bpackages?\b`, // npm
    String.raw`^found \d+ vulnerabilit|\d+ vulnerabilities \(`, // npm audit
    String.raw`^\s*(?:✨\s+)?Done in [\d.]+m?s`, // yarn, pnpm
    String.raw`^Packages: [+-]\d+`, // pnpm
    String.raw`^Successfully (?:installed|built) `, // pip
    String.raw`^(?:Installed|Resolved|Prepared|Audited|Uninstalled) \d+ packages? in `, // uv
    String.raw`^\d+ upgraded, \d+ newly installed, \d+ to remove`, // apt
    String.raw`^\d+ packages? installed \[`, // bun
    String.raw`^\[100%\] Built target |^ninja: no work to do|^make(?:\[\d+\])?: Nothing to be done`, // cmake, make
    String.raw`^-- (?:Configuring done|Generating done|Build files have been written to: )`, // cmake configure
  ].join("|"),
);

const LOWER = 0x20;
/** Byte classes of the marker scan: a word byte, an ASCII letter, a word's possible lead, a name's possible lead. */
const C_WORD = 1;
const C_LETTER = 2;
const C_LEAD = 4;
const C_NAME = 8;
const C_FORM = 16;
const CLASS = new Uint8Array(256);
const WORD = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  const c = String.fromCharCode(b);
  if (/[A-Za-z0-9_]/.test(c)) {
    WORD[b] = 1;
    CLASS[b] |= C_WORD;
  }
  if (/[A-Za-z]/.test(c)) CLASS[b] |= C_LETTER;
}
for (const c of "efpwta") {
  CLASS[c.charCodeAt(0)] |= C_LEAD;
  CLASS[c.toUpperCase().charCodeAt(0)] |= C_LEAD;
}
CLASS[0x45] |= C_NAME; // E
CLASS[0x57] |= C_NAME; // W
for (let b = 0; b < 256; b++) if (isFormWordLead(b)) CLASS[b] |= C_FORM;

/** The diagnostic words, lower case, as bytes, by first letter. */
const WORDS: Uint8Array[][] = [];
/** The diagnostic marker words (the names `Error`, `Exception`, `Warning` start with three of them). */
export const MARKER_WORDS: readonly string[] = [
  "error",
  "fail",
  "panic",
  "warn",
  "traceback",
  "exception",
  "assert",
];
for (const w of MARKER_WORDS) {
  (WORDS[w.charCodeAt(0)] ??= []).push(new TextEncoder().encode(w));
}
const NAMES = ["Error", "Exception", "Warning"].map((n) => new TextEncoder().encode(n));
const WARN = WORDS[0x77][0];
const WARNING = NAMES[2];

/** True when the lower-cased bytes at `at` spell `word` (ASCII only). */
function wordAt(bytes: Uint8Array, at: number, end: number, word: Uint8Array): boolean {
  if (end - at < word.length) return false;
  for (let k = 0; k < word.length; k++) if ((bytes[at + k] | LOWER) !== word[k]) return false;
  return true;
}

/** True when `bytes` at `at` spell `name` exactly and a non-word byte (or the end) follows. */
function nameAt(bytes: Uint8Array, at: number, end: number, name: Uint8Array): boolean {
  const stop = at + name.length;
  if (stop > end) return false;
  for (let k = 0; k < name.length; k++) if (bytes[at + k] !== name[k]) return false;
  return stop === end || WORD[bytes[stop]] === 0;
}

/** {@link diagnosticMarker}: no marker. */
export const NO_MARKER = 0;
/** {@link diagnosticMarker}: only warning markers (`warn…`, `…Warning`). */
export const WARNING_MARKER = 1;
/** {@link diagnosticMarker}: an error, fail, panic, traceback, exception or assertion marker. */
export const FAILURE_MARKER = 2;

/**
 * The strongest diagnostic marker in `bytes[start, end)` (see the module
 * contract): {@link FAILURE_MARKER}, {@link WARNING_MARKER} or {@link NO_MARKER}.
 */
export function diagnosticMarker(bytes: Uint8Array, start: number, end: number): number {
  return scan(bytes, start, end, false) & MARKER_BITS;
}

/** The marker bits of {@link scan}'s answer. */
const MARKER_BITS = 3;
/** {@link scan}'s bit for a word of an unanchored notice or summary form. */
const FORM_WORD = 4;

/**
 * One pass over `bytes[start, end)`: the strongest diagnostic marker
 * ({@link FAILURE_MARKER}, {@link WARNING_MARKER} or {@link NO_MARKER}),
 * with {@link FORM_WORD} set when `forms` and a word of an unanchored
 * notice or summary form starts in the line (`_form_screen.ts`).
 */
function scan(bytes: Uint8Array, start: number, end: number, forms: boolean): number {
  let found = NO_MARKER;
  let word = forms ? 0 : FORM_WORD;
  let prev = 0; // the class of the byte before; none at the line start
  const leads = forms ? C_LEAD | C_FORM : C_LEAD;
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    const c = CLASS[b];
    if ((c & (leads | C_NAME)) === 0) {
      prev = c;
      continue;
    }
    if ((prev & C_WORD) === 0) {
      if ((c & C_LEAD) !== 0 && found !== FAILURE_MARKER) {
        const words = WORDS[b | LOWER];
        for (let w = 0; w < words.length; w++) {
          if (!wordAt(bytes, i, end, words[w])) continue;
          found = words[w] !== WARN ? FAILURE_MARKER : found | WARNING_MARKER;
        }
      }
      if (word === 0 && (c & C_FORM) !== 0 && formWordAt(bytes, i, end)) word = FORM_WORD;
      if (found === FAILURE_MARKER && word !== 0) break;
    } else if ((c & C_NAME) !== 0 && (prev & C_LETTER) !== 0 && found !== FAILURE_MARKER) {
      for (let n = 0; n < NAMES.length; n++) {
        if (!nameAt(bytes, i, end, NAMES[n])) continue;
        found = NAMES[n] !== WARNING ? FAILURE_MARKER : found | WARNING_MARKER;
      }
      if (found === FAILURE_MARKER && word !== 0) break;
    }
    prev = c;
  }
  return forms ? found | word : found;
}

/** True when `bytes[start, end)` holds a diagnostic marker word or name (see the module contract). */
export function hasDiagnosticMarker(bytes: Uint8Array, start: number, end: number): boolean {
  return diagnosticMarker(bytes, start, end) !== NO_MARKER;
}

/** Offset of the first byte after leading ASCII white space and U+00A0. */
function skipSpace(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  for (;;) {
    if (i >= end) return i;
    const b = bytes[i];
    if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) i++;
    else if (b === 0xc2 && i + 1 < end && bytes[i + 1] === 0xa0) i += 2;
    else return i;
  }
}

/**
 * True when `bytes[start, end)` is a passing-test line: `✓ ✔ √`, `ok` or
 * `PASS` as its first word, go's `--- PASS: ` and `--- SKIP: ` lines and its
 * per-test progress (`=== RUN `, `=== PAUSE `, `=== CONT `: a test's name,
 * not its outcome), or Maven Surefire's per-class totals without a failure
 * or error (`[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0, Time
 * elapsed: 0.1 s -- in Foo`), whose `Failures` is no failure.
 */
export function isPassingLine(bytes: Uint8Array, start: number, end: number): boolean {
  const i = skipSpace(bytes, start, end);
  if (bytes[i] === 0x2d || bytes[i] === 0x3d) return goTestProgress(bytes, i, end); // - =
  if (bytes[i] === 0x5b || bytes[i] === 0x54) return surefireClassPassed(bytes, i, end); // [ T
  if (i + 3 <= end && bytes[i] === 0xe2) {
    const b1 = bytes[i + 1];
    const b2 = bytes[i + 2];
    if (b1 === 0x9c && (b2 === 0x93 || b2 === 0x94)) return true; // ✓ ✔
    if (b1 === 0x88 && b2 === 0x9a) return true; // √
  }
  if (i + 2 <= end && bytes[i] === 0x6f && bytes[i + 1] === 0x6b) {
    return i + 2 === end || WORD[bytes[i + 2]] === 0;
  }
  if (
    i + 4 <= end && bytes[i] === 0x50 && bytes[i + 1] === 0x41 && bytes[i + 2] === 0x53 &&
    bytes[i + 3] === 0x53
  ) {
    return i + 4 === end || WORD[bytes[i + 4]] === 0;
  }
  return false;
}

const GO_PROGRESS = ["--- PASS: ", "--- SKIP: ", "=== RUN ", "=== PAUSE ", "=== CONT "].map((p) =>
  new TextEncoder().encode(p)
);

/** go test's passing, skipped and progress lines at `at` (see {@link isPassingLine}). */
function goTestProgress(bytes: Uint8Array, at: number, end: number): boolean {
  for (const prefix of GO_PROGRESS) if (bytesAt(bytes, at, end, prefix)) return true;
  return false;
}

const SUREFIRE_INFO = new TextEncoder().encode("[INFO] ");
const SUREFIRE_RUN = new TextEncoder().encode("Tests run: ");
const SUREFIRE_CLEAN = new TextEncoder().encode(", Failures: 0, Errors: 0, ");
const SUREFIRE_ELAPSED = new TextEncoder().encode(", Time elapsed: ");

/** Surefire's per-class totals line at `at` with no failure or error (see {@link isPassingLine}). */
function surefireClassPassed(bytes: Uint8Array, at: number, end: number): boolean {
  let i = at;
  if (bytesAt(bytes, i, end, SUREFIRE_INFO)) i += SUREFIRE_INFO.length;
  if (!bytesAt(bytes, i, end, SUREFIRE_RUN)) return false;
  i += SUREFIRE_RUN.length;
  while (i < end && bytes[i] >= 0x30 && bytes[i] <= 0x39) i++;
  if (!bytesAt(bytes, i, end, SUREFIRE_CLEAN)) return false;
  for (i += SUREFIRE_CLEAN.length; i < end; i++) {
    if (bytes[i] === 0x2c && bytesAt(bytes, i, end, SUREFIRE_ELAPSED)) return true;
  }
  return false;
}

/** True when `bytes[at, end)` starts with `text`. */
function bytesAt(bytes: Uint8Array, at: number, end: number, text: Uint8Array): boolean {
  if (end - at < text.length) return false;
  for (let k = 0; k < text.length; k++) if (bytes[at + k] !== text[k]) return false;
  return true;
}

const decoder = new TextDecoder();

/**
 * The marker flags of the line `bytes[start, end)`: {@link Evidence.Passing},
 * or {@link Evidence.Diagnostic} (with {@link Evidence.Failure} unless only
 * warnings), or none. One pass over the line.
 */
export function markerFlags(bytes: Uint8Array, start: number, end: number): number {
  if (indexOfByte(bytes, ESC, start, end) !== -1) {
    const length = stripLine(bytes, start, end);
    return markerFlags(shown, 0, length);
  }
  if (isPassingLine(bytes, start, end)) return Evidence.Passing;
  return diagnosticEvidence(bytes, start, end, diagnosticMarker(bytes, start, end), false);
}

/**
 * The diagnostic flags of a line that is not a passing-test line, given
 * its `marker` ({@link diagnosticMarker}): its form's strength, else (unless
 * `formOnly`) the marker's when the line is no known false positive.
 */
function diagnosticEvidence(
  bytes: Uint8Array,
  start: number,
  end: number,
  marker: number,
  formOnly: boolean,
): number {
  let strength = diagnosticForm(bytes, start, end);
  if (
    strength === NOT_DIAGNOSTIC && !formOnly && marker !== NO_MARKER &&
    !isQuietMarkerLine(bytes, start, end)
  ) {
    strength = marker === FAILURE_MARKER ? FAILURE_DIAGNOSTIC : WARNING_DIAGNOSTIC;
  }
  if (strength === FAILURE_DIAGNOSTIC) return Evidence.Diagnostic | Evidence.Failure;
  return strength === WARNING_DIAGNOSTIC ? Evidence.Diagnostic : Evidence.None;
}

/**
 * The form flags of the line `bytes[start, end)`: {@link Evidence.HostNotice},
 * {@link Evidence.Outcome} and {@link Evidence.Summary}, matched on its first
 * {@link NOTICE_WINDOW_BYTES} bytes, decoded only when the byte screen
 * (`_form_screen.ts`) says a form may be present; equal to
 * {@link formFlagsOfText} of the decoded window.
 */
export function formFlags(bytes: Uint8Array, start: number, end: number): number {
  return forms(bytes, start, end, -1);
}

/** {@link formFlags}; `words` is 1 or 0 when a scan of the line already told whether a form word starts in it, else -1. */
function forms(bytes: Uint8Array, start: number, end: number, words: number): number {
  const stop = Math.min(end, start + NOTICE_WINDOW_BYTES);
  if (!mayHoldForm(bytes, start, skipSpace(bytes, start, stop), stop, words)) return Evidence.None;
  return formFlagsOfText(decoder.decode(bytes.subarray(start, stop)));
}

/**
 * The {@link Evidence} flags of the line `bytes[start, end)` (its content,
 * without the line ending): {@link markerFlags} | {@link formFlags}, in one
 * scan of the line's bytes (and a decode only for a possible form). With
 * `formOnly` (a data family's line), only a diagnostic form makes it
 * {@link Evidence.Diagnostic}, never a marker word alone.
 */
export function classifyLine(
  bytes: Uint8Array,
  start: number,
  end: number,
  formOnly = false,
): number {
  if (indexOfByte(bytes, ESC, start, end) !== -1) {
    const length = stripLine(bytes, start, end);
    return classifyLine(shown, 0, length, formOnly);
  }
  if (isPassingLine(bytes, start, end)) return Evidence.Passing | formFlags(bytes, start, end);
  const found = scan(bytes, start, end, true);
  return diagnosticEvidence(bytes, start, end, found & MARKER_BITS, formOnly) |
    forms(bytes, start, end, (found & FORM_WORD) !== 0 ? 1 : 0);
}

/**
 * The form flags of the decoded window `text` by the notice, outcome and
 * summary expressions alone (no screen): what {@link formFlags} answers.
 */
export function formFlagsOfText(text: string): number {
  let flags = 0;
  if (HOST_NOTICE.test(text)) flags |= Evidence.HostNotice;
  if (OUTCOME.test(text)) flags |= Evidence.Outcome;
  if (SUMMARY.test(text)) flags |= Evidence.Summary;
  return flags;
}

/**
 * {@link classifyLine} of a line in which no word of {@link MARKER_WORDS},
 * `FOLDED_FORM_WORDS` or `DIAGNOSTIC_ANCHORS` occurs in any case, and none
 * of `EXACT_FORM_WORDS` as written (the caller has searched for them): its
 * passing mark, its lead diagnostic form (`✕ …`, `e: …`, only when
 * `mayLeadForm`) and its anchored notice and summary forms, without a scan
 * of its bytes.
 */
export function classifyUnmarkedLine(bytes: Uint8Array, start: number, end: number): number {
  if (isPassingLine(bytes, start, end)) return Evidence.Passing | forms(bytes, start, end, 0);
  const diagnostic = mayLeadForm(bytes, start, end)
    ? diagnosticEvidence(bytes, start, end, NO_MARKER, true)
    : Evidence.None;
  return diagnostic | forms(bytes, start, end, 0);
}

const ESC = 0x1b;
const stripper = new AnsiStripper();
/** The last line {@link stripLine} stripped. */
let shown = new Uint8Array(1024);

/** Strips the ANSI sequences of the line `bytes[start, end)` into {@link shown}; returns its length. */
function stripLine(bytes: Uint8Array, start: number, end: number): number {
  if (shown.length < end - start) shown = new Uint8Array(end - start);
  stripper.reset();
  return stripper.strip(bytes, start, end, shown, 0);
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(1024);

/** The UTF-8 bytes of `line` in the shared scratch buffer; returns their length. */
function encodeLine(line: string): number {
  if (scratch.length < line.length * 3) scratch = new Uint8Array(line.length * 3);
  return encoder.encodeInto(line, scratch).written;
}

/** {@link classifyLine} of the text `line` (one line, without its ending). */
export function classifyText(line: string): number {
  const length = encodeLine(line);
  return classifyLine(scratch, 0, length);
}

/**
 * True when the text `line` is a diagnostic line by the one classifier
 * ({@link Evidence.Diagnostic} of {@link markerFlags}): the corpus
 * metrics' "diagnostic line".
 */
export function isDiagnosticText(line: string): boolean {
  const length = encodeLine(line);
  return (markerFlags(scratch, 0, length) & Evidence.Diagnostic) !== 0;
}
