/**
 * The `diff` kind (git diff, git show, diff -u): file headers (`diff --git`,
 * `--- a/…`, `+++ b/…`, mode, rename, index and `Binary files` lines), hunk
 * headers and git show's commit header are structure; changed lines are
 * rows keyed by the file, counted apart as added and removed (the summary's
 * per-file `+N −M`), and their first lines per file are the bounded
 * changed-line context; unchanged context lines are noise.
 *
 * @module
 */
import { type Family, type KeySink, type LineParser, Role, startsWith } from "./family.ts";

/** Header line prefixes, by lead byte. */
const HEADERS: string[][] = [];
for (
  const head of [
    "--- ",
    "@@",
    "index ",
    "commit ",
    "Binary files ",
    "new file mode",
    "deleted file mode",
    "rename ",
    "similarity index",
    "old mode",
    "new mode",
    "Only in ",
  ]
) (HEADERS[head.charCodeAt(0)] ??= []).push(head);

class DiffParser implements LineParser {
  private readonly _file = new Uint8Array(256);
  private _fileLength = 0;

  line(bytes: Uint8Array, start: number, end: number, _flags: number, sink: KeySink): number {
    if (start === end) return Role.Noise;
    const b = bytes[start];
    if (b === 0x64 && startsWith(bytes, start, end, "diff ")) {
      // `diff --git a/x b/x`: the file is after the last " b/".
      let at = start + 5;
      for (let i = end - 3; i > start; i--) {
        if (bytes[i] === 0x20 && bytes[i + 1] === 0x62 && bytes[i + 2] === 0x2f) {
          at = i + 3;
          break;
        }
      }
      this._setFile(bytes, at, end);
      return Role.Structure;
    }
    if (b === 0x2b && startsWith(bytes, start, end, "+++ ")) {
      let at = start + 4;
      if (startsWith(bytes, at, end, "b/")) at += 2;
      let stop = at;
      while (stop < end && bytes[stop] !== 0x09) stop++;
      if (!startsWith(bytes, at, end, "/dev/null")) this._setFile(bytes, at, stop);
      return Role.Structure;
    }
    const heads = HEADERS[b];
    if (heads !== undefined) {
      for (const head of heads) if (startsWith(bytes, start, end, head)) return Role.Structure;
    }
    if ((b === 0x2b || b === 0x2d) && this._fileLength > 0) {
      sink.key(this._file, 0, this._fileLength);
      sink.minus = b === 0x2d;
      return Role.Row;
    }
    if (b === 0x20 && this._fileLength > 0) return Role.Noise;
    return Role.Other;
  }

  private _setFile(bytes: Uint8Array, start: number, end: number): void {
    const n = Math.min(end - start, this._file.length);
    this._file.set(bytes.subarray(start, start + n));
    this._fileLength = n;
  }

  retainedBytes(): number {
    return this._file.byteLength;
  }
}

/** The diff family. */
export const DIFF: Family = {
  rowNoun: "changed line",
  keyNoun: "file",
  key2Noun: "",
  samplesPerKey: 3,
  textShowsFailure: false,
  headRows: false,
  create: () => new DiffParser(),
};
