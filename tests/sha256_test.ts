/** SHA-256 against the FIPS 180-4 vectors and against node:crypto for arbitrary chunkings. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { Sha256, sha256, toHex } from "../lib/bytes/sha256.ts";

const text = (s: string) => new TextEncoder().encode(s);

Deno.test("known vectors", () => {
  const vectors: [Uint8Array, string][] = [
    [text(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    [text("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
    [
      new Uint8Array(1_000_000).fill(0x61),
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
    ],
  ];
  for (const [input, expected] of vectors) assert.equal(toHex(sha256(input)), expected);
});

Deno.test("property: equals node:crypto for any bytes split into any chunks", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 600 }),
      fc.array(fc.nat({ max: 600 }), { maxLength: 6 }),
      (bytes, cuts) => {
        const hash = new Sha256();
        let start = 0;
        for (const cut of [...cuts].sort((a, b) => a - b)) {
          const end = Math.min(cut, bytes.length);
          if (end >= start) {
            hash.update(bytes.subarray(start, end));
            start = end;
          }
        }
        hash.update(bytes.subarray(start));
        const expected = createHash("sha256").update(bytes).digest("hex");
        assert.equal(toHex(hash.digest()), expected);
      },
    ),
  );
});

Deno.test("a finished hash refuses more work", () => {
  const hash = new Sha256();
  hash.digest();
  assert.throws(() => hash.update(new Uint8Array(1)), /after digest/);
  assert.throws(() => hash.digest(), /twice/);
});
