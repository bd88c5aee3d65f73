/**
 * The `list` kind (ls, find, fd, tree, unzip -l, tar -t): every entry is a
 * row keyed by its directory and its extension, so the summary gives counts
 * by directory and by extension and the examples come from distinct
 * directories first. `ls -R` headings (`DIR:`) set the directory; `tree`'s
 * drawing and `ls -l`'s columns are read past to the name; `total N` and
 * tree's closing report are structure.
 *
 * @module
 */
import { type Family, type KeySink, type LineParser, Role, startsWith } from "./family.ts";

const SLASH = 0x2f;

class ListParser implements LineParser {
  private readonly _dir = new Uint8Array(256);
  private _dirLength = 0;

  line(bytes: Uint8Array, start: number, end: number, _flags: number, sink: KeySink): number {
    if (end === start) return Role.Other;
    if (startsWith(bytes, start, end, "total ")) return Role.Structure;
    if (bytes[end - 1] === 0x3a && end - start < 256) {
      this._dirLength = end - start - 1;
      this._dir.set(bytes.subarray(start, end - 1));
      return Role.Structure;
    }
    if (/^\d+ director(?:y|ies)(?:, \d+ files?)?$/.test(ascii(bytes, start, end))) {
      return Role.Structure;
    }
    // The name: after the last space for ls -l / unzip -l rows, after tree's drawing.
    let name = start;
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      if (b === 0x20 || b === 0x09 || b >= 0x80) name = i + 1;
      if (b === 0x2d && bytes[i + 1] === 0x3e && bytes[i - 1] === 0x20) break; // symlink " -> "
    }
    if (
      !startsWith(bytes, start, end, "d") && bytes[start] !== 0x2d && bytes[start] !== 0x6c &&
      name !== start && !/^\s|[│├└]/.test(ascii(bytes, start, Math.min(end, start + 4)))
    ) {
      name = start; // a plain name with spaces
    }
    let slash = -1;
    for (let i = name; i < end; i++) if (bytes[i] === SLASH && i < end - 1) slash = i;
    if (slash > name) sink.key(bytes, name, slash);
    else if (this._dirLength > 0) sink.key(this._dir, 0, this._dirLength);
    else sink.key(DOT, 0, 1);
    let dot = -1;
    for (let i = Math.max(slash + 1, name) + 1; i < end; i++) if (bytes[i] === 0x2e) dot = i;
    if (dot > 0 && end - dot <= 8) sink.key2(bytes, dot, end);
    else sink.key2(NONE, 0, NONE.length);
    return Role.Row;
  }

  retainedBytes(): number {
    return this._dir.byteLength;
  }
}

const DOT = new TextEncoder().encode(".");
const NONE = new TextEncoder().encode("(none)");

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return new TextDecoder().decode(bytes.subarray(start, Math.min(end, start + 256)));
}

/** The list family. */
export const LIST: Family = {
  rowNoun: "entry",
  keyNoun: "directory",
  key2Noun: "extension",
  samplesPerKey: 1,
  textShowsFailure: false,
  headRows: false,
  create: () => new ListParser(),
};
