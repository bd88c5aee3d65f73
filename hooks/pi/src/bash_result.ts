/**
 * Reads the text Pi's bash tool returns (pure): the visible output, Pi's own
 * truncation notice with the path of its full-output file, and the closing
 * status notice (`Command exited with code N`, `Command timed out after T
 * seconds`, `Command aborted`). Pi 0.73.1 and 1.6.0 append them as
 * `TEXT\n\n[Showing … Full output: PATH]\n\nSTATUS`, each part optional.
 *
 * Known misses: a command whose own output ends with text shaped exactly
 * like one of Pi's notices is read as if Pi wrote it; the caller checks the
 * full-output file against the visible text before trusting a path.
 *
 * @module
 */

/** A bash tool result split into Pi's parts. */
export interface BashResultText {
  /** The output Pi shows (its tail when truncated), without Pi's notices. */
  readonly body: string;
  /** Pi's truncation notice, without the blank line before it; undefined when not truncated. */
  readonly truncationNotice: string | undefined;
  /** The full-output file named in the truncation notice. */
  readonly fullOutputPath: string | undefined;
  /** Pi's closing status line; undefined for a successful run. */
  readonly statusNotice: string | undefined;
  /** 0 for success, N for `exited with code N`, undefined after a timeout or abort. */
  readonly exitCode: number | undefined;
}

const STATUS =
  /(?:^|\n\n)(Command exited with code (\d+)|Command timed out after \d+ seconds|Command aborted)$/;
const TRUNCATION =
  /(?:^|\n\n)(\[(?:Showing lines \d+-\d+ of \d+(?: \([0-9.]+[KMG]?B limit\))?|Showing last [0-9.]+[KMG]?B of line \d+ \(line is [0-9.]+[KMG]?B\))\. Full output: ([^\n\]]+)\])$/;

/**
 * Splits `text` (a bash tool result's one text part) into body and notices;
 * `isError` says whether Pi reported a failure (a success never carries a
 * status notice). Never throws.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { splitBashResult } from "./bash_result.ts";
 * deepEqual(splitBashResult("boom\n\nCommand exited with code 2", true), {
 *   body: "boom",
 *   truncationNotice: undefined,
 *   fullOutputPath: undefined,
 *   statusNotice: "Command exited with code 2",
 *   exitCode: 2,
 * });
 * ```
 */
export function splitBashResult(text: string, isError: boolean): BashResultText {
  let rest = text;
  let statusNotice: string | undefined;
  let exitCode: number | undefined = 0;
  if (isError) {
    const status = STATUS.exec(rest);
    exitCode = undefined;
    if (status !== null) {
      statusNotice = status[1];
      exitCode = status[2] === undefined ? undefined : Number(status[2]);
      rest = rest.slice(0, status.index);
    }
  }
  let truncationNotice: string | undefined;
  let fullOutputPath: string | undefined;
  const truncation = TRUNCATION.exec(rest);
  if (truncation !== null) {
    truncationNotice = truncation[1];
    fullOutputPath = truncation[2];
    rest = rest.slice(0, truncation.index);
  }
  return { body: rest, truncationNotice, fullOutputPath, statusNotice, exitCode };
}

/**
 * The text that replaces a result: YARP's reduced output, then Pi's status
 * notice (exit, timeout, abort) exactly as Pi wrote it, after one blank
 * line. Pi's truncation notice is dropped: YARP's marker now says what was
 * left out and where the exact copy is.
 */
export function joinReducedResult(reduced: string, statusNotice: string | undefined): string {
  const text = reduced.replace(/\n+$/, "");
  if (statusNotice === undefined) return text;
  return text === "" ? statusNotice : `${text}\n\n${statusNotice}`;
}
