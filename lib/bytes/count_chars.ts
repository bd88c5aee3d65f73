/**
 * Counting the characters of UTF-8 text without decoding it.
 *
 * @module
 */

/**
 * Characters in UTF-8 `bytes`: every byte that does not continue a
 * sequence (so a valid text counts its code points; an invalid byte counts
 * as the one replacement character a decoder would show).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { countChars } from "./count_chars.ts";
 * equal(countChars(new TextEncoder().encode("héllo ✓")), 7);
 * ```
 */
export function countChars(bytes: Uint8Array): number {
  let continuation = 0;
  for (let i = 0; i < bytes.length; i++) if ((bytes[i] & 0xc0) === 0x80) continuation++;
  return bytes.length - continuation;
}
