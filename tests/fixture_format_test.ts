import assert from "node:assert/strict";
import fc from "fast-check";
import { validateFixtureText } from "../lib/rules/fixture.ts";
import { formatDiagnostic } from "../lib/rules/diagnostics.ts";

type Json = Record<string, unknown>;
const encoder = new TextEncoder();

const fixture = (over: Json = {}): Json => ({
  id: "git/log/long-success",
  argv: ["git", "log", "--stat"],
  outcome: "reduce",
  rule: "git/log",
  exit_code: 0,
  stdout: "a\nb\n",
  stderr: { encoding: "base64", data: "/wAB" },
  expected_stdout: "a\n",
  expected_stderr: "",
  expected_omitted_lines: { stdout: 1, stderr: 0 },
  expected_truncated_lines: { stdout: 0, stderr: 2 },
  ...over,
});

function problems(value: unknown): string[] {
  const result = validateFixtureText("f.json", JSON.stringify(value));
  return result.ok ? [] : result.diagnostics.map((d) => `${d.code} ${d.pointer}`);
}

Deno.test("fixture: decodes to the model", () => {
  const result = validateFixtureText("f.json", JSON.stringify(fixture()));
  assert.ok(result.ok);
  assert.deepEqual(result.fixture, {
    id: "git/log/long-success",
    argv: ["git", "log", "--stat"],
    outcome: "reduce",
    rule: "git/log",
    exitCode: 0,
    stdout: encoder.encode("a\nb\n"),
    stderr: new Uint8Array([0xff, 0x00, 0x01]),
    expectedStdout: encoder.encode("a\n"),
    expectedStderr: new Uint8Array(),
    expectedOmittedLines: { stdout: 1, stderr: 0 },
    expectedTruncatedLines: { stdout: 0, stderr: 2 },
  });
});

Deno.test("fixture: rule is absent for ambiguous and unsupported outcomes", () => {
  for (const outcome of ["ambiguous", "unsupported"]) {
    const { rule: _, ...rest } = fixture({ outcome });
    const result = validateFixtureText("f.json", JSON.stringify(rest));
    assert.ok(result.ok);
    assert.equal("rule" in result.fixture, false);
    assert.deepEqual(problems(fixture({ outcome })), ["forbidden-field /rule"]);
  }
  for (const outcome of ["reduce", "guarded", "transform"]) {
    const { rule: _, ...rest } = fixture({ outcome });
    assert.deepEqual(problems(rest), ["missing-field /rule"], outcome);
    assert.deepEqual(problems(fixture({ outcome })), [], outcome);
  }
});

Deno.test("fixture: base64 is strict and canonical", () => {
  const cases: [string, number[] | undefined][] = [
    ["", []],
    ["AA==", [0]],
    ["AAA=", [0, 0]],
    ["AAAA", [0, 0, 0]],
    ["/+8=", [0xff, 0xef]],
    ["AB==", undefined], // non-zero unused bits
    ["AAB=", undefined],
    ["AA", undefined], // padding required
    ["AA=", undefined],
    ["A===", undefined],
    ["AA==AA==", undefined],
    ["-_8=", undefined], // URL alphabet
    ["AA AA", undefined],
    ["AAAA\n", undefined],
  ];
  for (const [data, bytes] of cases) {
    const result = validateFixtureText(
      "f.json",
      JSON.stringify(fixture({ stdout: { encoding: "base64", data } })),
    );
    if (bytes === undefined) {
      assert.ok(!result.ok, data);
      assert.deepEqual(result.diagnostics.map((d) => `${d.code} ${d.pointer}`), [
        "invalid-base64 /stdout/data",
      ]);
    } else {
      assert.ok(result.ok, data);
      assert.deepEqual([...result.fixture.stdout], bytes, data);
    }
  }
});

Deno.test("fixture: property: base64 of any bytes round-trips", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      const data = btoa(String.fromCharCode(...bytes));
      const result = validateFixtureText(
        "f.json",
        JSON.stringify(fixture({ stdout: { encoding: "base64", data } })),
      );
      assert.ok(result.ok);
      assert.deepEqual(result.fixture.stdout, bytes);
    }),
  );
});

const cases: [string, unknown, string[]][] = [
  ["unknown top-level field", fixture({ note: 1 }), ["unknown-field /note"]],
  ["unknown bytes field", fixture({ stdout: { encoding: "base64", data: "", x: 1 } }), [
    "unknown-field /stdout/x",
  ]],
  ["unknown counts field", fixture({ expected_omitted_lines: { stdout: 0, stderr: 0, x: 0 } }), [
    "unknown-field /expected_omitted_lines/x",
  ]],
  ["unknown encoding", fixture({ stdout: { encoding: "hex", data: "" } }), [
    "unknown-value /stdout/encoding",
  ]],
  ["bytes of the wrong type", fixture({ stdout: 1, stderr: null }), [
    "wrong-type /stderr",
    "wrong-type /stdout",
  ]],
  ["exit code range", fixture({ exit_code: 256 }), ["limit-out-of-range /exit_code"]],
  ["exit code negative", fixture({ exit_code: -1 }), ["limit-out-of-range /exit_code"]],
  ["exit code fractional", fixture({ exit_code: 0.5 }), ["not-an-integer /exit_code"]],
  ["argv empty", fixture({ argv: [] }), ["empty-list /argv"]],
  ["argv program empty", fixture({ argv: ["", "x"] }), ["invalid-argument /argv/0"]],
  ["argv NUL", fixture({ argv: ["git", "a\0"] }), ["invalid-argument /argv/1"]],
  ["argv element type", fixture({ argv: ["git", 1] }), ["wrong-type /argv/1"]],
  ["argv 4,097", fixture({ argv: Array(4097).fill("x") }), ["too-many-arguments /argv"]],
  ["argv 4,096", fixture({ argv: Array(4096).fill("x") }), []],
  ["outcome unknown", fixture({ outcome: "passthrough" }), ["unknown-value /outcome"]],
  ["invalid fixture id", fixture({ id: "Git" }), ["invalid-fixture-id /id"]],
  ["invalid rule id", fixture({ rule: "git/" }), ["invalid-rule-id /rule"]],
  ["count negative", fixture({ expected_truncated_lines: { stdout: -1, stderr: 0 } }), [
    "limit-out-of-range /expected_truncated_lines/stdout",
  ]],
  ["count missing", fixture({ expected_truncated_lines: { stdout: 0 } }), [
    "missing-field /expected_truncated_lines/stderr",
  ]],
  ["not an object", [], ["wrong-type "]],
];

for (const [name, value, expected] of cases) {
  Deno.test(`fixture: ${name}`, () => {
    assert.deepEqual(problems(value).sort(), [...expected].sort());
  });
}

Deno.test("fixture: every required field", () => {
  const required = Object.keys(fixture()).filter((key) => key !== "rule");
  assert.deepEqual(
    problems({ outcome: "unsupported" }).sort(),
    required.filter((k) => k !== "outcome").map((k) => `missing-field /${k}`).sort(),
  );
});

Deno.test("fixture: duplicate keys at any depth are rejected", () => {
  for (
    const text of [
      JSON.stringify(fixture()).replace('"exit_code":0', '"exit_code":0,"exit_code":1'),
      JSON.stringify(fixture()).replace('"data":"/wAB"', '"data":"/wAB","data":""'),
      JSON.stringify(fixture()).replace('"stdout":1', '"stdout":1,"stdout":1'),
    ]
  ) {
    const result = validateFixtureText("f.json", text);
    assert.ok(!result.ok);
    assert.deepEqual(result.diagnostics.map((d) => d.code), ["duplicate-key"]);
  }
});

Deno.test("fixture: property: never throws, deterministic, one-line diagnostics", () => {
  const field = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom("reduce", "unsupported", "git/log"),
  );
  const fixtureLike = fc.dictionary(
    fc.constantFrom(...Object.keys(fixture()), "extra"),
    field,
  ).map((over) => ({ ...fixture(), ...over }));
  fc.assert(
    fc.property(fc.oneof(fc.string(), fixtureLike.map((v) => JSON.stringify(v))), (text) => {
      const first = validateFixtureText("f.json", text);
      assert.deepEqual(validateFixtureText("f.json", text), first);
      if (!first.ok) {
        for (const d of first.diagnostics) assert.ok(!/[\r\n]/.test(formatDiagnostic(d)));
      }
    }),
    { numRuns: 300 },
  );
});
