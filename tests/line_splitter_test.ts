/**
 * The byte line splitter: endings, missing final newline, the per-line
 * bound, and identical lines for every chunking.
 */
import { deepEqual, equal, ok, throws } from "node:assert/strict";
import fc from "fast-check";
import {
  ByteScanner,
  bytesEqual,
  countByte,
  indexOfByte,
  type LineEnding,
  LineSplitter,
} from "../lib/bytes/mod.ts";
import { chunksAt } from "./_bytes.ts";

interface Line {
  content: number[];
  ending: LineEnding;
  dropped: number;
}

const te = new TextEncoder();

function split(chunks: Uint8Array[], max: number): { lines: Line[]; peak: number } {
  const lines: Line[] = [];
  let peak = 0;
  const s = new LineSplitter(max);
  const read = () => {
    lines.push({
      content: [...s.bytes.subarray(s.start, s.end)],
      ending: s.ending,
      dropped: s.droppedBytes,
    });
  };
  for (const c of chunks) {
    s.feed(c);
    while (s.next()) read();
    peak = Math.max(peak, s.retainedBytes());
  }
  if (s.finish()) read();
  return { lines, peak };
}

/** Straightforward reference: split the whole input at once. */
function reference(input: Uint8Array, max: number): Line[] {
  const lines: Line[] = [];
  let start = 0;
  const emit = (end: number, ending: LineEnding) => {
    const len = end - start;
    const keep = Math.min(len, max);
    lines.push({ content: [...input.subarray(start, start + keep)], ending, dropped: len - keep });
  };
  for (let i = 0; i < input.length; i++) {
    if (input[i] !== 10) continue;
    if (i > start && input[i - 1] === 13) emit(i - 1, 2);
    else emit(i, 1);
    start = i + 1;
  }
  if (start < input.length) emit(input.length, 0);
  return lines;
}

const text = (l: Line) => new TextDecoder().decode(new Uint8Array(l.content));

Deno.test("splitter: LF, CRLF, mixed endings, empty lines and no final newline", () => {
  const cases: [string, [string, LineEnding][]][] = [
    ["", []],
    ["\n", [["", 1]]],
    ["a\nb\n", [["a", 1], ["b", 1]]],
    ["a\r\nb\r\n", [["a", 2], ["b", 2]]],
    ["a\r\nb\nc", [["a", 2], ["b", 1], ["c", 0]]],
    ["\n\r\n\n", [["", 1], ["", 2], ["", 1]]],
    ["lone\rcr\n", [["lone\rcr", 1]]],
    ["ends with cr\r", [["ends with cr\r", 0]]],
    ["\r\r\n", [["\r", 2]]],
  ];
  for (const [input, expected] of cases) {
    const { lines } = split([te.encode(input)], 256);
    deepEqual(lines.map((l) => [text(l), l.ending]), expected, JSON.stringify(input));
    ok(lines.every((l) => l.dropped === 0));
  }
});

Deno.test("splitter: CR and LF in different chunks still form CRLF", () => {
  const { lines } = split([te.encode("abc\r"), te.encode("\ndef")], 256);
  deepEqual(lines.map((l) => [text(l), l.ending]), [["abc", 2], ["def", 0]]);
});

Deno.test("splitter: a long terminated line keeps a bounded prefix and counts the rest", () => {
  const line = "x".repeat(1000);
  for (const chunkSize of [1, 7, 300, 5000]) {
    const input = te.encode(`${line}\r\nshort\n${line}`);
    const chunks = chunksAt(input, Array.from({ length: input.length }, (_, i) => i * chunkSize));
    const { lines, peak } = split(chunks, 256);
    deepEqual(lines.map((l) => [l.content.length, l.ending, l.dropped]), [
      [256, 2, 744],
      [5, 1, 0],
      [256, 0, 744],
    ]);
    ok(peak <= 256, `carry buffer ${peak} > 256`);
  }
});

Deno.test("splitter: the CRLF of a line exactly at the limit is an ending, not content", () => {
  const input = te.encode("y".repeat(256) + "\r\n" + "z".repeat(255) + "\r\n");
  for (const chunks of [[input], chunksAt(input, [255, 256, 257, 511, 512])]) {
    const { lines } = split(chunks, 256);
    deepEqual(lines.map((l) => [l.content.length, l.ending, l.dropped]), [[256, 2, 0], [
      255,
      2,
      0,
    ]]);
  }
});

Deno.test("splitter: invalid UTF-8 and NUL bytes are ordinary content", () => {
  const input = new Uint8Array([0xff, 0x00, 0xc3, 10, 0x80, 0, 13, 10]);
  const { lines } = split([input], 256);
  deepEqual(lines, [
    { content: [0xff, 0x00, 0xc3], ending: 1, dropped: 0 },
    { content: [0x80, 0], ending: 2, dropped: 0 },
  ]);
});

Deno.test("splitter: rejects a non-positive bound", () => {
  let thrown = false;
  try {
    new LineSplitter(0);
  } catch (e) {
    thrown = e instanceof RangeError;
  }
  ok(thrown);
});

const bytesWithBreaks = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 255 }) },
    { weight: 1, arbitrary: fc.constantFrom(10, 13) },
  ),
  { maxLength: 600 },
).map((a) => new Uint8Array(a));

Deno.test("property: any chunking gives the reference lines and a bounded carry", () => {
  fc.assert(
    fc.property(
      bytesWithBreaks,
      fc.array(fc.nat(), { maxLength: 40 }),
      fc.integer({ min: 1, max: 64 }),
      (input, cuts, max) => {
        const { lines, peak } = split(chunksAt(input, cuts), max);
        deepEqual(lines, reference(input, max));
        ok(peak <= max);
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("property: content plus dropped plus endings account for every input byte", () => {
  fc.assert(
    fc.property(bytesWithBreaks, fc.integer({ min: 1, max: 32 }), (input, max) => {
      const { lines } = split([input], max);
      const total = lines.reduce((n, l) => n + l.content.length + l.dropped + l.ending, 0);
      equal(total, input.length);
    }),
  );
});

Deno.test("property: countByte and indexOfByte agree with a byte loop at any alignment", () => {
  fc.assert(
    fc.property(
      bytesWithBreaks,
      fc.nat(3),
      fc.nat(),
      fc.nat(),
      fc.constantFrom(10, 13, 0),
      (input, shift, a, b, value) => {
        const buf = new Uint8Array(input.length + 4);
        buf.set(input, shift);
        const bytes = buf.subarray(shift, shift + input.length);
        const start = a % (input.length + 1);
        const end = start + b % (input.length - start + 1);
        const range = [...bytes.subarray(start, end)];
        equal(countByte(bytes, value, start, end), range.filter((x) => x === value).length);
        const at = range.indexOf(value);
        equal(indexOfByte(bytes, value, start, end), at === -1 ? -1 : start + at);
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("property: ByteScanner finds what indexOf finds, from any offset, at any alignment", () => {
  fc.assert(
    fc.property(
      bytesWithBreaks,
      fc.nat(3),
      fc.constantFrom(10, 13, 0, 0xff),
      (input, shift, value) => {
        const buf = new Uint8Array(input.length + 4);
        buf.set(input, shift);
        const bytes = buf.subarray(shift, shift + input.length);
        const scanner = new ByteScanner(value);
        scanner.reset(bytes);
        for (let from = 0; from <= bytes.length + 1; from++) {
          equal(scanner.indexFrom(from), from > bytes.length ? -1 : bytes.indexOf(value, from));
        }
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("property: bytesEqual is byte equality, short and long, with one byte changed anywhere", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 2000 }),
      fc.nat(),
      fc.integer({ min: 1, max: 255 }),
      (bytes, at, delta) => {
        equal(bytesEqual(bytes, bytes.slice()), true);
        equal(bytesEqual(bytes, bytes.subarray(1)), bytes.length === 0 ? true : false);
        if (bytes.length === 0) return;
        const changed = bytes.slice();
        const index = at % bytes.length;
        changed[index] = (changed[index] + delta) % 256;
        equal(bytesEqual(bytes, changed), false);
      },
    ),
    { numRuns: 500 },
  );
  const every = new Uint8Array(512).map((_, i) => i % 256);
  equal(bytesEqual(every, every.slice()), true);
  equal(bytesEqual(every, every.map((x) => x ^ 0x80)), false);
});

Deno.test("splitter: skipTo jumps whole lines and refuses to drop a carried line", () => {
  const s = new LineSplitter(256);
  s.feed(te.encode("a\nb\nc\nd"));
  ok(s.next());
  s.skipTo(4);
  ok(s.next());
  equal(new TextDecoder().decode(s.bytes.subarray(s.start, s.end)), "c");
  equal(s.next(), false);
  s.feed(te.encode("e\n"));
  throws(() => s.skipTo(1), RangeError);
});
