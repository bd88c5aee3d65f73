/**
 * The shell syntax census (docs/architecture.md, "Offline analysis"): a table of sources
 * and the ids and verdict each yields, covering every id, rejected and
 * malformed sources and the limits; properties: the census never throws,
 * holds only sorted known ids and agrees with `parse`.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { SHELL_PIECES } from "./_shell_pieces.ts";
import {
  loadShellParser,
  SHELL_LIMITS,
  SYNTAX_IDS,
  type SyntaxCensus,
  type SyntaxId,
} from "../lib/shell/mod.ts";

const parser = await loadShellParser();

/** Source → expected features and verdict. */
const TABLE: readonly [string, readonly SyntaxId[], SyntaxCensus["parse"]][] = [
  // Accepted sources.
  ["git status", [], "ok"],
  ["cargo test 2>&1 | tail -50", ["pipeline", "redirect-dup"], "ok"],
  ["cargo test |& head", ["pipe-stderr", "pipeline"], "ok"],
  ["git log -1 && git status --short", ["and-chain"], "ok"],
  ["rg x src || true", ["or-chain"], "ok"],
  ["make; make install", ["sequence"], "ok"],
  ["git add .\ngit commit -m 'x'", ["multi-line", "quoting"], "ok"],
  ["a;\nb", ["multi-line"], "ok"],
  ["ls \\\n  -la", ["multi-line"], "ok"],
  ["npm test &&\n  npm run lint", ["and-chain", "multi-line"], "ok"],
  ["ls >/dev/null 2>&1", ["redirect-dup", "redirect-null"], "ok"],
  ["git status # look", ["comment"], "ok"],
  [`rg 'a b' "c d"`, ["quoting"], "ok"],
  ['git commit -m "line 1\nline 2"', ["quoting"], "ok"],
  ["a;", [], "ok"],
  // Rejected sources: the census still reads them.
  ["sleep 1 & wait", ["background", "sequence"], "background"],
  ["sleep 1 &", ["background"], "background"],
  ["sort < in > out", ["redirect-file"], "redirect-unsupported"],
  ["ls >& out 2>&-", ["redirect-dup", "redirect-file"], "redirect-unsupported"],
  ["cat <<EOF\n$x\nEOF", ["heredoc", "parameter-expansion"], "redirect-unsupported"],
  ["cat <<EOF\nx\nEOF\nls", ["heredoc", "multi-line"], "redirect-unsupported"],
  ["cat <<-EOF | wc -l\n\tx\nEOF", ["heredoc", "pipeline"], "redirect-unsupported"],
  [`grep x <<< "$y"`, ["herestring", "parameter-expansion", "quoting"], "redirect-unsupported"],
  ["echo $HOME ${PWD} ${X:-/tmp}", ["parameter-expansion"], "expansion"],
  [
    "cargo test 2>&1 | tail -n $N",
    ["parameter-expansion", "pipeline", "redirect-dup"],
    "expansion",
  ],
  ["ls $(pwd) `pwd`", ["command-substitution"], "expansion"],
  ["x=$(a\nb)", ["assignment", "command-substitution", "multi-line"], "expansion"],
  [
    'git commit -m "$(cat <<EOF\nmsg\nEOF\n)"',
    ["command-substitution", "heredoc", "quoting"],
    "expansion",
  ],
  ['echo "x\n$(date)"', ["command-substitution", "quoting"], "expansion"],
  ["diff <(ls a) >(wc)", ["process-substitution"], "expansion"],
  ["echo $((1 + 2)) $[3]", ["arithmetic"], "expansion"],
  ["((i++))", ["arithmetic"], "unsupported-syntax"],
  [
    "echo $((1 | 2 & 3 << 4)) && [[ a || b ]]",
    ["and-chain", "arithmetic", "test-command"],
    "expansion",
  ],
  ["ls *.ts src/[ab]?.ts", ["glob"], "glob"],
  ["ls a[ @{u}", [], "glob"],
  ["echo {a,b}.txt", ["brace-expansion"], "glob"],
  ["echo x{1..3}", ["brace-expansion"], "glob"],
  ["ls ~/src", ["tilde"], "glob"],
  ["FOO=1 cargo test", ["assignment"], "ok"],
  ["X=*.ts Y=~/a Z={a,b}", ["assignment", "tilde"], "glob"],
  ["export FOO=1; unset BAR", ["assignment", "declaration", "sequence"], "unsupported-syntax"],
  ["(cd x && ls)", ["and-chain", "subshell"], "unsupported-syntax"],
  ["{ ls; pwd; } > out", ["group", "redirect-file", "sequence"], "unsupported-syntax"],
  ["if [ -f x ]; then cat x; fi", ["compound", "test-command"], "unsupported-syntax"],
  [
    `for f in *.ts; do wc -l "$f"; done`,
    ["compound", "glob", "parameter-expansion", "quoting"],
    "unsupported-syntax",
  ],
  [
    "for ((i = 0; i < 3; i++)); do :; done",
    ["arithmetic", "assignment", "compound"],
    "unsupported-syntax",
  ],
  ["while read l; do :; done < f", ["compound", "redirect-file"], "unsupported-syntax"],
  ["until a; do b; done", ["compound"], "unsupported-syntax"],
  ["select x in a b; do :; done", ["compound"], "unsupported-syntax"],
  ["case $1 in a|b) ls;; esac", ["compound", "parameter-expansion"], "unsupported-syntax"],
  ["f() { ls; }", ["function-definition", "group"], "unsupported-syntax"],
  ["! grep -q x f", ["negation"], "unsupported-syntax"],
  ["[[ -n $x ]]", ["parameter-expansion", "test-command"], "unsupported-syntax"],
  ["echo $'a\\tb'", ["ansi-c-string"], "expansion"],
  ["# only a comment", ["comment"], "empty"],
  // Syntax errors: ids found before or inside the ERROR node.
  ["echo $(", ["command-substitution"], "syntax-error"],
  ["echo ${x", ["parameter-expansion"], "syntax-error"],
  ['a && b | "x', ["and-chain", "pipeline", "quoting"], "syntax-error"],
  ["if a then b", ["compound"], "syntax-error"],
  ["ls 'a", [], "syntax-error"],
  ["ls )", [], "syntax-error"],
  // Source checks: no tree is read.
  ["", [], "empty"],
  [" \n\t", [], "empty"],
  ["ls | wc\0", [], "nul-byte"],
];

Deno.test("the census of each source is its ids and the parser's verdict", () => {
  for (const [source, features, parse] of TABLE) {
    assert.deepEqual(parser.census(source), { features, parse }, JSON.stringify(source));
  }
});

Deno.test("the table covers every syntax id", () => {
  const covered = new Set(TABLE.flatMap(([, features]) => features));
  assert.deepEqual(SYNTAX_IDS.filter((id) => !covered.has(id)), []);
});

Deno.test("SYNTAX_IDS are sorted, unique, lower-case and dash-separated", () => {
  assert.deepEqual([...SYNTAX_IDS], [...new Set(SYNTAX_IDS)].sort());
  for (const id of SYNTAX_IDS) assert.match(id, /^[a-z]+(-[a-z]+)*$/);
});

Deno.test("limits: no features over the byte or node limit, any depth is read", () => {
  const huge = "echo $x | " + "x".repeat(SHELL_LIMITS.sourceBytes);
  assert.deepEqual(parser.census(huge), { features: [], parse: "source-too-large" });
  const manyWords = "echo $x | " + Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(" ");
  assert.deepEqual(parser.census(manyWords), { features: [], parse: "too-many-nodes" });
  const deep = Array.from({ length: 80 }, (_, i) => `a${i}`).join(" && ");
  assert.deepEqual(parser.census(deep), { features: ["and-chain"], parse: "too-deep" });
  const nested = "echo " + "$(".repeat(200) + "x" + ")".repeat(200);
  assert.deepEqual(parser.census(nested).features, ["command-substitution"]);
});

/** Shell-ish tokens that random soups are made of. */
const PIECES = fc.constantFrom(...SHELL_PIECES);

const SOURCES = fc.oneof(
  fc.array(PIECES, { maxLength: 30 }).map((pieces) => pieces.join(" ")),
  fc.array(PIECES, { maxLength: 30 }).map((pieces) => pieces.join("")),
  fc.string(),
  fc.string({ unit: "binary" }),
);

const KNOWN = new Set<string>(SYNTAX_IDS);

Deno.test("property: the census never throws, holds sorted known ids only and agrees with parse", () => {
  fc.assert(
    fc.property(SOURCES, (source) => {
      const census = parser.census(source);
      assert.deepEqual(Object.keys(census).sort(), ["features", "parse"]);
      assert.ok(census.features.every((id) => KNOWN.has(id)), JSON.stringify(census));
      assert.deepEqual(census.features, [...new Set(census.features)].sort());
      const parsed = parser.parse(source);
      assert.equal(census.parse, parsed.ok ? "ok" : parsed.reason);
    }),
    { numRuns: 2_000 },
  );
});

Deno.test("property: the census is deterministic", () => {
  fc.assert(
    fc.property(SOURCES, (source) => {
      assert.deepEqual(parser.census(source), parser.census(source));
    }),
    { numRuns: 300 },
  );
});
