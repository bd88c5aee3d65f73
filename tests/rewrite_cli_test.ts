/**
 * `yarp rewrite` (docs/architecture.md, "Shell source checks", "Rewrite and run
 * agreement", "Matcher tests"): the wrapper is printed only for one simple
 * command that exactly one reduction rule selects; bash reproduces the
 * parsed argv from the wrapper; `--json` gives the decision and reason code
 * and never command text; the whole program agrees on stdin and argument
 * forms.
 */
import assert from "node:assert/strict";
import { generatedSources } from "../bench/_shell_robustness.ts";
import fc from "fast-check";
import { parseRewriteArgs } from "../lib/cli/rewrite.ts";
import { decideRewrite, shellQuote } from "../lib/shell/rewrite_decision.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import { spawnText, YARP } from "./_process.ts";

const parser = await loadShellParser();
const registry = createRuleRegistry([builtinRuleSource()]);

function decide(source: string) {
  return decideRewrite(source, parser, registry, []);
}

Deno.test("decisions for simple commands, guards and compound forms", () => {
  const table: [string, string, string | undefined][] = [
    ["git diff --stat", "rewritten", "git/diff"],
    ["rg -n TODO src/", "rewritten", "search/rg"],
    ["rg 'a b' \"c\"", "rewritten", "search/rg"],
    ["git -C repo status", "rewritten", "git/status"],
    ["rg --json TODO .", "guarded", "search/guard-rg-json"],
    ["cargo test | head -100", "not-simple-command", undefined],
    ["cargo test && cargo test", "not-simple-command", undefined],
    ["cargo test; cargo test", "not-simple-command", undefined],
    ["cargo test 2>&1", "redirect", undefined],
    ["cargo test >/dev/null", "redirect", undefined],
    ['echo "$VALUE"', "parse:expansion", undefined],
    ["rg x $(pwd)", "parse:expansion", undefined],
    ["rg x *.ts", "parse:glob", undefined],
    ["FOO=1 cargo test", "assignment", undefined],
    ["cargo test # note", "rewritten", "tests/cargo-test"],
    ["cargo test '", "parse:syntax-error", undefined],
    ["unknown-tool x", "unknown-program", undefined],
    ["/usr/bin/git diff", "unknown-program", undefined],
    ["", "parse:empty", undefined],
  ];
  for (const [source, reason, rule] of table) {
    const decision = decide(source);
    assert.equal(decision.reason, reason, source);
    assert.equal(decision.rule, rule, source);
    assert.equal(decision.rewrite, reason === "rewritten", source);
  }
});

Deno.test("shellQuote round-trips through bash for any word", async () => {
  const words = fc.array(
    fc.string({ unit: "binary-ascii", maxLength: 12 }).filter((w) =>
      !w.includes("\0") && !w.includes("\x01")
    ),
    {
      minLength: 1,
      maxLength: 6,
    },
  );
  const samples = fc.sample(words, 60);
  samples.push(["é", " ", "'", '"', "$HOME", "*", "~", "a\nb", "\\", "!", "{a,b}", "-", "--"]);
  const script = samples.map((argv) =>
    `printf '%s\\0' ${argv.map(shellQuote).join(" ")}; printf '\\1'`
  ).join("\n");
  const { stdout } = await new Deno.Command("bash", { args: ["-c", script] }).output();
  const groups = new TextDecoder().decode(stdout).split("\x01").slice(0, -1);
  assert.equal(groups.length, samples.length);
  groups.forEach((group, index) => {
    assert.deepEqual(group.split("\0").slice(0, -1), samples[index]);
  });
});

Deno.test("the wrapper makes bash pass the parsed argv to yarp run", async () => {
  const sources = [
    "rg -n 'it'\\''s here' \"a \\\"b\\\"\" src/",
    "git diff -- 'a b' c\\ d",
    "rg é 'x|y'",
  ];
  for (const source of sources) {
    const decision = decide(source);
    assert.ok(decision.rewrite && decision.command !== undefined, source);
    const script = `yarp() { printf '%s\\0' "$@"; }; ${decision.command}`;
    const { stdout } = await new Deno.Command("bash", { args: ["-c", script] }).output();
    const got = new TextDecoder().decode(stdout).split("\0").slice(0, -1);
    const parsed = parser.parse(source);
    assert.ok(parsed.ok);
    const argv = parsed.program.lists[0].pipelines[0].stages[0].words.map((w) => w.text);
    assert.deepEqual(got, ["run", "--expect-rule", decision.rule!, "--", ...argv]);
  }
});

Deno.test("argument parsing", () => {
  assert.deepEqual(parseRewriteArgs(["--json", "--", "ls"]), {
    json: true,
    leadWords: false,
    serve: false,
    rulePacks: [],
    source: "ls",
  });
  assert.deepEqual(parseRewriteArgs(["--rule-pack", "p.yrp"]), {
    json: false,
    leadWords: false,
    serve: false,
    rulePacks: ["p.yrp"],
    source: undefined,
  });
  assert.deepEqual(parseRewriteArgs(["--lead-words", "--rule-pack", "p.yrp"]), {
    json: true,
    leadWords: true,
    serve: false,
    rulePacks: ["p.yrp"],
    source: undefined,
  });
  assert.deepEqual(parseRewriteArgs(["--lead-words", "--", "ls"]), {
    error: "--lead-words takes no shell source",
  });
  assert.deepEqual(parseRewriteArgs(["--lead-words", "--host", "pi"]), {
    error: "--lead-words takes only --rule-pack",
  });
  assert.deepEqual(parseRewriteArgs(["--serve", "--host", "pi"]), {
    json: true,
    leadWords: false,
    serve: true,
    rulePacks: [],
    source: undefined,
    host: "pi",
  });
  assert.deepEqual(parseRewriteArgs(["--serve", "--", "ls"]), {
    error: "--serve reads its sources on stdin, not after '--'",
  });
  assert.deepEqual(parseRewriteArgs(["--serve", "--json"]), {
    error: "--serve always answers in JSON; drop --json",
  });
  assert.ok("error" in parseRewriteArgs(["--", "a", "b"]));
  assert.ok("error" in parseRewriteArgs(["--bogus", "--", "a"]));
  assert.ok("error" in parseRewriteArgs(["--rule-pack"]));
});

function yarp(args: string[], stdin?: string) {
  return spawnText(YARP, { args, input: stdin });
}

Deno.test("yarp rewrite as a program: argument, stdin, --json, pass-through", async () => {
  assert.deepEqual(await yarp(["rewrite", "--", "git diff --stat"]), {
    code: 0,
    stdout: "yarp run --expect-rule git/diff -- git diff --stat\n",
    stderr: "",
  });
  assert.deepEqual(await yarp(["rewrite"], "git status\n"), {
    code: 0,
    stdout: "yarp run --expect-rule git/status -- git status\n",
    stderr: "",
  });
  assert.deepEqual(await yarp(["rewrite", "--", "cargo test | head"]), {
    code: 0,
    stdout: "",
    stderr: "",
  });
  const json = await yarp(["rewrite", "--json", "--", "rg 'two words' src/"]);
  assert.equal(json.code, 0);
  assert.deepEqual(JSON.parse(json.stdout), {
    rewrite: true,
    reason: "rewritten",
    rule: "search/rg",
    command: "yarp run --expect-rule search/rg -- rg 'two words' src/",
  });
  const declined = await yarp(["rewrite", "--json", "--", "rg SECRETWORD src/ | head"]);
  assert.deepEqual(JSON.parse(declined.stdout), { rewrite: false, reason: "not-simple-command" });
  const missing = await yarp([
    "rewrite",
    "--rule-pack",
    "/nonexistent/p.yrp",
    "--json",
    "--",
    "git diff",
  ]);
  assert.deepEqual(JSON.parse(missing.stdout), { rewrite: false, reason: "invalid-pack" });
  const bad = await yarp(["rewrite", "--nope"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^yarp rewrite: unknown option '--nope'\n$/);
});

Deno.test("yarp rewrite --serve answers each request line as --json answers that source", async () => {
  const sources = [
    "git log",
    "git status -sb",
    "seq 1 5",
    "cat README.md",
    "git diff | head",
    "CI=1 npm test",
    "echo 'a\nb'",
    "grep -rn 'x y' .",
    "x".repeat(70_000),
    ...generatedSources(40, 7),
  ];
  const served = await yarp(
    ["rewrite", "--serve", "--host", "pi"],
    sources.map((source) => JSON.stringify(source) + "\n").join(""),
  );
  assert.equal(served.code, 0, served.stderr);
  const lines = served.stdout.split("\n");
  assert.equal(lines.pop(), "");
  assert.equal(lines.length, sources.length);
  for (const [index, source] of sources.entries()) {
    const alone = await yarp(["rewrite", "--json", "--host", "pi"], source);
    assert.equal(`${lines[index]}\n`, alone.stdout, `source ${index}`);
  }
  const malformed = await yarp(["rewrite", "--serve"], '"git log"\ngit log\n"seq"\n');
  assert.equal(malformed.code, 2);
  assert.equal(malformed.stdout.split("\n").length, 2, "the answer before the bad line, then none");
  assert.equal(
    malformed.stderr,
    "yarp rewrite: --serve: a request must be one JSON string on one line\n",
  );
});
