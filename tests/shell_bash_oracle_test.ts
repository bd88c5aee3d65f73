/**
 * Bash itself as the oracle for the words YARP reads: whenever the parser
 * accepts a source as one simple command, `set -- SOURCE` in a real bash
 * must give the same argv. Blanks the grammar skips but bash reads
 * (`\ `, `\<tab>`, `\r`, a backslash-newline glued to a word) are the
 * cases this guards.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { loadShellParser } from "../lib/shell/mod.ts";

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
