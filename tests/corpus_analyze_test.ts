/**
 * `yarp corpus analyze` over a corpus this test makes by running real tools
 * (seq, grep, cat, ls) in a temporary tree: the engine replays the run path
 * for wrapped commands and the result path for the rest, guarded results
 * stay exact, already-reduced and malformed records are counted apart,
 * workers give the same figures as one thread, an unreadable file is named,
 * and no report carries command or output text.
 */
import assert from "node:assert/strict";
import { analyzeCorpus, defaultWorkers, WORKER_THRESHOLD_BYTES } from "../lib/corpus/analyze.ts";
import { createEngine, REPLAY_ARCHIVE_ID } from "../lib/corpus/engine.ts";
import type { TallyData } from "../lib/corpus/metrics.ts";
import { type CorpusRecord, recordToLine } from "../lib/corpus/record.ts";
import { summarize } from "../lib/corpus/summary.ts";
import { parseAnalyzeArgs, progressBar } from "../lib/cli/corpus.ts";
import { captureTextIo } from "../lib/cli/io.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import { privateHome, runYarp, spawn, tempDir } from "./_process.ts";

const DIR = await tempDir("yarp_corpus_analyze_");
const decoder = new TextDecoder();
const SECRET = "zebra-7c1d-needle";

/** Runs `bash -c source` in the work tree and records it as a corpus record would. */
async function recordRun(id: string, source: string): Promise<CorpusRecord> {
  const output = await spawn("bash", { args: ["-c", source], cwd: `${DIR}/tree` });
  return {
    id,
    source: "test",
    command: source,
    exitCode: output.code,
    streams: { mode: "separate", stdout: output.stdout, stderr: output.stderr },
    priorReduction: null,
  };
}

await Deno.mkdir(`${DIR}/tree/src`, { recursive: true });
for (let file = 0; file < 40; file++) {
  const lines = Array.from(
    { length: 60 },
    (_, i) => `export const value${i} = "${SECRET}-${file}";`,
  );
  await Deno.writeTextFile(`${DIR}/tree/src/module${file}.ts`, lines.join("\n") + "\n");
}
const RECORDS = [
  await recordRun("grep", `grep -rn ${SECRET} src`),
  await recordRun("grep-pipe", `grep -rn ${SECRET} src | sort`),
  await recordRun("cat", "cat -n src/module1.ts"),
  await recordRun("ls-fail", "ls no-such-dir"),
  await recordRun("seq", "seq 1 5000"),
  await recordRun("chain", `cd src && grep -rn ${SECRET} .`),
];

const parser = await loadShellParser();
const registry = createRuleRegistry([builtinRuleSource()]);

Deno.test("the engine replays the run path per stream and the result path on the visible text", async () => {
  const engine = createEngine(parser, registry);
  const [grep, piped, cat, lsFail, seq] = await Promise.all(RECORDS.slice(0, 5).map(engine));
  assert.equal(grep.path, "run");
  assert.equal(grep.rule, "search/grep");
  assert.ok(grep.reduced && grep.after.length < grep.before.length);
  assert.ok(decoder.decode(grep.after).includes(`yarp read ${REPLAY_ARCHIVE_ID}`));
  assert.equal(piped.path, "result");
  assert.ok(piped.reasons[0] === "not-simple-command");
  assert.equal(cat.guarded, true);
  assert.deepEqual(cat.after, cat.before);
  assert.equal(lsFail.reduced, false);
  assert.deepEqual(lsFail.after, lsFail.before);
  // no rule knows `seq`: the global output cap keeps head, tail and the recovery marker
  assert.equal(seq.rule, null);
  assert.ok(seq.reduced && seq.reasons.includes("capped"), seq.reasons.join(","));
  // 5,000 lines: more than one page, so the marker names the paged form.
  assert.ok(
    decoder.decode(seq.after).endsWith(
      `yarp read ${REPLAY_ARCHIVE_ID} --max-bytes 28k · --grep TEXT · --lines A:B]\n`,
    ),
  );
});

async function writeCorpus(name: string, lines: string[], gzip: boolean): Promise<string> {
  const path = `${DIR}/${name}`;
  const text = lines.join("\n") + "\n";
  if (!gzip) {
    await Deno.writeTextFile(path, text);
    return path;
  }
  await Deno.writeFile(path, new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")));
  return path;
}

function withoutTimes(tally: TallyData): unknown {
  const { microsMedian: _m, microsP95: _p, ...rest } = summarize(tally);
  return rest;
}

Deno.test("workers and one thread give the same figures; skips and unreadable files are counted", async () => {
  const prior = { ...RECORDS[0], id: "prior", priorReduction: "pi-truncation" as const };
  const lines = [...RECORDS, prior].map(recordToLine);
  const corpus = await writeCorpus("corpus.jsonl.gz", [...lines, "{not json", lines[0]], true);
  const missing = `${DIR}/missing.jsonl`;
  const threaded = await analyzeCorpus({ files: [corpus, missing], workers: 0 });
  const pooled = await analyzeCorpus({ files: [corpus, missing], workers: 2 });
  assert.deepEqual(withoutTimes(pooled.tally), withoutTimes(threaded.tally));
  assert.equal(threaded.unreadable.length, 1);
  assert.equal(threaded.unreadable[0].path, missing);
  const summary = summarize(threaded.tally);
  assert.equal(summary.records, RECORDS.length + 1);
  assert.deepEqual(summary.skipped, { malformed: 1, "prior-reduction:pi-truncation": 1 });
  assert.equal(summary.grew, 0);
  assert.equal(summary.guarded, 1);
  assert.equal(summary.guardedExact, 1);
  assert.equal(summary.passThroughExact, summary.passThrough);
  assert.ok(summary.changed >= 2);
  assert.ok(summary.removedShare !== null && summary.removedShare > 0.5);
  assert.equal(summary.syntax.pipeline, 1);
  assert.equal(summary.syntax["and-chain"], 1);
  assert.ok(summary.microsP95 >= summary.microsMedian);
});

Deno.test("the default worker count follows corpus size and cores", () => {
  assert.equal(defaultWorkers(WORKER_THRESHOLD_BYTES - 1, 2), 0);
  assert.equal(defaultWorkers(WORKER_THRESHOLD_BYTES, 2), 2);
  assert.equal(defaultWorkers(WORKER_THRESHOLD_BYTES, 16), 4);
});

Deno.test("yarp corpus analyze prints aggregates only, as text, JSON and HTML", async () => {
  const corpus = await writeCorpus("cli.jsonl", RECORDS.map(recordToLine), false);
  const html = `${DIR}/report/out.html`;
  await Deno.mkdir(`${DIR}/report`);
  const env = privateHome(DIR);
  const run = (...args: string[]) => runYarp(["corpus", "analyze", ...args], { env });
  const text = await run(corpus);
  assert.equal(text.code, 0, decoder.decode(text.stderr));
  const json = await run(corpus, "--json", "--html", html);
  assert.equal(json.code, 0, decoder.decode(json.stderr));
  const summary = JSON.parse(decoder.decode(json.stdout));
  assert.equal(summary.records, RECORDS.length);
  const page = await Deno.readTextFile(html);
  assert.match(page, /^<!doctype html>/);
  for (const report of [decoder.decode(text.stdout), decoder.decode(json.stdout), page]) {
    assert.ok(!report.includes(SECRET), "a report leaked output or command text");
    assert.ok(!report.includes("module1"), "a report leaked a path");
  }
  assert.match(decoder.decode(text.stdout), /^records analysed +6$/m);

  const bad = await run(corpus, "--workers", "x");
  assert.equal(bad.code, 2);
  assert.equal(
    decoder.decode(bad.stderr),
    "yarp corpus analyze: --workers: expected 0 to 64, got 'x'\n",
  );
  // Nothing readable: one line per file, no report, and the last report page left as it was.
  const none = await run(`${DIR}/nothing.jsonl`, "--html", html);
  assert.equal(none.code, 1);
  assert.match(
    decoder.decode(none.stderr),
    /^yarp corpus analyze: .*nothing\.jsonl: cannot read: .*\n$/,
  );
  assert.equal(none.stdout.length, 0);
  assert.equal(await Deno.readTextFile(html), page);
  const unwritable = await run(corpus, "--html", `${DIR}/no/such/dir/out.html`);
  assert.equal(unwritable.code, 1);
  assert.match(decoder.decode(unwritable.stderr), /out\.html: cannot write report: /);
  const usage = await runYarp(["corpus", "frobnicate"], { env });
  assert.equal(usage.code, 2);
  assert.match(decoder.decode(usage.stderr), /^yarp corpus: unknown subcommand 'frobnicate'/);
});

Deno.test("the progress bar redraws at most every 100 ms and clears what it drew", () => {
  const io = captureTextIo();
  let clock = 0;
  const bar = progressBar(io, () => clock);
  bar.clear();
  assert.equal(io.stderr, "");
  bar.update(10, 50, 200);
  clock = 50;
  bar.update(20, 100, 200);
  clock = 150;
  bar.update(30, 200, 200);
  bar.clear();
  assert.equal(
    io.stderr,
    `\r[${"#".repeat(8)}${" ".repeat(22)}]  25% 10 records` +
      `\r[${"#".repeat(30)}] 100% 30 records` +
      `\r${" ".repeat(60)}\r`,
  );
});

Deno.test("corpus analyze arguments: one error line naming the argument", () => {
  const cases: [string[], string][] = [
    [[], "name a corpus file: JSON Lines records, gzip allowed"],
    [[""], "empty corpus file path"],
    [["a.jsonl", "--html", ""], "--html: missing path"],
    [["a.jsonl", "--workers", "65"], "--workers: expected 0 to 64, got '65'"],
    [["a.jsonl", "--frobnicate"], "unknown option '--frobnicate'"],
  ];
  for (const [args, error] of cases) {
    const parsed = parseAnalyzeArgs(args);
    assert.ok("error" in parsed, args.join(" "));
    assert.match(parsed.error, new RegExp(error.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")));
  }
  assert.deepEqual(parseAnalyzeArgs(["a", "--json", "--workers=2", "--", "-b"]), {
    files: ["a", "-b"],
    json: true,
    html: undefined,
    workers: 2,
  });
});

Deno.test("sessions imported through the launcher analyse as they were counted", async () => {
  const sessions = new URL("./data/sessions", import.meta.url).pathname;
  const out = `${DIR}/imported/corpus.jsonl.gz`;
  await Deno.mkdir(`${DIR}/imported`);
  const env = privateHome(DIR);
  const imported = await runYarp(["corpus", "import", sessions, "--output", out, "--json"], {
    env,
  });
  assert.equal(imported.code, 0, decoder.decode(imported.stderr));
  const counts = JSON.parse(decoder.decode(imported.stdout));
  const written = Object.values(counts.records as Record<string, number>)
    .reduce((sum, n) => sum + n, 0);
  const analysed = await runYarp(["corpus", "analyze", out, "--json"], { env });
  assert.equal(analysed.code, 0, decoder.decode(analysed.stderr));
  const summary = JSON.parse(decoder.decode(analysed.stdout));
  const alreadyReduced = Object.entries(summary.skipped as Record<string, number>)
    .filter(([cause]) => cause.startsWith("prior-reduction:"))
    .reduce((sum, [, n]) => sum + n, 0);
  assert.ok(written > 0);
  assert.equal(alreadyReduced, counts.already_reduced);
  assert.equal(summary.records + alreadyReduced, written);
  assert.equal(summary.grew, 0);
  assert.equal(summary.passThroughExact, summary.passThrough);
});
