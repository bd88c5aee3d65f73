// The fixture runner (docs/architecture.md, "Rule fixtures"): every file under
// fixtures/ is a specification of one command result. For each one, in a
// sorted walk:
// - the file validates and its id is its path (`fixtures/<id>.json`);
// - the registry over the built-in source pack selects the recorded outcome
//   and rule for its argv;
// - for `reduce`, the rule's reducer turns stdout and stderr, each on its
//   own and fed in several chunkings, into exactly the expected bytes and
//   counts; for every other outcome the expected streams are the input;
// - the case named by the file (`success`, `failure`, …) has the property it
//   exists to show.
// Coverage: every reduce rule of rules/pack.json has all nine cases and every
// guard its `guard` case. Regenerate with `deno run -A scripts/make_fixtures.ts`
// (docs/fixtures.md) and review the diff.
import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { formatDiagnostic } from "../lib/rules/diagnostics.ts";
import { type RuleFixture, validateFixtureText } from "../lib/rules/fixture.ts";
import { type ReductionRule, type Rule, TYPED_REDUCER_KINDS } from "../lib/rules/model.ts";
import { createRuleRegistry, ruleSourceFromPack, type Selection } from "../lib/rules/registry.ts";
import { loadSourcePack } from "../lib/rules/source_pack.ts";
import { createStreamReducer, type SourceTerms, sourceTerms } from "../lib/reduce/mod.ts";
import { isDiagnosticLine } from "../lib/corpus/facts.ts";
import {
  GUARDS_WITHOUT_SHADOW,
  isUtf8,
  MIDDLE_LINE_LOST,
  ONE_STREAM_RULES,
  REDUCE_CASES,
  SOURCE_TERMS_CASE,
  termsShown,
  textLines,
  TRANSFORM_CASES,
} from "../scripts/fixture_policy.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = join(ROOT, "fixtures");

/** Chunk sizes every reduce fixture is fed with; all must give identical results. */
const CHUNKINGS = [Infinity, 1, 7, 4096] as const;

function* walk(dir: string): Generator<string> {
  const entries = [...Deno.readDirSync(dir)].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0
  );
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".json")) yield path;
  }
}

const loaded = await loadSourcePack(join(ROOT, "rules"));
if (!loaded.ok) throw new Error(loaded.diagnostics.map(formatDiagnostic).join("\n"));
const pack = loaded.pack;
const registry = createRuleRegistry([ruleSourceFromPack(pack, "builtin")]);
const rulesById = new Map<string, Rule>(pack.rules.map((rule) => [rule.id, rule]));
const files = [...walk(FIXTURES)].map((path) => relative(ROOT, path));

/** What one run of a reducer over one stream produced. */
interface StreamResult {
  readonly bytes: Uint8Array;
  readonly changed: boolean;
  readonly omittedLines: number;
  readonly truncatedLines: number;
}

function reduce(
  rule: ReductionRule,
  terms: SourceTerms,
  input: Uint8Array,
  code: number,
  chunk: number,
): StreamResult {
  const reducer = createStreamReducer(rule, terms);
  const step = Math.min(chunk, Math.max(input.length, 1));
  for (let at = 0; at < input.length; at += step) reducer.push(input.subarray(at, at + step));
  const out = reducer.finish({ code }, { kind: "none" });
  return {
    bytes: out.bytes,
    changed: out.changed,
    omittedLines: out.omittedLines,
    truncatedLines: out.truncatedLines,
  };
}

function selectedRule(selection: Selection): string | undefined {
  switch (selection.outcome) {
    case "reduce":
    case "transform":
      return selection.match.rule.id;
    case "guarded":
      return selection.guards[0].rule.id;
    default:
      return undefined;
  }
}

function readFixture(file: string): RuleFixture {
  const result = validateFixtureText(file, Deno.readTextFileSync(join(ROOT, file)));
  assert.ok(result.ok, `${file}: ${result.ok ? "" : result.diagnostics.map(formatDiagnostic)}`);
  return result.fixture;
}

/** Checks the property the case named by the file exists to show. */
function checkCase(
  file: string,
  fixture: RuleFixture,
  ruleDir: string,
  caseName: string,
  selection: Selection,
  results: { stdout: StreamResult; stderr: StreamResult } | undefined,
): void {
  const at = (message: string) => `${file}: ${message}`;
  const hasOutput = fixture.stdout.length + fixture.stderr.length > 0;
  if (caseName === "guard") {
    assert.equal(fixture.outcome, "guarded", at("a guard case must be guarded"));
    assert.ok(selection.outcome === "guarded", at("not guarded"));
    assert.ok(
      selection.guards.some((ref) => ref.rule.id === ruleDir),
      at(`the guard ${ruleDir} does not match`),
    );
    if (!(ruleDir in GUARDS_WITHOUT_SHADOW)) {
      assert.ok(selection.shadowed.length > 0, at("the guard shadows no reduction rule"));
    }
    assert.ok(hasOutput, at("a guard case needs output to keep exact"));
    return;
  }
  if (caseName === "transform") {
    assert.equal(fixture.outcome, "transform", at("a transform case must select a transform"));
    assert.equal(fixture.rule, ruleDir, at("a transform case must select its directory's rule"));
    assert.deepEqual(fixture.expectedStdout, fixture.stdout, at("a transform keeps stdout exact"));
    assert.deepEqual(fixture.expectedStderr, fixture.stderr, at("a transform keeps stderr exact"));
    assert.ok(hasOutput, at("a transform case needs output"));
    return;
  }
  if (caseName === "near-miss") {
    assert.ok(
      fixture.outcome === "unsupported" || fixture.outcome === "guarded",
      at(`a near miss must pass through, not ${fixture.outcome}`),
    );
    assert.notEqual(selectedRule(selection), ruleDir, at("the near miss selects its rule"));
    assert.ok(hasOutput, at("a near miss needs output to keep exact"));
    return;
  }
  assert.equal(fixture.outcome, "reduce", at("a reduction case must reduce"));
  assert.equal(fixture.rule, ruleDir, at("a reduction case must select its directory's rule"));
  assert.ok(results !== undefined, at("no reduction results"));
  const { stdout, stderr } = results;
  const changed = stdout.changed || stderr.changed;
  switch (caseName) {
    case "success":
      assert.equal(fixture.exitCode, 0, at("success exits 0"));
      assert.ok(changed, at("success output must be reduced"));
      break;
    case "failure":
      assert.notEqual(fixture.exitCode, 0, at("failure exits non-zero"));
      assert.ok(changed, at("failure output must be reduced"));
      break;
    case "short-exact":
      assert.ok(hasOutput, at("short-exact needs output"));
      assert.ok(!changed, at("short output must stay exact"));
      assert.deepEqual(fixture.expectedStdout, fixture.stdout, at("stdout changed"));
      assert.deepEqual(fixture.expectedStderr, fixture.stderr, at("stderr changed"));
      break;
    case "middle-line": {
      assert.ok(changed, at("middle-line output must be reduced"));
      const spec = (rulesById.get(ruleDir) as ReductionRule).reducer;
      if (spec.kind === "line_filter" && spec.drop.length > 0 && !(ruleDir in MIDDLE_LINE_LOST)) {
        // The rule drops the noise around the diagnostic, so it must survive.
        const inputs = [fixture.stdout, fixture.stderr];
        const outputs = [fixture.expectedStdout, fixture.expectedStderr];
        const diagnostics = inputs.flatMap(textLines).filter(isDiagnosticLine);
        assert.ok(diagnostics.length > 0, at("middle-line input has no diagnostic line"));
        for (const [i, input] of inputs.entries()) {
          const kept = new Set(textLines(outputs[i]));
          for (const line of textLines(input)) {
            if (isDiagnosticLine(line)) assert.ok(kept.has(line), at(`lost "${line}"`));
          }
        }
      } else {
        // head_tail (or no drops): the middle is omitted and the marker counts it.
        const omitted = fixture.expectedOmittedLines.stdout + fixture.expectedOmittedLines.stderr;
        assert.ok(omitted > 0, at("the middle must be counted as omitted"));
      }
      break;
    }
    case "long-line": {
      const truncated = fixture.expectedTruncatedLines.stdout +
        fixture.expectedTruncatedLines.stderr;
      const kind = (rulesById.get(ruleDir) as ReductionRule).reducer.kind;
      const omitted = fixture.expectedOmittedLines.stdout + fixture.expectedOmittedLines.stderr;
      const typed = (TYPED_REDUCER_KINDS as readonly string[]).includes(kind);
      // A typed kind may omit a long line of optional fill outright instead of cutting it.
      assert.ok(
        truncated >= 1 || (typed && changed && omitted >= 1),
        at("a long line must be truncated"),
      );
      break;
    }
    case "empty":
      assert.equal(fixture.stdout.length + fixture.stderr.length, 0, at("input must be empty"));
      assert.equal(
        fixture.expectedStdout.length + fixture.expectedStderr.length,
        0,
        at("empty streams must stay empty"),
      );
      break;
    case "separate-streams":
      if (ruleDir in ONE_STREAM_RULES) {
        assert.ok(hasOutput, at("separate-streams needs output"));
      } else {
        assert.ok(fixture.stdout.length > 0 && fixture.stderr.length > 0, at("a stream is empty"));
        assert.notDeepEqual(fixture.stdout, fixture.stderr, at("streams must differ"));
      }
      assert.ok(changed, at("separate-streams output must be reduced"));
      break;
    case "invalid-utf8":
      assert.ok(
        !isUtf8(fixture.stdout) || !isUtf8(fixture.stderr),
        at("invalid-utf8 input must not be valid UTF-8"),
      );
      break;
    case SOURCE_TERMS_CASE: {
      const spec = (rulesById.get(ruleDir) as ReductionRule).reducer;
      assert.equal(spec.kind, "search", at("source-terms is a case of search rules"));
      assert.ok(changed, at("source-terms output must be reduced"));
      const terms = sourceTerms(fixture.argv);
      assert.ok(terms.terms.length >= 2, at("source-terms needs two source terms"));
      assert.ok(
        termsShown(terms, fixture.stdout, fixture.expectedStdout),
        at("a source term a row holds is not shown"),
      );
      break;
    }
    default:
      assert.fail(at(`unknown case name "${caseName}"`));
  }
}

for (const file of files) {
  Deno.test(`fixture ${file}`, () => {
    const fixture = readFixture(file);
    const id = file.slice("fixtures/".length, -".json".length);
    assert.equal(fixture.id, id, `${file}: id must equal the path`);
    const slash = id.lastIndexOf("/");
    const ruleDir = id.slice(0, slash);
    const caseName = id.slice(slash + 1);
    assert.ok(rulesById.has(ruleDir), `${file}: no built-in rule "${ruleDir}"`);

    const selection = registry.select(fixture.argv);
    assert.equal(selection.outcome, fixture.outcome, `${file}: outcome`);
    assert.equal(selectedRule(selection), fixture.rule, `${file}: rule`);

    let results: { stdout: StreamResult; stderr: StreamResult } | undefined;
    if (selection.outcome === "reduce") {
      const rule = selection.match.rule;
      const streams = [
        ["stdout", fixture.stdout, fixture.expectedStdout] as const,
        ["stderr", fixture.stderr, fixture.expectedStderr] as const,
      ];
      const found: StreamResult[] = [];
      for (const [name, input, expected] of streams) {
        // The command's source terms, as `yarp run` reads them from its argv.
        const terms = sourceTerms(fixture.argv);
        const first = reduce(rule, terms, input, fixture.exitCode, CHUNKINGS[0]);
        for (const chunk of CHUNKINGS.slice(1)) {
          const again = reduce(rule, terms, input, fixture.exitCode, chunk);
          assert.deepEqual(
            again,
            first,
            `${file}: ${name} differs when fed in ${chunk}-byte chunks`,
          );
        }
        assert.deepEqual(first.bytes, expected, `${file}: expected_${name}`);
        assert.equal(
          first.omittedLines,
          fixture.expectedOmittedLines[name],
          `${file}: expected_omitted_lines.${name}`,
        );
        assert.equal(
          first.truncatedLines,
          fixture.expectedTruncatedLines[name],
          `${file}: expected_truncated_lines.${name}`,
        );
        if (!first.changed) assert.deepEqual(first.bytes, input, `${file}: unchanged ${name}`);
        found.push(first);
      }
      results = { stdout: found[0], stderr: found[1] };
    } else {
      assert.deepEqual(fixture.expectedStdout, fixture.stdout, `${file}: stdout must stay exact`);
      assert.deepEqual(fixture.expectedStderr, fixture.stderr, `${file}: stderr must stay exact`);
      for (const name of ["stdout", "stderr"] as const) {
        assert.equal(fixture.expectedOmittedLines[name], 0, `${file}: omitted ${name}`);
        assert.equal(fixture.expectedTruncatedLines[name], 0, `${file}: truncated ${name}`);
      }
    }
    checkCase(file, fixture, ruleDir, caseName, selection, results);
  });
}

Deno.test("every reduce rule has its nine cases, every guard its guard case, every transform its case", () => {
  const present = new Set(files.map((file) => file.slice("fixtures/".length, -".json".length)));
  const missing: string[] = [];
  for (const rule of pack.rules) {
    const cases = rule.action === "reduce"
      ? REDUCE_CASES
      : rule.action === "passthrough"
      ? ["guard"]
      : TRANSFORM_CASES;
    for (const name of cases) {
      if (!present.has(`${rule.id}/${name}`)) missing.push(`fixtures/${rule.id}/${name}.json`);
    }
  }
  assert.deepEqual(missing, [], "missing fixtures");
});

Deno.test("fixture exceptions name real rules of the right kind", () => {
  for (const id of Object.keys(GUARDS_WITHOUT_SHADOW)) {
    assert.equal(rulesById.get(id)?.action, "passthrough", `${id} is not a guard`);
  }
  for (const id of Object.keys(MIDDLE_LINE_LOST)) {
    const rule = rulesById.get(id);
    assert.ok(
      rule?.action === "reduce" && rule.reducer.kind === "line_filter",
      `${id}: not a filter`,
    );
  }
  for (const id of Object.keys(ONE_STREAM_RULES)) {
    assert.equal(rulesById.get(id)?.action, "reduce", `${id} is not a reduce rule`);
  }
});
