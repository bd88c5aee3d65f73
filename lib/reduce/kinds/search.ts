/**
 * The `search` kind (grep, rg, git grep, ag): a match row is
 * `PATH:LINE:TEXT`, `PATH:TEXT` or, in rg's and ag's heading form, a
 * `LINE:TEXT` row under a `PATH` heading line; its key is the path, so the
 * summary gives per-file match counts and the examples come from different
 * files. Context rows (`PATH-LINE-TEXT`) and `--` separators are fill; a
 * tool's own message (`grep: …`, `rg: …`, and rg 13's `PATH: IO error for
 * operation on PATH: … (os error 2)`) is never a row.
 *
 * @module
 */
import {
  BUSIEST_FIRST,
  type Family,
  find,
  type KeySink,
  type LineParser,
  Role,
  startsWith,
} from "./family.ts";

const COLON = 0x3a;

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

/** True for a tool's own message prefix. */
function toolMessage(bytes: Uint8Array, start: number, end: number): boolean {
  return startsWith(bytes, start, end, "grep: ") || startsWith(bytes, start, end, "rg: ") ||
    startsWith(bytes, start, end, "fatal: ") || startsWith(bytes, start, end, "ag: ") ||
    startsWith(bytes, start, end, "error: ") || startsWith(bytes, start, end, "warning: ");
}

/** True for rg's `PATH: message (os error 13)`, after the path's `colon`. */
function osError(bytes: Uint8Array, colon: number, end: number): boolean {
  if (bytes[end - 1] !== 0x29 || bytes[colon + 1] !== 0x20) return false;
  let i = end - 2;
  while (i > colon && isDigit(bytes[i])) i--;
  return i < end - 2 && i - OS_ERROR.length >= colon &&
    startsWith(bytes, i - OS_ERROR.length + 1, end, OS_ERROR);
}

const OS_ERROR = "(os error ";

class SearchParser implements LineParser {
  private readonly _heading = new Uint8Array(256);
  private _headingLength = 0;

  line(bytes: Uint8Array, start: number, end: number, _flags: number, sink: KeySink): number {
    if (end === start) return Role.Other;
    if (toolMessage(bytes, start, end)) return Role.Other;
    if (end - start === 2 && bytes[start] === 0x2d && bytes[start + 1] === 0x2d) return Role.Noise;
    const colon = find(bytes, COLON, start, Math.min(end, start + 4096));
    if (colon > start) {
      if (osError(bytes, colon, end)) return Role.Other;
      let digits = start;
      while (digits < colon && isDigit(bytes[digits])) digits++;
      if (digits === colon && this._headingLength > 0) {
        sink.key(this._heading, 0, this._headingLength);
      } else sink.key(bytes, start, colon);
      return Role.Row;
    }
    // A heading: a path alone on its line (rg --heading, ag --group).
    if (find(bytes, 0x20, start, end) === -1 && end - start <= this._heading.length) {
      this._heading.set(bytes.subarray(start, end));
      this._headingLength = end - start;
      return Role.Structure;
    }
    return Role.Other;
  }

  retainedBytes(): number {
    return this._heading.byteLength;
  }
}

/** The search family. */
export const SEARCH: Family = {
  rowNoun: "match",
  keyNoun: "file",
  key2Noun: "",
  samplesPerKey: 2,
  textShowsFailure: false,
  floor: BUSIEST_FIRST,
  headRows: false,
  rowsOnly: true,
  create: () => new SearchParser(),
};
