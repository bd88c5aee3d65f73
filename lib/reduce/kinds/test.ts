/**
 * The `test` kind (cargo test and nextest, jest, vitest, node --test, deno
 * test, mocha, pytest, go test, ctest, dotnet test, Maven Surefire,
 * Gradle): passing-test lines and per-test progress (`test x ... ok`,
 * `=== RUN`, `--- PASS:`, `x.py::t PASSED`, `# Subtest:`, TAP `ok N`, TAP
 * YAML blocks, pytest's `....  [ 50%]` rows, ctest's `Start 1: x` and
 * `1/3 Test #1: x ...   Passed`, Surefire's clean per-class totals, Maven's
 * `[INFO] Downloading from …`) are noise; failing marks
 * without a marker word (`✕ adds`, `× parses`, `✗`, `not ok N - …`, jest's
 * `● title`, mocha's `  1) title`) are
 * failures; diagnostics with their context and the runner's own summary
 * lines are kept by the engine.
 *
 * go test's `ok  pkg  0.01s` line for each passing package is a row: counted
 * (`[yarp: 45 passing packages]`) and shown as fill, and its bare `PASS`
 * line is dropped, so a run of many packages is not a wall of summaries
 * (which, past the engine's summary bound, would keep the input whole).
 *
 * A workspace runner's `[@scope/pkg]: ` prefix is read past, so a monorepo's
 * per-package runs read as the runner's own lines.
 *
 * Inside a failure block (opened by a failing mark, `--- FAIL`, `FAIL`,
 * `ERROR`, pytest's `___ name ___` header, `Traceback` or `panic:`; closed
 * by the next passing or progress line), a line that leads with a source
 * location (`    x_test.go:41: want 2`) or a stack frame that names one
 * (`at Object.<anonymous> (a.test.ts:12:3)`) is kept with the warnings: it
 * says where the failure is. Outside a block such lines (a passing test's
 * `t.Log`) stay fill.
 *
 * Known miss: `go test -v` prints a failing test's messages before its
 * `--- FAIL` line; they are kept only as the failure's context or fill.
 *
 * @module
 */
import { Evidence, isPassingLine } from "../evidence.ts";
import {
  BUSIEST_FIRST,
  type Family,
  type KeySink,
  type LineParser,
  PrefixSet,
  Role,
  skipBlanks,
  startsWith,
} from "./family.ts";
import { isLocatedStackFrame, leadsWithLocation } from "../source_location.ts";

const NOISE_PREFIXES = new PrefixSet([
  "# Subtest:",
  "duration_ms:",
  "type: 'test'",
  "type: 'suite'",
  "Running ",
  "running ",
  "Doc-tests ",
  "PASSED ",
  "RUN ",
  "[INFO] Running ",
  "[INFO] Download",
  "Starting test",
]);

const FAILURE_MARKS = new PrefixSet(["✕ ", "× ", "✗ ", "✘ ", "not ok ", "● "]);

/** Lines that open a failure block though the runner marks them with a word, not a sign. */
const BLOCK_OPENERS = new PrefixSet(["--- FAIL", "FAIL", "ERROR", "___", "Traceback", "panic:"]);
/** Per-test progress that closes a failure block (besides passing and go's progress lines). */
const BLOCK_CLOSERS = new PrefixSet(["RUN ", "Running "]);

/** The test kind's parser: {@link lineRole} plus whether a failure block is open. */
class TestParser implements LineParser {
  private _inFailure = false;

  line(bytes: Uint8Array, start: number, end: number, flags: number, sink: KeySink): number {
    const from = workspacePrefixEnd(bytes, start, end);
    if (from > start) {
      start = from;
      flags = (flags & ~Evidence.Passing) |
        (isPassingLine(bytes, start, end) ? Evidence.Passing : Evidence.None);
    }
    const role = lineRole(bytes, start, end, flags, sink);
    if (role === Role.Failure) {
      this._inFailure = true;
      return role;
    }
    const at = skipBlanks(bytes, start, end);
    if ((flags & Evidence.Passing) !== 0 || BLOCK_CLOSERS.matchAt(bytes, at, end)) {
      this._inFailure = false;
      return role;
    }
    if (role === Role.Noise) return role;
    if (BLOCK_OPENERS.matchAt(bytes, at, end)) {
      this._inFailure = true;
      return role;
    }
    if (
      this._inFailure &&
      (leadsWithLocation(bytes, at, end) || isLocatedStackFrame(bytes, at, end))
    ) {
      return Role.Important;
    }
    return role;
  }

  retainedBytes(): number {
    return 0;
  }
}

function lineRole(
  bytes: Uint8Array,
  start: number,
  end: number,
  flags: number,
  _sink: KeySink,
): number {
  if ((flags & Evidence.Passing) !== 0) {
    if (goPackagePassed(bytes, start, end)) return Role.Row;
    return barePass(bytes, start, end) ? Role.Passed : Role.Noise;
  }
  const at = skipBlanks(bytes, start, end);
  if (at === end) return Role.Noise;
  if (FAILURE_MARKS.matchAt(bytes, at, end)) return Role.Failure;
  if (at > start && mocha(bytes, at, end)) return Role.Failure;
  if (NOISE_PREFIXES.matchAt(bytes, at, end)) return Role.Noise;
  if (
    endsWith(bytes, start, end, " ... ok") || endsWith(bytes, start, end, " PASSED") ||
    endsWith(bytes, start, end, " passed") || endsWith(bytes, start, end, " ... ignored")
  ) {
    return Role.Noise;
  }
  if (endsWith(bytes, start, end, "%]") && bytes[at] !== 0x3d) return Role.Noise; // pytest progress
  if (ctestProgress(bytes, at, end)) return Role.Noise;
  const b = bytes[at];
  if (
    (b === 0x2d && bytes[at + 1] === 0x2d && bytes[at + 2] === 0x2d && end - at === 3) ||
    (b === 0x2e && bytes[at + 1] === 0x2e && bytes[at + 2] === 0x2e && end - at === 3)
  ) {
    return Role.Noise; // TAP YAML block edges
  }
  return Role.Other;
}

/**
 * go test's line for a package that passed, at the start of the line:
 * `ok`, blanks, the package path, blanks, then its time, `(cached)` or
 * `[no tests to run]`. A run of many packages prints one each: rows to
 * count, not summaries that must all be shown.
 */
function goPackagePassed(bytes: Uint8Array, start: number, end: number): boolean {
  if (!startsWith(bytes, start, end, "ok")) return false;
  let i = start + 2;
  const path = skipBlanks(bytes, i, end);
  if (path === i) return false;
  i = path;
  while (i < end && bytes[i] !== 0x20 && bytes[i] !== 0x09) i++;
  const after = skipBlanks(bytes, i, end);
  if (i === path || after === i || after === end) return false;
  const b = bytes[after];
  return (b >= 0x30 && b <= 0x39) || b === 0x28 || b === 0x5b;
}

/**
 * The end of a workspace runner's prefix (`[@scope/pkg]: `, as `yarn workspaces foreach`
 * prints before each line of a package's run), or `start` when the line has none.
 */
function workspacePrefixEnd(bytes: Uint8Array, start: number, end: number): number {
  if (bytes[start] !== 0x5b) return start; // [
  let i = start + 1;
  while (i < end && i - start < 128) {
    const b = bytes[i];
    const name = (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) ||
      (b >= 0x30 && b <= 0x39) || b === 0x40 || b === 0x2f || b === 0x2d || b === 0x2e ||
      b === 0x5f;
    if (!name) break;
    i++;
  }
  if (i === start + 1 || !startsWith(bytes, i, end, "]: ")) return start;
  return i + 3;
}

/** go test's `PASS` alone on a line (after each package's tests, before its `ok` line). */
function barePass(bytes: Uint8Array, start: number, end: number): boolean {
  let last = end;
  while (last > start && (bytes[last - 1] === 0x20 || bytes[last - 1] === 0x09)) last--;
  return last - start === 4 && startsWith(bytes, start, last, "PASS");
}

/** A mocha failure title: `  1) suite name` (indented, a number, `) `). */
function mocha(bytes: Uint8Array, at: number, end: number): boolean {
  let i = at;
  while (i < end && bytes[i] >= 0x30 && bytes[i] <= 0x39) i++;
  return i > at && i + 1 < end && bytes[i] === 0x29 && bytes[i + 1] === 0x20;
}

/**
 * ctest's per-test progress: `Start  1: name` and a passed test's
 * `1/3 Test  #1: name ......   Passed    0.01 sec` (failures say
 * `***Failed` and carry a marker).
 */
function ctestProgress(bytes: Uint8Array, at: number, end: number): boolean {
  if (startsWith(bytes, at, end, "Start ")) {
    const number = skipBlanks(bytes, at + 6, end);
    const i = digits(bytes, number, end);
    return i > number && bytes[i] === 0x3a;
  }
  let i = digits(bytes, at, end);
  if (i === at || bytes[i] !== 0x2f) return false;
  const from = i + 1;
  i = digits(bytes, from, end);
  if (i === from || !startsWith(bytes, skipBlanks(bytes, i, end), end, "Test ")) return false;
  if (!endsWith(bytes, at, end, " sec")) return false;
  for (let k = i; k + 8 <= end; k++) {
    if (bytes[k] === 0x20 && startsWith(bytes, k, end, " Passed ")) return true;
  }
  return false;
}

function digits(bytes: Uint8Array, at: number, end: number): number {
  while (at < end && bytes[at] >= 0x30 && bytes[at] <= 0x39) at++;
  return at;
}

function endsWith(bytes: Uint8Array, start: number, end: number, text: string): boolean {
  return end - start >= text.length && startsWith(bytes, end - text.length, end, text);
}

/** The test family; its rows are go's passing-package lines. */
export const TEST: Family = {
  rowNoun: "passing package",
  keyNoun: "",
  key2Noun: "",
  samplesPerKey: 0,
  textShowsFailure: true,
  floor: BUSIEST_FIRST,
  headRows: false,
  readsPassing: true,
  create: () => new TestParser(),
};
