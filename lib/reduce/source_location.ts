/**
 * Source locations at the start of a line, read from bytes: where
 * compilers, linters, vet tools and test runners name the place of a
 * finding (`src/a.rs:12:5: …`, `./x.go:3:2: undefined: y`,
 * `/abs/path/b.c:7: …`, `    x_test.go:41: want 2`, `  File "t.py", line 3`)
 * and where a stack frame names it (`    at fn (src/a.ts:9:14)`,
 * `    at src/a.ts:9:14`). Shared by the typed kinds and the global output cap
 * so both keep the same lines.
 *
 * A path is one or more segments of `[A-Za-z0-9_@.~+-]` joined by `/`
 * (optionally starting with `/`); its last segment holds a `.` followed by
 * an extension of one letter and up to five more word characters; a colon
 * and a digit follow. Only the first {@link LOCATION_WINDOW_BYTES} bytes of a
 * line are read, so a check is O(1) per line.
 *
 * Known misses: Windows paths (`C:\x\y.cs(12,5)`, with a drive colon and
 * backslashes), paths with spaces, and extensionless files (`Makefile:12:`).
 *
 * @module
 */
import { skipBlanks, startsWith } from "./kinds/family.ts";

/** Bytes of a line read for a location. */
export const LOCATION_WINDOW_BYTES = 256;

/** 1 for `[A-Za-z0-9_@.~+-]`, 2 for `/`. */
const PATH_BYTE = (() => {
  const table = new Uint8Array(256);
  for (let b = 0x30; b <= 0x39; b++) table[b] = 1;
  for (let b = 0x41; b <= 0x5a; b++) table[b] = 1;
  for (let b = 0x61; b <= 0x7a; b++) table[b] = 1;
  for (const c of "_@.~+-") table[c.charCodeAt(0)] = 1;
  table[0x2f] = 2;
  return table;
})();

const DOT = 0x2e;
const COLON = 0x3a;

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

function isLetter(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
}

function isWordByte(b: number): boolean {
  return isLetter(b) || isDigit(b) || b === 0x5f;
}

/**
 * The end of a `path.ext:DIGIT` location starting at `at` (the offset of its
 * colon), or -1 when `bytes[at, end)` does not start with one.
 */
export function pathLocationEnd(bytes: Uint8Array, at: number, end: number): number {
  let i = at;
  let segmentStart = at;
  let lastDot = -1;
  while (i < end) {
    const kind = PATH_BYTE[bytes[i]];
    if (kind === 0) break;
    if (kind === 2) {
      segmentStart = i + 1;
      lastDot = -1;
    } else if (bytes[i] === DOT) {
      lastDot = i;
    }
    i++;
  }
  if (i + 1 >= end || bytes[i] !== COLON || !isDigit(bytes[i + 1])) return -1;
  if (lastDot <= segmentStart) return -1; // no name before the extension's dot
  const extension = i - lastDot - 1;
  if (extension < 1 || extension > 6 || !isLetter(bytes[lastDot + 1])) return -1;
  for (let k = lastDot + 2; k < i; k++) if (!isWordByte(bytes[k])) return -1;
  return i;
}

/**
 * True when `bytes[start, end)`, after leading blanks, starts with a source
 * location (`path.ext:LINE`) or Python's `File "…", line N`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { leadsWithLocation } from "./source_location.ts";
 * const line = (text: string) => new TextEncoder().encode(text);
 * const test = (text: string) => leadsWithLocation(line(text), 0, line(text).length);
 * assert.ok(test("./cmd/main.go:12:5: undefined: run"));
 * assert.ok(test('  File "t.py", line 3, in <module>'));
 * assert.ok(!test("Compiling foo v1.2.0"));
 * ```
 */
export function leadsWithLocation(bytes: Uint8Array, start: number, end: number): boolean {
  const stop = Math.min(end, start + LOCATION_WINDOW_BYTES);
  const at = skipBlanks(bytes, start, stop);
  if (startsWith(bytes, at, stop, 'File "')) {
    let i = at + 6;
    while (i < stop && bytes[i] !== 0x22) i++;
    return startsWith(bytes, i, stop, '", line ') && i + 8 < stop && isDigit(bytes[i + 8]);
  }
  return pathLocationEnd(bytes, at, stop) !== -1;
}

/**
 * True when `bytes[start, end)` is a stack frame that names a source
 * location: `at NAME (path.ext:L:C)` or `at path.ext:L:C` (V8, Deno, Bun;
 * a `file://` scheme is read past), after leading blanks.
 */
export function isLocatedStackFrame(bytes: Uint8Array, start: number, end: number): boolean {
  const stop = Math.min(end, start + LOCATION_WINDOW_BYTES);
  const at = skipBlanks(bytes, start, stop);
  if (!startsWith(bytes, at, stop, "at ")) return false;
  if (frameLocation(bytes, at + 3, stop)) return true;
  let open = at + 3;
  while (open < stop && bytes[open] !== 0x28) open++; // `(`
  return open < stop && frameLocation(bytes, open + 1, stop);
}

/** A frame's location at `at`, after an optional `file://` scheme. */
function frameLocation(bytes: Uint8Array, at: number, stop: number): boolean {
  const path = startsWith(bytes, at, stop, "file://") ? at + 7 : at;
  return pathLocationEnd(bytes, path, stop) !== -1;
}
