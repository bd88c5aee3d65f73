/**
 * The `list` kind (ls, find, fd, tree, unzip -l, tar -t): every entry is a
 * row keyed by its directory and its extension, so the summary gives counts
 * by directory and by extension and the examples come from distinct
 * directories first. `ls -R` headings (`DIR:`) set the directory; `tree`'s
 * drawing and `ls -l`'s columns are read past to the name; unzip's
 * `  inflating: path` rows are read after the verb (its trailing padding
 * dropped); `total N`, `Archive:` and tree's closing report are structure.
 * A lister's own message (`find: ‘x’: Permission denied`, `ls: cannot
 * access …`, `du: …`, `tar: …`, fd's `[fd error]: …`, tree's `dir
 * [error opening dir]`) is never an entry: it is kept with the warnings.
 *
 * @module
 */
import {
  BUSIEST_FIRST,
  type Family,
  find,
  type KeySink,
  type LineParser,
  PrefixSet,
  Role,
  skipBlanks,
  startsWith,
} from "./family.ts";

const SLASH = 0x2f;

/**
 * Byte classes of the name scan: a byte the name starts after, `/`, `.`, `-` (else 0). Every
 * byte from 0x30 to 0x7f is class 0, so the scan skips those with one compare before the
 * table (in process, 60 → 38 ns for a 32-byte line).
 */
const C_BREAK = 1;
const C_SLASH = 2;
const C_DOT = 3;
const NAME_CLASS = new Uint8Array(256);
for (let b = 0x80; b < 256; b++) NAME_CLASS[b] = C_BREAK;
NAME_CLASS[0x20] = C_BREAK;
NAME_CLASS[0x09] = C_BREAK;
NAME_CLASS[SLASH] = C_SLASH;
NAME_CLASS[0x2e] = C_DOT;
NAME_CLASS[0x2d] = 4;

class ListParser implements LineParser {
  private readonly _dir = new Uint8Array(256);
  private _dirLength = 0;

  line(bytes: Uint8Array, start: number, end: number, _flags: number, sink: KeySink): number {
    if (end === start) return Role.Other;
    const first = bytes[start];
    if (first === 0x74 && startsWith(bytes, start, end, "total ")) return Role.Structure;
    if (first === 0x20) {
      const verb = skipBlanks(bytes, start, end);
      if (UNZIP_VERBS.matchAt(bytes, verb, end)) return this._unzip(bytes, verb, end, sink);
    }
    if (first === 0x41 && startsWith(bytes, start, end, "Archive:  ")) return Role.Structure;
    if (TOOL_MESSAGES.matchAt(bytes, start, end) || treeError(bytes, start, end)) {
      return Role.Important;
    }
    if (bytes[end - 1] === 0x3a && end - start < 256) {
      this._dirLength = end - start - 1;
      this._dir.set(bytes.subarray(start, end - 1));
      return Role.Structure;
    }
    if (first - 0x30 >>> 0 < 10 && treeReport(bytes, start, end)) return Role.Structure;
    // The name: after the last space for ls -l / unzip -l rows, after tree's drawing.
    // One pass finds it with the last slash (not final) and the last dot after it.
    let name = start;
    let before = start;
    let nameEnd = end;
    let slash = -1;
    let dot = -1;
    let rescan = false;
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      if (b - 0x30 >>> 0 < 0x50) continue; // 0-9, A-Z, a-z and the like: class 0, one compare
      const c = NAME_CLASS[b];
      if (c === 0) continue;
      if (c === C_BREAK) {
        before = name;
        name = i + 1;
        slash = -1;
        dot = -1;
      } else if (c === C_SLASH) {
        if (i < end - 1) slash = i;
      } else if (c === C_DOT) dot = i;
      else if (i + 1 < end && bytes[i + 1] === 0x3e && i > start && bytes[i - 1] === 0x20) {
        // A symlink `name -> target`: the entry is the name before the arrow, never the
        // target's directory.
        name = before;
        nameEnd = i - 1;
        rescan = true;
        break;
      }
    }
    if (
      name !== start && first !== 0x64 && first !== 0x2d && first !== 0x6c &&
      !drawnOrIndented(bytes, start, Math.min(end, start + 4))
    ) {
      name = start; // a plain name with spaces
      rescan = true;
    }
    if (rescan) {
      slash = lastByte(bytes, SLASH, name, nameEnd - 1);
      dot = lastByte(bytes, 0x2e, name, nameEnd);
    }
    if (slash > name) sink.key(bytes, name, slash);
    else if (this._dirLength > 0) sink.key(this._dir, 0, this._dirLength);
    else sink.key(DOT, 0, 1);
    if (dot < Math.max(slash + 1, name) + 1) dot = -1;
    if (dot > 0 && nameEnd - dot > 1 && nameEnd - dot <= 8) sink.key2(bytes, dot, nameEnd);
    else sink.key2(NONE, 0, NONE.length);
    return Role.Row;
  }

  /**
   * unzip's `  inflating: path   ` row at `verb`: the path is all that
   * follows the verb's colon and blanks, less unzip's trailing padding.
   */
  private _unzip(bytes: Uint8Array, verb: number, end: number, sink: KeySink): number {
    const name = skipBlanks(bytes, find(bytes, 0x3a, verb, end) + 1, end);
    let stop = end;
    while (stop > name && (bytes[stop - 1] === 0x20 || bytes[stop - 1] === 0x09)) stop--;
    const slash = lastByte(bytes, SLASH, name, stop - 1);
    if (slash > name) sink.key(bytes, name, slash);
    else sink.key(DOT, 0, 1);
    const dot = lastByte(bytes, 0x2e, Math.max(slash + 1, name) + 1, stop);
    if (dot > 0 && stop - dot <= 8) sink.key2(bytes, dot, stop);
    else sink.key2(NONE, 0, NONE.length);
    return Role.Row;
  }

  retainedBytes(): number {
    return this._dir.byteLength;
  }
}

/** The listers' own message prefixes. */
const TOOL_MESSAGES = new PrefixSet([
  "find: ",
  "ls: ",
  "du: ",
  "tar: ",
  "unzip: ",
  "tree: ",
  "[fd error]: ",
]);

/** tree's unreadable directory: `│   └── secret  [error opening dir]`. */
function treeError(bytes: Uint8Array, start: number, end: number): boolean {
  return bytes[end - 1] === 0x5d && end - start > TREE_ERROR.length &&
    startsWith(bytes, end - TREE_ERROR.length, end, TREE_ERROR);
}

const TREE_ERROR = "  [error opening dir]";

/** unzip's row verbs (after its indent). */
const UNZIP_VERBS = new PrefixSet(["inflating: ", "creating: ", "extracting: ", "linking: "]);

const DOT = new TextEncoder().encode(".");
const NONE = new TextEncoder().encode("(none)");

/** Offset of the last `byte` in `bytes[start, end)`, or -1. */
function lastByte(bytes: Uint8Array, byte: number, start: number, end: number): number {
  for (let i = end - 1; i >= start; i--) if (bytes[i] === byte) return i;
  return -1;
}

/** tree's closing report: `3 directories, 12 files`, `1 directory`. */
function treeReport(bytes: Uint8Array, start: number, end: number): boolean {
  let i = digits(bytes, start, end);
  if (i === start || !startsWith(bytes, i, end, " director")) return false;
  i += 9;
  if (startsWith(bytes, i, end, "y")) i += 1;
  else if (startsWith(bytes, i, end, "ies")) i += 3;
  else return false;
  if (i === end) return true;
  if (!startsWith(bytes, i, end, ", ")) return false;
  const from = i + 2;
  i = digits(bytes, from, end);
  if (i === from || !startsWith(bytes, i, end, " file")) return false;
  i += 5;
  if (i < end && bytes[i] === 0x73) i++;
  return i === end;
}

function digits(bytes: Uint8Array, at: number, end: number): number {
  while (at < end && bytes[at] >= 0x30 && bytes[at] <= 0x39) at++;
  return at;
}

/**
 * True when `bytes[start, end)` (a line's first bytes) starts with white
 * space (ASCII, U+00A0 or the U+1680–U+3000 spaces) or holds tree's
 * drawing (`│ ├ └`).
 */
function drawnOrIndented(bytes: Uint8Array, start: number, end: number): boolean {
  const b = bytes[start];
  if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) return true;
  const b1 = bytes[start + 1];
  const b2 = bytes[start + 2];
  if (start + 1 < end && b === 0xc2 && b1 === 0xa0) return true;
  if (start + 2 < end) {
    if (b === 0xe1 && b1 === 0x9a && b2 === 0x80) return true;
    if (b === 0xe3 && b1 === 0x80 && b2 === 0x80) return true;
    if (b === 0xe2 && b1 === 0x81 && b2 === 0x9f) return true;
    if (b === 0xe2 && b1 === 0x80 && (b2 <= 0x8a || b2 === 0xa8 || b2 === 0xa9 || b2 === 0xaf)) {
      return true;
    }
  }
  for (let i = start; i + 2 < end; i++) {
    if (bytes[i] === 0xe2 && bytes[i + 1] === 0x94) {
      const c = bytes[i + 2];
      if (c === 0x82 || c === 0x9c || c === 0x94) return true;
    }
  }
  return false;
}

/** The list family. */
export const LIST: Family = {
  rowNoun: "entry",
  keyNoun: "directory",
  key2Noun: "extension",
  samplesPerKey: 1,
  textShowsFailure: false,
  floor: BUSIEST_FIRST,
  headRows: false,
  rowsOnly: true,
  create: () => new ListParser(),
};
