/**
 * Bash itself as the oracle for the words YARP reads: whenever the parser
 * accepts a source as one simple command, bash must make the same argv of
 * it: over random pieces, over words in every literal quoting, and over
 * every command of both shell corpora and 20,000 generated ones that
 * `yarp rewrite` wraps (corpus text is read at test time, never copied,
 * and failures name indices only). Blanks the grammar skips but bash reads
 * (`\ `, `\<tab>`, `\r`, a backslash-newline glued to a word) are the
 * cases this guards.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { generatedSources } from "../bench/_shell_robustness.ts";
import { CORPUS_NAMES, corpusTest } from "./_shell_corpus.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import { decideRewrite } from "../lib/shell/rewrite_decision.ts";

const parser = await loadShellParser();

/** The argv bash gives `source` after `set --`, with nothing on PATH. */
function bashWords(source: string): string[] {
  const script = `PATH=/nonexistent\nset -- ${source}\nprintf '%s\\0' "$@"`;
  const output = new Deno.Command("bash", {
    args: ["--norc", "--noprofile", "-c", script],
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  const text = new TextDecoder().decode(output.stdout);
  return text === "" ? [] : text.slice(0, -1).split("\0");
}

/** YARP's argv for `source` when it is one plain simple command, else undefined. */
function yarpWords(source: string): string[] | undefined {
  const parsed = parser.parse(source);
  if (!parsed.ok) return undefined;
  const stages = parsed.program.lists.flatMap((list) => list.pipelines.flatMap((p) => p.stages));
  if (stages.length !== 1) return undefined;
  const [stage] = stages;
  if (stage.redirects.length > 0 || (stage.assignments?.length ?? 0) > 0) return undefined;
  return stage.words.map((word) => word.text);
}

Deno.test("blanks the grammar skips but bash reads are refused, not dropped", () => {
  for (
    const source of [
      "grep \\ -0 x",
      "echo \\\tx",
      "git log\n\\a",
      "git lo\\\ng",
      "git log\\\n-3",
      "git log \\\r",
      "git log \\ | head",
    ]
  ) {
    assert.equal(parser.parse(source).ok, false, JSON.stringify(source));
  }
  assert.deepEqual(yarpWords("git log \\\n  -3"), ["git", "log", "-3"]);
  assert.deepEqual(bashWords("git log \\\n  -3"), ["git", "log", "-3"]);
});

const PIECES = [
  "a",
  "b",
  "-0",
  "x=y",
  "\\ ",
  "\\\t",
  "\\\n",
  " ",
  "  ",
  "\t",
  "\n",
  "\r",
  "\v",
  "\f",
  "'p q'",
  '"r s"',
  '"t\nu"',
  "\\a",
  "\\\\",
  " #c",
];

Deno.test("every accepted simple command has bash's own argv", () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }),
      (pieces) => {
        const source = `p ${pieces.join("")}`;
        const words = yarpWords(source);
        if (words === undefined) return;
        assert.deepEqual(words, bashWords(source), JSON.stringify(source));
      },
    ),
    { numRuns: 2000 },
  );
});

/** The argv bash makes of each source, from one bash process (`a SOURCE` prints its words). */
async function bashArgvs(sources: readonly string[]): Promise<string[][]> {
  const script = "PATH=/nonexistent\na() { printf '%s\\0' \"$@\"; printf '\\1'; }\n" +
    sources.map((source) => `a ${source}\n`).join("");
  const file = await Deno.makeTempFile({ suffix: ".sh" });
  try {
    await Deno.writeTextFile(file, script);
    const { stdout } = await new Deno.Command("bash", {
      args: ["--norc", "--noprofile", file],
      stdout: "piped",
      stderr: "null",
      clearEnv: true,
    }).output();
    const records = new TextDecoder().decode(stdout).split("\x01").slice(0, -1);
    assert.equal(records.length, sources.length);
    return records.map((record) => record.split("\0").slice(0, -1));
  } finally {
    await Deno.remove(file);
  }
}

/** Checks that bash reads every source YARP wraps as YARP's argv; returns how many were wrapped. */
async function checkWrapped(sources: readonly string[], label: (index: number) => string) {
  const registry = createRuleRegistry([builtinRuleSource()]);
  const wrapped = sources.filter((source) => decideRewrite(source, parser, registry, []).rewrite);
  const argvs = await bashArgvs(wrapped);
  for (const [index, source] of wrapped.entries()) {
    assert.deepEqual(yarpWords(source), argvs[index], label(index));
  }
  return wrapped.length;
}

for (const name of CORPUS_NAMES) {
  corpusTest(name, `${name}: every command yarp rewrite wraps has bash's argv`, async (sources) => {
    const wrapped = await checkWrapped(sources, (index) => `wrapped ${name} source ${index}`);
    assert.ok(wrapped > 50, `${wrapped} wrapped`);
  });
}

Deno.test("20,000 generated commands: every one yarp rewrite wraps has bash's argv", async () => {
  const sources = generatedSources(20_000, 11);
  assert.ok(await checkWrapped(sources, (index) => JSON.stringify(sources[index])) > 20);
});

/** One word written in one of bash's literal quotings. */
function quoted(word: string, how: number): string {
  switch (how) {
    case 0:
      return `'${word.replaceAll("'", `'\\''`)}'`;
    case 1:
      return `"${word.replace(/["\\$`]/g, (c) => `\\${c}`)}"`;
    default:
      if (word === "") return "''";
      return word.replace(/[^A-Za-z0-9]/g, (c) => (c === "\n" ? "'\n'" : `\\${c}`));
  }
}

Deno.test("words in any literal quoting read back as bash reads them (property)", async () => {
  const word = fc.string({ unit: fc.constantFrom(..."ab ~=:'\"\\$`!#*|;&<>\n\t é".split("")) });
  const commands = fc.sample(
    fc.array(fc.tuple(word, fc.nat(2), fc.constantFrom(" ", "\t", " \\\n ")), {
      minLength: 1,
      maxLength: 5,
    }).map((words) => ({
      argv: ["printf", ...words.map(([w]) => w)],
      source: "printf" + words.map(([w, how, gap]) => gap + quoted(w, how)).join(""),
    })),
    { numRuns: 600, seed: 9 },
  );
  const accepted = commands.filter(({ source }) => yarpWords(source) !== undefined);
  assert.ok(accepted.length > 200, `${accepted.length} accepted`);
  const argvs = await bashArgvs(accepted.map(({ source }) => source));
  for (const [index, { argv, source }] of accepted.entries()) {
    assert.deepEqual(argvs[index], argv, JSON.stringify(source));
    assert.deepEqual(yarpWords(source), argv, JSON.stringify(source));
  }
});
