/**
 * SHA-256 (FIPS 180-4) over bytes, synchronous and incremental.
 *
 * Written here rather than imported because every other source costs the
 * short-lived `yarp` process dearly at start-up. Measured by
 * `bench/standins_start.ts` (fresh processes, interleaved, hashing 40 KiB
 * the way dist/yarp.js reaches `node:` modules; 2 cores shared by five
 * developers, load 14, n=30): this module 37.6 ms median (p95 83.6), an
 * empty program 32.0 (50.4), `node:crypto` 64.0 (151.5): loading Deno's
 * Node layer costs about 26 ms more than hashing 40 KiB here. Earlier quiet
 * runs: `node:crypto` ≈ +40 ms, an npm package ≈ +10 ms. Web Crypto
 * is asynchronous and not incremental, while the compiled-pack reader must
 * verify records inside a synchronous lookup. State is bounded: one 64-byte block buffer and a
 * 64-word schedule, whatever the input size.
 *
 * @module
 */

const K = new Uint32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);

const INITIAL = [
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
];

/** An incremental SHA-256 computation: `update` any number of times, then `digest` once. */
export class Sha256 {
  readonly #state = new Uint32Array(INITIAL);
  readonly #block = new Uint8Array(64);
  readonly #words = new Uint32Array(64);
  #blockLength = 0;
  #totalBytes = 0;
  #finished = false;

  /** Adds bytes to the message. Throws after `digest`. Returns this for chaining. */
  update(bytes: Uint8Array): this {
    if (this.#finished) throw new Error("sha256: update after digest");
    this.#totalBytes += bytes.length;
    let offset = 0;
    if (this.#blockLength > 0) {
      const take = Math.min(64 - this.#blockLength, bytes.length);
      this.#block.set(bytes.subarray(0, take), this.#blockLength);
      this.#blockLength += take;
      offset = take;
      if (this.#blockLength < 64) return this;
      this.#compress(this.#block, 0);
      this.#blockLength = 0;
    }
    for (; offset + 64 <= bytes.length; offset += 64) this.#compress(bytes, offset);
    if (offset < bytes.length) {
      this.#block.set(bytes.subarray(offset), 0);
      this.#blockLength = bytes.length - offset;
    }
    return this;
  }

  /** Finishes the computation and returns the 32-byte digest. Throws when called twice. */
  digest(): Uint8Array {
    if (this.#finished) throw new Error("sha256: digest called twice");
    const bitLength = this.#totalBytes * 8;
    const padding = new Uint8Array(((this.#blockLength < 56 ? 56 : 120) - this.#blockLength) + 8);
    padding[0] = 0x80;
    const view = new DataView(padding.buffer);
    view.setUint32(padding.length - 8, Math.floor(bitLength / 0x1_0000_0000));
    view.setUint32(padding.length - 4, bitLength >>> 0);
    this.update(padding);
    this.#finished = true;
    const out = new Uint8Array(32);
    const outView = new DataView(out.buffer);
    for (let i = 0; i < 8; i++) outView.setUint32(i * 4, this.#state[i]);
    return out;
  }

  #compress(bytes: Uint8Array, offset: number): void {
    const w = this.#words;
    for (let i = 0; i < 16; i++) {
      const at = offset + i * 4;
      w[i] = (bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3];
    }
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15];
      const b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    const s = this.#state;
    let a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
    for (let i = 0; i < 64; i++) {
      const sum1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const choice = (e & f) ^ (~e & g);
      const t1 = (h + sum1 + choice + K[i] + w[i]) | 0;
      const sum0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (sum0 + majority) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    s[0] += a;
    s[1] += b;
    s[2] += c;
    s[3] += d;
    s[4] += e;
    s[5] += f;
    s[6] += g;
    s[7] += h;
  }
}

/** The SHA-256 digest (32 bytes) of `bytes`. */
export function sha256(bytes: Uint8Array): Uint8Array {
  return new Sha256().update(bytes).digest();
}

/**
 * The SHA-256 digest of `bytes` from the platform's native Web Crypto
 * (asynchronous, no start-up cost, many times faster than {@link sha256} on
 * large inputs).
 */
export async function sha256Native(bytes: Uint8Array): Promise<Uint8Array> {
  const view = bytes.buffer instanceof ArrayBuffer
    ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : bytes.slice();
  return new Uint8Array(await crypto.subtle.digest("SHA-256", view as Uint8Array<ArrayBuffer>));
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i++) text += bytes[i].toString(16).padStart(2, "0");
  return text;
}
