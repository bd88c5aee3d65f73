/**
 * The shell parser (docs/architecture.md, "Parser", "Test matrix"; "Command
 * matching"): quoting, escaped operators, comments, nested
 * substitutions, heredocs, descriptor syntax, malformed input, deep nesting,
 * huge commands, precedence, and properties: parsing never throws and every
 * failure is a pass-through reason.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { SHELL_PIECES } from "./_shell_pieces.ts";
import { loadShellParser, SHELL_LIMITS, type ShellParse } from "../lib/shell/mod.ts";

const parser = await loadShellParser();

/** The argv of every stage, grouped as lists → pipelines → stages. */
function shape(parsed: ShellParse): unknown {
  if (!parsed.ok) return parsed.reason;
  return parsed.program.lists.map((list) => ({
    c: list.connectors,
    p: list.pipelines.map((pipeline) =>
      pipeline.stages.map((stage) => stage.words.map((w) => w.text))
    ),
  }));
}

function argv(source: string): string[] | string {
  const parsed = parser.parse(source);
  if (!parsed.ok) return parsed.reason;
  const stages = parsed.program.lists.flatMap((l) => l.pipelines.flatMap((p) => p.stages));
  assert.equal(stages.length, 1, source);
  return stages[0].words.map((w) => w.text);
}

Deno.test("quoting decodes to the exact argv", () => {
  const table: [string, string[]][] = [
    ["git diff --stat", ["git", "diff", "--stat"]],
    ["rg 'a b' src/", ["rg", "a b", "src/"]],
    [`rg "a \\"b\\" \\\\ \\n" x`, ["rg", 'a "b" \\ \\n', "x"]],
    ["rg a\\ b", ["rg", "a b"]],
    [`rg --type="ts" x`, ["rg", "--type=ts", "x"]],
    [`rg 'it'\\''s'`, ["rg", "it's"]],
    [`echo ''`, ["echo", ""]],
    ["git log @{u}", ["git", "log", "@{u}"]],
    ["echo a\\|b a\\;b a\\&\\&b", ["echo", "a|b", "a;b", "a&&b"]],
    ["rg 'x|y' a\\>b", ["rg", "x|y", "a>b"]],
    ["ls \\\n -la", ["ls", "-la"]],
    [`rg "*.ts" '$HOME'`, ["rg", "*.ts", "$HOME"]],
    ["grep -c é", ["grep", "-c", "é"]],
    ["git diff HEAD~1 x~ a~b", ["git", "diff", "HEAD~1", "x~", "a~b"]],
    [`ls "a"~ 'b'~/c`, ["ls", "a~", "b~/c"]],
  ];
  for (const [source, expected] of table) assert.deepEqual(argv(source), expected, source);
});

Deno.test("an accepted tilde word is what bash passes", async () => {
  const words = ["HEAD~1", "x~", "a~b", '"a"~', "'b'~/c", "HEAD~3..HEAD~1", "@~2", "-~"];
  for (const word of words) {
    const parsed = argv(`printf %s ${word}`);
    assert.ok(Array.isArray(parsed), word);
    const { stdout } = await new Deno.Command("bash", { args: ["-c", `printf %s ${word}`] })
      .output();
    assert.equal(parsed[2], new TextDecoder().decode(stdout), word);
  }
});

Deno.test("expansions, globs and assignments are refused", () => {
  const table: [string, string][] = [
    ["echo $HOME", "expansion"],
    [`echo "$VALUE"`, "expansion"],
    ["echo ${x}", "expansion"],
    ["echo $(date)", "expansion"],
    ["echo `date`", "expansion"],
    ["echo $(echo $(date))", "expansion"],
    ["echo $((1 + 2))", "expansion"],
    [`echo $'a\\n'`, "expansion"],
    ["diff <(ls) <(ls a)", "expansion"],
    ["ls *.ts", "glob"],
    ["ls a?", "glob"],
    ["ls ~/x", "glob"],
    ["ls ~", "glob"],
    ["ls a=~/x", "glob"],
    ["ls --dir=~/x", "glob"],
    ["ls a:~/x", "glob"],
    ["ls a=b:~/x", "glob"],
    ["ls {a,b}", "glob"],
    ["ls x{1..3}", "glob"],
    ["FOO+=1 rg x", "assignment"],
    ["export A", "assignment"],
    ["export -p", "assignment"],
    ["X=$(date) make", "expansion"],
    ["X=~/a make", "glob"],
    ["sleep 1 &", "background"],
  ];
  for (const [source, reason] of table) assert.equal(shape(parser.parse(source)), reason, source);
});

Deno.test("comments are ignored, compound forms are refused", () => {
  assert.deepEqual(argv("git status # look"), ["git", "status"]);
  assert.deepEqual(argv("# first\ngit status"), ["git", "status"]);
  const refused = [
    "(ls)",
    "{ ls; }",
    "if true; then ls; fi",
    "for f in a; do ls; done",
    "while true; do ls; done",
    "f() { ls; }",
    "! ls",
    "[[ -f x ]]",
    "declare A=1",
    "X=(a b)",
    "case x in a) ls;; esac",
  ];
  for (const source of refused) {
    const parsed = parser.parse(source);
    assert.equal(parsed.ok, false, source);
    assert.ok(!parsed.ok && ["unsupported-syntax", "assignment"].includes(parsed.reason), source);
  }
});

Deno.test("here documents, here strings and file redirections are refused", () => {
  for (
    const source of [
      "cat <<EOF\nx\nEOF\n",
      "cat <<'EOF'\n$x\nEOF",
      "cat <<< word",
      "ls > out.txt",
      "ls >> log",
      "sort < in",
      "ls 2>err",
      "ls 3>&1",
      "ls >&-",
      "ls 2>&3",
    ]
  ) {
    assert.equal(shape(parser.parse(source)), "redirect-unsupported", source);
  }
});

Deno.test("reviewed descriptor forms are kept in order", () => {
  const parsed = parser.parse("cargo test >/dev/null 2>&1 1>&2 &>/dev/null 2>/dev/null");
  assert.ok(parsed.ok);
  const stage = parsed.program.lists[0].pipelines[0].stages[0];
  assert.deepEqual(stage.words.map((w) => w.text), ["cargo", "test"]);
  assert.deepEqual(stage.redirects.map(({ kind, fd, from }) => ({ kind, fd, from })), [
    { kind: "null", fd: 1, from: undefined },
    { kind: "dup", fd: 2, from: 1 },
    { kind: "dup", fd: 1, from: 2 },
    { kind: "null", fd: "both", from: undefined },
    { kind: "null", fd: 2, from: undefined },
  ]);
  const merged = parser.parse("cargo test |& head");
  assert.ok(merged.ok && merged.program.lists[0].pipelines[0].mergeStderr);
});

Deno.test("operators regroup with bash precedence", () => {
  assert.deepEqual(shape(parser.parse("set -o pipefail && cargo test 2>&1 | head -100")), [{
    c: ["and"],
    p: [[["set", "-o", "pipefail"]], [["cargo", "test"], ["head", "-100"]]],
  }]);
  const parsed = parser.parse("a && b 2>&1 | c");
  assert.ok(parsed.ok);
  assert.equal(parsed.program.lists[0].pipelines[1].stages[0].redirects.length, 1);
  assert.deepEqual(shape(parser.parse("a || b; c\nd | e;")), [
    { c: ["or", "sequence"], p: [[["a"]], [["b"]], [["c"]]] },
    { c: [], p: [[["d"], ["e"]]] },
  ]);
  assert.deepEqual(shape(parser.parse("a &&\n  b")), [{ c: ["and"], p: [[["a"]], [["b"]]] }]);
});

Deno.test("malformed input is a syntax error", () => {
  for (
    const source of [
      "ls 'a",
      'ls "a',
      "ls )",
      "a &&",
      "a |",
      "| b",
      "a ;; b",
      "if then",
      "echo $(",
      "ls \\",
    ]
  ) {
    const parsed = parser.parse(source);
    assert.equal(parsed.ok, false, source);
  }
  assert.equal(shape(parser.parse("ls 'a")), "syntax-error");
  assert.equal(shape(parser.parse("")), "empty");
  assert.equal(shape(parser.parse("  \n ")), "empty");
  assert.equal(shape(parser.parse("ls\0x")), "nul-byte");
});

Deno.test("limits: depth, nodes, stages and source size", () => {
  const deep = Array.from({ length: 80 }, (_, i) => `a${i}`).join(" && ");
  assert.equal(shape(parser.parse(deep)), "too-deep");
  const nested = "echo " + "$(".repeat(200) + "x" + ")".repeat(200);
  assert.equal(parser.parse(nested).ok, false);
  const stages = Array.from({ length: 300 }, (_, i) => `a${i}`).join(" | ");
  assert.equal(shape(parser.parse(stages)), "too-many-stages");
  const manyWords = "echo " + Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(" ");
  assert.equal(shape(parser.parse(manyWords)), "too-many-nodes");
  const huge = "echo " + "x".repeat(SHELL_LIMITS.sourceBytes);
  assert.equal(shape(parser.parse(huge)), "source-too-large");
  const justUnder = "echo '" + "y".repeat(SHELL_LIMITS.sourceBytes - 20) + "'";
  const parsed = parser.parse(justUnder);
  assert.ok(parsed.ok);
});

Deno.test("property: parsing never throws and failure is a known reason", () => {
  const pieces = fc.constantFrom(...SHELL_PIECES);
  const reasons = new Set([
    "empty",
    "nul-byte",
    "source-too-large",
    "too-many-nodes",
    "too-deep",
    "too-many-stages",
    "syntax-error",
    "incomplete-cover",
    "unsupported-syntax",
    "expansion",
    "glob",
    "assignment",
    "background",
    "redirect-unsupported",
  ]);
  fc.assert(
    fc.property(
      fc.oneof(fc.array(pieces, { maxLength: 30 }).map((p) => p.join(" ")), fc.string()),
      (source) => {
        const parsed = parser.parse(source);
        if (!parsed.ok) assert.ok(reasons.has(parsed.reason), parsed.reason);
        else {
          for (const list of parsed.program.lists) {
            assert.equal(list.connectors.length, list.pipelines.length - 1);
            for (const pipeline of list.pipelines) assert.ok(pipeline.stages.length > 0);
          }
        }
      },
    ),
    { numRuns: 2_000 },
  );
});

Deno.test("property: a remembered model is the one a fresh parse gives", async () => {
  // `reference` parses a NUL-refused sentinel before each source, so it never serves a memo.
  const reference = await loadShellParser();
  const fresh = (source: string) => {
    reference.parse("\0");
    return reference.parse(source);
  };
  const source = fc.oneof(
    fc.string(),
    fc.array(fc.constantFrom(...SHELL_PIECES), { maxLength: 8 }).map((p) => p.join(" ")),
  );
  const call = fc.tuple(fc.constantFrom("parse", "census"), fc.nat({ max: 3 }));
  fc.assert(
    fc.property(
      fc.array(source, { minLength: 1, maxLength: 4 }),
      fc.array(call),
      (sources, calls) => {
        const memo = parser;
        for (const [method, index] of calls) {
          const text = sources[index % sources.length];
          if (method === "census") {
            assert.equal(memo.census(text).parse, reference.census(text).parse);
          } else {
            const parsed = memo.parse(text);
            assert.deepEqual(parsed, fresh(text));
            assert.equal(memo.parse(text), parsed, "asked again, the same model");
          }
        }
      },
    ),
    { numRuns: 300 },
  );
});
