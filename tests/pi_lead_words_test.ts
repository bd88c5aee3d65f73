/**
 * The extension's lead-word skip (hooks/pi/src/lead_words.ts) against
 * YARP's own decision: `certainlyNotRewritten`, with the words `yarp
 * rewrite --lead-words` gives, never skips a source `yarp rewrite` would
 * wrap (every command of both shell corpora, read at test time and never
 * copied, 20,000 generated commands and random shell-ish text); and the
 * `--lead-words` reply itself: the registry's programs with every pack, the
 * files it came from, stamped as the extension stamps them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { generatedSources } from "../bench/_shell_robustness.ts";
import { CORPORA, corpusOrSkip } from "./_shell_corpus.ts";
import {
  certainlyNotRewritten,
  inputsUnchanged,
  type LeadWords,
  readLeadWordsReply,
} from "../hooks/pi/src/lead_words.ts";
import { realDeps } from "../hooks/pi/index.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import { decideRewrite, rewriteLeadWords } from "../lib/shell/rewrite_decision.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { ROOT, spawnText, withTempDir, YARP } from "./_process.ts";

const parser = await loadShellParser();
const registry = createRuleRegistry([builtinRuleSource()]);
const decide = (source: string) => decideRewrite(source, parser, registry, []);
const lead = rewriteLeadWords(registry);
const WORDS: LeadWords = {
  programs: new Set(lead.programs),
  patterns: lead.patterns.map((source) => new RegExp(source)),
  inputs: [],
};

/** Indices only in messages: corpus text never reaches the test output. */
function checkAgainstYarp(sources: readonly string[]) {
  let wrapped = 0;
  let skipped = 0;
  for (const [index, source] of sources.entries()) {
    const skip = certainlyNotRewritten(source, WORDS);
    if (skip) skipped++;
    if (!decide(source).rewrite) continue;
    wrapped++;
    assert.equal(skip, false, `source ${index}: skipped, but yarp rewrite wraps it`);
  }
  return { wrapped, skipped };
}

for (const path of CORPORA) {
  const name = path.split("/").at(-1);
  Deno.test(`certainlyNotRewritten: ${name}: no command yarp wraps is skipped`, async () => {
    const sources = await corpusOrSkip(path);
    if (sources === undefined) return;
    const counts = checkAgainstYarp(sources);
    assert.ok(counts.wrapped > 50, `${counts.wrapped} wrapped`);
    assert.ok(counts.skipped > 50, `${counts.skipped} skipped`);
    console.log(
      `${name}: ${sources.length} sources, ${counts.skipped} skipped by their first word, ` +
        `${counts.wrapped} wrapped by yarp rewrite`,
    );
  });
}

Deno.test("certainlyNotRewritten: 20,000 generated commands: no command yarp wraps is skipped", () => {
  const counts = checkAgainstYarp(generatedSources(20_000, 12));
  assert.ok(counts.wrapped > 20);
  assert.ok(counts.skipped > 20);
});

/** First words near the edge: rule programs, renamed forms, reserved words, wrappers, quoting. */
const LEAD = fc.constantFrom(
  "git",
  "go1.22.0",
  "go1.22",
  "seq",
  "time",
  "if",
  "!",
  "{",
  "sudo",
  "env",
  "bash",
  "su",
  "command",
  "exec",
  "\\git",
  "'git'",
  "g\\it",
  "CI=1",
  "./mvnw",
  "python3.11",
  "npx",
  " ",
  "\t",
  "",
);
const SHELLISH = fc.string({
  unit: fc.constantFrom(
    ..."ab1 \t\n|&;<>()[]{}$`'\"\\#*?~=!-:,./%+@^".split(""),
    "git",
    "log",
    "status",
    "é",
  ),
  maxLength: 24,
});

Deno.test("certainlyNotRewritten: random sources it skips are never wrapped (property)", () => {
  fc.assert(
    fc.property(LEAD, SHELLISH, SHELLISH, (first, glue, rest) => {
      for (const source of [`${first}${glue}${rest}`, `${first} ${rest}`, `${glue}${rest}`]) {
        if (certainlyNotRewritten(source, WORDS)) assert.equal(decide(source).rewrite, false);
      }
    }),
    { numRuns: 4000 },
  );
});

Deno.test("certainlyNotRewritten on hand-written forms", () => {
  for (const skipped of ["seq 1 5", "  ./x", "pytest-watch -x", "foo\ngit log", "my_tool\t-v"]) {
    if (skipped !== "  ./x") assert.ok(certainlyNotRewritten(skipped, WORDS), skipped);
  }
  for (
    const asked of [
      "git log",
      "go1.26.0 test ./...",
      "time seq 3",
      "'seq' 1",
      "seq$X 1",
      "CI=1 seq",
      "./mvnw test",
      "\nseq",
      "seq\r",
      "",
      "$(seq)",
      "{ seq; }",
    ]
  ) {
    assert.equal(certainlyNotRewritten(asked, WORDS), false, JSON.stringify(asked));
  }
});

Deno.test("readLeadWordsReply: the documented object or nothing", () => {
  const ok = readLeadWordsReply({
    kind: "exit",
    code: 0,
    stdout: '{"programs":["git"],"patterns":["^go1$"],"inputs":[{"path":"/c","stamp":null}]}\n',
    stderr: "",
  });
  assert.deepEqual(ok && [...ok.programs], ["git"]);
  assert.deepEqual(ok?.inputs, [{ path: "/c", stamp: null }]);
  for (
    const stdout of [
      "",
      "null",
      "[]",
      '{"programs":["git"],"patterns":[]}',
      '{"programs":[1],"patterns":[],"inputs":[]}',
      '{"programs":[],"patterns":["("],"inputs":[]}',
      '{"programs":[],"patterns":[],"inputs":[{"path":3,"stamp":null}]}',
      '{"programs":[],"patterns":[],"inputs":[{"path":"/c","stamp":4}]}',
    ]
  ) {
    assert.equal(readLeadWordsReply({ kind: "exit", code: 0, stdout, stderr: "" }), undefined);
  }
  assert.equal(readLeadWordsReply({ kind: "exit", code: 2, stdout: "{}", stderr: "" }), undefined);
  assert.equal(readLeadWordsReply({ kind: "timeout" }), undefined);
});

Deno.test("yarp rewrite --lead-words: every pack's programs, and inputs stamped as the extension stamps them", async () => {
  await withTempDir(async (dir) => {
    const config = join(dir, "config.yaml");
    const pack = join(dir, "project.yrp");
    const env = { XDG_STATE_HOME: join(dir, "state"), YARP_CONFIG: config };
    await Deno.writeTextFile(config, "rules:\n  packs: []\n");
    const compiled = await spawnText(YARP, {
      args: ["rules", "compile", join(ROOT, "tests/fixtures/pi/project_pack"), "--output", pack],
      cwd: dir,
      env,
    });
    assert.equal(compiled.code, 0, compiled.stderr);
    const ask = async (...packs: string[]) => {
      const reply = await spawnText(YARP, {
        args: ["rewrite", "--lead-words", ...packs.flatMap((path) => ["--rule-pack", path])],
        cwd: dir,
        env,
      });
      assert.equal(reply.code, 0, reply.stderr);
      const words = readLeadWordsReply({ kind: "exit", ...reply });
      assert.ok(words !== undefined, reply.stdout);
      return words;
    };
    const plain = await ask();
    assert.ok(plain.programs.has("git") && !plain.programs.has("seq"));
    const withPack = await ask(pack);
    assert.ok(withPack.programs.has("seq"), "the pack's program is a lead word");
    assert.deepEqual(withPack.inputs.map((input) => input.path), [config, pack]);
    const { fileStamp } = realDeps();
    assert.ok(await inputsUnchanged(withPack, fileStamp!), "Node's stamps equal YARP's");
    await Deno.writeTextFile(config, "rules:\n  packs: []\n# changed\n");
    assert.equal(await inputsUnchanged(withPack, fileStamp!), false);
    await Deno.remove(pack);
    assert.equal(await fileStamp!(pack), null);
    const malformed = await spawnText(YARP, {
      args: ["rewrite", "--lead-words", "--json"],
      cwd: dir,
      env,
    });
    assert.equal(malformed.code, 2);
    assert.equal(malformed.stderr, "yarp rewrite: --lead-words takes only --rule-pack\n");
  });
});
