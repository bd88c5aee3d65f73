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

function plural(n: number, word: string): string {
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
 * The one omission marker of a changed stream, without line ending, e.g.
 * `[yarp: kept 42 of 5,120 lines · omitted 5,078 lines (1,234,567 bytes)]`,
 * with ` · truncated N lines` when lines were cut and the recovery clause
 * (` · exact: yarp read ID` or ` · no exact copy was kept`) when known.
 */
export function omissionMarker(facts: OmissionFacts, recovery: Recovery): string {
  let text = `[yarp: kept ${formatCount(facts.keptLines)} of ${plural(facts.inputLines, "line")}`;
  if (facts.omittedLines > 0) {
    text += ` · omitted ${plural(facts.omittedLines, "line")} (${
      plural(facts.omittedBytes, "byte")
    })`;
  }
  if (facts.truncatedLines > 0) text += ` · truncated ${plural(facts.truncatedLines, "line")}`;
  if (recovery.kind === "archived") text += ` · exact: yarp read ${recovery.id}`;
  else if (recovery.kind === "unarchived") text += " · no exact copy was kept";
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
