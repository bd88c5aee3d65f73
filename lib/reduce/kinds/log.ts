/**
 * The `log` kind (git log forms): one group per commit. In the long form a
 * commit's `commit SHA` line is a row, and its `Date:` line, its subject (the
 * first indented message line) and, with `--stat` or `--shortstat`, its
 * files-changed line (` 3 files changed, 12 insertions(+)`) are structure
 * kept with it; author, body and per-file stat lines are noise. In
 * `--oneline` and custom one-line formats each line is a commit. Commits are
 * shown from the start (newest first), each whole or not at all, and the
 * summary counts them: the floor is the commit count and, for the newest
 * commits, hash, date, subject and files-changed line.
 *
 * @module
 */
import {
  BUSIEST_FIRST,
  type Family,
  type KeySink,
  type LineParser,
  Role,
  skipBlanks,
  startsWith,
} from "./family.ts";

/** True for git's ` 3 files changed, …` / ` 1 file changed` line at `start`. */
function filesChanged(bytes: Uint8Array, start: number, end: number): boolean {
  if (bytes[start] !== 0x20) return false;
  let at = skipBlanks(bytes, start, end);
  const digits = at;
  while (at < end && bytes[at] >= 0x30 && bytes[at] <= 0x39) at++;
  if (at === digits) return false;
  return startsWith(bytes, at, end, " file changed") ||
    startsWith(bytes, at, end, " files changed");
}

class LogParser implements LineParser {
  /** 0: outside a long-form commit, 1: in its header, 2: subject taken, 3: stat line taken. */
  private _state = 0;
  private _long = false;

  line(bytes: Uint8Array, start: number, end: number, _flags: number, _sink: KeySink): number {
    if (startsWith(bytes, start, end, "commit ")) {
      this._long = true;
      this._state = 1;
      return Role.Row;
    }
    if (this._long) {
      if (this._state === 1) {
        if (startsWith(bytes, start, end, "Date:")) return Role.Structure;
        if (end - start > 4 && startsWith(bytes, start, end, "    ")) {
          this._state = 2;
          return Role.Structure;
        }
      }
      if (this._state === 2 && filesChanged(bytes, start, end)) {
        this._state = 3;
        return Role.Structure;
      }
      if (start === end || this._state > 0) return Role.Noise;
      return Role.Other;
    }
    return end > start ? Role.Row : Role.Noise;
  }

  retainedBytes(): number {
    return 8;
  }
}

/** The log family. */
export const LOG: Family = {
  rowNoun: "commit",
  keyNoun: "",
  key2Noun: "",
  samplesPerKey: 0,
  textShowsFailure: false,
  floor: BUSIEST_FIRST,
  headRows: true,
  rowsOnly: true,
  create: () => new LogParser(),
};
