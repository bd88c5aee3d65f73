/**
 * The `status` kind (git status long, short and branch forms): the branch
 * and upstream lines and section headers are structure, `(use "git …")`
 * hints are noise, and every entry is a row keyed by its group (`modified`,
 * `new file`, `untracked`, `unmerged`, the long form's staged ones as
 * `staged modified`, …, or the short form's `XY` code), so the summary gives
 * every group with its count, in the order shown, and the examples are the
 * first paths of every group (the floor).
 *
 * @module
 */
import {
  type Family,
  type KeySink,
  type LineParser,
  Role,
  skipBlanks,
  startsWith,
} from "./family.ts";

const UNTRACKED = new TextEncoder().encode("untracked");

/** The bytes of a short-form `XY` code: ` MADRCU?!`. */
const CODE = new Uint8Array(256);
for (const c of " MADRCU?!") CODE[c.charCodeAt(0)] = 1;

const STAGED = "staged ";

class StatusParser implements LineParser {
  private _untracked = false;
  /** True under "Changes to be committed:". */
  private _staged = false;
  /** `staged ` and the current staged group. */
  private readonly _group = new Uint8Array(64);

  constructor() {
    for (let i = 0; i < STAGED.length; i++) this._group[i] = STAGED.charCodeAt(i);
  }

  line(bytes: Uint8Array, start: number, end: number, _flags: number, sink: KeySink): number {
    if (start === end) return Role.Noise;
    const at = skipBlanks(bytes, start, end);
    if (startsWith(bytes, at, end, "(use ") || startsWith(bytes, at, end, "(commit or discard")) {
      return Role.Noise;
    }
    if (startsWith(bytes, start, end, "## ")) return Role.Structure;
    if (at === start) {
      // Long form headers, or a short-form entry `XY path`.
      if (
        end - start > 3 && bytes[start + 2] === 0x20 && CODE[bytes[start]] === 1 &&
        CODE[bytes[start + 1]] === 1
      ) {
        sink.key(bytes, start, start + 2);
        return Role.Row;
      }
      this._untracked = startsWith(bytes, start, end, "Untracked files:");
      this._staged = startsWith(bytes, start, end, "Changes to be committed:");
      return Role.Structure;
    }
    if (bytes[start] === 0x3f && bytes[start + 1] === 0x3f) {
      sink.key(bytes, start, start + 2);
      return Role.Row;
    }
    // `\tmodified:   path` or, under "Untracked files:", `\tpath`.
    for (let i = at; i < end - 1; i++) {
      if (bytes[i] === 0x3a && bytes[i + 1] === 0x20) {
        if (this._staged && i - at <= this._group.length - STAGED.length) {
          this._group.set(bytes.subarray(at, i), STAGED.length);
          sink.key(this._group, 0, STAGED.length + i - at);
        } else sink.key(bytes, at, i);
        return Role.Row;
      }
    }
    if (this._untracked) sink.key(UNTRACKED, 0, UNTRACKED.length);
    else if (
      bytes[start] === 0x20 && start + 2 < end && bytes[start + 1] !== 0x20 &&
      CODE[bytes[start + 1]] === 1 && bytes[start + 2] === 0x20
    ) {
      sink.key(bytes, start, start + 2);
    }
    return Role.Row;
  }

  retainedBytes(): number {
    return 8 + this._group.byteLength;
  }
}

/** The status family. */
export const STATUS: Family = {
  rowNoun: "change",
  keyNoun: "group",
  key2Noun: "",
  samplesPerKey: 2,
  textShowsFailure: false,
  floor: { keyShare: 1 / 2, keysInOrder: true, examplesInOrder: false },
  headRows: false,
  rowsOnly: true,
  create: () => new StatusParser(),
};
