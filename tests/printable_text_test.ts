/**
 * `printableText` and `printableJson` (lib/base/printable_text.ts): no
 * control character survives, nothing else changes, and JSON keeps its value.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { printableJson, printableText } from "../lib/base/printable_text.ts";

/** Whether `code` is a character the module escapes. */
function escaped(code: number): boolean {
  return (code <= 0x1f && code !== 0x09 && code !== 0x0a) ||
    (code >= 0x7f && code <= 0x9f) || code === 0x061c || code === 0x200e || code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/** Strings rich in controls: any unit, plus a pool of escape sequences and astral characters. */
const text = fc.array(
  fc.oneof(
    fc.string({ unit: "binary", maxLength: 8 }),
    fc.constantFrom(
      "\x1b[2J",
      "\x1b]0;title\x07",
      "\x1b]8;;http://x\x1b\\",
      "\u009b31m",
      "\u202egnp.exe",
      "\r",
      "\0",
      "\x7f",
      "😀",
      "\t",
      "\n",
    ),
    fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  ),
  { maxLength: 30 },
).map((parts) => parts.join(""));

Deno.test("printableText: a table of escapes", () => {
  const cases: [string, string][] = [
    ["plain text", "plain text"],
    ["\x1b[2Jclear", "\\x1b[2Jclear"],
    ["\x1b]0;owned\x07", "\\x1b]0;owned\\x07"],
    ["bell\x07", "bell\\x07"],
    ["cr\rlf\n", "cr\\x0dlf\n"],
    ["tab\t", "tab\t"],
    ["nul\0", "nul\\x00"],
    ["del\x7f", "del\\x7f"],
    ["c1 \u0085 \u009b", "c1 \\x85 \\x9b"],
    ["bidi \u202e \u2066 \u061c", "bidi \\u202e \\u2066 \\u061c"],
    ["é ü 😀 €", "é ü 😀 €"],
  ];
  for (const [input, output] of cases) assert.equal(printableText(input), output, input);
});

Deno.test("printableText: no escaped character is left, and the result is printable ASCII around kept text", () => {
  fc.assert(
    fc.property(text, (input) => {
      const output = printableText(input);
      for (let i = 0; i < output.length; i++) {
        assert.ok(!escaped(output.charCodeAt(i)), `U+${output.charCodeAt(i).toString(16)}`);
      }
      assert.equal(printableText(output), output);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("printableText: it works character by character, keeps every other character, and can be undone", () => {
  fc.assert(
    fc.property(text, text, (a, b) => {
      assert.equal(printableText(a + b), printableText(a) + printableText(b));
      let expected = "";
      for (let i = 0; i < a.length; i++) {
        const code = a.charCodeAt(i);
        expected += escaped(code)
          ? (code <= 0xff
            ? `\\x${code.toString(16).padStart(2, "0")}`
            : `\\u${code.toString(16).padStart(4, "0")}`)
          : a[i];
      }
      assert.equal(printableText(a), expected);
      if (!a.includes("\\")) {
        const undone = printableText(a).replace(
          /\\x([0-9a-f]{2})|\\u([0-9a-f]{4})/g,
          (_, x, u) => String.fromCharCode(parseInt(x ?? u, 16)),
        );
        assert.equal(undone, a);
      }
    }),
    { numRuns: 2000 },
  );
});

Deno.test("printableJson: parses to the same value and prints no control character", () => {
  fc.assert(
    fc.property(fc.jsonValue(), text, (value, extra) => {
      const json = JSON.stringify({ value, extra });
      const output = printableJson(json);
      assert.deepEqual(JSON.parse(output), JSON.parse(json));
      for (let i = 0; i < output.length; i++) assert.ok(!escaped(output.charCodeAt(i)));
    }),
    { numRuns: 1000 },
  );
});
