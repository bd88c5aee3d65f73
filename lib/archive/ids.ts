/**
 * Call ids: 8 lowercase hex digits (32 random bits from Web Crypto), unique
 * within one archive because the store retries on a collision. Users may
 * name a call by any unique prefix of at least {@link MIN_ID_PREFIX} digits.
 *
 * @module
 */

/** Length of a new call id. */
export const CALL_ID_LENGTH = 8;
/** Shortest prefix `yarp read` accepts. */
export const MIN_ID_PREFIX = 4;

/**
 * A fresh random call id of {@link CALL_ID_LENGTH} lowercase hex digits.
 *
 * @example
 * ```ts
 * import { match } from "node:assert/strict";
 * import { newCallId } from "./ids.ts";
 * match(newCallId(), /^[0-9a-f]{8}$/);
 * ```
 */
export function newCallId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(CALL_ID_LENGTH / 2));
  let id = "";
  for (const byte of bytes) id += byte.toString(16).padStart(2, "0");
  return id;
}

/**
 * True when `text` can name a call: {@link MIN_ID_PREFIX} to 16 hex digits
 * (upper case accepted; callers lower-case it).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { isCallIdPrefix } from "./ids.ts";
 * equal(isCallIdPrefix("8f2c"), true);
 * equal(isCallIdPrefix("8f2"), false);
 * equal(isCallIdPrefix("xyz123"), false);
 * ```
 */
export function isCallIdPrefix(text: string): boolean {
  return /^[0-9a-fA-F]{4,16}$/.test(text);
}
