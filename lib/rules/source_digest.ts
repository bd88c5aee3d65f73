/**
 * The source digest of a rule pack (docs/architecture.md, "Source digest"): one SHA-256
 * over the exact source bytes, so any byte change, including whitespace or the
 * order of paths in the manifest, gives a different digest. Pure.
 *
 * @module
 */

import { Sha256, toHex } from "../bytes/sha256.ts";

const DOMAIN_TAG = new TextEncoder().encode("yarp-source-pack-v1\0");
const encoder = new TextEncoder();

function lengthPrefix(length: number): Uint8Array {
  const prefix = new Uint8Array(8);
  new DataView(prefix.buffer).setBigUint64(0, BigInt(length), true);
  return prefix;
}

/**
 * Returns the lowercase hex SHA-256 of this sequence, with no normalisation of
 * any kind (no newline, Unicode or JSON rewriting):
 *
 * 1. the 20 ASCII bytes `yarp-source-pack-v1` followed by one NUL byte;
 * 2. the length of `manifestBytes` as a u64 little-endian, then those bytes;
 * 3. for each file, in the order given (the manifest order): the length of its
 *    path's UTF-8 bytes as a u64 little-endian, then those bytes; then the
 *    length of its content as a u64 little-endian, then the content.
 *
 * @example
 * ```ts
 * import { sourceDigest } from "./source_digest.ts";
 * const bytes = new TextEncoder().encode("{}");
 * const digest = sourceDigest(bytes, [{ path: "rules/a.json", bytes }]);
 * if (!/^[0-9a-f]{64}$/.test(digest)) throw new Error(digest);
 * ```
 */
export function sourceDigest(
  manifestBytes: Uint8Array,
  files: readonly { readonly path: string; readonly bytes: Uint8Array }[],
): string {
  const hash = new Sha256();
  hash.update(DOMAIN_TAG);
  hash.update(lengthPrefix(manifestBytes.length));
  hash.update(manifestBytes);
  for (const file of files) {
    const path = encoder.encode(file.path);
    hash.update(lengthPrefix(path.length));
    hash.update(path);
    hash.update(lengthPrefix(file.bytes.length));
    hash.update(file.bytes);
  }
  return toHex(hash.digest());
}
