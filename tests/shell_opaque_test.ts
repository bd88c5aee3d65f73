/**
 * The opaque-word parse (`parser.parseOpaque`, `acceptTree` with
 * `opaqueWords`), the cap's exact-form check (`mayHoldExactForm`) and the
 * planner over opaque words (`selectOverOpaqueWords`, docs/shell.md,
 * "Opaque operands"): properties over random shell sources and argv, then
 * tables of forms.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Rule } from "../lib/rules/model.ts";
import {
  builtinRuleSource,
  createRuleRegistry,
  ruleSourceFromPack,
} from "../lib/rules/registry.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import type { ShellProgram } from "../lib/shell/model.ts";
import { hasExactStage, mayHoldExactForm, planResult } from "../lib/shell/plan.ts";
import { selectOverOpaqueWords } from "../lib/shell/opaque_select.ts";
import { SHELL_PIECES } from "./_shell_pieces.ts";

const parser = await loadShellParser();
const registry = createRuleRegistry([builtinRuleSource()]);

const WORDS = ["cat", "sed", "-n", "x.log", "./gen.sh", "ssh", "host", "ls", "--json", "*.txt"];
const SOURCE = fc.array(fc.constantFrom(...SHELL_PIECES, ...WORDS, " ", " "), { maxLength: 14 })
  .map((pieces) => pieces.join(" "));

/** The program without `bash -c` scripts (the opaque parse does not read them). */
function words(program: ShellProgram): string[][] {
  return program.lists.flatMap((list) =>
    list.pipelines.flatMap((pipeline) =>
      pipeline.stages.map((stage) => stage.words.map((word) => word.text))
    )
  );
}

Deno.test("a source the parser accepts reads the same with opaque words, and no less exact (property)", () => {
  fc.assert(
    fc.property(SOURCE, (source) => {
      const strict = parser.parse(source);
      const opaque = parser.parseOpaque(source);
      if (!strict.ok) return;
      assert.ok(opaque.ok, source);
      assert.deepEqual(words(opaque.program), words(strict.program), source);
      if (hasExactStage(strict.program, registry)) {
        assert.ok(mayHoldExactForm(opaque.program, registry), source);
      }
    }),
    { numRuns: 3000 },
  );
});

/** True when some stage of `program` reads a here-document. */
function readsDocument(program: ShellProgram): boolean {
  return program.lists.some((list) =>
    list.pipelines.some((pipeline) => pipeline.stages.some((stage) => stage.stdinDocument))
  );
}

Deno.test("the opaque parse refuses, for the same reason, what the parser refuses for anything but a glob, an expansion or a here-document (property)", () => {
  const documents = ["<<EOF\nx\nEOF\n", "<<'EOF'\nprint(1)\nEOF\n", "- <<EOF\n$X\nEOF\n"];
  fc.assert(
    fc.property(
      fc.oneof(
        SOURCE,
        fc.tuple(SOURCE, fc.constantFrom(...documents)).map(([source, doc]) => `${source} ${doc}`),
      ),
      (source) => {
        const strict = parser.parse(source);
        if (strict.ok || strict.reason === "glob" || strict.reason === "expansion") return;
        const opaque = parser.parseOpaque(source);
        if (opaque.ok) {
          assert.equal(strict.reason, "redirect-unsupported", source);
          assert.ok(readsDocument(opaque.program), source);
        } else if (strict.reason !== "redirect-unsupported") {
          assert.equal(opaque.reason, strict.reason, source);
        }
      },
    ),
    { numRuns: 3000 },
  );
});

/** `rule@confidence` for the opaque-word plan of `source`, else its reason. */
function opaqueDecision(source: string): string {
  const parsed = parser.parseOpaque(source);
  if (!parsed.ok) return `parse:${parsed.reason}`;
  const outcome = planResult(parsed.program, registry);
  return outcome.ok ? `${outcome.plan.rule.id}@${outcome.plan.statusConfidence}` : outcome.reason;
}

const OPAQUE_FORMS: readonly [string, string][] = [
  // an opaque operand of a setup command or an assignment value: the command is its own
  ["cd $DIR && make", "build/make@complete"],
  ['cd "$ROOT/app" && npm test', "tests/npm-test@complete"],
  ["cd $DIR; go test ./...", "tests/go-test@final-stage-only"],
  ["export GOPATH=$HOME/go && go build ./...", "build/go-build@complete"],
  ["CARGO_HOME=$HOME/.cargo cargo build", "build/cargo-build@complete"],
  // an expansion may splice in a guard's token: `--message-format=json`, `--target help`, `-n`
  ["cargo test $ARGS", "opaque-word"],
  ["cmake --build $BUILD_DIR", "opaque-word"],
  ["make -j$N", "opaque-word"],
  ["grep -rn foo *.ts", "opaque-word"],
  // program-level option values, wrappers, substitutions and printing expansions stay closed
  ["git -C $D status", "opaque-word"],
  ["timeout 60 $CMD", "opaque-word"],
  ["timeout $T cargo test", "opaque-word"],
  ["make -j$(nproc)", "opaque-word"],
  ["X=$(pwd) cargo build", "opaque-word"],
  ["cd ${WORK:?} && make", "opaque-word"],
  ["$CMD test", "opaque-word"],
  ["PATH=$HOME/bin:$PATH cargo test", "tests/cargo-test@complete"],
  ["LANG=$L cargo test", "assignment-output"],
  ['NODE_OPTIONS="--max-old-space-size=$MB" npm test', "assignment-output"],
  // here-documents: stdin of the command, never typed
  ["python3 - <<'EOF'\nprint(1)\nEOF\n", "stdin-document"],
  ["cat <<EOF\nhello\nEOF", "stdin-document"],
];

Deno.test("each opaque-word form plans as its row says", () => {
  for (const [source, expected] of OPAQUE_FORMS) {
    assert.equal(opaqueDecision(source), expected, source);
  }
});

Deno.test("here-documents: an interpreter's script may be capped, anything else fed one is exact", () => {
  const exact = (source: string) => {
    const parsed = parser.parseOpaque(source);
    assert.ok(parsed.ok, source);
    return mayHoldExactForm(parsed.program, registry);
  };
  assert.equal(exact("python3 - <<'EOF'\nprint(1)\nEOF\n"), false);
  assert.equal(exact("cd x && node <<'JS'\nconsole.log(1)\nJS\n"), false);
  assert.equal(exact("cat <<EOF\nhello\nEOF"), true);
  assert.equal(exact("bash <<EOF\ncat f\nEOF"), true);
  assert.equal(exact("ssh host <<EOF\nls\nEOF"), true);
  const dash = parser.parseOpaque("python3 - <<EOF\nx\nEOF");
  assert.ok(dash.ok);
  assert.deepEqual(dash.program.lists[0].pipelines[0].stages[0].words.map((word) => word.text), [
    "python3",
    "-",
  ]);
  // two here-documents, or one with a descriptor, are not plain
  assert.equal(parser.parseOpaque("python3 <<A <<B\nx\nA\ny\nB").ok, false);
  assert.equal(parser.parseOpaque("python3 3<<EOF\nx\nEOF").ok, false);
});

const TOKENS = ["a", "b", "-n", "--json", "--json=x", "--", "-C", "x"];
const TOKEN = fc.constantFrom(...TOKENS);

/** A random pack for program `p`: rules of every action over a few tokens, ids unique. */
const RANDOM_PACK = fc.array(
  fc.record({
    action: fc.constantFrom("reduce", "reduce", "passthrough", "transform"),
    argvPrefix: fc.array(TOKEN, { maxLength: 2 }),
    argvContainsAll: fc.array(TOKEN, { maxLength: 2 }),
  }),
  { minLength: 1, maxLength: 6 },
).map((specs) => {
  const template = registry.rules().find(({ rule }) => rule.action === "reduce")!.rule;
  const rules = specs.map((spec, index) => ({
    ...template,
    id: `random/r${index}`,
    action: spec.action,
    match: { programs: ["p"], argvPrefix: spec.argvPrefix, argvContainsAll: spec.argvContainsAll },
  })) as Rule[];
  return createRuleRegistry([
    builtinRuleSource(),
    ruleSourceFromPack({ id: "random", sourceDigest: "", rules }, "external"),
  ]);
});

Deno.test("property: a command selected over opaque words selects that rule for every expansion", () => {
  const opaque = { text: "", start: 0, end: 0, opaque: true } as const;
  const literal = (text: string) => ({ text, start: 0, end: 0 });
  let selected = 0;
  fc.assert(
    fc.property(
      RANDOM_PACK,
      fc.array(TOKEN, { minLength: 1, maxLength: 3 }),
      fc.array(TOKEN, { maxLength: 2 }),
      fc.array(fc.array(TOKEN, { maxLength: 3 }), { minLength: 1, maxLength: 8 }),
      (packs, before, after, expansions) => {
        const words = ["p", ...before].map(literal);
        const rule = selectOverOpaqueWords([...words, opaque, ...after.map(literal)], packs);
        if (rule === undefined) return;
        selected += 1;
        for (const expansion of expansions) {
          const argv = ["p", ...before, ...expansion, ...after];
          const selection = packs.select(argv);
          assert.ok(
            selection.outcome === "reduce" && selection.match.rule.id === rule.id,
            `${argv.join(" ")}: ${selection.outcome}, not ${rule.id}`,
          );
        }
      },
    ),
    { numRuns: 4000 },
  );
  assert.ok(selected > 100, `only ${selected} commands were selected over opaque words`);
});
