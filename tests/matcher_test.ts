// Specification of the argv matcher (docs/architecture.md, "Command matching" and the
// "Matcher tests" matrix).
import assert from "node:assert/strict";
import fc from "fast-check";
import { normalizeArgv } from "../lib/rules/argv.ts";
import { matchesRule } from "../lib/rules/matcher.ts";
import type { PassthroughRule } from "../lib/rules/model.ts";

function guard(
  programs: readonly string[],
  argvPrefix: readonly string[] = [],
  argvContainsAll: readonly string[] = [],
): PassthroughRule {
  return { id: "t/guard", action: "passthrough", match: { programs, argvPrefix, argvContainsAll } };
}

/** [description, rule, argv, expected match] */
const CASES: readonly (readonly [string, PassthroughRule, readonly string[], boolean])[] = [
  // program names
  ["exact program, empty prefix", guard(["rg"]), ["rg", "TODO"], true],
  ["program alone", guard(["rg"]), ["rg"], true],
  ["one of several programs", guard(["npm", "pnpm"], ["test"]), ["pnpm", "test"], true],
  ["other program", guard(["rg"]), ["grep", "TODO"], false],
  ["case-sensitive program", guard(["git"]), ["Git", "status"], false],
  ["program is not a prefix", guard(["git"]), ["git-lfs", "status"], false],
  // argv_prefix
  ["exact prefix", guard(["git"], ["status"]), ["git", "status"], true],
  ["prefix then more", guard(["npm"], ["run", "test"]), ["npm", "run", "test", "--x"], true],
  ["prefix longer than tail", guard(["npm"], ["run", "test"]), ["npm", "run"], false],
  ["prefix elsewhere in tail", guard(["git"], ["status"]), ["git", "-v", "status"], false],
  ["prefix tokens are whole", guard(["git"], ["stat"]), ["git", "status"], false],
  ["prefix order matters", guard(["npm"], ["run", "test"]), ["npm", "test", "run"], false],
  ["prefix after skipped option", guard(["git"], ["status"]), ["git", "-C", "r", "status"], true],
  ["prefix after incomplete option", guard(["git"], ["status"]), ["git", "-C"], false],
  [
    "prefix after unknown option",
    guard(["git"], ["status"]),
    ["git", "--exec-path=x", "status"],
    false,
  ],
  ["prefix after cargo toolchain", guard(["cargo"], ["test"]), ["cargo", "+nightly", "test"], true],
  ["prefix is not normalised", guard(["git"], ["-s"]), ["git", "-sb"], false],
  // argv_contains_all
  ["token first", guard(["rg"], [], ["--json"]), ["rg", "--json", "x", "src"], true],
  ["token middle", guard(["rg"], [], ["--json"]), ["rg", "x", "--json", "src"], true],
  ["token last", guard(["rg"], [], ["--json"]), ["rg", "x", "src", "--json"], true],
  ["all tokens any order", guard(["rg"], [], ["-l", "--json"]), ["rg", "--json", "x", "-l"], true],
  ["one token missing", guard(["rg"], [], ["-l", "--json"]), ["rg", "--json", "x"], false],
  ["no substring match", guard(["rg"], [], ["json"]), ["rg", "--json", "x"], false],
  ["no token in program", guard(["rg"], [], ["rg"]), ["rg", "x"], false],
  ["no token in skipped options", guard(["git"], [], ["-C"]), ["git", "-C", "r", "log"], false],
  [
    "long assignment name",
    guard(["git"], ["log"], ["--format"]),
    ["git", "log", "--format=%H"],
    true,
  ],
  [
    "never the assigned value",
    guard(["git"], ["log"], ["%H"]),
    ["git", "log", "--format=%H"],
    false,
  ],
  ["bundled flag", guard(["git"], ["status"], ["-z"]), ["git", "status", "-sbz"], true],
  ["attached value option", guard(["git"], ["diff"], ["-U"]), ["git", "diff", "-U10"], true],
  ["never the attached value", guard(["git"], ["diff"], ["-1"]), ["git", "diff", "-U1"], false],
  ["nothing normalised after --", guard(["rg"], [], ["-i"]), ["rg", "--", "-iw"], false],
  ["raw token after -- is a token", guard(["rg"], [], ["-i"]), ["rg", "--", "x", "-i"], true],
  ["raw token after -- exact", guard(["rg"], [], ["-iw"]), ["rg", "--", "-iw"], true],
  // prefix and tokens together
  [
    "prefix and tokens",
    guard(["npm", "pnpm"], ["run", "test"], ["--reporter=dot"]),
    ["npm", "run", "test", "--reporter=dot"],
    true,
  ],
];

Deno.test("matchesRule follows the program, prefix and token table", () => {
  for (const [description, rule, argv, expected] of CASES) {
    const normalized = normalizeArgv(argv);
    assert.ok(normalized !== undefined, description);
    assert.equal(matchesRule(rule, normalized), expected, description);
  }
});

Deno.test("property: an empty matcher matches every argv of its program and no other", () => {
  const word = fc.string({ maxLength: 6 });
  fc.assert(
    fc.property(
      fc.constantFrom("git", "rg", "npm"),
      fc.array(word, { maxLength: 8 }),
      (p, args) => {
        const normalized = normalizeArgv([p, ...args])!;
        assert.equal(matchesRule(guard(["git", "rg", "npm"]), normalized), true);
        assert.equal(matchesRule(guard(["cargo"]), normalized), false);
      },
    ),
  );
});

Deno.test("property: a rule built from an argv's own tail prefix and tokens matches it", () => {
  const word = fc.string({ maxLength: 6 }).filter((w) => !w.startsWith("-") && !w.startsWith("+"));
  fc.assert(
    fc.property(fc.array(word, { minLength: 1, maxLength: 8 }), fc.nat(8), (args, cut) => {
      const normalized = normalizeArgv(["cargo", ...args])!;
      const prefix = args.slice(0, Math.min(cut, args.length));
      const rule = guard(["cargo"], prefix, [...normalized.tokens].sort().slice(0, 3));
      assert.equal(matchesRule(rule, normalized), true);
      assert.equal(matchesRule(guard(["cargo"], [...args, "extra"]), normalized), false);
    }),
  );
});
