import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type JsonField,
  type JsonReader,
  parseStrictJson,
  pointerAppend,
  readEnum,
  readInteger,
  readObject,
} from "../lib/rules/strict_json.ts";
import { formatDiagnostic } from "../lib/rules/diagnostics.ts";

function parse(text: string) {
  return parseStrictJson("x.json", text);
}

function errors(text: string): string[] {
  const result = parse(text);
  return result.ok
    ? []
    : result.diagnostics.map((d) => `${d.line}:${d.column} ${d.pointer} ${d.code}`);
}

Deno.test("pointers escape ~ and / (RFC 6901)", () => {
  assert.equal(pointerAppend("", "a"), "/a");
  assert.equal(pointerAppend("/a", 0), "/a/0");
  assert.equal(pointerAppend("", "a/b"), "/a~1b");
  assert.equal(pointerAppend("", "m~n"), "/m~0n");
  assert.equal(pointerAppend("", "~1"), "/~01");
  assert.equal(pointerAppend("", ""), "/");
});

Deno.test("strict JSON: what RFC 8259 forbids is invalid-json with a position", () => {
  const cases: [string, string][] = [
    ["", "1:1"],
    ["{", "1:1"],
    ['{"a": 1,}', "1:9"],
    ["[1,]", "1:4"],
    ["{'a': 1}", "1:2"],
    ["{a: 1}", "1:2"],
    ["// c\n{}", "1:1"],
    ["{} {}", "1:4"],
    ["\uFEFF{}", "1:1"],
    ["NaN", "1:1"],
    ["[01]", "1:2"],
    ['{\n  "a": tru\n}', "2:8"],
  ];
  for (const [text, position] of cases) {
    assert.deepEqual(errors(text), [`${position}  invalid-json`], JSON.stringify(text));
  }
});

Deno.test("strict JSON: raw control characters and unpaired surrogates in strings", () => {
  assert.deepEqual(errors('{"a": "x\ty"}'), ["1:7 /a invalid-json"]);
  assert.deepEqual(errors('{"a\nb": 1}'), ["1:2 /a\nb invalid-json"]);
  assert.deepEqual(errors('["\\ud800"]'), ["1:2 /0 invalid-json"]);
  assert.deepEqual(errors('{"\\udc00": 1}'), ["1:2 /\udc00 invalid-json"]);
  assert.deepEqual(errors('["\\t\\u0000\\ud83d\\ude00"]'), []);
});

Deno.test("strict JSON: duplicate keys at every depth, all reported in document order", () => {
  assert.deepEqual(errors('{"a": 1, "a": 2}'), ["1:10 /a duplicate-key"]);
  assert.deepEqual(errors('{"a": {"b": [{"c": 1, "c": 1}], "b": 2}, "d": 0, "d": 0, "d": 0}'), [
    "1:23 /a/b/0/c duplicate-key",
    "1:33 /a/b duplicate-key",
    "1:50 /d duplicate-key",
    "1:58 /d duplicate-key",
  ]);
  assert.deepEqual(errors('{"a": 1, "\\u0061": 2}'), ["1:10 /a duplicate-key"]);
  assert.deepEqual(errors('[{"a": 1}, {"a": 1}]'), []);
});

Deno.test("strict JSON: nesting too deep for the parser is one invalid-json finding, not a throw", () => {
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  assert.deepEqual(errors(deep), ["1:1  invalid-json"]);
  const result = parse(deep);
  assert.ok(!result.ok && /nested too deeply/.test(result.diagnostics[0].message));
  const moderate = '{"a":'.repeat(500) + "1" + "}".repeat(500);
  assert.ok(parse(moderate).ok);
});

function reader(text: string): { reader: JsonReader; root: JsonField } {
  const result = parse(text);
  assert.ok(result.ok);
  return { reader: result.reader, root: result.root };
}

Deno.test("readObject: unknown, missing and wrong-type fields", () => {
  const { reader: r, root } = reader('{"a": 1, "z": 2}');
  const fields = readObject(r, root, ["a", "b"], ["a", "b"]);
  assert.deepEqual([...fields!.keys()], ["a"]);
  assert.deepEqual(r.diagnostics.map(formatDiagnostic), [
    'x.json:1:10: /z: unknown field "z" [unknown-field]',
    "x.json:1:1: /b: missing required field [missing-field]",
  ]);
  const array = reader("[]");
  assert.equal(readObject(array.reader, array.root, [], []), undefined);
  assert.deepEqual(array.reader.diagnostics.map((d) => d.message), [
    "must be an object, found an array",
  ]);
});

Deno.test("readInteger: spelling, range and type", () => {
  const { reader: r, root } = reader('[5, 5.0, 5e0, -1, 11, "5", 10, 0]');
  assert.equal(root.node.type, "Array");
  const elements = root.node.type === "Array" ? root.node.elements : [];
  const values = elements.map((e, i) => readInteger(r, { node: e.value, pointer: `/${i}` }, 0, 10));
  assert.deepEqual(values, [5, undefined, undefined, undefined, undefined, undefined, 10, 0]);
  assert.deepEqual(r.diagnostics.map((d) => `${d.pointer} ${d.code} ${d.message}`), [
    "/1 not-an-integer must be an integer, found 5.0",
    "/2 not-an-integer must be an integer, found 5e0",
    "/3 limit-out-of-range must be at least 0",
    "/4 limit-out-of-range must be at most 10",
    "/5 wrong-type must be an integer, found a string",
  ]);
});

Deno.test("readEnum: unknown values list the accepted ones", () => {
  const { reader: r, root } = reader('"maybe"');
  assert.equal(readEnum(r, root, ["yes", "no"]), undefined);
  assert.deepEqual(r.diagnostics.map((d) => d.message), [
    'unknown value "maybe"; expected one of "yes", "no"',
  ]);
});

Deno.test("property: agrees with JSON.parse on valid JSON without duplicate keys", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const text = JSON.stringify(value, null, 1);
      const result = parse(text);
      const wellFormed =
        !/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i.test(
          text,
        );
      if (wellFormed) assert.ok(result.ok, text);
    }),
  );
});

Deno.test("property: never throws on arbitrary text; diagnostics are one line", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (text) => {
      const result = parse(text);
      if (!result.ok) {
        assert.ok(result.diagnostics.length > 0);
        for (const d of result.diagnostics) {
          assert.ok(!/[\r\n\u2028\u2029]/.test(formatDiagnostic(d)));
        }
      }
    }),
    { numRuns: 1000 },
  );
});
