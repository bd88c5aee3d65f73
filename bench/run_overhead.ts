/**
 * Whole-process timing of `yarp run` (docs/architecture.md, "Performance gates": at most
 * 40 ms added over the bare command, median). Each round runs, in turn:
 *
 * - `true` bare, and `yarp run -- true` (pass-through: no rule selects it);
 * - `seq 1 20000` bare, and the same through a compiled pack whose rule
 *   reduces it (a symlink named `yarpbenchseq` gives it a unique program name);
 * - `bin/yarp run -- true`, the launcher people put on PATH (adds bash);
 * - an empty script under the same `deno run` flags: the runtime's own floor,
 *   so the report can tell Deno's start-up from YARP's;
 * - `git log -n 300` bare in a generated 300-commit repository, and through
 *   `yarp run` (the built-in git log rule reduces it; archive in the temp dir);
 * - a script that only spawns `env -- true` with inherited stdio and exits
 *   with its code: the floor plus what any exact Deno runner pays for its
 *   child (the lazily loaded process API, the spawn, the `env` trampoline
 *   that keeps argv[0], see `lib/run/exec_target.ts`).
 *
 * YARP runs as the launcher runs it: `deno run --allow-run --allow-read
 * --allow-env main.ts`. Prints median and p95 per case and the added time;
 * exits 1 when the pass-through median added time exceeds the gate.
 *
 * Usage: `deno run --allow-run --allow-read --allow-write --allow-env bench/run_overhead.ts [--runs N]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { encodeCompiledPack } from "../lib/rules/compiled_pack.ts";

const GATE_MS = 40;
/** Gate: `yarp run -- true` over a Deno program that only spawns the same child. */
const CHILD_GATE_MS = 12;
/** Gate: a reduced, archived `git log -n 300` over the bare command. */
const GIT_LOG_GATE_MS = 60;
const ROOT = new URL("..", import.meta.url).pathname;
const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "30" } },
  strict: true,
});
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs: not a positive integer`);

const dir = await Deno.makeTempDir({ prefix: "yarp_bench_" });
const seqPath = new TextDecoder().decode(
  (await new Deno.Command("sh", { args: ["-c", "command -v seq"], stdout: "piped" }).output())
    .stdout,
).trim();
await Deno.symlink(seqPath, `${dir}/yarpbenchseq`);
const policy = {
  headLines: 10,
  tailLines: 10,
  maxLineBytes: 256,
  maxOutputBytes: 4096,
  minSavingsBytes: 0,
};
const packPath = `${dir}/bench.yrp`;
await Deno.writeFile(
  packPath,
  encodeCompiledPack({
    id: "bench",
    sourceDigest: createHash("sha256").update("bench").digest("hex"),
    rules: [{
      id: "bench.seq",
      action: "reduce",
      match: { programs: ["yarpbenchseq"], argvPrefix: [], argvContainsAll: [] },
      reducer: { kind: "head_tail" },
      success: policy,
      failure: policy,
    }],
  }),
);

// A generated repository of 300 commits (git fast-import: one process, no hooks, fixed dates).
const repo = `${dir}/repo`;
await Deno.mkdir(repo);
const git = (args: string[], stdin?: string) => {
  const child = new Deno.Command("git", {
    args,
    cwd: repo,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "null",
    env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    writer.write(new TextEncoder().encode(stdin)).then(() => writer.close());
  }
  return child.status;
};
await git(["init", "-q", "-b", "main"]);
let stream = "";
for (let i = 1; i <= 300; i += 1) {
  const body = `line ${i}\n`;
  stream += `commit refs/heads/main\nmark :${i}\n` +
    `committer Bench <bench@example.invalid> ${1_700_000_000 + i * 60} +0000\n` +
    `data ${`change ${i}`.length}\nchange ${i}\n` + (i > 1 ? `from :${i - 1}\n` : "") +
    `M 644 inline src/file${i % 20}.txt\ndata ${body.length}\n${body}\n`;
}
await git(["fast-import", "--quiet"], stream);

const YARP = [
  Deno.execPath(),
  "run",
  "--allow-run",
  "--allow-read",
  "--allow-env",
  `${ROOT}main.ts`,
  "run",
];
await Deno.writeTextFile(`${dir}/empty.js`, "");
await Deno.writeTextFile(
  `${dir}/spawn.js`,
  'const { code } = await new Deno.Command("/usr/bin/env", { args: ["--", "true"] }).spawn().status;\n' +
    "Deno.exit(code);\n",
);
const CASES: Record<string, string[]> = {
  "deno run (empty script, runtime floor)": [...YARP.slice(0, -2), `${dir}/empty.js`],
  "deno run (spawn env -- true, child floor)": [...YARP.slice(0, -2), `${dir}/spawn.js`],
  "true (bare)": ["true"],
  "yarp run -- true": [...YARP, "--", "true"],
  "seq 1 20000 (bare)": ["seq", "1", "20000"],
  "yarp run --rule-pack P -- seq 1 20000 (reduced)": [
    ...YARP,
    "--rule-pack",
    packPath,
    "--",
    "yarpbenchseq",
    "1",
    "20000",
  ],
  "bin/yarp run -- true": [`${ROOT}bin/yarp`, "run", "--", "true"],
  "git log -n 300 (bare)": ["git", "-C", repo, "log", "-n", "300"],
  "yarp run -- git log -n 300 (reduced, archived)": [
    ...YARP,
    "--",
    "git",
    "-C",
    repo,
    "log",
    "-n",
    "300",
  ],
};
const env = {
  PATH: `${dir}:${Deno.env.get("PATH")}`,
  YARP_ARCHIVE_PATH: `${dir}/archive.sqlite`,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
};

async function timeOnce(argv: string[]): Promise<number> {
  const started = performance.now();
  const { code } = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    env,
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  const elapsed = performance.now() - started;
  if (code !== 0) throw new Error(`${argv.join(" ")}: exit ${code}`);
  return elapsed;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const samples = new Map<string, number[]>(Object.keys(CASES).map((name) => [name, []]));
for (const argv of Object.values(CASES)) await timeOnce(argv); // warm the module cache
for (let round = 0; round < RUNS; round += 1) {
  for (const [name, argv] of Object.entries(CASES)) samples.get(name)!.push(await timeOnce(argv));
}
await Deno.remove(dir, { recursive: true });

const stats = new Map(
  [...samples].map(([name, times]) => {
    const sorted = times.toSorted((a, b) => a - b);
    return [name, { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) }];
  }),
);
const fmt = (ms: number) => ms.toFixed(1).padStart(7);
console.log(`runs: ${RUNS}\n${"case".padEnd(50)} median ms    p95 ms`);
for (const [name, { median, p95 }] of stats) {
  console.log(`${name.padEnd(50)} ${fmt(median)}   ${fmt(p95)}`);
}
const added = (yarp: string, bare: string) => {
  const y = stats.get(yarp)!, b = stats.get(bare)!;
  return { median: y.median - b.median, p95: y.p95 - b.p95 };
};
const passthrough = added("yarp run -- true", "true (bare)");
const reduced = added("yarp run --rule-pack P -- seq 1 20000 (reduced)", "seq 1 20000 (bare)");
const launcher = added("bin/yarp run -- true", "true (bare)");
const floor = added("deno run (empty script, runtime floor)", "true (bare)");
const childFloor = added("deno run (spawn env -- true, child floor)", "true (bare)");
console.log(
  `added, pass-through: median ${fmt(passthrough.median)} ms, p95 ${fmt(passthrough.p95)} ms\n` +
    `added, reduced:      median ${fmt(reduced.median)} ms, p95 ${fmt(reduced.p95)} ms\n` +
    `added, bin/yarp:     median ${fmt(launcher.median)} ms, p95 ${fmt(launcher.p95)} ms\n` +
    `of which Deno floor: median ${fmt(floor.median)} ms, p95 ${fmt(floor.p95)} ms\n` +
    `child floor:         median ${fmt(childFloor.median)} ms, p95 ${fmt(childFloor.p95)} ms ` +
    `(Deno floor + process API + spawn + env)`,
);
const overChild = added("yarp run -- true", "deno run (spawn env -- true, child floor)");
const gitLog = added("yarp run -- git log -n 300 (reduced, archived)", "git log -n 300 (bare)");
console.log(
  `gate: yarp run -- true over the child floor: median ${fmt(overChild.median)} ms, p95 ` +
    `${fmt(overChild.p95)} ms (gate median <= ${CHILD_GATE_MS}): ` +
    (overChild.median <= CHILD_GATE_MS ? "PASS" : "FAIL") +
    `\ngate: reduced git log -n 300 over bare: median ${fmt(gitLog.median)} ms, p95 ` +
    `${fmt(gitLog.p95)} ms (gate median <= ${GIT_LOG_GATE_MS}): ` +
    (gitLog.median <= GIT_LOG_GATE_MS ? "PASS" : "FAIL"),
);
const pass = passthrough.median <= GATE_MS;
console.log(`gate (pass-through median added <= ${GATE_MS} ms): ${pass ? "PASS" : "FAIL"}`);
if (!pass) Deno.exit(1);
