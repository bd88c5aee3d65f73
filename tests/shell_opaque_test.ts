/**
 * The cap's opaque-word parse (`parser.parseOpaque`, `acceptTree` with
 * `opaqueWords`) and its exact-form check (`mayHoldExactForm`): properties
 * over random shell sources, then a table of refused sources.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import type { ShellProgram } from "../lib/shell/model.ts";
import { hasExactStage, mayHoldExactForm } from "../lib/shell/plan.ts";
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

Deno.test("the opaque parse refuses, for the same reason, what the parser refuses for anything but a glob or an expansion (property)", () => {
  fc.assert(
    fc.property(SOURCE, (source) => {
      const strict = parser.parse(source);
      if (strict.ok || strict.reason === "glob" || strict.reason === "expansion") return;
      const opaque = parser.parseOpaque(source);
      assert.ok(!opaque.ok && opaque.reason === strict.reason, source);
    }),
    { numRuns: 3000 },
  );
});

Deno.test("opaque words are the refused words: text empty, span kept", () => {
  const source = "./gen.sh --out $DIR *.txt plain";
  const parsed = parser.parseOpaque(source);
  assert.ok(parsed.ok);
  const stage = parsed.program.lists[0].pipelines[0].stages[0];
  assert.deepEqual(
    stage.words.map((
      word,
    ) => [word.text, word.opaque === true, source.slice(word.start, word.end)]),
    [
      ["./gen.sh", false, "./gen.sh"],
      ["--out", false, "--out"],
      ["", true, "$DIR"],
      ["", true, "*.txt"],
      ["plain", false, "plain"],
    ],
  );
  assert.deepEqual(parser.parse(source), { ok: false, reason: "expansion" });
});
