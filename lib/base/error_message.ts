/**
 * The one-line form of a caught error that YARP's messages quote. The
 * `base` layer sits below every other: what all of them share and that
 * belongs to none, importing nothing.
 *
 * @module
 */

/**
 * The first line of `error`'s message (of its string form when it is not an
 * `Error`): the part a one-line diagnostic can quote.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { firstLine } from "./error_message.ts";
 * equal(firstLine(new Error("disk full\n    at write")), "disk full");
 * equal(firstLine("plain"), "plain");
 * ```
 */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n", 1)[0];
}
