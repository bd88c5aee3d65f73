/**
 * The diagnostic-line classifier: whether one line of output is a tool's
 * diagnostic (an error, a failure, a warning) that every reducer kind and
 * the global cap must keep, and that the corpus measure counts. Pure and
 * bounded: it reads at most the first {@link DIAGNOSTIC_WINDOW_BYTES} bytes
 * of a line as shown (never a byte past its end), never decodes, and
 * allocates nothing (the false-positive test, run on marker lines only,
 * one view).
 *
 * A line is read as shown: when its window holds ESC, its ANSI sequences
 * are removed (`lib/bytes/ansi.ts`, the stripper every reducer shows lines
 * with) into a fixed scratch buffer, a piece at a time until the window is
 * full, so `\x1b[31merr\x1b[0mor: x` is `error: x` and a colour code before
 * a lead does not hide it, whatever reducer, cap or measure asks.
 *
 * A line is a diagnostic by its **form**, for every toolchain YARP has
 * rules for, read at the line's first non-blank byte and again after up to
 * three source locations (`file:12:`, `file:12:3:`, `file(12,3):`, `file:12:3 -`),
 * so a grep prefix (`build.log:40:`) or a compiler's location does not hide
 * it:
 *
 * - `error:`, `error[E0308]:`, `error TS2322:`, deno check's `TS2322 [ERROR]:`
 *   (and `[WARNING]`), `fatal error:`, `fatal:`,
 *   `warning:`, `warn:`, `panic:`, `Error:` (any case), `FAIL`, `FAILED`,
 *   `ERROR`, `WARN`, `WARNING`, `FATAL`, `CRITICAL` (as written, before a
 *   space, tab, `:` or the end), `[ERROR]`, `[WARNING]`, `[error]`, … (Maven,
 *   sbt, logs), and at column 0 yarn's `error Msg` / `warning Msg`;
 * - exceptions: a dotted or camel-case name ending in `Error`, `Exception`
 *   or `Warning` before `:`, ` [`, ` in thread` or the end (`TypeError: …`,
 *   `java.io.IOException`, `AssertionError [ERR_ASSERTION]: …`), after an
 *   optional `Uncaught `; `Caused by:`; `Traceback (most recent call last):`;
 *   `thread 'main' panicked at …`;
 * - locations of a diagnostic (warning strength, so a warning's location is
 *   never a failure): rustc's `--> file:l:c`, Python's `File "…", line N`;
 *   go's `file.go:l:c: message` (failure; go test's `file.go:l: message`,
 *   a passing test's log line as often as a failure's, is not a form);
 * - tests: `--- FAIL:`, `not ok N`, bun's `(fail)`, pytest's `E   …` at
 *   column 0, and the marks `✕ ✗ ✖ × ●` (failure) and `⚠` (warning), jest's
 *   `● Console` excepted;
 * - eslint's stylish rows (`  12:5  error  …`), Kotlin/Gradle's `e: …` and
 *   `w: …` at column 0, Gradle's `* What went wrong:`, `FAILURE: …`,
 *   `> Task :x FAILED`;
 * - npm's `npm ERR!`, `npm error`, `npm warn`, pnpm's `ERR_PNPM_…`;
 *   make's `make: *** …` (`make[2]:`, `gmake:`); `CMake Error`, `CMake Warning`.
 *
 * A line of free text (not a data row) is also a diagnostic when it
 * carries a diagnostic marker word (`evidence.ts`'s `diagnosticMarker`:
 * `error`, `fail`, `panic`, `warn`, `traceback`, `exception`, `assert`
 * starting a word, or a camel-case name ending in `Error`, `Exception`,
 * `Warning`), unless it is one of the measure's known false positives:
 * a passing test (`✓ parses errors`, `test_error PASSED`, `test x ... ok`),
 * a zero-failure total (`Failures: 0, Errors: 0`, `0 failed`, `errors=0`),
 * a DEBUG or TRACE log line, or one of cmake's configure probes
 * (`-- Looking for … - not found`, `-- Performing Test … - Failed`).
 * A data row (a grep match, an `ls` entry, a diff line) is a diagnostic by
 * form only: code that merely says `Error` is not one.
 *
 * @module
 */
import { AnsiStripper } from "../bytes/mod.ts";
import { formatCount } from "./marker.ts";

/**
 * The note after a reduced result that could not show every diagnostic:
 * `[yarp: 12 omitted lines carry error or warning markers]`; "" for none.
 */
export function omittedDiagnosticsNote(omitted: number): string {
  if (omitted <= 0) return "";
  const lines = omitted === 1 ? "line carries" : "lines carry";
  return `[yarp: ${formatCount(omitted)} omitted ${lines} error or warning markers]`;
}

/** {@link diagnosticForm}: not a diagnostic. */
export const NOT_DIAGNOSTIC = 0;
/** {@link diagnosticForm}: a warning (or the location of one). */
export const WARNING_DIAGNOSTIC = 1;
/** {@link diagnosticForm}: an error or failure. */
export const FAILURE_DIAGNOSTIC = 2;

/** Bytes of a line's start the forms are read in. */
export const DIAGNOSTIC_WINDOW_BYTES = 512;

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text);

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09;
}
function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}
function isLetter(b: number): boolean {
  return (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7a;
}
function isWordByte(b: number): boolean {
  return isLetter(b) || isDigit(b) || b === 0x5f;
}

/** The byte at `i`, or -1 at or past `end` (never a byte of the next line). */
function byteAt(bytes: Uint8Array, i: number, end: number): number {
  return i < end ? bytes[i] : -1;
}

/** True when `bytes[at, end)` starts with `text` exactly. */
function has(bytes: Uint8Array, at: number, end: number, text: Uint8Array): boolean {
  if (end - at < text.length) return false;
  for (let k = 0; k < text.length; k++) if (bytes[at + k] !== text[k]) return false;
  return true;
}

/** True when `bytes[at, end)` starts with ASCII `lower` in any case. */
function hasFolded(bytes: Uint8Array, at: number, end: number, lower: Uint8Array): boolean {
  if (end - at < lower.length) return false;
  for (let k = 0; k < lower.length; k++) {
    const b = bytes[at + k];
    if (b !== lower[k] && !(isLetter(b) && (b | 0x20) === lower[k])) return false;
  }
  return true;
}

/** Words before a delimiter (any case): `[word, strength, delimiters]`. */
const FOLDED_LEADS: readonly [Uint8Array, number, string][] = [
  [bytesOf("error"), FAILURE_DIAGNOSTIC, ":["],
  [bytesOf("fatal error"), FAILURE_DIAGNOSTIC, ":"],
  [bytesOf("fatal"), FAILURE_DIAGNOSTIC, ":"],
  [bytesOf("panic"), FAILURE_DIAGNOSTIC, ":"],
  [bytesOf("warning"), WARNING_DIAGNOSTIC, ":["],
  [bytesOf("warn"), WARNING_DIAGNOSTIC, ":"],
];

/** Words as written before a space, tab, `:` or the end. */
const EXACT_LEADS: readonly [Uint8Array, number][] = [
  [bytesOf("FAILED"), FAILURE_DIAGNOSTIC],
  [bytesOf("FAIL"), FAILURE_DIAGNOSTIC],
  [bytesOf("ERROR"), FAILURE_DIAGNOSTIC],
  [bytesOf("FATAL"), FAILURE_DIAGNOSTIC],
  [bytesOf("CRITICAL"), FAILURE_DIAGNOSTIC],
  [bytesOf("WARNING"), WARNING_DIAGNOSTIC],
  [bytesOf("WARN"), WARNING_DIAGNOSTIC],
];

/** Prefixes as written, anywhere a form may start. */
const PREFIX_LEADS: readonly [Uint8Array, number][] = [
  ["[ERROR]", FAILURE_DIAGNOSTIC],
  ["[error]", FAILURE_DIAGNOSTIC],
  ["[Error]", FAILURE_DIAGNOSTIC],
  ["[FATAL]", FAILURE_DIAGNOSTIC],
  ["[fatal]", FAILURE_DIAGNOSTIC],
  ["[WARNING]", WARNING_DIAGNOSTIC],
  ["[WARN]", WARNING_DIAGNOSTIC],
  ["[warning]", WARNING_DIAGNOSTIC],
  ["[warn]", WARNING_DIAGNOSTIC],
  ["error TS", FAILURE_DIAGNOSTIC],
  ["Traceback (most recent call last)", FAILURE_DIAGNOSTIC],
  ["Caused by: ", FAILURE_DIAGNOSTIC],
  ["--- FAIL:", FAILURE_DIAGNOSTIC],
  ["(fail) ", FAILURE_DIAGNOSTIC],
  ["npm ERR!", FAILURE_DIAGNOSTIC],
  ["npm error", FAILURE_DIAGNOSTIC],
  ["npm warn", WARNING_DIAGNOSTIC],
  ["npm WARN", WARNING_DIAGNOSTIC],
  ["ERR_PNPM_", FAILURE_DIAGNOSTIC],
  ["CMake Error", FAILURE_DIAGNOSTIC],
  ["CMake Warning", WARNING_DIAGNOSTIC],
  ["CMake Deprecation Warning", WARNING_DIAGNOSTIC],
  ["* What went wrong:", FAILURE_DIAGNOSTIC],
  ["FAILURE: ", FAILURE_DIAGNOSTIC],
  ["--> ", WARNING_DIAGNOSTIC],
  ['File "', WARNING_DIAGNOSTIC],
  ["✕ ", FAILURE_DIAGNOSTIC],
  ["✗ ", FAILURE_DIAGNOSTIC],
  ["✖ ", FAILURE_DIAGNOSTIC],
  ["× ", FAILURE_DIAGNOSTIC],
  ["⚠ ", WARNING_DIAGNOSTIC],
  ["⚠️ ", WARNING_DIAGNOSTIC],
].map(([text, strength]) => [bytesOf(text as string), strength as number]);

/** Prefixes matched only at column 0. */
const COLUMN0_LEADS: readonly [Uint8Array, number][] = [
  ["e: ", FAILURE_DIAGNOSTIC],
  ["w: ", WARNING_DIAGNOSTIC],
  ["error ", FAILURE_DIAGNOSTIC],
  ["warning ", WARNING_DIAGNOSTIC],
  ["E  ", FAILURE_DIAGNOSTIC],
].map(([text, strength]) => [bytesOf(text as string), strength as number]);

const BULLET = bytesOf("● ");
const CONSOLE = bytesOf("● Console");
const NOT_OK = bytesOf("not ok ");
const THREAD = bytesOf("thread '");
const PANICKED = bytesOf("' panicked at");
const UNCAUGHT = bytesOf("Uncaught ");
const TASK = bytesOf("> Task ");
const FAILED_END = bytesOf(" FAILED");
const MAKE_STARS = bytesOf("*** ");
const IN_THREAD = bytesOf(" in thread");
const NAMES: readonly [Uint8Array, number][] = [
  [bytesOf("Error"), FAILURE_DIAGNOSTIC],
  [bytesOf("Exception"), FAILURE_DIAGNOSTIC],
  [bytesOf("Warning"), WARNING_DIAGNOSTIC],
];

/** One lead form: its bytes, strength, and how it must end. */
interface Lead {
  readonly bytes: Uint8Array;
  readonly strength: number;
  /** 0: a prefix; 1: any case, then one of `delimiters`; 2: as written, then a blank, `:` or the end; 3: column 0, more after. */
  readonly kind: number;
  readonly delimiters: string;
  /** True when the form holds a marker word: only such forms count after a location. */
  readonly marked: boolean;
}

const MARKED = /error|fail|panic|warn|traceback|exception|assert/i;
const decoder = new TextDecoder();
/** A {@link Lead} of `bytes`. */
function lead(bytes: Uint8Array, strength: number, kind: number, delimiters = ""): Lead {
  return { bytes, strength, kind, delimiters, marked: MARKED.test(decoder.decode(bytes)) };
}

/** The lead forms by their first byte (both cases for the folded ones). */
const LEADS: Lead[][] = Array.from({ length: 256 }, () => []);
for (const [bytes, strength, delimiters] of FOLDED_LEADS) {
  const folded = lead(bytes, strength, 1, delimiters);
  LEADS[bytes[0]].push(folded);
  LEADS[bytes[0] - 0x20].push(folded);
}
for (const [bytes, strength] of EXACT_LEADS) LEADS[bytes[0]].push(lead(bytes, strength, 2));
for (const [bytes, strength] of PREFIX_LEADS) LEADS[bytes[0]].push(lead(bytes, strength, 0));
for (const [bytes, strength] of COLUMN0_LEADS) LEADS[bytes[0]].push(lead(bytes, strength, 3));

/**
 * The strength of the lead form at `at` (see the module contract), or 0;
 * after a location (`located`), only a form that holds a marker word (or
 * an exception name), so the word-less ones are only ever lead forms
 * (`mayLeadForm`).
 */
function wordLead(
  bytes: Uint8Array,
  at: number,
  end: number,
  column0: boolean,
  located = false,
): number {
  const b = byteAt(bytes, at, end);
  const leads = LEADS[b];
  for (let l = 0; l < leads.length; l++) {
    const { bytes: text, strength, kind, delimiters, marked } = leads[l];
    if (located && !marked) continue;
    const next = at + text.length;
    if (kind === 1) {
      if (
        hasFolded(bytes, at, end, text) && next < end &&
        delimiters.includes(String.fromCharCode(byteAt(bytes, next, end)))
      ) return strength;
    } else if (!has(bytes, at, end, text)) continue;
    else if (kind === 0) return strength;
    else if (kind === 2) {
      if (next === end || isSpace(byteAt(bytes, next, end)) || byteAt(bytes, next, end) === 0x3a) {
        return strength;
      }
    } // Kotlin's `e: …`, yarn's `error Message`, pytest's `E   assert …`: column 0 only.
    else if (column0 && next < end) return strength;
  }
  if (b === 0x54 && byteAt(bytes, at + 1, end) === 0x53) {
    const found = denoCheck(bytes, at, end);
    if (found !== NOT_DIAGNOSTIC) return found;
  }
  if (located) return exceptionName(bytes, at, end);
  if (b === 0xe2 && has(bytes, at, end, BULLET)) {
    return has(bytes, at, end, CONSOLE) ? NOT_DIAGNOSTIC : FAILURE_DIAGNOSTIC;
  }
  if (
    b === 0x6e && has(bytes, at, end, NOT_OK) && isDigit(byteAt(bytes, at + NOT_OK.length, end))
  ) {
    return FAILURE_DIAGNOSTIC;
  }
  if (b === 0x74 && has(bytes, at, end, THREAD) && indexOf(bytes, at, end, PANICKED) !== -1) {
    return FAILURE_DIAGNOSTIC;
  }
  if (b === 0x3e && has(bytes, at, end, TASK) && endsWith(bytes, at, end, FAILED_END)) {
    return FAILURE_DIAGNOSTIC;
  }
  if ((b === 0x6d || b === 0x67) && makeStars(bytes, at, end) !== NOT_DIAGNOSTIC) {
    return FAILURE_DIAGNOSTIC;
  }
  if (isDigit(b)) return eslintRow(bytes, at, end);
  const name = b === 0x55 && has(bytes, at, end, UNCAUGHT) ? at + UNCAUGHT.length : at;
  return exceptionName(bytes, name, end);
}

/** deno check's `TS2322 [ERROR]: …` (or `[WARNING]`) at `at`: `TS`, digits, a space, a bracketed level. */
function denoCheck(bytes: Uint8Array, at: number, end: number): number {
  const digits = skipDigits(bytes, at + 2, end);
  if (digits === at + 2 || byteAt(bytes, digits, end) !== 0x20) return NOT_DIAGNOSTIC;
  if (has(bytes, digits + 1, end, BRACKET_ERROR)) return FAILURE_DIAGNOSTIC;
  return has(bytes, digits + 1, end, BRACKET_WARNING) ? WARNING_DIAGNOSTIC : NOT_DIAGNOSTIC;
}
const BRACKET_ERROR = bytesOf("[ERROR]");
const BRACKET_WARNING = bytesOf("[WARNING]");

/** make's `make: *** …`, `make[2]: *** …`, `gmake: *** …` at `at`. */
function makeStars(bytes: Uint8Array, at: number, end: number): number {
  let i = at;
  if (byteAt(bytes, i, end) === 0x67) i++; // g
  if (!has(bytes, i, end, MAKE)) return NOT_DIAGNOSTIC;
  i += MAKE.length;
  if (byteAt(bytes, i, end) === 0x5b) {
    i++;
    while (i < end && isDigit(byteAt(bytes, i, end))) i++;
    if (byteAt(bytes, i, end) !== 0x5d) return NOT_DIAGNOSTIC;
    i++;
  }
  if (byteAt(bytes, i, end) !== 0x3a || byteAt(bytes, i + 1, end) !== 0x20) return NOT_DIAGNOSTIC;
  return has(bytes, i + 2, end, MAKE_STARS) ? FAILURE_DIAGNOSTIC : NOT_DIAGNOSTIC;
}
const MAKE = bytesOf("make");

/** The offset after the digits at `at` (`at` itself when none). */
function skipDigits(bytes: Uint8Array, at: number, end: number): number {
  while (at < end && isDigit(bytes[at])) at++;
  return at;
}

/** eslint's stylish row `12:5  error  message  rule` at `at`. */
function eslintRow(bytes: Uint8Array, at: number, end: number): number {
  let i = skipDigits(bytes, at, end);
  if (i === at || byteAt(bytes, i, end) !== 0x3a) return NOT_DIAGNOSTIC;
  const column = i + 1;
  i = skipDigits(bytes, column, end);
  if (i === column || !isSpace(byteAt(bytes, i, end))) return NOT_DIAGNOSTIC;
  while (i < end && isSpace(bytes[i])) i++;
  if (has(bytes, i, end, ERROR_WORD) && isSpace(byteAt(bytes, i + ERROR_WORD.length, end))) {
    return FAILURE_DIAGNOSTIC;
  }
  if (has(bytes, i, end, WARNING_WORD) && isSpace(byteAt(bytes, i + WARNING_WORD.length, end))) {
    return WARNING_DIAGNOSTIC;
  }
  return NOT_DIAGNOSTIC;
}
const ERROR_WORD = bytesOf("error");
const WARNING_WORD = bytesOf("warning");

/**
 * An exception name at `at`: dotted identifiers, the last ending in
 * `Error`, `Exception` or `Warning` after a letter (or being one of them),
 * followed by `:`, ` [`, ` in thread` or the end.
 */
function exceptionName(bytes: Uint8Array, at: number, end: number): number {
  if (at >= end || !isLetter(byteAt(bytes, at, end))) return NOT_DIAGNOSTIC;
  let i = at;
  let segment = at;
  while (
    i < end &&
    (isWordByte(byteAt(bytes, i, end)) || byteAt(bytes, i, end) === 0x2e ||
      byteAt(bytes, i, end) === 0x24)
  ) {
    if (byteAt(bytes, i, end) === 0x2e) segment = i + 1;
    i++;
  }
  const after = i;
  const delimited = after === end || byteAt(bytes, after, end) === 0x3a ||
    (byteAt(bytes, after, end) === 0x20 &&
      (byteAt(bytes, after + 1, end) === 0x5b || has(bytes, after, end, IN_THREAD)));
  if (!delimited) return NOT_DIAGNOSTIC;
  for (const [name, strength] of NAMES) {
    const from = after - name.length;
    if (from < segment || !has(bytes, from, end, name)) continue;
    if (from === segment || isLetter(bytes[from - 1]) || isDigit(bytes[from - 1])) return strength;
  }
  return NOT_DIAGNOSTIC;
}

function indexOf(bytes: Uint8Array, at: number, end: number, text: Uint8Array): number {
  for (let i = at; i + text.length <= end; i++) if (has(bytes, i, end, text)) return i;
  return -1;
}

function endsWith(bytes: Uint8Array, at: number, end: number, text: Uint8Array): boolean {
  return end - at >= text.length && has(bytes, end - text.length, end, text);
}

/**
 * The end of a source location's number part at the `:` or `(` at `at`:
 * `:12:`, `:12:3:`, `:12:3 -`, `(12,3):`, `(12):`; returns the offset of the
 * message after it (blanks skipped), or -1.
 */
function afterLocation(bytes: Uint8Array, at: number, end: number): number {
  let i = skipDigits(bytes, at + 1, end);
  if (i === at + 1) return -1;
  if (bytes[at] === 0x28) {
    if (byteAt(bytes, i, end) === 0x2c) {
      const column = i + 1;
      i = skipDigits(bytes, column, end);
      if (i === column) return -1;
    }
    if (byteAt(bytes, i, end) !== 0x29 || byteAt(bytes, i + 1, end) !== 0x3a) return -1;
    i += 2;
  } else {
    if (byteAt(bytes, i, end) === 0x3a && isDigit(byteAt(bytes, i + 1, end))) {
      i = skipDigits(bytes, i + 1, end);
    }
    if (byteAt(bytes, i, end) === 0x3a) i++;
    else if (
      byteAt(bytes, i, end) === 0x20 && byteAt(bytes, i + 1, end) === 0x2d &&
      byteAt(bytes, i + 2, end) === 0x20
    ) i += 3;
    else return -1;
  }
  while (i < end && isSpace(bytes[i])) i++;
  return i;
}

/** True when the path before the location at `at` ends in `.go`. */
function goPath(bytes: Uint8Array, start: number, at: number): boolean {
  return at - start >= 4 && bytes[at - 3] === 0x2e && bytes[at - 2] === 0x67 &&
    bytes[at - 1] === 0x6f;
}

/** True when the location at `at` has a column: `:12:3`. */
function columnAt(bytes: Uint8Array, at: number, end: number): boolean {
  let i = at + 1;
  while (i < end && isDigit(byteAt(bytes, i, end))) i++;
  return byteAt(bytes, i, end) === 0x3a && isDigit(byteAt(bytes, i + 1, end));
}

/** Skips ASCII blanks. */
function skipBlanks(bytes: Uint8Array, at: number, end: number): number {
  while (at < end && isSpace(byteAt(bytes, at, end))) at++;
  return at;
}

/**
 * The diagnostic strength of the line `bytes[start, end)` by its form alone
 * (see the module contract): what a data row (a grep match, an `ls` entry)
 * is judged by. {@link FAILURE_DIAGNOSTIC}, {@link WARNING_DIAGNOSTIC} or
 * {@link NOT_DIAGNOSTIC}.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { diagnosticForm, FAILURE_DIAGNOSTIC, NOT_DIAGNOSTIC } from "./diagnostics.ts";
 * const form = (text: string) => {
 *   const bytes = new TextEncoder().encode(text);
 *   return diagnosticForm(bytes, 0, bytes.length);
 * };
 * equal(form("src/a.ts(3,5): error TS2322: Type 'string' is not assignable"), FAILURE_DIAGNOSTIC);
 * equal(form("build.log:40:main.c:3:9: error: expected ';'"), FAILURE_DIAGNOSTIC);
 * equal(form("src/a.ts:12:export class ParseError extends Error {}"), NOT_DIAGNOSTIC);
 * equal(form("TS2322 [ERROR]: Type 'string' is not assignable to type 'number'."), FAILURE_DIAGNOSTIC);
 * equal(form("\x1b[31merr\x1b[0mor\x1b[1m:\x1b[0m mismatched types"), FAILURE_DIAGNOSTIC);
 * ```
 */
export function diagnosticForm(bytes: Uint8Array, start: number, end: number): number {
  const stop = Math.min(end, start + DIAGNOSTIC_WINDOW_BYTES);
  for (let i = start; i < stop; i++) {
    if (bytes[i] === ESC) return shownForm(bytes, start, end);
  }
  return rawForm(bytes, start, end);
}

const ESC = 0x1b;
/** Bytes stripped at a time; the scratch holds a window and one piece's output. */
const SHOWN_PIECE_BYTES = 1024;
const shownScratch = new Uint8Array(DIAGNOSTIC_WINDOW_BYTES + SHOWN_PIECE_BYTES);
const shownStripper = new AnsiStripper();

/** {@link rawForm} of the first {@link DIAGNOSTIC_WINDOW_BYTES} bytes of `bytes[start, end)` with its ANSI sequences removed. */
function shownForm(bytes: Uint8Array, start: number, end: number): number {
  shownStripper.reset();
  let out = 0;
  for (let at = start; at < end && out < DIAGNOSTIC_WINDOW_BYTES; at += SHOWN_PIECE_BYTES) {
    out = shownStripper.strip(
      bytes,
      at,
      Math.min(end, at + SHOWN_PIECE_BYTES),
      shownScratch,
      out,
    );
  }
  return rawForm(shownScratch, 0, Math.min(out, DIAGNOSTIC_WINDOW_BYTES));
}

/** {@link diagnosticForm} of a line as its bytes are, ANSI sequences and all. */
function rawForm(bytes: Uint8Array, start: number, end: number): number {
  const stop = Math.min(end, start + DIAGNOSTIC_WINDOW_BYTES);
  const lead = skipBlanks(bytes, start, stop);
  if (lead === stop) return NOT_DIAGNOSTIC;
  const found = wordLead(bytes, lead, stop, lead === start);
  if (found !== NOT_DIAGNOSTIC) return found;
  // After up to three locations, each right after a path without blanks: `path:12:3: error: …`,
  // `log:40:path(1,2): error TS…`, `x.go:3:4: …`.
  let locations = 0;
  for (let i = lead + 1; i < stop && locations < 3; i++) {
    const b = bytes[i];
    // A location follows a path: a blank before one ends the search (code after a grep prefix).
    if (isSpace(b)) return NOT_DIAGNOSTIC;
    if (b !== 0x3a && b !== 0x28) continue;
    if (!isDigit(byteAt(bytes, i + 1, stop))) {
      if (b === 0x3a && byteAt(bytes, i + 1, stop) === 0x20) return NOT_DIAGNOSTIC; // `word: text`: no path
      continue;
    }
    const message = afterLocation(bytes, i, stop);
    if (message === -1) continue;
    locations++;
    if (message >= stop) return NOT_DIAGNOSTIC;
    const after = wordLead(bytes, message, stop, false, true);
    if (after !== NOT_DIAGNOSTIC) return after;
    if (goPath(bytes, lead, i) && columnAt(bytes, i, stop)) return FAILURE_DIAGNOSTIC;
    i = message - 1;
  }
  return NOT_DIAGNOSTIC;
}

/**
 * ASCII words (lower case, found in any case) one of which every diagnostic
 * form holds that holds no marker word (`evidence.ts`'s `MARKER_WORDS`)
 * and that {@link mayLeadForm} does not admit by its lead byte: go's
 * `file.go:3:4: …` (`go:`). A chunk search for them and the marker words
 * lets a reducer skip {@link diagnosticForm} on a line that holds none.
 */
export const DIAGNOSTIC_ANCHORS: readonly string[] = ["go:"];

/** The first two bytes (after blanks) of the lead forms without a marker word, as `b0 << 8 | b1`. */
const WORDLESS_LEADS = new Uint8Array(65536);
/** The same at column 0 only. */
const WORDLESS_COLUMN0 = new Uint8Array(65536);
for (
  const text of [
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
    "make",
    "gmake",
    "Caused by",
    "FATAL",
    "CRITICAL",
    "fatal",
    "Fatal",
  ]
) {
  const bytes = bytesOf(text);
  WORDLESS_LEADS[bytes[0] << 8 | bytes[1]] = 1;
}
for (const text of ["e:", "w:", "E "]) {
  const bytes = bytesOf(text);
  WORDLESS_COLUMN0[bytes[0] << 8 | bytes[1]] = 1;
}

/**
 * True when the line `bytes[start, end)` may be a diagnostic form without
 * a marker word or a {@link DIAGNOSTIC_ANCHORS} word: its first two
 * non-blank bytes may lead one (`✕ ✗ ✖ ● ⚠ ×`, `-->`, `File "`, `not ok`,
 * `npm ERR!`, `ERR_PNPM_`, `make: ***`, `* What went wrong`, `Caused by`,
 * `FATAL`, `fatal:`), or its column 0 is `e:`, `w:` or `E ` (Kotlin's
 * `e: …`, pytest's `E   …`). A line with none of those words for which
 * this is false is never one.
 */
export function mayLeadForm(bytes: Uint8Array, start: number, end: number): boolean {
  const lead = skipBlanks(bytes, start, Math.min(end, start + DIAGNOSTIC_WINDOW_BYTES));
  if (lead + 1 >= end) return false;
  const pair = bytes[lead] << 8 | bytes[lead + 1];
  return WORDLESS_LEADS[pair] === 1 || (lead === start && WORDLESS_COLUMN0[pair] === 1);
}

const PASSED = bytesOf(" PASSED");
const DOTS_OK = bytesOf(" ... ok");
const CMAKE_PROBES = ["-- Looking for ", "-- Performing Test ", "-- Check", "-- Detecting "].map(
  bytesOf,
);
const QUIET_LEVELS = ["DEBUG", "TRACE"].map(bytesOf);
const QUIET_BRACKETS = ["[debug]", "[trace]", "level=debug", "level=trace"].map(bytesOf);

/**
 * True when the line `bytes[start, end)` is one of the measure's known
 * false positives of a marker word (see the module contract): a passing
 * test line by its suffix, a line whose every marker word is a zero count,
 * a DEBUG or TRACE log line, or a cmake configure probe.
 */
export function isQuietMarkerLine(line: Uint8Array, start: number, end: number): boolean {
  const bytes = line.subarray(0, end);
  const stop = Math.min(end, start + DIAGNOSTIC_WINDOW_BYTES);
  const lead = skipBlanks(bytes, start, stop);
  for (const probe of CMAKE_PROBES) if (has(bytes, lead, stop, probe)) return true;
  if (indexOf(bytes, start, stop, PASSED) !== -1 || passedSuffix(bytes, start, end)) {
    return !hasFailureWordAsWritten(bytes, start, stop);
  }
  if (quietLevel(bytes, start, Math.min(stop, start + 80))) return true;
  return zeroCounts(bytes, start, stop);
}

/** `name PASSED [ 10%]` or `test x ... ok` at the line's end. */
function passedSuffix(bytes: Uint8Array, start: number, end: number): boolean {
  let e = end;
  while (e > start && (isSpace(bytes[e - 1]) || bytes[e - 1] === 0x0d)) e--;
  if (bytes[e - 1] === 0x5d) { // `[ 50%]`
    let i = e - 1;
    while (i > start && bytes[i] !== 0x5b) i--;
    e = i;
    while (e > start && isSpace(bytes[e - 1])) e--;
  }
  return endsWith(bytes, start, e, PASSED) || endsWith(bytes, start, e, DOTS_OK);
}

/** True when `FAILED`, `FAIL` or `ERROR` appears as written, as a word. */
function hasFailureWordAsWritten(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    if (bytes[i] !== 0x46 && bytes[i] !== 0x45) continue;
    if (i > start && isWordByte(bytes[i - 1])) continue;
    for (const [word] of EXACT_LEADS) {
      if (word[0] !== bytes[i] || !has(bytes, i, end, word)) continue;
      const next = i + word.length;
      if (next === end || !isWordByte(bytes[next])) return true;
    }
  }
  return false;
}

/** A DEBUG or TRACE level word (as written) or `[debug]`, `level=trace` near the line start. */
function quietLevel(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b === 0x44 || b === 0x54) {
      if (i > start && isWordByte(bytes[i - 1])) continue;
      for (const level of QUIET_LEVELS) {
        if (has(bytes, i, end, level) && (i + 5 === end || !isWordByte(bytes[i + 5]))) return true;
      }
    } else if (b === 0x5b || b === 0x6c) {
      for (const level of QUIET_BRACKETS) if (has(bytes, i, end, level)) return true;
    }
  }
  return false;
}

const MARKER_LEADS = ["error", "fail", "warn", "exception", "panic", "assert"].map(bytesOf);

/**
 * True when the line has a marker word and every one is a zero count:
 * `0 failed`, `0 errors`, `Failures: 0`, `errors=0`, `failed: 0`
 * (a `0` not part of a larger number).
 */
function zeroCounts(bytes: Uint8Array, start: number, end: number): boolean {
  let markers = 0;
  for (let i = start; i < end; i++) {
    if (!isLetter(bytes[i]) || (i > start && isWordByte(bytes[i - 1]))) continue;
    let word = -1;
    for (let w = 0; w < MARKER_LEADS.length; w++) {
      if (hasFolded(bytes, i, end, MARKER_LEADS[w])) word = w;
    }
    let j = i;
    while (j < end && isWordByte(bytes[j])) j++;
    if (word === -1) {
      i = j - 1;
      continue;
    }
    markers++;
    const before = i >= start + 2 && bytes[i - 1] === 0x20 && bytes[i - 2] === 0x30 &&
      (i - 3 < start || !isDigit(bytes[i - 3]));
    let k = j;
    if (bytes[k] === 0x3a || bytes[k] === 0x3d) k++;
    k = skipBlanks(bytes, k, end);
    const after = k > j && bytes[k] === 0x30 && (k + 1 === end || !isDigit(bytes[k + 1]));
    if (!before && !after) return false;
    i = j - 1;
  }
  return markers > 0;
}
