/**
 * The `diff` kind (git diff, git show, diff -u): a file's header (`diff
 * --git`, or `+++ b/…` without one), its first hunk header, its mode,
 * rename, `Binary files` and `Only in` lines and git show's commit header
 * are structure; its `index`, `--- a/…` and (after `diff --git`) `+++ b/…`
 * lines and later hunk headers are details, shown under the failure budget
 * only (the summary line names every file). A file header registers the
 * file, so a file with no changed line (binary, mode-only, renamed) is still
 * one of the files. Changed lines are rows keyed by the file, counted apart
 * as added and removed (the summary's per-file `+N −M`), and their first
 * lines per file are the examples, shown under the file's first hunk header
 * (the floor: every file with its counts, then the first changed lines of
 * the first hunks); unchanged context lines are noise.
 *
 * @module
 */
import { type Family, type KeySink, type LineParser, Role, startsWith } from "./family.ts";

/** Structural line prefixes, by lead byte (besides hunk headers). */
const HEADERS: string[][] = [];
for (
  const head of [
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
  /** True once the current file's first hunk header was seen. */
  private _hunk = false;
  /** True when the current file was started by a `diff --git` line. */
  private _git = false;

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
      this._setFile(bytes, at, end, sink);
      this._git = true;
      return Role.Structure;
    }
    if (b === 0x2b && startsWith(bytes, start, end, "+++ ")) {
      let at = start + 4;
      if (startsWith(bytes, at, end, "b/")) at += 2;
      let stop = at;
      while (stop < end && bytes[stop] !== 0x09) stop++;
      if (!startsWith(bytes, at, end, "/dev/null")) this._setFile(bytes, at, stop, sink);
      return this._git ? Role.Detail : Role.Structure;
    }
    if (b === 0x40 && startsWith(bytes, start, end, "@@")) {
      if (this._hunk) return Role.Detail;
      this._hunk = true;
      return Role.Structure;
    }
    if (
      (b === 0x2d && startsWith(bytes, start, end, "--- ")) ||
      (b === 0x69 && startsWith(bytes, start, end, "index "))
    ) {
      return Role.Detail;
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

  /** Starts file `bytes[start, end)` (a new one unless it is the current file) and registers it. */
  private _setFile(bytes: Uint8Array, start: number, end: number, sink: KeySink): void {
    const n = Math.min(end - start, this._file.length);
    const file = this._file;
    let same = n === this._fileLength;
    for (let i = 0; same && i < n; i++) same = file[i] === bytes[start + i];
    if (!same) {
      file.set(bytes.subarray(start, start + n));
      this._fileLength = n;
      this._hunk = false;
      this._git = false;
    }
    sink.key(file, 0, n);
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
  floor: { keyShare: 1 / 2, keysInOrder: true, examplesInOrder: true },
  headRows: false,
  create: () => new DiffParser(),
};
