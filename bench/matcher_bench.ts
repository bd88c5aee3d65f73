// Rule lookup benchmarks (docs/architecture.md, "Performance gates": built-in rule lookup
// p95 ≤ 1 µs).
//
// - "built-in-style": a realistic in-memory registry of 60 rules over 12
//   programs (synthetic, since the generated built-in table may be empty),
//   one `select` per iteration for several argv shapes.
// - "10,000 rules": one external pack of 10,000 rules over 1,001 programs,
//   selecting from a bucket of 3 rules.
//
// Run: deno bench --allow-read bench/matcher_bench.ts
import type { OutputPolicy, Rule, RulePack } from "../lib/rules/model.ts";
import { createRuleRegistry, ruleSourceFromPack } from "../lib/rules/registry.ts";

const POLICY: OutputPolicy = {
  headLines: 160,
  tailLines: 40,
  maxLineBytes: 16_384,
  maxOutputBytes: 65_536,
  minSavingsBytes: 0,
};

function rule(
  id: string,
  action: Rule["action"],
  programs: readonly string[],
  argvPrefix: readonly string[] = [],
  argvContainsAll: readonly string[] = [],
): Rule {
  const match = { programs, argvPrefix, argvContainsAll };
  if (action === "passthrough") return { id, action, match };
  if (action === "transform") return { id, action, match, transform: "line_preserving" };
  return { id, action, match, reducer: { kind: "head_tail" }, success: POLICY, failure: POLICY };
}

function pack(id: string, rules: readonly Rule[]): RulePack {
  return { id, sourceDigest: "0".repeat(64), rules };
}

const GIT = ["status", "diff", "log", "show", "fetch", "pull", "push", "branch", "grep", "blame"];
const builtinStyle: Rule[] = [
  ...GIT.map((sub) => rule(`git/${sub}`, "reduce", ["git"], [sub])),
  ...["--porcelain", "-z", "--exit-code", "--raw"].map((token, index) =>
    rule(`git/guard-${index}`, "passthrough", ["git"], [index < 2 ? "status" : "diff"], [token])
  ),
  ...["test", "build", "check", "clippy", "run", "bench", "doc", "fmt"].map((sub) =>
    rule(`cargo/${sub}`, "reduce", ["cargo"], [sub])
  ),
  rule("cargo/guard-fmt-check", "passthrough", ["cargo"], ["fmt"], ["--check"]),
  ...["test", "ci", "install", "audit", "outdated"].map((sub) =>
    rule(`npm/${sub}`, "reduce", ["npm", "pnpm", "yarn"], [sub])
  ),
  rule("npm/run-test", "reduce", ["npm", "pnpm", "yarn"], ["run", "test"]),
  rule("npm/run-build", "reduce", ["npm", "pnpm", "yarn"], ["run", "build"]),
  rule("search/rg", "reduce", ["rg"]),
  rule("search/rg-json", "passthrough", ["rg"], [], ["--json"]),
  rule("search/rg-files", "passthrough", ["rg"], [], ["--files"]),
  rule("search/grep", "reduce", ["grep"], [], ["-r"]),
  rule("search/grep-transform", "transform", ["grep"], [], ["-c"]),
  ...["test", "build", "vet"].map((sub) => rule(`go/${sub}`, "reduce", ["go"], [sub])),
  ...["test", "check", "lint", "fmt"].map((sub) => rule(`deno/${sub}`, "reduce", ["deno"], [sub])),
  rule("python/pytest", "reduce", ["pytest"]),
  rule("python/uv-pytest", "reduce", ["uv"], ["run", "pytest"]),
  ...["run", "checks", "list", "view"].map((sub) =>
    rule(`gh/pr-${sub}`, "reduce", ["gh"], ["pr", sub])
  ),
  rule("list/ls", "reduce", ["ls"], [], ["-R"]),
  rule("list/find", "reduce", ["find"]),
  rule("build/make", "reduce", ["make"]),
  rule("build/tsc", "reduce", ["tsc"]),
  rule("docker/build", "reduce", ["docker"], ["build"]),
  rule("docker/logs", "reduce", ["docker"], ["logs"]),
  rule("docker/ps", "reduce", ["docker"], ["ps"]),
  rule("k8s/logs", "reduce", ["kubectl"], ["logs"]),
  rule("lint/eslint", "reduce", ["eslint"]),
  rule("python/pip-install", "reduce", ["pip"], ["install"]),
  rule("test/jest", "reduce", ["jest"]),
  rule("test/vitest", "reduce", ["vitest"], ["run"]),
];
if (builtinStyle.length !== 60) throw new Error(`expected 60 rules, got ${builtinStyle.length}`);
const small = createRuleRegistry([ruleSourceFromPack(pack("bench", builtinStyle), "builtin")]);

const SHAPES: readonly (readonly [string, readonly string[]])[] = [
  ["git status (reduce)", ["git", "status"]],
  ["git -C repo --no-pager diff --stat (reduce)", [
    "git",
    "-C",
    "repo",
    "--no-pager",
    "diff",
    "--stat",
  ]],
  ["git status -sbz (guarded)", ["git", "status", "-sbz"]],
  ["cargo +nightly test -p core -- --nocapture", [
    "cargo",
    "+nightly",
    "test",
    "-p",
    "core",
    "--",
    "--nocapture",
  ]],
  ["npm run test -- --reporter=dot", ["npm", "run", "test", "--", "--reporter=dot"]],
  ["rg -n TODO src (reduce)", ["rg", "-n", "TODO", "src"]],
  ["python3 script.py (unknown program)", ["python3", "script.py"]],
  ["/usr/bin/git status (path)", ["/usr/bin/git", "status"]],
];

for (const [name, argv] of SHAPES) {
  Deno.bench({ name, group: "built-in-style, 60 rules", fn: () => void small.select(argv) });
}

const bulk: Rule[] = [];
for (let index = 0; index < 9_997; index += 1) {
  bulk.push(rule(`bulk/r${String(index).padStart(5, "0")}`, "reduce", [`tool${index % 1_000}`]));
}
bulk.push(rule("small/status", "reduce", ["git"], ["status"]));
bulk.push(rule("small/status-z", "passthrough", ["git"], ["status"], ["-z"]));
bulk.push(rule("small/diff", "reduce", ["git"], ["diff"]));
const large = createRuleRegistry([ruleSourceFromPack(pack("bulk", bulk), "external")]);

Deno.bench({
  name: "git status -sb from a 3-rule bucket",
  group: "10,000 rules",
  fn: () => void large.select(["git", "status", "-sb"]),
});
Deno.bench({
  name: "tool7 x from a 10-rule bucket (ambiguous)",
  group: "10,000 rules",
  fn: () => void large.select(["tool7", "x"]),
});
