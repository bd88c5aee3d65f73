import assert from "node:assert/strict";
import fc from "fast-check";
import { formatDiagnostic, type SourceDiagnostic } from "../lib/rules/diagnostics.ts";
import { isValidPackId, isValidRuleId } from "../lib/rules/rule_checks.ts";
import {
  rulePathProblem,
  validateManifestText,
  validateRuleText,
} from "../lib/rules/rule_source.ts";
import { LIMITS } from "../lib/rules/model.ts";

type Json = Record<string, unknown>;

const policy = (over: Json = {}): Json => ({
  head_lines: 12,
  tail_lines: 10,
  max_line_bytes: 16384,
  max_output_bytes: 16384,
  min_savings_bytes: 120,
  ...over,
});

const reduceRule = (over: Json = {}): Json => ({
  id: "tests/example-test",
  match: { program: ["example-test"] },
  action: "reduce",
  reducer: {
    kind: "line_filter",
    strip_ansi: true,
    drop: [{ kind: "prefix", value: "progress:", trim: "start" }],
  },
  success: policy(),
  failure: policy({ head_lines: 18, tail_lines: 18, max_output_bytes: 32768 }),
  ...over,
});

const guard = (over: Json = {}): Json => ({
  id: "git/show",
  match: { program: ["git"], argv_prefix: ["show"] },
  action: "passthrough",
  ...over,
});

function codes(value: unknown): string[] {
  const result = validateRuleText("r.json", JSON.stringify(value));
  return result.ok ? [] : result.diagnostics.map((d) => `${d.code} ${d.pointer}`);
}

function manifestCodes(text: string): string[] {
  const result = validateManifestText("pack.json", text);
  return result.ok ? [] : result.diagnostics.map((d) => `${d.code} ${d.pointer}`);
}

Deno.test("the seed's minimal reduction rule maps to the camel-case model", () => {
  const result = validateRuleText("r.json", JSON.stringify(reduceRule()));
  assert.ok(result.ok);
  assert.deepEqual(result.rule, {
    id: "tests/example-test",
    action: "reduce",
    match: { programs: ["example-test"], argvPrefix: [], argvContainsAll: [] },
    reducer: {
      kind: "line_filter",
      stripAnsi: true,
      drop: [{ kind: "prefix", value: "progress:", caseMode: "sensitive", trim: "start" }],
      keep: [],
    },
    success: {
      headLines: 12,
      tailLines: 10,
      maxLineBytes: 16384,
      maxOutputBytes: 16384,
      minSavingsBytes: 120,
    },
    failure: {
      headLines: 18,
      tailLines: 18,
      maxLineBytes: 16384,
      maxOutputBytes: 32768,
      minSavingsBytes: 120,
    },
  });
  assert.deepEqual(result.warnings, []);
  assert.deepEqual(result.idPosition, { line: 1, column: 7 });
});

Deno.test("defaults: head_tail, strip_ansi false, case sensitive, trim none", () => {
  const headTail = validateRuleText(
    "r.json",
    JSON.stringify(reduceRule({ reducer: { kind: "head_tail" } })),
  );
  assert.ok(headTail.ok && headTail.rule.action === "reduce");
  assert.deepEqual(headTail.rule.reducer, { kind: "head_tail" });
  const filter = validateRuleText(
    "r.json",
    JSON.stringify(reduceRule({
      reducer: {
        kind: "line_filter",
        keep: [{ kind: "contains", value: "x", case: "ascii_insensitive" }],
      },
    })),
  );
  assert.ok(filter.ok && filter.rule.action === "reduce");
  assert.deepEqual(filter.rule.reducer, {
    kind: "line_filter",
    stripAnsi: false,
    drop: [],
    keep: [{ kind: "contains", value: "x", caseMode: "ascii_insensitive", trim: "none" }],
  });
});

Deno.test("transform and passthrough rules", () => {
  const transform = validateRuleText(
    "r.json",
    JSON.stringify({
      id: "grep",
      match: { program: ["grep"] },
      action: "transform",
      transform: "line_preserving",
    }),
  );
  assert.ok(transform.ok);
  assert.deepEqual(transform.rule, {
    id: "grep",
    action: "transform",
    match: { programs: ["grep"], argvPrefix: [], argvContainsAll: [] },
    transform: "line_preserving",
  });
  const passthrough = validateRuleText(
    "r.json",
    JSON.stringify(guard({ match: { program: ["git"], argv_contains_all: ["--stat"] } })),
  );
  assert.ok(passthrough.ok);
  assert.deepEqual(passthrough.rule, {
    id: "git/show",
    action: "passthrough",
    match: { programs: ["git"], argvPrefix: [], argvContainsAll: ["--stat"] },
  });
});

const ruleCases: [string, unknown, string[]][] = [
  ["not an object", [], ["wrong-type "]],
  ["missing id, match, action", {}, [
    "missing-field /action",
    "missing-field /id",
    "missing-field /match",
  ]],
  ["unknown top-level field", guard({ extra: 1 }), ["unknown-field /extra"]],
  ["unknown match field", guard({ match: { program: ["git"], regex: "x" } }), [
    "unknown-field /match/regex",
  ]],
  ["unknown reducer field", reduceRule({ reducer: { kind: "head_tail", lines: 3 } }), [
    "unknown-field /reducer/lines",
  ]],
  [
    "unknown line_filter field",
    reduceRule({ reducer: { kind: "line_filter", replace: "x" } }),
    ["unknown-field /reducer/replace"],
  ],
  [
    "unknown pattern field",
    reduceRule({
      reducer: { kind: "line_filter", drop: [{ kind: "exact", value: "x", regex: true }] },
    }),
    ["unknown-field /reducer/drop/0/regex"],
  ],
  ["unknown policy field", reduceRule({ success: policy({ extra: 1 }) }), [
    "unknown-field /success/extra",
  ]],
  [
    "head_tail rejects strip_ansi",
    reduceRule({ reducer: { kind: "head_tail", strip_ansi: true } }),
    [
      "unknown-field /reducer/strip_ansi",
    ],
  ],
  ["unknown action", guard({ action: "delete" }), ["unknown-value /action"]],
  ["action wrong type", guard({ action: 1 }), ["wrong-type /action"]],
  ["unknown transform value", { ...guard({ action: "transform" }), transform: "lines" }, [
    "unknown-value /transform",
  ]],
  ["transform requires transform", guard({ action: "transform" }), ["missing-field /transform"]],
  ["transform forbids reducer", {
    ...guard({ action: "transform", transform: "line_preserving" }),
    reducer: { kind: "head_tail" },
  }, [
    "forbidden-field /reducer",
  ]],
  ["passthrough forbids transform", guard({ transform: "line_preserving" }), [
    "forbidden-field /transform",
  ]],
  ["passthrough forbids policies", guard({ success: policy(), failure: policy() }), [
    "forbidden-field /success",
    "forbidden-field /failure",
  ]],
  ["reduce forbids transform", reduceRule({ transform: "line_preserving" }), [
    "forbidden-field /transform",
  ]],
  ["reduce requires reducer and policies", guard({ action: "reduce" }), [
    "missing-field /failure",
    "missing-field /reducer",
    "missing-field /success",
  ]],
  ["unknown reducer kind", reduceRule({ reducer: { kind: "cargo_test" } }), [
    "unknown-value /reducer/kind",
  ]],
  ["reducer without kind", reduceRule({ reducer: {} }), ["missing-field /reducer/kind"]],
  ["reducer wrong type", reduceRule({ reducer: "head_tail" }), ["wrong-type /reducer"]],
  ["strip_ansi wrong type", reduceRule({ reducer: { kind: "line_filter", strip_ansi: "yes" } }), [
    "wrong-type /reducer/strip_ansi",
  ]],
  [
    "pattern enums",
    reduceRule({
      reducer: {
        kind: "line_filter",
        keep: [{ kind: "regex", value: "x", case: "fold", trim: "end" }],
      },
    }),
    [
      "unknown-value /reducer/keep/0/case",
      "unknown-value /reducer/keep/0/kind",
      "unknown-value /reducer/keep/0/trim",
    ],
  ],
  ["pattern missing fields", reduceRule({ reducer: { kind: "line_filter", keep: [{}] } }), [
    "missing-field /reducer/keep/0/kind",
    "missing-field /reducer/keep/0/value",
  ]],
  [
    "empty pattern value",
    reduceRule({ reducer: { kind: "line_filter", drop: [{ kind: "exact", value: "" }] } }),
    [
      "invalid-pattern /reducer/drop/0/value",
    ],
  ],
  [
    "NUL in pattern value",
    reduceRule({ reducer: { kind: "line_filter", drop: [{ kind: "exact", value: "a\0" }] } }),
    [
      "invalid-pattern /reducer/drop/0/value",
    ],
  ],
  ["program missing", guard({ match: {} }), ["missing-field /match/program"]],
  ["program empty", guard({ match: { program: [] } }), ["empty-list /match/program"]],
  ["program not a list", guard({ match: { program: "git" } }), ["wrong-type /match/program"]],
  ["program element not a string", guard({ match: { program: [1] } }), [
    "wrong-type /match/program/0",
  ]],
  ["duplicate program", guard({ match: { program: ["git", "git"] } }), [
    "duplicate-program /match/program/1",
  ]],
  ["duplicate prefix token", guard({ match: { program: ["git"], argv_prefix: ["a", "a"] } }), [
    "duplicate-token /match/argv_prefix/1",
  ]],
  [
    "duplicate contains token",
    guard({ match: { program: ["git"], argv_contains_all: ["a", "a"] } }),
    [
      "duplicate-token /match/argv_contains_all/1",
    ],
  ],
  ["empty token", guard({ match: { program: ["git"], argv_prefix: [""] } }), [
    "invalid-token /match/argv_prefix/0",
  ]],
  ["NUL token", guard({ match: { program: ["git"], argv_prefix: ["a\0b"] } }), [
    "invalid-token /match/argv_prefix/0",
  ]],
  [
    "policy value types",
    reduceRule({ success: policy({ head_lines: "1", tail_lines: 1.5, max_line_bytes: null }) }),
    [
      "not-an-integer /success/tail_lines",
      "wrong-type /success/head_lines",
      "wrong-type /success/max_line_bytes",
    ],
  ],
  ["policy missing field", reduceRule({ failure: { head_lines: 1 } }), [
    "missing-field /failure/max_line_bytes",
    "missing-field /failure/max_output_bytes",
    "missing-field /failure/min_savings_bytes",
    "missing-field /failure/tail_lines",
  ]],
  ["invalid id", guard({ id: "Git/Show" }), ["invalid-rule-id /id"]],
  ["id wrong type", guard({ id: 7 }), ["wrong-type /id"]],
];

for (const [name, value, expected] of ruleCases) {
  Deno.test(`rule: ${name}`, () => {
    assert.deepEqual(codes(value).sort(), [...expected].sort());
  });
}

Deno.test("rule: every error in a file is reported, positioned and sorted", () => {
  const text = `{"id":"A","match":{"program":["a b"],"x":1},"action":"reduce",
"reducer":{"kind":"head_tail","y":2},
"success":{"head_lines":-1,"tail_lines":0,"max_line_bytes":255,"max_output_bytes":1023,"min_savings_bytes":1048577},
"z":null}`;
  const result = validateRuleText("rules/a.json", text);
  assert.ok(!result.ok);
  assert.equal(
    formatDiagnostic(result.diagnostics[1]),
    'rules/a.json:1:7: /id: invalid rule id "A": use 1-128 of a-z 0-9 . _ - /, a letter or digit at both ends, no two separators in a row [invalid-rule-id]',
  );
  const summary = result.diagnostics.map((d) => `${d.line}:${d.column} ${d.pointer} ${d.code}`);
  assert.deepEqual(summary, [
    "1:1 /failure missing-field",
    "1:7 /id invalid-rule-id",
    "1:31 /match/program/0 invalid-program",
    "1:38 /match/x unknown-field",
    "2:31 /reducer/y unknown-field",
    "3:25 /success/head_lines limit-out-of-range",
    "3:60 /success/max_line_bytes limit-out-of-range",
    "3:83 /success/max_output_bytes limit-out-of-range",
    "3:108 /success/min_savings_bytes limit-out-of-range",
    "4:1 /z unknown-field",
  ]);
});

const policyLimits: [string, number, number][] = [
  ["head_lines", 0, LIMITS.headTailLinesMax],
  ["tail_lines", 0, LIMITS.headTailLinesMax],
  ["max_line_bytes", LIMITS.maxLineBytesMin, LIMITS.maxLineBytesMax],
  ["max_output_bytes", LIMITS.maxOutputBytesMin, LIMITS.maxOutputBytesMax],
  ["min_savings_bytes", 0, LIMITS.minSavingsBytesMax],
];

for (const [field, min, max] of policyLimits) {
  Deno.test(`policy ${field}: ${min} and ${max} pass, one past either fails`, () => {
    for (const value of [min, max]) {
      const both = { success: policy({ [field]: value }), failure: policy({ [field]: value }) };
      assert.deepEqual(codes(reduceRule(both)), []);
    }
    assert.deepEqual(codes(reduceRule({ success: policy({ [field]: max + 1 }) })), [
      `limit-out-of-range /success/${field}`,
    ]);
    const result = validateRuleText(
      "r.json",
      JSON.stringify(reduceRule({ failure: policy({ [field]: min - 1 }) })),
    );
    assert.ok(!result.ok);
    assert.equal(result.diagnostics[0].message, `must be at least ${min}`);
  });
}

Deno.test("policy: integers must be written as integers", () => {
  for (const spelling of ["12.0", "1.2e1", "12E0"]) {
    const text = JSON.stringify(reduceRule()).replace(
      '"head_lines":12',
      `"head_lines":${spelling}`,
    );
    assert.deepEqual(codes(JSON.parse(text)), []); // JSON.parse loses the spelling
    const result = validateRuleText("r.json", text);
    assert.ok(!result.ok);
    assert.deepEqual(result.diagnostics.map((d) => `${d.code} ${d.pointer}`), [
      "not-an-integer /success/head_lines",
    ]);
  }
});

Deno.test("warning: a failure policy smaller than the success policy, per field", () => {
  const result = validateRuleText(
    "r.json",
    JSON.stringify(reduceRule({ failure: policy({ head_lines: 11, max_output_bytes: 1024 }) })),
  );
  assert.ok(result.ok);
  assert.deepEqual(result.warnings.map((w) => `${w.code} ${w.pointer}`), [
    "failure-below-success /failure/head_lines",
    "failure-below-success /failure/max_output_bytes",
  ]);
});

Deno.test("patterns: 256 combined pass, 257 fail (per list and combined)", () => {
  const patterns = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ kind: "exact", value: `v${i}` }));
  assert.deepEqual(
    codes(reduceRule({ reducer: { kind: "line_filter", drop: patterns(256) } })),
    [],
  );
  assert.deepEqual(
    codes(
      reduceRule({ reducer: { kind: "line_filter", drop: patterns(128), keep: patterns(128) } }),
    ),
    [],
  );
  assert.deepEqual(codes(reduceRule({ reducer: { kind: "line_filter", keep: patterns(257) } })), [
    "too-many-patterns /reducer",
    "too-many-patterns /reducer/keep",
  ]);
  assert.deepEqual(
    codes(
      reduceRule({ reducer: { kind: "line_filter", drop: patterns(200), keep: patterns(57) } }),
    ),
    [
      "too-many-patterns /reducer",
    ],
  );
});

Deno.test("pattern values: 4,096 UTF-8 bytes pass, 4,097 fail, counted in bytes", () => {
  const rule = (value: string) =>
    reduceRule({ reducer: { kind: "line_filter", drop: [{ kind: "contains", value }] } });
  assert.deepEqual(codes(rule("a".repeat(4096))), []);
  assert.deepEqual(codes(rule("a".repeat(4097))), ["invalid-pattern /reducer/drop/0/value"]);
  assert.deepEqual(codes(rule("é".repeat(2048))), []);
  assert.deepEqual(codes(rule("é".repeat(2048) + "a")), ["invalid-pattern /reducer/drop/0/value"]);
  assert.deepEqual(codes(rule("€".repeat(1366))), ["invalid-pattern /reducer/drop/0/value"]);
});

Deno.test("programs: 32 unique pass, 33 fail; names up to 128 bytes; forbidden characters", () => {
  const programs = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);
  assert.deepEqual(codes(guard({ match: { program: programs(32) } })), []);
  assert.deepEqual(codes(guard({ match: { program: programs(33) } })), [
    "too-many-programs /match/program",
  ]);
  assert.deepEqual(codes(guard({ match: { program: ["a".repeat(128)] } })), []);
  assert.deepEqual(codes(guard({ match: { program: ["a".repeat(129)] } })), [
    "invalid-program /match/program/0",
  ]);
  for (
    const name of [
      "git",
      "g++",
      "python3.12",
      "x86_64-linux-gnu-gcc",
      "c:d",
      "a@b",
      "a^b",
      "a,b",
      ".",
    ]
  ) {
    assert.deepEqual(codes(guard({ match: { program: [name] } })), [], name);
  }
  const bad = [
    ..."|&;<>()$`\"'*?[]#~=%!{}/\\",
    " ",
    "\t",
    "\n",
    "\0",
    "\x7f",
    "\x1b",
    "é",
    "\u00a0",
  ];
  for (const char of bad) {
    assert.deepEqual(codes(guard({ match: { program: [`a${char}b`] } })), [
      "invalid-program /match/program/0",
    ], JSON.stringify(char));
  }
});

Deno.test("tokens: 64 unique pass, 65 fail; 1,024 scalar values pass, 1,025 fail", () => {
  const tokens = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);
  for (const field of ["argv_prefix", "argv_contains_all"]) {
    assert.deepEqual(codes(guard({ match: { program: ["git"], [field]: tokens(64) } })), []);
    assert.deepEqual(codes(guard({ match: { program: ["git"], [field]: tokens(65) } })), [
      `too-many-tokens /match/${field}`,
    ]);
    const astral = "😀".repeat(1024); // 2,048 UTF-16 code units, 1,024 scalars
    assert.deepEqual(codes(guard({ match: { program: ["git"], [field]: [astral] } })), []);
    assert.deepEqual(codes(guard({ match: { program: ["git"], [field]: [astral + "a"] } })), [
      `invalid-token /match/${field}/0`,
    ]);
  }
});

Deno.test("rule ids", () => {
  const valid = ["a", "0", "tests/example-test", "git/log.stat", "a_b", "a/b/c", "x".repeat(128)];
  const invalid = [
    "",
    "A",
    "a//b",
    "/a",
    "a/",
    "a-",
    "-a",
    "a..b",
    "a/-b",
    "a._b",
    "a b",
    "é",
    "x".repeat(129),
    "a\\b",
  ];
  for (const id of valid) assert.ok(isValidRuleId(id), id);
  for (const id of invalid) assert.ok(!isValidRuleId(id), id);
});

Deno.test("pack ids", () => {
  for (const id of ["team-ci", "rust-project", "example.tools", "a", "a_b", "x".repeat(128)]) {
    assert.ok(isValidPackId(id), id);
  }
  for (const id of ["Team", "-local", "local-", "two..parts", "a/b", "", "x".repeat(129), "a-.b"]) {
    assert.ok(!isValidPackId(id), id);
  }
});

Deno.test("rule paths", () => {
  for (
    const path of [
      "a.json",
      "rules/git/status.json",
      ".json",
      "a..b/c.json",
      "..a/b.json",
      "a b.json",
    ]
  ) {
    assert.equal(rulePathProblem(path), undefined, path);
  }
  for (
    const path of [
      "",
      "/a.json",
      "a\\b.json",
      "./a.json",
      "a/./b.json",
      "../a.json",
      "a/../b.json",
      "a//b.json",
      "a.txt",
      "a/",
      "a.json/",
      "a\0.json",
      "a.JSON",
    ]
  ) {
    assert.notEqual(rulePathProblem(path), undefined, path);
  }
});

Deno.test("manifest: valid, and maps to the model", () => {
  const result = validateManifestText(
    "pack.json",
    '{\n "schema_version": 1,\n "id": "team-ci",\n "rules": ["a.json", "b/c.json"]\n}',
  );
  assert.ok(result.ok);
  assert.deepEqual(result.manifest, {
    schemaVersion: 1,
    id: "team-ci",
    rules: ["a.json", "b/c.json"],
  });
  assert.deepEqual(result.rulePositions, [{ line: 4, column: 12 }, { line: 4, column: 22 }]);
});

const manifest = (over: Json) =>
  JSON.stringify({ schema_version: 1, id: "p", rules: ["a.json"], ...over });

const manifestCases: [string, string, string[]][] = [
  ["missing fields", "{}", [
    "missing-field /id",
    "missing-field /rules",
    "missing-field /schema_version",
  ]],
  ["unknown field", manifest({ include: [] }), ["unknown-field /include"]],
  ["version 2", manifest({ schema_version: 2 }), ["invalid-version /schema_version"]],
  ["version 0", manifest({ schema_version: 0 }), ["invalid-version /schema_version"]],
  ["version -1", manifest({ schema_version: -1 }), ["invalid-version /schema_version"]],
  ["version 1.5", manifest({ schema_version: 1.5 }), ["invalid-version /schema_version"]],
  ["version 1.0", manifest({}).replace('"schema_version":1', '"schema_version":1.0'), [
    "invalid-version /schema_version",
  ]],
  ["version 1e0", manifest({}).replace('"schema_version":1', '"schema_version":1e0'), [
    "invalid-version /schema_version",
  ]],
  ['version "1"', manifest({ schema_version: "1" }), ["invalid-version /schema_version"]],
  ["version null", manifest({ schema_version: null }), ["invalid-version /schema_version"]],
  ["invalid pack id", manifest({ id: "Team" }), ["invalid-pack-id /id"]],
  ["pack id wrong type", manifest({ id: 1 }), ["wrong-type /id"]],
  ["rules empty", manifest({ rules: [] }), ["empty-list /rules"]],
  ["rules wrong type", manifest({ rules: "a.json" }), ["wrong-type /rules"]],
  ["duplicate path", manifest({ rules: ["a.json", "b.json", "a.json"] }), [
    "duplicate-path /rules/2",
  ]],
  ["invalid paths", manifest({ rules: ["/a.json", "a\\b.json", "../a.json", "a.yaml"] }), [
    "invalid-path /rules/0",
    "invalid-path /rules/1",
    "invalid-path /rules/2",
    "invalid-path /rules/3",
  ]],
  ["duplicate pack id key", '{"schema_version":1,"id":"a","id":"b","rules":["a.json"]}', [
    "duplicate-key /id",
  ]],
];

for (const [name, text, expected] of manifestCases) {
  Deno.test(`manifest: ${name}`, () => {
    assert.deepEqual(manifestCodes(text).sort(), [...expected].sort());
  });
}

Deno.test("manifest: 10,000 rules pass, 10,001 fail", () => {
  const paths = (n: number) => Array.from({ length: n }, (_, i) => `r/${i}.json`);
  assert.deepEqual(manifestCodes(manifest({ rules: paths(10_000) })), []);
  assert.deepEqual(manifestCodes(manifest({ rules: paths(10_001) })), ["too-many-rules /rules"]);
});

Deno.test("invalid JSON and duplicate keys at every depth", () => {
  const cases: [string, string[]][] = [
    ['{"id": "a",}', ["invalid-json "]],
    ["", ["invalid-json "]],
    ["\uFEFF{}", ["invalid-json "]],
    ['{"id": "a"} {}', ["invalid-json "]],
    ["{/* c */}", ["invalid-json "]],
    ['{"id": "a\tb"}', ["invalid-json /id"]],
    ['{"id": "\\ud800"}', ["invalid-json /id"]],
    ['{"id": "a", "id": "a"}', ["duplicate-key /id"]],
    ['{"match": {"program": [], "program": []}}', ["duplicate-key /match/program"]],
    ['{"reducer": {"drop": [{"kind": 1, "kind": 2}]}}', ["duplicate-key /reducer/drop/0/kind"]],
    ['{"success": {"head_lines": 1, "head_lines": 1}}', ["duplicate-key /success/head_lines"]],
  ];
  for (const [text, expected] of cases) {
    const result = validateRuleText("r.json", text);
    assert.ok(!result.ok, text);
    assert.deepEqual(result.diagnostics.map((d) => `${d.code} ${d.pointer}`), expected, text);
  }
});

const anyJsonText = fc.oneof(
  fc.string(),
  fc.json(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.constantFrom(JSON.stringify(reduceRule()), JSON.stringify(guard())).map((s) => s),
  fc.tuple(fc.constantFrom(JSON.stringify(reduceRule())), fc.nat(), fc.string()).map((
    [s, at, insert],
  ) => s.slice(0, at % s.length) + insert + s.slice(at % s.length)),
);

function assertWellFormed(result: { ok: boolean; diagnostics?: SourceDiagnostic[] }): void {
  if (result.ok) return;
  assert.ok(result.diagnostics && result.diagnostics.length > 0);
  for (const d of result.diagnostics) {
    const line = formatDiagnostic(d);
    assert.ok(!/[\n\r\u2028\u2029]/.test(line), line);
    assert.ok(d.line >= 1 && d.column >= 1);
    assert.match(d.code, /^[a-z]+(?:-[a-z0-9]+)*$/);
  }
}

Deno.test("property: validators never throw, are deterministic, and give one-line diagnostics", () => {
  fc.assert(
    fc.property(anyJsonText, (text) => {
      for (const validate of [validateRuleText, validateManifestText]) {
        const first = validate("f.json", text);
        assert.deepEqual(validate("f.json", text), first);
        assertWellFormed(first);
      }
    }),
    { numRuns: 500 },
  );
});

Deno.test("property: structured rule-like values never throw", () => {
  const value = fc.jsonValue({ maxDepth: 3 });
  const ruleLike = fc.record({
    id: value,
    match: fc.oneof(value, fc.record({ program: value, argv_prefix: value }, { requiredKeys: [] })),
    action: fc.oneof(value, fc.constantFrom("reduce", "transform", "passthrough")),
    reducer: fc.oneof(
      value,
      fc.record({ kind: fc.constantFrom("head_tail", "line_filter"), drop: value }),
    ),
    success: value,
  }, { requiredKeys: [] });
  fc.assert(
    fc.property(ruleLike, (rule) => {
      const result = validateRuleText("r.json", JSON.stringify(rule));
      assertWellFormed(result);
    }),
    { numRuns: 500 },
  );
});
