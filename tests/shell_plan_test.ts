/**
 * The result planner (docs/architecture.md, "Test matrix", "Output contracts", "Streams
 * and status"): every row of the planner's test matrix as a table, the status
 * confidence and pipefail rules, transform operand and guard handling,
 * redirection routing, simple commands selected exactly as `rewrite`
 * selects them, and fast-check properties (parser failure always passes
 * through and never throws; planning is deterministic).
 *
 * The planner's reducer types map to this build's reducer families: the family
 * key is the selected rule id's first segment plus its reducer kind, so
 * `search_summary` is `search:search` (search/rg), `list_summary` is
 * `list:list` (list/find) and `test_summary` is `tests:test`
 * (tests/cargo-test).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { decideRewrite, shellQuote } from "../lib/shell/rewrite_decision.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import {
  effectiveRule,
  hasStageDiagnostics,
  loadShellParser,
  type PlanOutcome,
  planResult,
  SHELL_LIMITS,
} from "../lib/shell/mod.ts";
import { validateFixtureText } from "../lib/rules/fixture.ts";

const parser = await loadShellParser();
const registry = createRuleRegistry([builtinRuleSource()]);

/** Parses and plans; a parse rejection becomes `parse:<reason>`. */
function plan(source: string): PlanOutcome | { ok: false; reason: string; rule?: string } {
  const parsed = parser.parse(source);
  if (!parsed.ok) return { ok: false, reason: `parse:${parsed.reason}` };
  return planResult(parsed.program, registry);
}

interface Row {
  readonly source: string;
  /** A family key for a plan, else the pass-through reason. */
  readonly expect: string;
  readonly rule?: string;
  readonly status?: "complete" | "final-stage-only" | "conditional";
}

const MATRIX: readonly Row[] = [
  // docs/architecture.md, "Test matrix", row by row
  { source: "rg TODO . | head -50", expect: "search:search", rule: "search/rg" },
  { source: "find . -type f | sort | uniq", expect: "list:list", rule: "list/find" },
  {
    source: "cargo test | tee test.log",
    expect: "tests:test",
    rule: "tests/cargo-test",
    status: "final-stage-only",
  },
  {
    source: "cargo test | head -100",
    expect: "tests:test",
    rule: "tests/cargo-test",
    status: "final-stage-only",
  },
  {
    source: "set -o pipefail && cargo test | head -100",
    expect: "tests:test",
    rule: "tests/cargo-test",
    status: "complete",
  },
  {
    source: "cargo test && cargo test",
    expect: "tests:test",
    rule: "tests/cargo-test",
    status: "complete",
  },
  {
    source: "cargo test; cargo test",
    expect: "tests:test",
    rule: "tests/cargo-test",
    status: "final-stage-only",
  },
  { source: "cargo test && cargo build", expect: "mixed-reducers" },
  { source: "rg --json TODO . | jq .", expect: "guarded", rule: "search/guard-rg-json" },
  { source: "find . -print0 | xargs -0 echo", expect: "guarded", rule: "list/guard-find-print0" },
  // `cat FILE` as the first stage reads unrelated input; sed would change content anyway.
  { source: "cat source.rs | sed 's/x/y/'", expect: "transform-without-input" },
  { source: "git diff | sed 's/x/y/'", expect: "guarded", rule: "exact/sed" },
  { source: 'echo "$VALUE" | rg x', expect: "parse:expansion" },
  { source: "cargo test | unknown-filter", expect: "unknown-program" },
  { source: "cargo test |& head", expect: "merged-stderr" },
  { source: "cargo test |", expect: "parse:syntax-error" },
  { source: "cargo test && (cargo test", expect: "parse:syntax-error" },
  {
    source: Array.from({ length: SHELL_LIMITS.stages + 1 }, () => "cargo test").join("\n"),
    expect: "parse:too-many-stages",
  },
  {
    source: Array.from({ length: SHELL_LIMITS.depth + 1 }, () => "cargo test").join(" && "),
    expect: "parse:too-deep",
  },
  { source: `rg ${"x".repeat(SHELL_LIMITS.sourceBytes)}`, expect: "parse:source-too-large" },
];

const MORE: readonly Row[] = [
  // status confidence
  { source: "cargo test", expect: "tests:test", status: "complete" },
  { source: "cargo test || cargo test", expect: "tests:test", status: "conditional" },
  { source: "cargo test\ncargo test", expect: "tests:test", status: "final-stage-only" },
  { source: "cd crate && cargo test", expect: "tests:test", status: "complete" },
  { source: "cd crate; cargo test", expect: "tests:test", status: "final-stage-only" },
  { source: "set -e; cargo test", expect: "tests:test", status: "complete" },
  // pipefail: proven only when it ran before the pipeline
  { source: "set -o pipefail; cargo test | head", expect: "tests:test", status: "complete" },
  { source: "set -o pipefail\ncargo test | head", expect: "tests:test", status: "complete" },
  {
    source: "set -euo pipefail; cargo test | head",
    expect: "tests:test",
    status: "complete",
  },
  {
    source: "cd x && set -o pipefail && cargo test | tail -n 40",
    expect: "tests:test",
    status: "complete",
  },
  {
    source: "cd x || set -o pipefail; cargo test | head",
    expect: "tests:test",
    status: "conditional",
  },
  {
    source: "cargo test | head; set -o pipefail",
    expect: "tests:test",
    status: "final-stage-only",
  },
  { source: "set +o pipefail; cargo test | head", expect: "setup-form" },
  { source: "set -x; cargo test", expect: "setup-form" },
  { source: "set -o vi; cargo test", expect: "setup-form" },
  { source: "cargo test | cd x", expect: "setup-form" },
  { source: "cd - && cargo test", expect: "setup-form" },
  { source: "pushd x && cargo test", expect: "unknown-program" },
  // transforms and their guards
  { source: "cargo test | head -n 5 out.txt", expect: "transform-file-operand" },
  { source: "cargo test | cat - extra.txt", expect: "transform-file-operand" },
  { source: "cargo test | head -n5 -", expect: "tests:test" },
  { source: "rg x | sort -t : -k 2 | uniq -f 1", expect: "search:search" },
  { source: "rg x | sort --key 2 --field-separator=:", expect: "search:search" },
  { source: "cargo test | tee -a a.log b.log", expect: "tests:test" },
  { source: "head -n 5 notes.txt", expect: "transform-without-input" },
  { source: "git diff | cat -n", expect: "guarded", rule: "pipeline/guard-cat-number" },
  { source: "git diff | cat -An", expect: "guarded", rule: "pipeline/guard-cat-number" },
  { source: "rg x | head -c 100", expect: "guarded", rule: "pipeline/guard-head-tail-bytes" },
  { source: "rg x | tail -f", expect: "guarded", rule: "pipeline/guard-tail-follow" },
  { source: "find . | sort -z", expect: "guarded", rule: "pipeline/guard-zero-terminated" },
  { source: "find . | sort -o out", expect: "guarded", rule: "pipeline/guard-sort-output" },
  { source: "find . | sort | uniq -c", expect: "guarded", rule: "pipeline/guard-uniq-count" },
  { source: "find . | uniq --group", expect: "guarded", rule: "pipeline/guard-uniq-group" },
  // streams and redirections
  { source: "cargo test 2>&1 | head -50", expect: "tests:test" },
  { source: "cargo test 2>/dev/null | head -50", expect: "tests:test" },
  { source: "cargo test >/dev/null", expect: "tests:test" }, // stderr stays visible
  { source: "cargo test &>/dev/null", expect: "no-typed-output" },
  { source: "cd x && true", expect: "no-typed-output" },
  { source: "cargo test 2>&1 | tee log >/dev/null", expect: "no-typed-output" },
  { source: "cargo test > out.txt", expect: "parse:redirect-unsupported" },
  // merging and conflicts
  { source: "git diff && git show", expect: "git:diff", rule: "git/diff" },
  { source: "git diff && git log", expect: "mixed-reducers" },
  { source: "rg x && grep -rn y .", expect: "search:search" },
  { source: "cargo test && notify-send done", expect: "unknown-program" },
  { source: "cargo test && echo done", expect: "guarded", rule: "exact/echo" },
];

function check(row: Row): void {
  const outcome = plan(row.source);
  const label = row.source.length > 80 ? `${row.source.slice(0, 80)}…` : row.source;
  if (outcome.ok) {
    assert.equal(outcome.plan.family, row.expect, label);
    if (row.rule !== undefined) assert.equal(outcome.plan.rule.id, row.rule, label);
    if (row.status !== undefined) assert.equal(outcome.plan.statusConfidence, row.status, label);
  } else {
    assert.equal(outcome.reason, row.expect, label);
    if (row.rule !== undefined) assert.equal(outcome.rule, row.rule, label);
  }
}

Deno.test("the planner's test matrix, row by row", () => {
  for (const row of MATRIX) check(row);
});

Deno.test("status confidence, pipefail, transforms, guards and stream routing", () => {
  for (const row of MORE) check(row);
});

Deno.test("failure policy for FinalStageOnly and Conditional; merged policies take larger limits", () => {
  const pipeline = plan("cargo test | head -100");
  assert.ok(pipeline.ok);
  assert.deepEqual(effectiveRule(pipeline.plan).success, pipeline.plan.rule.failure);
  const chain = plan("cargo test && cargo test");
  assert.ok(chain.ok);
  assert.equal(effectiveRule(chain.plan), chain.plan.rule);
  const merged = plan("rg x && grep -rn y .");
  assert.ok(merged.ok);
  assert.deepEqual(merged.plan.ruleIds, ["search/grep", "search/rg"]);
  const rules = new Map(registry.rules().map((ref) => [ref.rule.id, ref.rule]));
  for (const id of merged.plan.ruleIds) {
    const rule = rules.get(id);
    assert.ok(rule?.action === "reduce");
    for (const policy of ["success", "failure"] as const) {
      const got = merged.plan.rule[policy];
      assert.ok(got.maxOutputBytes >= rule[policy].maxOutputBytes);
      assert.ok(got.headLines >= rule[policy].headLines);
      assert.ok(got.minSavingsBytes >= rule[policy].minSavingsBytes);
    }
  }
});

Deno.test("setup and transform diagnostics are recorded so the caller fails open", () => {
  const outcome = plan("cd crate && cargo test | tee log");
  assert.ok(outcome.ok);
  assert.deepEqual(outcome.plan.setupPrograms, ["cd"]);
  assert.deepEqual(outcome.plan.transformPrograms, ["tee"]);
  assert.ok(outcome.plan.failOpenSetupDiagnostics);
  assert.ok(hasStageDiagnostics(outcome.plan, "ok\nbash: line 1: cd: crate: No such file\n"));
  assert.ok(hasStageDiagnostics(outcome.plan, "tee: log: Permission denied\n"));
  assert.ok(!hasStageDiagnostics(outcome.plan, "test a ... ok\ntest result: ok\n"));
  const plain = plan("set -o pipefail && cargo test | head");
  assert.ok(plain.ok && !plain.plan.failOpenSetupDiagnostics);
});

Deno.test("simple commands plan exactly the rule rewrite selects (every reduce fixture's argv)", () => {
  let checked = 0;
  for (const entry of walk("fixtures")) {
    const parsed = validateFixtureText(entry, Deno.readTextFileSync(entry));
    if (!parsed.ok || parsed.fixture.outcome !== "reduce") continue;
    const source = parsed.fixture.argv.map(shellQuote).join(" ");
    const decision = decideRewrite(source, parser, registry, []);
    const outcome = plan(source);
    if (decision.rewrite) {
      assert.ok(outcome.ok, `${entry}: rewrite selects ${decision.rule}, the planner does not`);
      assert.deepEqual(outcome.plan.ruleIds, [decision.rule], entry);
      assert.equal(outcome.plan.statusConfidence, "complete", entry);
      checked += 1;
    } else {
      assert.ok(!outcome.ok, `${entry}: the planner selects what rewrite refuses`);
    }
  }
  assert.ok(checked > 50, `only ${checked} simple commands checked`);
});

function* walk(dir: string): Generator<string> {
  const entries = [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1);
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".json")) yield path;
  }
}

/** Shell-shaped sources: real programs, options, quoting, operators, redirections, junk. */
const shellWord = fc.oneof(
  fc.constantFrom(
    "cargo",
    "test",
    "rg",
    "TODO",
    "head",
    "-n",
    "5",
    "sort",
    "uniq",
    "-c",
    "tee",
    "log",
    "cat",
    "find",
    ".",
    "git",
    "diff",
    "set",
    "-o",
    "pipefail",
    "cd",
    "'a b'",
    '"q"',
    "$X",
    "$(pwd)",
    "*.ts",
    "~",
    "{a,b}",
    "2>&1",
    ">/dev/null",
    "> f",
    "<<EOF",
    "\\|",
    "#c",
  ),
  fc.string({ maxLength: 6 }),
);
const shellOperator = fc.constantFrom(" ", " | ", " && ", " || ", "; ", "\n", " |& ", " & ");
const shellSource = fc.array(fc.tuple(shellWord, shellOperator), { maxLength: 12 }).map((parts) =>
  parts.map(([word, op]) => word + op).join("")
);

Deno.test("property: parsing and planning never throw; a parse failure is a pass-through", () => {
  fc.assert(
    fc.property(fc.oneof(shellSource, fc.string({ maxLength: 40 })), (source) => {
      const parsed = parser.parse(source);
      if (!parsed.ok) return typeof parsed.reason === "string";
      const outcome = planResult(parsed.program, registry);
      return outcome.ok ? outcome.plan.rule.action === "reduce" : outcome.reason.length > 0;
    }),
    { numRuns: 2_000 },
  );
});

Deno.test("property: planning is deterministic", () => {
  fc.assert(
    fc.property(shellSource, (source) => {
      const first = plan(source);
      const second = plan(source);
      assert.deepEqual(second, first);
      const parsed = parser.parse(source);
      if (parsed.ok) assert.deepEqual(planResult(parsed.program, registry), first);
    }),
    { numRuns: 1_000 },
  );
});
