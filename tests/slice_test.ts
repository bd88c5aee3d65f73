/**
 * Targeted exact recovery (`lib/archive/slice.ts`) against a simple
 * reference model: every form writes exact whole lines of the view, pages
 * concatenate to exactly what the unpaged form writes (and, for the plain
 * view, to the stored bytes), and every page fits its limits.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type LineRange,
  pageNote,
  parseByteSize,
  parseCount,
  parseGrepText,
  parseRange,
  shellWord,
  type SliceRequest,
  type SliceSource,
  streamStats,
  writeByteRange,
  writeSlice,
} from "../lib/archive/slice.ts";
import { concatBytes } from "./_bytes.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** An in-memory source whose `chunks` yield `chunkSize` bytes at a time from one reused buffer. */
function memorySource(streams: Uint8Array[], chunkSize: number): SliceSource {
  return {
    sizes: streams.map((s) => s.length),
    async *chunks(index) {
      const buffer = new Uint8Array(chunkSize);
      const bytes = streams[index];
      for (let at = 0; at < bytes.length; at += chunkSize) {
        const part = bytes.subarray(at, at + chunkSize);
        buffer.set(part);
        yield buffer.subarray(0, part.length);
        buffer.fill(0x7e); // a caller that kept the chunk would see this
      }
    },
    readAt(index, offset, into) {
      const part = streams[index].subarray(offset, offset + into.length);
      into.set(part);
      return part.length;
    },
  };
}

async function run(
  source: SliceSource,
  request: SliceRequest,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  await writeSlice(source, request, (b) => (parts.push(b.slice()), true), "yarp read 0c0ffee0");
  return concatBytes(parts);
}

// --- the reference model -------------------------------------------------------------------

interface RefLine {
  readonly number: number;
  readonly bytes: Uint8Array;
  readonly lf: boolean;
}

function refLines(streams: Uint8Array[]): RefLine[] {
  const lines: RefLine[] = [];
  for (const s of streams) {
    let start = 0;
    for (let i = 0; i < s.length; i++) {
      if (s[i] === 10) {
        lines.push({ number: lines.length + 1, bytes: s.subarray(start, i + 1), lf: true });
        start = i + 1;
      }
    }
    if (start < s.length) {
      lines.push({ number: lines.length + 1, bytes: s.subarray(start), lf: false });
    }
  }
  return lines;
}

const fold = (b: number, ignoreCase: boolean) => (ignoreCase && b >= 65 && b <= 90 ? b + 32 : b);

function contains(line: RefLine, text: string, ignoreCase: boolean): boolean {
  const hay = line.lf ? line.bytes.subarray(0, -1) : line.bytes;
  const needle = encoder.encode(text);
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (fold(hay[i + j], ignoreCase) !== fold(needle[j], ignoreCase)) continue outer;
    }
    return true;
  }
  return false;
}

function refSelect(streams: Uint8Array[], request: SliceRequest): RefLine[] {
  let kept = refLines(streams).filter((line) =>
    (request.lines === undefined ||
      (line.number >= request.lines.from && line.number <= (request.lines.to ?? Infinity))) &&
    (request.grep === undefined || contains(line, request.grep.text, request.grep.ignoreCase))
  );
  if (request.head !== undefined) kept = kept.slice(0, request.head);
  if (request.tail !== undefined) kept = kept.slice(Math.max(0, kept.length - request.tail));
  return kept;
}

function lineOut(line: RefLine, numbered: boolean): Uint8Array {
  return numbered ? concatBytes([encoder.encode(`${line.number}:`), line.bytes]) : line.bytes;
}

// --- generators ----------------------------------------------------------------------------

const byte = fc.constantFrom(10, 10, 97, 65, 98, 0, 0xff, 13, 0xc3, 0xa9);
const stream = fc.uint8Array({ maxLength: 60 }).chain((seed) =>
  fc.array(byte, { minLength: seed.length, maxLength: seed.length }).map((a) => new Uint8Array(a))
);
const streams = fc.array(stream, { minLength: 1, maxLength: 3 });
const range: fc.Arbitrary<LineRange | undefined> = fc.option(
  fc.tuple(fc.integer({ min: 1, max: 30 }), fc.option(fc.integer({ min: 0, max: 30 })))
    .map(([from, span]) => (span === null ? { from } : { from, to: from + span })),
  { nil: undefined },
);
const grep = fc.option(
  fc.record({
    text: fc.stringMatching(/^[aAb\u00e9]{1,3}$/),
    ignoreCase: fc.boolean(),
  }),
  { nil: undefined },
);
const count = fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined });
const request: fc.Arbitrary<SliceRequest> = fc.record({
  lines: range,
  grep,
  head: count,
  tail: count,
  numbered: fc.boolean(),
}).map((r) => (r.head !== undefined && r.tail !== undefined ? { ...r, tail: undefined } : r));
const chunkSize = fc.integer({ min: 1, max: 25 });

// --- properties ----------------------------------------------------------------------------

Deno.test("every form writes exactly the whole lines the reference model keeps", async () => {
  await fc.assert(
    fc.asyncProperty(streams, request, chunkSize, async (s, req, size) => {
      const out = await run(memorySource(s, size), req);
      const expected = concatBytes(refSelect(s, req).map((line) => lineOut(line, req.numbered)));
      assert.deepEqual(out, expected);
    }),
    { numRuns: 400 },
  );
});

Deno.test("the plain view of all lines is the stored bytes, stream after stream", async () => {
  await fc.assert(
    fc.asyncProperty(streams, chunkSize, async (s, size) => {
      assert.deepEqual(await run(memorySource(s, size), { numbered: false }), concatBytes(s));
    }),
  );
});

/** Splits a paged output into its lines and its note; drops the LF the note says it added. */
function splitPage(out: Uint8Array): { body: Uint8Array; note: string } {
  const end = out.length - 1;
  assert.equal(out[end], 10, "a page ends with its note's LF");
  const noteStart = out.lastIndexOf(10, end - 1) + 1;
  const note = decoder.decode(out.subarray(noteStart));
  assert.match(note, /^\[yarp: page of .*\]\n$/);
  let body = out.subarray(0, noteStart);
  if (note.includes("(the LF before this note is added)")) {
    assert.equal(body.at(-1), 10);
    body = body.subarray(0, -1);
  }
  return { body, note };
}

/** Pages `req` to the end as an agent would: follow each note's next command; fetch overlong lines whole. */
async function allPages(
  source: SliceSource,
  req: SliceRequest,
  maxBytes: number,
  maxLines: number,
): Promise<Uint8Array[]> {
  const parts: Uint8Array[] = [];
  let current: SliceRequest = {
    ...req,
    page: { maxBytes, maxLines, words: ["--max-bytes", String(maxBytes)] },
  };
  for (let pages = 0; pages < 500; pages++) {
    const { body, note } = splitPage(await run(source, current));
    const lineCount = body.length === 0 ? 0 : decoder.decode(body).split("\n").length -
      (body.at(-1) === 10 ? 1 : 0);
    assert.ok(body.length <= maxBytes, `page of ${body.length} bytes over ${maxBytes}`);
    assert.ok(lineCount <= maxLines, `page of ${lineCount} lines over ${maxLines}`);
    parts.push(body);
    const long =
      /line [\d,]+ is [\d,]+ bytes?, over --max-bytes: whole: yarp read 0c0ffee0 --lines (\d+):\1 · first [\d,]+: yarp read 0c0ffee0 --bytes (\d+):(\d+)/
        .exec(note);
    if (long !== null) {
      assert.equal(body.length, 0, "an overlong line is named only on a page of its own");
      const number = Number(long[1]);
      parts.push(
        await run(source, { numbered: req.numbered, lines: { from: number, to: number } }),
      );
    }
    const next = / · next: yarp read 0c0ffee0 --lines (\d+):(\d*)(.*)\]\n$/.exec(note);
    if (next === null) {
      assert.match(note, / · end\]\n$/);
      return parts;
    }
    const head = / --head (\d+)/.exec(next[3]);
    current = {
      ...current,
      lines: next[2] === ""
        ? { from: Number(next[1]) }
        : { from: Number(next[1]), to: Number(next[2]) },
      head: head === null ? undefined : Number(head[1]),
      tail: undefined,
    };
    assert.equal(next[3].includes(" -n"), req.numbered);
    assert.equal(next[3].includes("--grep"), req.grep !== undefined);
  }
  throw new Error("too many pages");
}

Deno.test("pages concatenate to exactly the unpaged output; each fits --max-bytes and --max-lines", async () => {
  await fc.assert(
    fc.asyncProperty(
      streams,
      request,
      chunkSize,
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 1, max: 6 }),
      async (s, req, size, maxBytes, maxLines) => {
        const source = memorySource(s, size);
        const pages = await allPages(source, req, maxBytes, maxLines);
        assert.deepEqual(concatBytes(pages), await run(source, req));
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("--bytes A:B is that byte range of the view; --stat counts what the model counts", async () => {
  await fc.assert(
    fc.asyncProperty(
      streams,
      chunkSize,
      fc.integer({ min: 1, max: 200 }),
      fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
      grep,
      async (s, size, from, span, g) => {
        const source = memorySource(s, size);
        const parts: Uint8Array[] = [];
        const to = span === undefined ? undefined : from + span;
        assert.equal(writeByteRange(source, from, to, (b) => (parts.push(b.slice()), true)), true);
        assert.deepEqual(concatBytes(parts), concatBytes(s).slice(from - 1, to));
        const stats = await streamStats(source, g);
        for (const [i, bytes] of s.entries()) {
          const lines = refLines([bytes]);
          assert.equal(stats[i].bytes, bytes.length);
          assert.equal(stats[i].lines, lines.length);
          assert.equal(stats[i].endsWithLf, bytes.length === 0 || bytes.at(-1) === 10);
          const matches = g === undefined
            ? 0
            : lines.filter((l) => contains(l, g.text, g.ignoreCase)).length;
          assert.equal(stats[i].matches, matches);
        }
      },
    ),
  );
});

Deno.test("a --grep text split across chunks of a long line is still found", async () => {
  const line = encoder.encode("x".repeat(5000) + "needle" + "y".repeat(5000) + "\nother\n");
  for (const size of [1, 2, 3, 4097, 5002, 5003]) {
    const out = await run(memorySource([line], size), {
      grep: { text: "NEEDLE", ignoreCase: true },
      numbered: true,
    });
    assert.equal(
      decoder.decode(out),
      "1:" + decoder.decode(line.subarray(0, 10007)),
      `chunk ${size}`,
    );
  }
});

Deno.test("a reader that goes away stops the writing; the scan still ends", async () => {
  const bytes = encoder.encode("a\nb\nc\n");
  let calls = 0;
  const summary = await writeSlice(
    memorySource([bytes], 2),
    { numbered: false },
    () => (calls++, false),
    "yarp read 0c0ffee0",
  );
  assert.equal(calls, 1);
  assert.equal(summary.complete, false);
  assert.equal(summary.viewLines, 3);
});

// --- the notes, as a specification ---------------------------------------------------------

const PAGE = { maxBytes: 10, maxLines: 1000, words: ["--max-bytes", "10"] };
const text = async (s: string[], req: SliceRequest) =>
  decoder.decode(await run(memorySource(s.map((x) => encoder.encode(x)), 4), req));

Deno.test("page notes name the next command, the end, a final line without LF and an overlong line", async () => {
  assert.equal(
    await text(["one\ntwo\nthree\n"], { numbered: false, page: PAGE }),
    "one\ntwo\n[yarp: page of 2 lines (8 bytes), line 1 to 2 of 3 · next: yarp read 0c0ffee0 --lines 3: --max-bytes 10]\n",
  );
  assert.equal(
    await text(["one\ntwo\nthree"], { numbered: false, page: PAGE, lines: { from: 3 } }),
    "three\n[yarp: page of 1 line (5 bytes), line 3 to 3 of 3 · line 3 has no LF (the LF before this note is added) · end]\n",
  );
  assert.equal(
    await text(["a\n", "0123456789abc\nz\n"], { numbered: false, page: PAGE, lines: { from: 2 } }),
    "[yarp: page of 0 lines, 3 in all · line 2 is 14 bytes, over --max-bytes: whole: yarp read 0c0ffee0 --lines 2:2 · first 10: yarp read 0c0ffee0 --bytes 3:12 · next: yarp read 0c0ffee0 --lines 3: --max-bytes 10]\n",
  );
  assert.equal(
    await text(["x1\nx2\nx3\ny\nx4\n"], {
      numbered: true,
      grep: { text: "x", ignoreCase: false },
      head: 3,
      page: { maxBytes: 100, maxLines: 2, words: ["--max-lines", "2"] },
    }),
    "1:x1\n2:x2\n[yarp: page of 2 lines (10 bytes), line 1 to 2 of 5 · next: yarp read 0c0ffee0 --lines 3: --grep x --head 1 -n --max-lines 2]\n",
  );
  assert.equal(
    await text(["x1\nx2\n"], {
      numbered: false,
      grep: { text: "it's", ignoreCase: true },
      page: PAGE,
    }),
    "[yarp: page of 0 lines, 2 in all · end]\n",
  );
  assert.equal(shellWord("-x"), "'-x'");
  assert.equal(
    pageNote({
      request: {
        numbered: false,
        grep: { text: "a b", ignoreCase: true },
        lines: { from: 1, to: 9 },
        page: PAGE,
      },
      readCommand: "yarp read 0c0ffee0 --stream stderr",
      viewLines: 9,
      written: 1,
      bytes: 2,
      first: 1,
      last: 1,
      lastHasLf: true,
      next: 4,
    }),
    "[yarp: page of 1 line (2 bytes), line 1 to 1 of 9 · next: yarp read 0c0ffee0 --stream stderr --lines 4:9 --grep 'a b' -i --max-bytes 10]\n",
  );
});

Deno.test("argument values: each bad one is one line naming the argument", () => {
  const table: [unknown, unknown][] = [
    [parseCount("--head", "3"), { value: 3 }],
    [parseCount("--head", "0"), { error: "--head: expected a positive whole number, got '0'" }],
    [parseCount("--tail", "1e3"), { error: "--tail: expected a positive whole number, got '1e3'" }],
    [parseByteSize("--max-bytes", "40k"), { value: 40960 }],
    [parseByteSize("--max-bytes", "2M"), { value: 2097152 }],
    [parseByteSize("--max-bytes", "12"), { value: 12 }],
    [parseByteSize("--max-bytes", "k"), {
      error: "--max-bytes: expected a positive size such as 40000 or 40k, got 'k'",
    }],
    [parseByteSize("--max-bytes", "0"), {
      error: "--max-bytes: expected a positive size such as 40000 or 40k, got '0'",
    }],
    [parseRange("--lines", "7"), { value: { from: 7, to: 7 } }],
    [parseRange("--lines", ":4"), { value: { from: 1, to: 4 } }],
    [parseRange("--lines", "0:4"), {
      error: "--lines: expected A:B, A: or :B with 1 ≤ A ≤ B, got '0:4'",
    }],
    [parseRange("--lines", ":"), {
      error: "--lines: expected A:B, A: or :B with 1 ≤ A ≤ B, got ':'",
    }],
    [parseRange("--bytes", "a:b"), {
      error: "--bytes: expected A:B, A: or :B with 1 ≤ A ≤ B, got 'a:b'",
    }],
    [parseGrepText(""), { error: "--grep: the text is empty" }],
    [parseGrepText("a\nb"), { error: "--grep: the text holds a newline; lines never do" }],
  ];
  for (const [got, want] of table) assert.deepEqual(got, want);
});
