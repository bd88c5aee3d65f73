// Specification of the rule registry: layer order, id conflicts between
// packs, and the fixed selection algorithm of docs/architecture.md ("Registry and
// matcher implementation", "Matcher tests", "Property and fuzz testing").
import assert from "node:assert/strict";
import fc from "fast-check";
import { normalizeArgv } from "../lib/rules/argv.ts";
import { matchesRule } from "../lib/rules/matcher.ts";
import type {
  OutputPolicy,
  PassthroughRule,
  ReductionRule,
  Rule,
  RulePack,
  RuleSource,
  TransformRule,
} from "../lib/rules/model.ts";
import { BUILTIN_PROGRAM_INDEX, isBuiltinProgram } from "../lib/rules/builtin_programs.ts";
import {
  BUILTIN_PACK,
  builtinRuleSource,
  createRuleRegistry,
  type RuleRef,
  ruleSourceFromPack,
  type Selection,
} from "../lib/rules/registry.ts";

const POLICY: OutputPolicy = {
  headLines: 160,
  tailLines: 40,
  maxLineBytes: 16_384,
  maxOutputBytes: 65_536,
  minSavingsBytes: 0,
};

type Match = readonly [
  programs: readonly string[],
  prefix?: readonly string[],
  all?: readonly string[],
];

function matcher([programs, argvPrefix = [], argvContainsAll = []]: Match) {
  return { programs, argvPrefix, argvContainsAll };
}

function reduce(id: string, ...match: Match): ReductionRule {
  return {
    id,
    action: "reduce",
    match: matcher(match),
    reducer: { kind: "head_tail" },
    success: POLICY,
    failure: POLICY,
  };
}

function transform(id: string, ...match: Match): TransformRule {
  return { id, action: "transform", match: matcher(match), transform: "line_preserving" };
}

function guard(id: string, ...match: Match): PassthroughRule {
  return { id, action: "passthrough", match: matcher(match) };
}

function pack(id: string, rules: readonly Rule[]): RulePack {
  return { id, sourceDigest: "0".repeat(64), rules };
}

/** The selection with rules replaced by `packId:ruleId`, for compact expectations. */
function summary(selection: Selection): unknown {
  const name = (ref: RuleRef) => `${ref.packId}:${ref.rule.id}`;
  switch (selection.outcome) {
    case "reduce":
    case "transform":
      return [selection.outcome, name(selection.match)];
    case "guarded":
      return [selection.outcome, selection.guards.map(name), selection.shadowed.map(name)];
    case "ambiguous":
      return [selection.outcome, selection.matches.map(name)];
    case "unsupported":
      return [selection.outcome, selection.reason];
    case "invalid-pack":
      return [selection.outcome, selection.packId, selection.message];
  }
}

const BASE = ruleSourceFromPack(
  pack("base", [
    reduce("git/status", ["git"], ["status"]),
    reduce("git/diff", ["git"], ["diff"]),
    guard("git/diff-exact", ["git"], ["diff"], ["--exit-code"]),
    guard("git/diff-raw", ["git"], ["diff"], ["--raw"]),
    reduce("cargo/test", ["cargo"], ["test"]),
    reduce("search/rg", ["rg"]),
    transform("filters/grep", ["grep"]),
    reduce("npm/test", ["npm", "pnpm"], ["test"]),
  ]),
  "builtin",
);

const EXTRA = ruleSourceFromPack(
  pack("extra", [
    reduce("extra/cargo-test-json", ["cargo"], ["test"], ["--message-format"]),
    guard("extra/rg-json", ["rg"], [], ["--json"]),
    transform("extra/grep-count", ["grep"], [], ["-c"]),
    reduce("extra/npm-test", ["npm"], ["test"], ["--reporter=dot"]),
    guard("extra/a-git-diff-guard", ["git"], ["diff"], ["--raw"]),
  ]),
  "external",
);

/** [argv, expected summary] */
const SELECTIONS: readonly (readonly [readonly string[], unknown])[] = [
  [["git", "status"], ["reduce", "base:git/status"]],
  [["git", "-C", "repo", "--no-pager", "status", "-sb"], ["reduce", "base:git/status"]],
  [["cargo", "+nightly", "test"], ["reduce", "base:cargo/test"]],
  [["pnpm", "test"], ["reduce", "base:npm/test"]],
  [["grep", "x", "f"], ["transform", "base:filters/grep"]],
  // a pass-through guard wins over every reduction it shadows
  [["git", "diff", "--exit-code"], ["guarded", ["base:git/diff-exact"], ["base:git/diff"]]],
  [["rg", "--json", "TODO"], ["guarded", ["extra:extra/rg-json"], ["base:search/rg"]]],
  // guards and shadowed rules sorted by layer, then rule id
  [
    ["git", "diff", "--raw", "--exit-code"],
    [
      "guarded",
      ["base:git/diff-exact", "base:git/diff-raw", "extra:extra/a-git-diff-guard"],
      ["base:git/diff"],
    ],
  ],
  // several reduce or transform matches: ambiguity, never a pick
  [
    ["cargo", "test", "--message-format=json"],
    ["ambiguous", ["base:cargo/test", "extra:extra/cargo-test-json"]],
  ],
  [
    ["npm", "test", "--reporter=dot"],
    ["ambiguous", ["base:npm/test", "extra:extra/npm-test"]],
  ],
  [["grep", "-c", "x"], ["ambiguous", ["base:filters/grep", "extra:extra/grep-count"]]],
  // unsupported, with the reason
  [[], ["unsupported", "no-program"]],
  [[""], ["unsupported", "no-program"]],
  [["/usr/bin/git", "status"], ["unsupported", "unknown-program"]],
  [["./rg", "x"], ["unsupported", "unknown-program"]],
  [["make", "test"], ["unsupported", "unknown-program"]],
  [["GIT", "status"], ["unsupported", "unknown-program"]],
  [["git", "log"], ["unsupported", "no-rule-matched"]],
  [["git", "-C"], ["unsupported", "no-rule-matched"]],
  [["git", "-C", "", "status"], ["unsupported", "no-rule-matched"]],
  [["git", "--git-dir=", "status"], ["unsupported", "no-rule-matched"]],
  [["cargo", "build"], ["unsupported", "no-rule-matched"]],
];

Deno.test("select follows the fixed selection algorithm", () => {
  const registry = createRuleRegistry([BASE, EXTRA]);
  assert.deepEqual(registry.disabled, []);
  for (const [argv, expected] of SELECTIONS) {
    assert.deepEqual(summary(registry.select(argv)), expected, JSON.stringify(argv));
  }
});

Deno.test("a selected rule is the pack's own rule object", () => {
  const selection = createRuleRegistry([BASE]).select(["git", "status"]);
  assert.equal(selection.outcome, "reduce");
  assert.equal(selection.match.rule, BASE.candidates("git").find((r) => r.id === "git/status"));
});

Deno.test("a duplicate rule id disables the later external pack, never a built-in", () => {
  const first = ruleSourceFromPack(pack("first", [reduce("x/rg", ["rg"])]), "external");
  const second = ruleSourceFromPack(
    pack("second", [reduce("y/make", ["make"]), reduce("x/rg", ["rg"], ["-l"])]),
    "external",
  );
  const third = ruleSourceFromPack(pack("third", [reduce("z/tsc", ["tsc"])]), "external");
  const registry = createRuleRegistry([first, second, third]);
  assert.deepEqual(registry.sources.map((s) => s.packId), ["first", "third"]);
  assert.deepEqual(registry.disabled, [{
    packId: "second",
    reason: "duplicate-rule-id",
    conflictingPackId: "first",
    conflictingRuleId: "x/rg",
    message: 'rule pack "second" disabled: rule id "x/rg" is already defined by pack "first"',
  }]);
  assert.deepEqual(summary(registry.select(["rg", "-l", "x"])), ["reduce", "first:x/rg"]);
  assert.deepEqual(summary(registry.select(["make"])), ["unsupported", "unknown-program"]);
  assert.deepEqual(summary(registry.select(["tsc"])), ["reduce", "third:z/tsc"]);
});

Deno.test("an external pack repeating a built-in rule id is disabled; the built-in stays", () => {
  const external = ruleSourceFromPack(
    pack("team", [reduce("git/status", ["git"], ["status"]), reduce("team/make", ["make"])]),
    "external",
  );
  const registry = createRuleRegistry([BASE, external]);
  assert.deepEqual(registry.sources.map((s) => s.packId), ["base"]);
  assert.equal(registry.disabled.length, 1);
  assert.equal(registry.disabled[0].packId, "team");
  assert.equal(registry.disabled[0].conflictingPackId, "base");
  assert.equal(registry.disabled[0].conflictingRuleId, "git/status");
  assert.deepEqual(summary(registry.select(["git", "status"])), ["reduce", "base:git/status"]);
  assert.deepEqual(summary(registry.select(["make"])), ["unsupported", "unknown-program"]);
});

Deno.test("the smallest conflicting rule id is reported", () => {
  const first = ruleSourceFromPack(
    pack("first", [reduce("b", ["b"]), reduce("c", ["c"])]),
    "external",
  );
  const second = ruleSourceFromPack(
    pack("second", [reduce("c", ["c"]), reduce("b", ["b"]), reduce("a", ["a"])]),
    "external",
  );
  assert.equal(createRuleRegistry([first, second]).disabled[0].conflictingRuleId, "b");
});

Deno.test("a duplicate pack id disables the later external pack", () => {
  const first = ruleSourceFromPack(pack("team", [reduce("a/rg", ["rg"])]), "external");
  const second = ruleSourceFromPack(pack("team", [reduce("b/rg", ["rg"], ["-l"])]), "external");
  const clashWithBuiltin = ruleSourceFromPack(pack("base", [reduce("c/x", ["x"])]), "external");
  const registry = createRuleRegistry([BASE, first, second, clashWithBuiltin]);
  assert.deepEqual(registry.sources.map((s) => s.packId), ["base", "team"]);
  assert.deepEqual(
    registry.disabled.map((d) => [d.packId, d.reason, d.conflictingPackId, d.conflictingRuleId]),
    [["team", "duplicate-pack-id", "team", undefined], [
      "base",
      "duplicate-pack-id",
      "base",
      undefined,
    ]],
  );
  assert.deepEqual(summary(registry.select(["rg", "-l"])), ["ambiguous", [
    "base:search/rg",
    "team:a/rg",
  ]]);
});

Deno.test("a pack disabled for a conflict does not block later packs", () => {
  const clash = ruleSourceFromPack(
    pack("clash", [reduce("git/status", ["git"]), reduce("u", ["u"])]),
    "external",
  );
  const later = ruleSourceFromPack(pack("later", [reduce("u", ["u"])]), "external");
  const registry = createRuleRegistry([BASE, clash, later]);
  assert.deepEqual(registry.sources.map((s) => s.packId), ["base", "later"]);
  assert.deepEqual(summary(registry.select(["u"])), ["reduce", "later:u"]);
});

Deno.test("a built-in source after an external pack is a caller bug", () => {
  assert.throws(() => createRuleRegistry([EXTRA, BASE]), TypeError);
});

Deno.test("a source that throws while answering makes the selection invalid-pack", () => {
  const corrupt: RuleSource = {
    packId: "corrupt",
    origin: "external",
    ruleIds: ["c/x"],
    programs: ["git", "x"],
    candidates() {
      throw new Error("record 3 digest mismatch\nmore detail");
    },
    allRules() {
      throw new Error("record 3 digest mismatch");
    },
  };
  const registry = createRuleRegistry([BASE, corrupt]);
  assert.deepEqual(summary(registry.select(["git", "status"])), [
    "invalid-pack",
    "corrupt",
    "record 3 digest mismatch",
  ]);
  const thrower: RuleSource = {
    ...corrupt,
    candidates: () => {
      throw "not an Error";
    },
  };
  assert.deepEqual(summary(createRuleRegistry([thrower]).select(["x"])), [
    "invalid-pack",
    "corrupt",
    "not an Error",
  ]);
  // argv that cannot name a program never reaches a source
  assert.deepEqual(summary(registry.select(["/bin/git"])), ["unsupported", "unknown-program"]);
});

Deno.test("a 10,000-rule registry consults only the one small program bucket", () => {
  let matcherReads = 0;
  const counted = (rule: Rule): Rule => {
    const match = rule.match;
    return {
      ...rule,
      get match() {
        matcherReads += 1;
        return match;
      },
    } as Rule;
  };
  const rules: Rule[] = [];
  for (let index = 0; index < 9_997; index += 1) {
    rules.push(counted(reduce(`bulk/r${String(index).padStart(5, "0")}`, [`tool${index % 500}`])));
  }
  rules.push(counted(reduce("small/status", ["git"], ["status"])));
  rules.push(counted(guard("small/status-z", ["git"], ["status"], ["-z"])));
  rules.push(counted(reduce("small/diff", ["git"], ["diff"])));
  const inner = ruleSourceFromPack(pack("big", rules), "external");
  const asked: string[] = [];
  const counting: RuleSource = {
    ...inner,
    candidates(program) {
      asked.push(program);
      return inner.candidates(program);
    },
  };
  const registry = createRuleRegistry([counting]);
  matcherReads = 0;
  assert.deepEqual(summary(registry.select(["git", "status", "-sbz"])), [
    "guarded",
    ["big:small/status-z"],
    ["big:small/status"],
  ]);
  assert.deepEqual(asked, ["git"]);
  assert.equal(inner.candidates("git").length, 3);
  assert.equal(matcherReads, 3, "only the three git rules were tested");
});

Deno.test("ruleSourceFromPack indexes every program, each bucket sorted by rule id", () => {
  const source = ruleSourceFromPack(
    pack("p", [
      reduce("m/zeta", ["npm", "pnpm"]),
      guard("m/alpha", ["pnpm"]),
      transform("m/Beta", ["npm"]),
      reduce("m/beta", ["npm"]),
    ]),
    "external",
  );
  assert.equal(source.packId, "p");
  assert.equal(source.origin, "external");
  assert.deepEqual(source.ruleIds, ["m/Beta", "m/alpha", "m/beta", "m/zeta"]);
  assert.deepEqual(source.candidates("npm").map((r) => r.id), ["m/Beta", "m/beta", "m/zeta"]);
  assert.deepEqual(source.candidates("pnpm").map((r) => r.id), ["m/alpha", "m/zeta"]);
  assert.deepEqual(source.candidates("yarn"), []);
  assert.deepEqual(source.candidates("NPM"), []);
  assert.throws(
    () => ruleSourceFromPack(pack("d", [reduce("a", ["x"]), reduce("a", ["y"])]), "external"),
    TypeError,
  );
});

Deno.test("builtinRuleSource serves the generated tables as given, built once", () => {
  const source = builtinRuleSource();
  assert.equal(builtinRuleSource(), source);
  assert.equal(source.origin, "builtin");
  assert.equal(source.packId, BUILTIN_PACK.id);
  assert.deepEqual(source.ruleIds, BUILTIN_PACK.rules.map((r) => r.id).sort());
  for (const [program, indexes] of BUILTIN_PROGRAM_INDEX) {
    assert.deepEqual(source.candidates(program), indexes.map((i) => BUILTIN_PACK.rules[i]));
  }
  assert.deepEqual(source.candidates("no-such-program-here"), []);
  const registry = createRuleRegistry([source]);
  assert.deepEqual(summary(registry.select(["no-such-program-here"])), [
    "unsupported",
    "unknown-program",
  ]);
});

Deno.test("isBuiltinProgram names exactly the programs the built-in rules have candidates for", () => {
  const source = builtinRuleSource();
  const named = new Set(BUILTIN_PACK.rules.flatMap((rule) => rule.match.programs));
  assert.deepEqual(new Set(BUILTIN_PROGRAM_INDEX.map(([program]) => program)), named);
  fc.assert(
    fc.property(
      fc.oneof(fc.constantFrom(...named, "true", "/usr/bin/git", "GIT", "git "), fc.string()),
      (program) => {
        assert.equal(isBuiltinProgram(program), source.candidates(program).length > 0, program);
      },
    ),
    { numRuns: 500 },
  );
});

/** [argv, the built-in guards that win, the built-in reductions they shadow] */
const BUILTIN_GUARDED: readonly (readonly [readonly string[], string[], string[]])[] = [
  // make: short bundles count letter by letter; every long name of -n and -p
  [["make", "-np"], ["build/make-guard-dry-run", "build/make-guard-print-db"], ["build/make"]],
  [["make", "-Bn"], ["build/make-guard-dry-run"], ["build/make"]],
  [["gmake", "-C", "src", "-kn"], ["build/make-guard-dry-run"], ["build/make"]],
  [["make", "--dry-run"], ["build/make-guard-dry-run-long"], ["build/make"]],
  [["make", "--just-print"], ["build/make-guard-just-print"], ["build/make"]],
  [["make", "--recon"], ["build/make-guard-recon"], ["build/make"]],
  [["make", "--print-data-base"], ["build/make-guard-print-data-base"], ["build/make"]],
  // grep, rg, ls, find
  [["egrep", "--count", "x", "f"], ["search/guard-grep-count-long"], ["search/grep"]],
  [["grep", "--null-data", "x", "f"], ["search/guard-grep-null-data-long"], ["search/grep"]],
  [["rg", "--null-data", "x"], ["search/guard-rg-null-data"], ["search/rg"]],
  [["ls", "--zero", "-l"], ["list/guard-ls-zero"], ["list/ls"]],
  [["find", ".", "-printf", "%p\\n"], ["list/guard-find-printf"], ["list/find"]],
  [["find", ".", "-fprint0", "out"], ["list/guard-find-fprint0"], ["list/find"]],
  // tsc and npx tsc
  [["npx", "tsc", "--listFiles"], ["build/npx-tsc-guard-listfiles"], ["build/npx-tsc"]],
  [["npx", "tsc", "--showConfig"], ["build/npx-tsc-guard-showconfig"], ["build/npx-tsc"]],
  [["npx", "tsc", "--listEmittedFiles"], ["build/npx-tsc-guard-listemittedfiles"], [
    "build/npx-tsc",
  ]],
  [["tsc", "--listEmittedFiles"], ["build/tsc-guard-listemittedfiles"], ["build/tsc"]],
  // a runner's JSON report: the raw token, before or after `--`
  [["npm", "test", "--", "--reporter=json"], ["tests/npm-guard-reporter-json"], [
    "tests/npm-test",
  ]],
  [["pnpm", "test", "--", "--reporter=json"], ["tests/pnpm-guard-reporter-json"], [
    "tests/pnpm-test",
  ]],
  [["yarn", "run", "test", "--reporter=json"], ["tests/yarn-guard-reporter-json"], [
    "tests/yarn-run-test",
  ]],
  [["go", "test", "-json=true", "./..."], ["tests/go-guard-json-true"], ["tests/go-test"]],
  // libtest's format after `--`, separate or assigned
  [["cargo", "test", "--", "--format", "json"], ["tests/cargo-guard-format"], [
    "tests/cargo-test",
  ]],
  [["cargo", "test", "--", "--format=json"], ["tests/cargo-guard-format-json"], [
    "tests/cargo-test",
  ]],
  [["git", "diff", "--patch-with-raw"], ["git/guard-patch-with-raw"], ["git/diff"]],
];

/** [argv, the built-in rule it reduces with]: near forms the guards above leave alone. */
const BUILTIN_REDUCED: readonly (readonly [readonly string[], string])[] = [
  [["make", "-j4", "all"], "build/make"],
  [["make", "-jn"], "build/make"], // `n` is -j's (invalid) value, not a dry run
  [["make", "-Cn"], "build/make"], // `n` is the directory
  [["npm", "test", "--", "--reporter=dot"], "tests/npm-test"],
  [["cargo", "test", "--", "--format=pretty"], "tests/cargo-test"],
  [["go", "test", "-json=false", "./..."], "tests/go-test"],
];

Deno.test("built-in guards win over the reductions they shadow, and only for their forms", () => {
  const registry = createRuleRegistry([builtinRuleSource()]);
  const ids = (refs: readonly RuleRef[]) => refs.map((ref) => ref.rule.id);
  for (const [argv, guards, shadowed] of BUILTIN_GUARDED) {
    const selection = registry.select(argv);
    assert.equal(selection.outcome, "guarded", JSON.stringify(argv));
    if (selection.outcome !== "guarded") continue;
    assert.deepEqual(ids(selection.guards), guards, JSON.stringify(argv));
    assert.deepEqual(ids(selection.shadowed), shadowed, JSON.stringify(argv));
  }
  for (const [argv, rule] of BUILTIN_REDUCED) {
    const selection = registry.select(argv);
    assert.equal(selection.outcome, "reduce", JSON.stringify(argv));
    if (selection.outcome === "reduce") assert.equal(selection.match.rule.id, rule);
  }
});

// ---- properties over generated rule sets ----

const PROGRAMS = ["git", "npm"] as const;
const WORDS = ["status", "diff", "test", "-s", "-z", "--json", "--x=1"] as const;

const ruleSpec = fc.record({
  action: fc.constantFrom("reduce", "transform", "passthrough"),
  programs: fc.subarray([...PROGRAMS], { minLength: 1 }),
  prefix: fc.array(fc.constantFrom(...WORDS), { maxLength: 2 }),
  all: fc.uniqueArray(fc.constantFrom(...WORDS, "--x"), { maxLength: 2 }),
  external: fc.boolean(),
});

const argvArb = fc.tuple(
  fc.constantFrom(...PROGRAMS, "cargo"),
  fc.array(fc.constantFrom(...WORDS, "-sz", "--", "-C", "repo"), { maxLength: 5 }),
).map(([program, args]) => [program, ...args]);

type RuleSpec = typeof ruleSpec extends fc.Arbitrary<infer T> ? T : never;

function buildSources(specs: readonly RuleSpec[]): RuleSource[] {
  const rules = specs.map((spec, index) => {
    const id = `gen/r${index}`;
    const match: Match = [spec.programs, spec.prefix, spec.all];
    const rule = spec.action === "reduce"
      ? reduce(id, ...match)
      : spec.action === "transform"
      ? transform(id, ...match)
      : guard(id, ...match);
    return { rule, external: spec.external };
  });
  return [
    ruleSourceFromPack(
      pack("gen-builtin", rules.filter((r) => !r.external).map((r) => r.rule)),
      "builtin",
    ),
    ruleSourceFromPack(
      pack("gen-external", rules.filter((r) => r.external).map((r) => r.rule)),
      "external",
    ),
  ];
}

Deno.test("property: selection is deterministic", () => {
  fc.assert(
    fc.property(fc.array(ruleSpec, { maxLength: 12 }), argvArb, (specs, argv) => {
      const first = createRuleRegistry(buildSources(specs)).select(argv);
      const again = createRuleRegistry(buildSources(specs)).select([...argv]);
      assert.deepEqual(again, first);
    }),
  );
});

Deno.test("property: a matching guard always wins and ambiguity never picks a rule", () => {
  fc.assert(
    fc.property(fc.array(ruleSpec, { maxLength: 12 }), argvArb, (specs, argv) => {
      const sources = buildSources(specs);
      const selection = createRuleRegistry(sources).select(argv);
      const normalized = normalizeArgv(argv)!;
      const matching = sources.flatMap((s) =>
        s.candidates(argv[0]).filter((rule) => matchesRule(rule, normalized))
      );
      const guards = matching.filter((rule) => rule.action === "passthrough");
      const others = matching.filter((rule) => rule.action !== "passthrough");
      if (guards.length > 0) {
        assert.equal(selection.outcome, "guarded");
        assert.deepEqual(new Set(selection.guards.map((r) => r.rule)), new Set(guards));
        assert.deepEqual(new Set(selection.shadowed.map((r) => r.rule)), new Set(others));
      } else if (others.length >= 2) {
        assert.equal(selection.outcome, "ambiguous");
        assert.deepEqual(new Set(selection.matches.map((r) => r.rule)), new Set(others));
      } else if (others.length === 1) {
        assert.equal(selection.outcome, others[0].action);
      } else {
        assert.equal(selection.outcome, "unsupported");
      }
    }),
  );
});

Deno.test("property: select never throws on arbitrary argv", () => {
  const registry = createRuleRegistry([BASE, EXTRA]);
  const arg = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 10 }),
    fc.constantFrom("git", "rg", "-C", "--", "-sbz", "--repo=", "+", "status"),
  );
  fc.assert(
    fc.property(fc.array(arg, { maxLength: 10 }), (argv) => {
      const selection = registry.select(argv);
      assert.ok(selection.outcome.length > 0);
    }),
    { numRuns: 2_000 },
  );
});

Deno.test("rules() lists every enabled rule in layer order, then by id", () => {
  const registry = createRuleRegistry([BASE, EXTRA]);
  const listed = registry.rules().map((ref) => `${ref.packId}:${ref.rule.id}`);
  const expected = registry.sources.flatMap((source) =>
    [...source.ruleIds].map((id) => `${source.packId}:${id}`)
  );
  assert.deepEqual(listed, expected);
  assert.ok(listed.length > 0);
});
