/**
 * Writing a whole byte array to a file that may accept it piecemeal
 * (`Deno.stdout`, a pipe, a spool file).
 *
 * @module
 */

/** A file written synchronously; `writeSync` may write fewer bytes than given. */
export interface SyncWriter {
  writeSync(bytes: Uint8Array): number;
}

/**
 * Writes every byte of `bytes` to `file`, calling `writeSync` until all are
 * written; throws the first write error (bytes before it stay written).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { writeAll } from "./write_all.ts";
 * const got: number[] = [];
 * writeAll({ writeSync: (b) => (got.push(b[0]), 1) }, new Uint8Array([1, 2, 3]));
 * deepEqual(got, [1, 2, 3]);
 * ```
 */
export function writeAll(file: SyncWriter, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += file.writeSync(bytes.subarray(offset));
}
