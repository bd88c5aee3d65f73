/**
 * The extension's cheap compound check (hooks/pi/src/shell_words.ts)
 * against YARP's own decision: `certainlyCompound` never skips a source
 * `yarp rewrite` would wrap (every command of both shell corpora, read at
 * test time and never copied, 20,000 generated commands and random
 * shell-ish text). That YARP's argv is bash's own is
 * tests/shell_bash_oracle_test.ts.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { generatedSources } from "../bench/_shell_robustness.ts";
import { CORPORA, corpusOrSkip } from "./_shell_corpus.ts";
import { certainlyCompound } from "../hooks/pi/src/shell_words.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import { decideRewrite } from "../lib/shell/rewrite_decision.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";

const parser = await loadShellParser();
const registry = createRuleRegistry([builtinRuleSource()]);
const decide = (source: string) => decideRewrite(source, parser, registry, []);

/** Indices only in messages: corpus text never reaches the test output. */
function checkAgainstYarp(sources: readonly string[]) {
  let wrapped = 0;
  let skipped = 0;
  for (const [index, source] of sources.entries()) {
    const compound = certainlyCompound(source);
    if (compound) skipped++;
    if (!decide(source).rewrite) continue;
    wrapped++;
    assert.equal(compound, false, `source ${index}: skipped, but yarp rewrite wraps it`);
  }
  return { wrapped, skipped };
}

for (const path of CORPORA) {
  const name = path.split("/").at(-1);
  Deno.test(`certainlyCompound: ${name}: no command yarp wraps is skipped`, async () => {
    const sources = await corpusOrSkip(path);
    if (sources === undefined) return;
    const counts = checkAgainstYarp(sources);
    assert.ok(counts.wrapped > 50, `${counts.wrapped} wrapped`);
    assert.ok(counts.skipped > sources.length / 10, `${counts.skipped} skipped`);
    console.log(
      `${name}: ${sources.length} sources, ${counts.skipped} skipped without a process, ` +
        `${counts.wrapped} wrapped by yarp rewrite`,
    );
  });
}

Deno.test("certainlyCompound: 20,000 generated commands: no command yarp wraps is skipped", () => {
  const counts = checkAgainstYarp(generatedSources(20_000, 11));
  assert.ok(counts.wrapped > 20);
});

const SHELLISH = fc.string({
  unit: fc.constantFrom(
    ..."ab1 \t\n|&;<>()[]{}$`'\"\\#*?~=!-:,./%+@^".split(""),
    "git",
    "log",
    "é",
  ),
  maxLength: 30,
});

Deno.test("certainlyCompound: random shell-ish text it skips is never wrapped (property)", () => {
  fc.assert(
    fc.property(SHELLISH, (source) => {
      if (certainlyCompound(source)) assert.equal(decide(`git log ${source}`).rewrite, false);
      if (certainlyCompound(`git log ${source}`)) {
        assert.equal(decide(`git log ${source}`).rewrite, false);
      }
    }),
    { numRuns: 3000 },
  );
});

Deno.test("certainlyCompound on hand-written forms", () => {
  for (
    const compound of [
      "a | b",
      "a || b",
      "a && b",
      "a; b",
      "a & b",
      "a\nb",
      "a > f",
      "a 2>&1",
      "a &>/dev/null",
      "cat <<EOF\nx\nEOF",
      "a 'q' \"r\" | b",
      "case x in a|b) ;; esac",
      "git log\n\\a",
      "git diff <(ls) x",
      "git log a<b",
      "[[ a < b ]]",
    ]
  ) {
    assert.equal(certainlyCompound(compound), true, compound);
    assert.equal(decide(compound).rewrite, false, compound);
  }
  for (
    const unsure of [
      "git log",
      "git log;",
      "git log &",
      "git log # a | b",
      "# note\ngit log",
      "git log \\\n#<",
      "git \\\nlog",
      "grep 'a|b' f",
      'grep "a|b" f',
      "grep a\\|b f",
      "echo $(a | b)",
      "echo `a | b`",
      "(a | b)",
      "{ a; b; }",
      "git log \\\n --oneline",
    ]
  ) {
    assert.equal(certainlyCompound(unsure), false, unsure);
  }
});
