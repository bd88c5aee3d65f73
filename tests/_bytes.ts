/**
 * Byte-array helpers for the tests that cut input into chunks or gather
 * written chunks back into one array.
 *
 * @module
 */

/**
 * `input` cut at each of `cuts` taken modulo `input.length + 1` (duplicates
 * dropped, in ascending order): the chunks, some possibly empty, join back
 * to `input`. The chunks are views into `input`, not copies.
 */
export function chunksAt(input: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let prev = 0;
  for (const p of [...points, input.length]) {
    chunks.push(input.subarray(prev, p));
    prev = p;
  }
  return chunks;
}

/** One new array holding the bytes of `parts` in order. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
