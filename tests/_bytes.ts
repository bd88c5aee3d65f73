/**
 * Byte-array helpers for the tests that cut input into chunks or gather
 * written chunks back into one array.
 *
 * @module
 */

/** `cuts` taken modulo `length + 1`, duplicates dropped, in ascending order. */
export function cutPoints(cuts: readonly number[], length: number): number[] {
  return [...new Set(cuts.map((c) => c % (length + 1)))].sort((a, b) => a - b);
}

/**
 * `input` cut at its {@link cutPoints}: the chunks, some possibly empty,
 * join back to `input`. The chunks are views into `input`, not copies.
 */
export function chunksAt(input: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = cutPoints(cuts, input.length);
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
