/**
 * The text of a caught error that YARP's messages quote. The
 * `base` layer sits below every other: what all of them share and that
 * belongs to none, importing nothing.
 *
 * @module
 */

/**
 * `error`'s message, or its string form when it is not an `Error`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { errorMessage } from "./error_message.ts";
 * equal(errorMessage(new RangeError("too big")), "too big");
 * equal(errorMessage(42), "42");
 * ```
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

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
  return errorMessage(error).split("\n", 1)[0];
}
