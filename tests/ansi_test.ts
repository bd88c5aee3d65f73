/**
 * The ANSI-stripping state machine: recognised forms, malformed input,
 * the sequence-length bound and sequences split across chunks.
 */
import { deepEqual, equal, ok, throws } from "node:assert/strict";
import fc from "fast-check";
import { AnsiStripper, StrippedLines } from "../lib/bytes/mod.ts";
import { chunksAt } from "./_bytes.ts";

const te = new TextEncoder();

function strip(chunks: Uint8Array[], max?: number): number[] {
  const s = new AnsiStripper(max);
  const out: number[] = [];
  for (const c of chunks) {
    const dst = new Uint8Array(c.length);
    const end = s.strip(c, 0, c.length, dst, 0);
    ok(end <= c.length);
    out.push(...dst.subarray(0, end));
  }
  return out;
}

const str = (s: string) => [...te.encode(s)];

Deno.test("ansi: recognised sequences are removed, text is kept", () => {
  const cases: [string, string][] = [
    ["plain text", "plain text"],
    ["\x1b[31mred\x1b[0m", "red"],
    ["\x1b[1;38;5;208mbold\x1b[m", "bold"],
    ["a\x1b[2Kb\x1b[10;20Hc", "abc"],
    ["\x1b[?25lhidden cursor\x1b[?25h", "hidden cursor"],
    ["\x1b]0;window title\x07after", "after"],
    ["\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\", "link"],
    ["\x1bPq#0;2;0;0;0\x1b\\dcs", "dcs"],
    ["\x1b_apc\x1b\\\x1b^pm\x07\x1bXsos\x1b\\x", "x"],
    ["\x1b7saved\x1b8", "saved"],
    ["\x1b=keypad\x1b>", "keypad"],
    ["\x1b(Bcharset\x1b)0", "charset"],
    ["\x1b\x1b[31mdouble esc", "double esc"],
    ["tab\there\r\n", "tab\there\r\n"],
  ];
  for (const [input, expected] of cases) {
    deepEqual(strip([te.encode(input)]), str(expected), JSON.stringify(input));
  }
});

Deno.test("ansi: malformed sequences end at the first byte that cannot continue them", () => {
  const cases: [string, string][] = [
    ["\x1b[31\x01x", "\x01x"], // C0 control inside CSI ends it and is text
    ["\x1b[31é", "é"], // non-ASCII ends CSI
    ["\x1b\x01y", "\x01y"], // lone ESC before a control
    ["\x1b]unterminated\nnext", "\nnext"], // LF ends a string and is kept
    ["\x1b[12\nnext", "\nnext"], // LF ends CSI and is kept
    ["\x1b]0;t\x1b[31mred", "red"], // ESC inside a string starts a new sequence
    ["end\x1b", "end"], // an escape at the very end is removed
  ];
  for (const [input, expected] of cases) {
    deepEqual(strip([te.encode(input)]), str(expected), JSON.stringify(input));
  }
});

Deno.test("ansi: 8-bit C1 bytes, invalid UTF-8 and NUL pass through untouched", () => {
  const input = new Uint8Array([0x9b, 0x33, 0x31, 0x6d, 0xd0, 0x9b, 0x00, 0xff, 0xc3]);
  deepEqual(strip([input]), [...input]);
});

Deno.test("ansi: an over-long sequence is abandoned and what follows is text", () => {
  const body = "a".repeat(100);
  deepEqual(strip([te.encode(`\x1b]${body}\x07tail`)], 16), str(`${body.slice(14)}\x07tail`));
  // 16 bytes (ESC, "]", 14 letters) were removed; the 17th is text. Within the bound
  // the same string is removed whole.
  deepEqual(strip([te.encode(`\x1b]${body}\x07tail`)], 200), str("tail"));
  throws(() => new AnsiStripper(1), RangeError);
});

Deno.test("ansi: a sequence split at every position strips like the whole", () => {
  const input = te.encode("x\x1b[38;5;208my\x1b]8;;u\x1b\\z\x1b(Bw");
  const whole = strip([input]);
  deepEqual(whole, str("xyzw"));
  for (let cut = 0; cut <= input.length; cut++) {
    deepEqual(strip([input.subarray(0, cut), input.subarray(cut)]), whole, `cut at ${cut}`);
  }
  deepEqual(strip([...input].map((b) => new Uint8Array([b]))), whole);
});

Deno.test("ansi: inSequence reports an open sequence and reset closes it", () => {
  const s = new AnsiStripper();
  const dst = new Uint8Array(8);
  s.strip(te.encode("a\x1b["), 0, 3, dst, 0);
  ok(s.inSequence);
  s.reset();
  equal(s.inSequence, false);
  const end = s.strip(te.encode("31m"), 0, 3, dst, 0);
  deepEqual([...dst.subarray(0, end)], str("31m"));
});

Deno.test("ansi: stripping in place is safe", () => {
  const buf = te.encode("..\x1b[1mA\x1b[0mB");
  const end = new AnsiStripper().strip(buf, 2, buf.length, buf, 0);
  deepEqual([...buf.subarray(0, end)], str("AB"));
});

const ansiish = fc.array(
  fc.oneof(
    fc.constantFrom(0x1b, 0x5b, 0x5d, 0x07, 0x5c, 0x0a, 0x0d, 0x3b, 0x6d, 0x50),
    fc.integer({ min: 0, max: 255 }),
  ),
  { maxLength: 300 },
).map((a) => new Uint8Array(a));

Deno.test("property: any chunking strips exactly like one chunk; output never grows", () => {
  fc.assert(
    fc.property(ansiish, fc.array(fc.nat(), { maxLength: 20 }), (input, cuts) => {
      const chunks = chunksAt(input, cuts);
      const whole = strip([input], 32);
      deepEqual(strip(chunks, 32), whole);
      ok(whole.length <= input.length);
      ok(!whole.includes(0x1b), "no ESC survives");
    }),
    { numRuns: 500 },
  );
});

Deno.test("property: whole CSI sequences strip as byte by byte, at every length bound", () => {
  // A sequence inside one range takes the fast path; fed one byte at a time it cannot.
  const csi = fc.tuple(
    fc.string({ unit: fc.constantFrom("0", "1", "3", "8", ";", "?", " "), maxLength: 12 }),
    fc.constantFrom("m", "K", "H", "~", "\n", "\x1b", "x"),
  ).map(([params, final]) => `\x1b[${params}${final}`);
  const input = fc.array(fc.oneof(csi, fc.constantFrom("a", "é", "\n", "[", "\x1b")), {
    maxLength: 30,
  }).map((parts) => te.encode(parts.join("")));
  fc.assert(
    fc.property(input, fc.integer({ min: 2, max: 16 }), (bytes, max) => {
      const byteByByte = strip(Array.from(bytes, (b) => Uint8Array.of(b)), max);
      deepEqual(strip([bytes], max), byteByByte);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("property: stripLine strips as strip up to the first LF, and stops there", () => {
  fc.assert(
    fc.property(ansiish, fc.integer({ min: 2, max: 16 }), (input, max) => {
      const lf = input.indexOf(0x0a);
      const stop = lf === -1 ? input.length : lf;
      const line = new AnsiStripper(max);
      const dst = new Uint8Array(input.length);
      const end = line.stripLine(input, 0, input.length, dst, 0);
      equal(line.stoppedAt, stop);
      const whole = new AnsiStripper(max);
      const expected = new Uint8Array(input.length);
      const expectedEnd = whole.strip(input, 0, stop, expected, 0);
      deepEqual([...dst.subarray(0, end)], [...expected.subarray(0, expectedEnd)]);
      equal(line.inSequence, whole.inSequence);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("ansi: stripLine leaves the LF and reports whether a sequence was open at it", () => {
  const cases: [string, string, boolean][] = [
    ["a\x1b[31mb\r\nc", "ab\r", false],
    ["a\x1b]title\r\nc", "a", true],
    ["a\x1b[1\r\nc", "a\r", false],
    ["no newline\x1b[m", "no newline", false],
  ];
  for (const [input, expected, open] of cases) {
    const bytes = te.encode(input);
    const s = new AnsiStripper();
    const dst = new Uint8Array(bytes.length);
    const end = s.stripLine(bytes, 0, bytes.length, dst, 0);
    deepEqual([...dst.subarray(0, end)], str(expected), JSON.stringify(input));
    equal(s.stoppedAt, input.includes("\n") ? input.indexOf("\n") : bytes.length);
    equal(s.inSequence, open, JSON.stringify(input));
  }
});

/** Lines of text, sequences (some left open) and CRs. */
const ansiLines = fc.array(
  fc.constantFrom(
    "a",
    " ",
    "\x1b[31m",
    "\x1b[",
    "\x1b]t",
    "\x07",
    "\x1b\\",
    "\x1b",
    "\r",
    "\n",
    "\r\n",
  ),
  { maxLength: 40 },
).map((tokens) => te.encode(tokens.join("")));

Deno.test("property: stripLines strips and records lines as stripLine does one by one", () => {
  fc.assert(
    fc.property(
      fc.oneof(ansiish, ansiLines),
      fc.integer({ min: 2, max: 16 }),
      fc.integer({ min: 1, max: 6 }),
      (
        input,
        max,
        capacity,
      ) => {
        const lines = new StrippedLines(capacity);
        const dst = new Uint8Array(input.length);
        new AnsiStripper(max).stripLines(input, 0, input.length, dst, 0, lines);
        // The reference: each line stripped on its own by a fresh machine.
        const one = new AnsiStripper(max);
        let at = 0;
        let k = 0;
        for (; k < capacity; k++) {
          const scratch = new Uint8Array(input.length);
          const end = one.stripLine(input, at, input.length, scratch, 0);
          const lf = one.stoppedAt;
          if (lf === input.length) break;
          const crlf = lf > at && input[lf - 1] === 0x0d && !one.inSequence;
          const content = [...scratch.subarray(0, crlf ? end - 1 : end)];
          ok(k < lines.count, `line ${k} not recorded`);
          equal(lines.lf[k], lf);
          deepEqual([...dst.subarray(lines.start[k], lines.end[k])], content);
          one.reset();
          const plain = end === lf - at;
          at = lf + 1;
          if (plain) {
            k++;
            break;
          }
        }
        equal(lines.count, k);
      },
    ),
    { numRuns: 1000 },
  );
});

Deno.test("ansi: stripLines stops at a full table and after a line without ESC", () => {
  // Line 2 ends inside a string, which swallowed its CR: nothing is cut from its content.
  const input = te.encode("\x1b[1ma\r\n\x1b]t\x07b\x1b]u\r\nplain\nx\x1b[m\n");
  const dst = new Uint8Array(input.length);
  const lines = new StrippedLines(8);
  new AnsiStripper().stripLines(input, 0, input.length, dst, 0, lines);
  equal(lines.count, 3);
  const text = (k: number) => new TextDecoder().decode(dst.subarray(lines.start[k], lines.end[k]));
  deepEqual([text(0), text(1), text(2)], ["a", "b", "plain"]);
  const two = new StrippedLines(2);
  new AnsiStripper().stripLines(input, 0, input.length, dst, 0, two);
  equal(two.count, 2);
  equal(two.retainedBytes(), 24);
  throws(
    () => new AnsiStripper().stripLines(input, 0, 1, dst, 0, new StrippedLines(0)),
    RangeError,
  );
});
