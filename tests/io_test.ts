/** Reading a whole stream, bounded or not. */
import assert from "node:assert/strict";
import { readAllBytes } from "../lib/cli/io.ts";

function streamOf(...chunks: number[][]): ReadableStream<Uint8Array> {
  return ReadableStream.from(chunks.map((chunk) => new Uint8Array(chunk)));
}

Deno.test("readAllBytes joins every chunk in order", async () => {
  assert.deepEqual(await readAllBytes(streamOf([1, 2], [], [3])), new Uint8Array([1, 2, 3]));
  assert.deepEqual(await readAllBytes(streamOf()), new Uint8Array());
});

Deno.test("readAllBytes gives undefined once more than the limit arrives", async () => {
  assert.deepEqual(await readAllBytes(streamOf([1, 2], [3]), 3), new Uint8Array([1, 2, 3]));
  assert.equal(await readAllBytes(streamOf([1, 2], [3, 4]), 3), undefined);
});
