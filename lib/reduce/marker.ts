/**
 * Every word YARP writes into a reduced stream: the omission marker, the
 * line-truncation marker and their number format. Numbers use `,` as the
 * thousands separator, formatted by hand so output never depends on locale.
 * Each text's byte length never decreases when one of its numbers grows,
 * which lets the renderer reserve room for a marker before it knows the
 * final counts.
 *
 * @module
 */
import type { Recovery } from "./types.ts";

const encoder = new TextEncoder();

/** Formats a non-negative integer with `,` thousands separators: 1234567 → "1,234,567". */
export function formatCount(n: number): string {
  const digits = String(Math.trunc(n));
  let out = "";
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ",";
    out += digits[i];
  }
  return out;
}

/** `n` and `word`, with an `s` unless n is 1: plural(1234, "line") → "1,234 lines". */
export function plural(n: number, word: string): string {
  return `${formatCount(n)} ${word}${n === 1 ? "" : "s"}`;
}

/** The counts an omission marker reports. */
export interface OmissionFacts {
  /** Source lines present (whole or truncated) in the output. */
  readonly keptLines: number;
  /** Source lines in the input. */
  readonly inputLines: number;
  /** Source lines absent from the output. */
  readonly omittedLines: number;
  /** Source bytes of the absent lines. */
  readonly omittedBytes: number;
  /** Kept lines shown with a truncation marker. */
  readonly truncatedLines: number;
}

/**
 * Bytes of one page of targeted recovery, as the marker names it
 * (`--max-bytes 28k`, 28,672 bytes): under the smallest cut of the hosts
 * that show ~30–50 KB (Claude Code replaces a result over ~30,000
 * characters; Pi keeps its last 50 KiB), with room for the page's note.
 */
export const RECOVERY_PAGE_BYTES = 28 * 1024;

/** {@link RECOVERY_PAGE_BYTES} as the marker and `yarp read --help` spell it. */
export const RECOVERY_PAGE_SPELLING = "28k";

/**
 * Lines of one page when `yarp read --max-bytes` is given without
 * `--max-lines` (1,000): Pi keeps only the last 2,000 lines of a result.
 */
export const RECOVERY_PAGE_LINES = 1000;

/**
 * The recovery clause of an archived result, without the leading ` · `:
 * `exact: yarp read ID · --grep TEXT · --lines A:B`, or with `paged` (the
 * call is larger than one page, see {@link PageTally}) the paged form
 * `exact: yarp read ID --max-bytes 28k · --grep TEXT · --lines A:B`, so
 * that the command the agent runs reaches it whole.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { recoveryClause } from "./marker.ts";
 * equal(recoveryClause("8f2c1a0b", false), "exact: yarp read 8f2c1a0b · --grep TEXT · --lines A:B");
 * equal(
 *   recoveryClause("8f2c1a0b", true),
 *   "exact: yarp read 8f2c1a0b --max-bytes 28k · --grep TEXT · --lines A:B",
 * );
 * ```
 */
export function recoveryClause(id: string, paged: boolean): string {
  const page = paged ? ` --max-bytes ${RECOVERY_PAGE_SPELLING}` : "";
  return `exact: yarp read ${id}${page} · --grep TEXT · --lines A:B`;
}

/**
 * Counts one stream's bytes, and its lines up to one more than a page, as
 * it passes, so a writer learns whether an archived call is larger than
 * one recovery page ({@link largerThanPage}) at a cost of at most
 * {@link RECOVERY_PAGE_LINES} LF searches. Keeps no bytes.
 */
export class PageTally {
  /** Bytes seen. */
  bytes = 0;
  private _lfs = 0;
  private _partial = false;

  /** Counts `chunk`; never keeps it. */
  add(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    if (chunk.length === 0) return;
    this._partial = chunk[chunk.length - 1] !== 0x0a;
    for (let at = chunk.indexOf(0x0a); at !== -1 && this._lfs <= RECOVERY_PAGE_LINES;) {
      this._lfs += 1;
      at = chunk.indexOf(0x0a, at + 1);
    }
  }

  /** Lines seen (a final line without LF counts), exact up to one more than a page. */
  get lines(): number {
    return this._lfs + (this._partial ? 1 : 0);
  }
}

/**
 * True when the streams counted by `tallies` together hold more than one
 * recovery page: over {@link RECOVERY_PAGE_BYTES} bytes or
 * {@link RECOVERY_PAGE_LINES} lines.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { largerThanPage, PageTally } from "./marker.ts";
 * const tally = new PageTally();
 * tally.add(new TextEncoder().encode("line\n".repeat(1001)));
 * equal(largerThanPage([tally]), true);
 * equal(largerThanPage([new PageTally()]), false);
 * ```
 */
export function largerThanPage(tallies: readonly PageTally[]): boolean {
  let bytes = 0;
  let lines = 0;
  for (const tally of tallies) {
    bytes += tally.bytes;
    lines += tally.lines;
  }
  return bytes > RECOVERY_PAGE_BYTES || lines > RECOVERY_PAGE_LINES;
}

/**
 * The one omission marker of a changed stream, without line ending, e.g.
 * `[yarp: kept 42 of 5,120 lines · omitted 5,078 lines (1,234,567 bytes)]`,
 * with ` · truncated N lines` when lines were cut and the recovery clause
 * (` · ` and {@link recoveryClause}, or ` · no exact copy was kept`) when
 * known.
 */
export function omissionMarker(facts: OmissionFacts, recovery: Recovery): string {
  let text = `[yarp: kept ${formatCount(facts.keptLines)} of ${plural(facts.inputLines, "line")}`;
  if (facts.omittedLines > 0) {
    text += ` · omitted ${plural(facts.omittedLines, "line")} (${
      plural(facts.omittedBytes, "byte")
    })`;
  }
  if (facts.truncatedLines > 0) text += ` · truncated ${plural(facts.truncatedLines, "line")}`;
  if (recovery.kind === "archived") {
    text += ` · ${recoveryClause(recovery.id, recovery.paged ?? false)}`;
  } else if (recovery.kind === "unarchived") text += " · no exact copy was kept";
  return text + "]";
}

/** UTF-8 bytes of {@link omissionMarker}. */
export function omissionMarkerBytes(facts: OmissionFacts, recovery: Recovery): Uint8Array {
  return encoder.encode(omissionMarker(facts, recovery));
}

/** The marker appended to a cut line's kept prefix, before its ending: `…[yarp: 12,345 bytes of this line omitted]`. */
export function truncationMarker(omittedBytes: number): string {
  return `…[yarp: ${plural(omittedBytes, "byte")} of this line omitted]`;
}

/** UTF-8 byte length of {@link truncationMarker} (the ellipsis is 3 bytes). */
export function truncationMarkerLength(omittedBytes: number): number {
  return truncationMarker(omittedBytes).length + 2;
}

/** Writes {@link truncationMarker} into `dst` at `at`; returns the end offset. */
export function writeTruncationMarker(dst: Uint8Array, at: number, omittedBytes: number): number {
  return at + encoder.encodeInto(truncationMarker(omittedBytes), dst.subarray(at)).written;
}

/** The line after an exact duplicate kept once: `[yarp: the line above appears 3 times]` (count ≥ 2). */
export function repeatNote(count: number): string {
  return `[yarp: the line above appears ${formatCount(count)} times]`;
}

const REPEAT_NOTE = /^\[yarp: the line above appears ([\d,]+) times\]$/;

/** The count a {@link repeatNote} line states, or 0 when `line` is not one. */
export function repeatNoteCount(line: string): number {
  const match = REPEAT_NOTE.exec(line);
  return match === null ? 0 : Number(match[1].replaceAll(",", ""));
}
