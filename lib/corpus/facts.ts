/**
 * What an agent needs from a failed result, as checkable text: diagnostic
 * lines and key facts (issue "Measure what matters"). Both are measured on
 * the ANSI-stripped visible text; a fact is always a literal substring of
 * one original line, so "kept" means the reduced text still contains it.
 *
 * - A diagnostic line is what the reducers' one classifier calls one
 *   (`reduce/diagnostics.ts`): a tool's diagnostic form (`file(1,2): error
 *   TS2322`, `error[E0308]:`, `x.go:3:4: …`, `✕ …`, `npm ERR!`, …), or a
 *   line carrying an error, fail, panic, warning, traceback, exception or
 *   assertion marker (one of those words starting a word, any case, or
 *   ending a camel-case name) that is not a passing-test line (`✓ …`,
 *   `ok …`, `PASS …`, `test_x PASSED`, `… ... ok`), a zero-failure total
 *   (`Failures: 0, Errors: 0`, `0 failed`), a DEBUG or TRACE log line or a
 *   cmake probe (`-- Looking for … - not found`). Kept means
 *   the same line (trailing white space ignored) is still a line of the
 *   reduced text, counted as a multiset; a kept line followed by the
 *   reducers' `[yarp: the line above appears N times]` counts N times.
 * - Key facts, by kind: `test` (failing test names from go test, pytest,
 *   jest, vitest, mocha), `location` (`file:line[:col]`, tsc's
 *   `file(line,col)` and Python `File "…", line N`, on diagnostic lines and
 *   on lines that start with a location), `diagnostic` (compiler and
 *   linter lines: gcc/clang, tsc, eslint, go vet/build, shellcheck),
 *   `exception` (exception and panic lines), `build` (make and npm errors).
 *   Each distinct fact counts once per result.
 *
 * @module
 */
import { AnsiStripper } from "../bytes/ansi.ts";
import { bytesEqual } from "../bytes/byte_search.ts";
import { isDiagnosticText } from "../reduce/evidence.ts";
import { repeatNoteCount } from "../reduce/marker.ts";

/** The kinds of key facts, in report order. */
export const FACT_KINDS = ["test", "location", "diagnostic", "exception", "build"] as const;

/** One kind of key fact. */
export type FactKind = typeof FACT_KINDS[number];

const TEST_PATTERNS: readonly RegExp[] = [
  /^\s*--- FAIL: (\S+)/, // go test
  /^FAIL\s+(\S+)/, // go test package, jest file
  /^FAILED (\S+)/, // pytest summary
  /^(\S+::\S+) FAILED/, // pytest -v
  /^ERROR (\S+::\S+)/, // pytest collection/setup errors
  /^\s*● (.+?)\s*$/, // jest failure title
  /^\s*[✕×✗] (.+?)(?: \(?\d+(?:\.\d+)? ?m?s\)?)?\s*$/, // jest, vitest, mocha marks
  /^\s*FAIL\s+(.+?\.[cm]?[jt]sx?\s+>.+?)\s*$/, // vitest `FAIL file > suite > test`
  /^\s+\d+\) (.+?)\s*$/, // mocha
];

/** A message about a place: the line starts with `file.ext:line` (go test, compilers, linters). */
const LOCATION_LEAD = /^\s*(?:[\w@.~+-]+\/)*[\w@.+-]+\.[A-Za-z]\w{0,5}:\d+/;

const LOCATION_PATTERNS: readonly RegExp[] = [
  /(?:[\w@.~+-]+\/)*[\w@.+-]+\.[A-Za-z][\w]{0,5}(?::\d+){1,2}/g,
  /(?:[\w@.~+-]+\/)*[\w@.+-]+\.[A-Za-z][\w]{0,5}\(\d+,\d+\)/g, // tsc
  /File "[^"]+", line \d+/g, // Python traceback
];

const DIAGNOSTIC_PATTERNS: readonly RegExp[] = [
  /^\S+?:\d+(?::\d+)?: (?:fatal )?(?:error|warning|note)\b/, // gcc, clang, go
  /^\S+\(\d+,\d+\): error TS\d+/, // tsc
  /^error TS\d+/, // tsc without location
  /^\s+\d+:\d+\s+(?:error|warning)\s+\S/, // eslint stylish
  /^In \S+ line \d+:/, // shellcheck
  /^\s*\^-- SC\d+/, // shellcheck
  /^(?:vet|\S+\.go):.*\d+:\d+: /, // go vet
  /^\S+:\d+:\d+: (?:E|W|F)\d+ /, // flake8 / ruff
];

const EXCEPTION_PATTERNS: readonly RegExp[] = [
  /^(?:[A-Za-z_][\w]*\.)*[A-Z][\w]*(?:Error|Exception|Warning|Interrupt|Exit)\b(?::.*)?$/, // Python
  /^\s*(?:Uncaught )?(?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?: .+/, // JS
  /^panic: .+/, // Go
  /^thread '.+' panicked at .+/, // Rust
  /^Traceback \(most recent call last\):/,
  /^\s*AssertionError\b.*/,
];

const BUILD_PATTERNS: readonly RegExp[] = [
  /^(?:g?make|cmake)(?:\[\d+\])?: \*\*\* .+/, // make
  /^npm (?:ERR!|error) .+/, // npm
  /^(?:CMake Error|ninja: build stopped).*/,
  /^collect2: error: .+/,
];

/** The facts of one visible text, grouped by kind, each distinct. */
export type KeyFacts = Record<FactKind, readonly string[]>;

/** Per-result counts of what survived a reduction. */
export interface Survival {
  readonly diagnosticLines: number;
  readonly diagnosticLinesKept: number;
  /** Facts found in the original, by kind. */
  readonly facts: Record<FactKind, number>;
  /** Of those, facts still present in the reduced text. */
  readonly factsKept: Record<FactKind, number>;
}

/**
 * The lines of `bytes` as a person reads them: ANSI sequences removed, bytes
 * decoded as UTF-8 (invalid bytes become U+FFFD), split at LF with a CR
 * before it dropped. A final line without LF counts; an empty input has no
 * lines.
 */
export function readableLines(bytes: Uint8Array): string[] {
  if (bytes.length === 0) return [];
  const stripped = new Uint8Array(bytes.length);
  const end = new AnsiStripper().strip(bytes, 0, bytes.length, stripped, 0);
  const lines = new TextDecoder().decode(stripped.subarray(0, end)).split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => line.endsWith("\r") ? line.slice(0, -1) : line);
}

/**
 * True when `line` is a diagnostic line by the reducers' own classifier
 * (`reduce/evidence.ts`, `reduce/diagnostics.ts`), so what the corpus
 * counts is what the reducers keep.
 */
export const isDiagnosticLine: (line: string) => boolean = isDiagnosticText;

function firstCapture(patterns: readonly RegExp[], line: string): string | undefined {
  for (const pattern of patterns) {
    const match = pattern.exec(line);
    if (match !== null) return (match[1] ?? match[0]).trim();
  }
  return undefined;
}

/** The key facts in `lines` (see the module contract), each distinct within its kind. */
export function keyFacts(lines: readonly string[]): KeyFacts {
  const found: Record<FactKind, Set<string>> = {
    test: new Set(),
    location: new Set(),
    diagnostic: new Set(),
    exception: new Set(),
    build: new Set(),
  };
  for (const line of lines) {
    const test = firstCapture(TEST_PATTERNS, line);
    if (test !== undefined && test !== "") found.test.add(test);
    const diagnostic = firstCapture(DIAGNOSTIC_PATTERNS, line);
    if (diagnostic !== undefined) found.diagnostic.add(line.trim());
    const exception = firstCapture(EXCEPTION_PATTERNS, line);
    if (exception !== undefined) found.exception.add(line.trim());
    const build = firstCapture(BUILD_PATTERNS, line);
    if (build !== undefined) found.build.add(line.trim());
    if (
      isDiagnosticLine(line) || LOCATION_LEAD.test(line) || line.trimStart().startsWith('File "')
    ) {
      for (const pattern of LOCATION_PATTERNS) {
        for (const match of line.matchAll(pattern)) found.location.add(match[0]);
      }
    }
  }
  return {
    test: [...found.test],
    location: [...found.location],
    diagnostic: [...found.diagnostic],
    exception: [...found.exception],
    build: [...found.build],
  };
}

function zeroByKind(): Record<FactKind, number> {
  return { test: 0, location: 0, diagnostic: 0, exception: 0, build: 0 };
}

/**
 * Measures what of `original` survives in `reduced`: diagnostic lines kept
 * as whole lines (multiset, trailing white space ignored) and key facts kept
 * as substrings of the reduced text. Identical texts keep everything.
 */
export function measureSurvival(original: Uint8Array, reduced: Uint8Array): Survival {
  const before = readableLines(original);
  const facts = keyFacts(before);
  const counts = zeroByKind();
  for (const kind of FACT_KINDS) counts[kind] = facts[kind].length;
  let diagnosticLines = 0;
  for (const line of before) if (isDiagnosticLine(line)) diagnosticLines++;
  if (reduced === original || bytesEqual(original, reduced)) {
    return {
      diagnosticLines,
      diagnosticLinesKept: diagnosticLines,
      facts: counts,
      factsKept: { ...counts },
    };
  }
  const after = readableLines(reduced);
  const available = new Map<string, number>();
  for (let i = 0; i < after.length; i++) {
    const line = after[i];
    if (!isDiagnosticLine(line)) continue;
    const key = line.trimEnd();
    // A kept line followed by the reducers' repeat note stands for every copy it counts.
    const copies = i + 1 < after.length ? Math.max(1, repeatNoteCount(after[i + 1])) : 1;
    available.set(key, (available.get(key) ?? 0) + copies);
  }
  let diagnosticLinesKept = 0;
  for (const line of before) {
    if (!isDiagnosticLine(line)) continue;
    const key = line.trimEnd();
    const left = available.get(key) ?? 0;
    if (left > 0) {
      available.set(key, left - 1);
      diagnosticLinesKept++;
    }
  }
  const text = after.join("\n");
  const kept = zeroByKind();
  for (const kind of FACT_KINDS) {
    for (const fact of facts[kind]) if (text.includes(fact)) kept[kind]++;
  }
  return { diagnosticLines, diagnosticLinesKept, facts: counts, factsKept: kept };
}
