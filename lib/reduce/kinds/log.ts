/**
 * The `log` kind (git log forms): one line per commit. In the long form a
 * commit's `commit SHA` line and its subject (the first indented message
 * line) are kept; author, date, body and stat lines are noise. In
 * `--oneline` and custom one-line formats each line is a commit. Commits
 * are shown from the start (newest first), and the summary counts them.
 *
 * @module
 */
import { type Family, type KeySink, type LineParser, Role, startsWith } from "./family.ts";

class LogParser implements LineParser {
  /** 0: outside a long-form commit, 1: in its header, 2: subject taken. */
  private _state = 0;
  private _long = false;

  line(bytes: Uint8Array, start: number, end: number, _flags: number, _sink: KeySink): number {
    if (startsWith(bytes, start, end, "commit ")) {
      this._long = true;
      this._state = 1;
      return Role.Row;
    }
    if (this._long) {
      if (this._state === 1 && end - start > 4 && startsWith(bytes, start, end, "    ")) {
        this._state = 2;
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
  headRows: true,
  rowsOnly: true,
  create: () => new LogParser(),
};
