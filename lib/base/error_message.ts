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
  const message = error instanceof Error ? error.message : String(error);
  return sandboxMessage(message) ?? message;
}

const REQUIRES =
  /^Requires (\w+) access to "?(.*?)"?, (?:run again with|specify the required permissions)[^\n]*/;

/**
 * YARP's words for a permission failure of Deno's sandbox (`Requires write
 * access to "/x", run again with the --allow-write flag`): what YARP needed,
 * for which path or name, and where the sandbox is described; never the
 * advice to widen it. Undefined for any other message.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { sandboxMessage } from "./error_message.ts";
 * equal(
 *   sandboxMessage('Requires all access to "/dev/sda", run again with the --allow-all flag'),
 *   'YARP needed full access to "/dev/sda" (Deno asks that for paths under /dev and /proc), ' +
 *     "which its sandbox never grants",
 * );
 * equal(sandboxMessage("disk full"), undefined);
 * ```
 */
export function sandboxMessage(message: string): string | undefined {
  const match = REQUIRES.exec(message);
  if (match === null) return undefined;
  const [, kind, target] = match;
  if (kind === "all") {
    return `YARP needed full access to "${target}" (Deno asks that for paths under /dev and /proc), which its sandbox never grants`;
  }
  const what = kind === "write"
    ? "YARP's sandbox lets it write only its state directory and an explicit output path's directory"
    : kind === "env"
    ? "YARP's sandbox lets it read only the variables listed in lib/base/sandbox.json"
    : "YARP's sandbox does not grant it (see docs/release.md)";
  return `YARP needed ${kind} access to "${target}"; ${what}`;
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
