/**
 * Where the archive commit's time goes in the result path:
 * `yarp result-reduce` of a 40 KiB result archives it first.
 *
 * 1. In process, one fresh process per round (so module loading is
 *    counted as `result-reduce` pays it): loading the archive modules and
 *    `node:sqlite`, opening (schema check, WAL), the call file with its
 *    digest (from memory, as `result-reduce` commits it), the write
 *    transaction, retention, and closing (the last connection
 *    checkpoints); then the search-index pass that `yarp search` now pays
 *    before it queries (no commit path runs it).
 * 2. Whole process, interleaved round by round: `bin/yarp result-reduce`
 *    archiving 40 KiB, the same with `--archive-id` of a stored copy, and an
 *    empty `deno run` as the floor; with `--baseline DIR` (a checkout of
 *    another revision, e.g. main) its `bin/yarp` archiving too.
 *
 * Usage: `deno run -A bench/archive_commit_bench.ts [--runs N] [--baseline DIR]`
 *
 * @module
 */
import { parseArgs } from "node:util";

const ROOT = new URL("..", import.meta.url).pathname;
const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "20" },
    baseline: { type: "string" },
    phases: { type: "boolean", default: false },
    path: { type: "string" },
  },
  strict: true,
});

/** Input: a 40 KiB cargo test log. */
function cargoLog(): Uint8Array {
  let text = "running tests\n";
  for (let i = 0; text.length < 40 * 1024; i += 1) text += `test tests::case_${i} ... ok\n`;
  return new TextEncoder().encode(text + "\ntest result: ok. 1 passed; 0 failed\n");
}

if (values.phases) {
  // One round of phase timings, in this fresh process; the input is made before the clock starts.
  const log = cargoLog();
  const t: number[] = [performance.now()];
  const mark = () => t.push(performance.now());
  const { commitCall, indexPendingCalls, memorySource, openArchive, pruneArchive } = await import(
    "../lib/archive/mod.ts"
  );
  await import("node:sqlite");
  mark();
  const db = await openArchive(values.path!, "write");
  mark();
  const source = memorySource("output", log);
  const committed = await commitCall(db, {
    createdMs: Date.now(),
    cwd: "/bench",
    source: "put",
    command: "cargo test",
    argv: null,
    exitCode: 0,
    signal: null,
    ruleId: null,
  }, [source]);
  mark();
  pruneArchive(db, { maxBytes: 2 ** 40, maxAgeMs: 1e12 }, Date.now(), 16, 2048, committed.seq);
  mark();
  db.close();
  mark();
  const searching = await openArchive(values.path!, "write");
  indexPendingCalls(searching);
  searching.close();
  mark();
  const d = t.slice(1).map((v, i) => v - t[i]);
  console.log(JSON.stringify({
    load: d[0],
    open: d[1],
    file_and_transaction: d[2],
    transaction_hold: committed.timing.holdMs,
    retention: d[3],
    close: d[4],
    total: t[5] - t[0],
    search_index_pass_at_search: d[5],
  }));
  Deno.exit(0);
}

const RUNS = Number(values.runs);
const dir = await Deno.makeTempDir({ prefix: "yarp_commit_bench_" });
const input = cargoLog();

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
function report(name: string, times: number[]): void {
  const s = times.toSorted((a, b) => a - b);
  const f = (ms: number) => ms.toFixed(1).padStart(9);
  console.log(`${name.padEnd(52)} ${f(quantile(s, 0.5))} ${f(quantile(s, 0.95))}`);
}

console.log(
  `${"case (40 KiB result)".padEnd(52)} ${"median ms".padStart(9)} ${"p95 ms".padStart(9)}`,
);
const phases: Record<string, number[]> = {};
for (let run = 0; run < RUNS; run += 1) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${ROOT}bench/archive_commit_bench.ts`,
      "--phases",
      "--path",
      `${dir}/phases/archive.sqlite3`,
    ],
    stdout: "piped",
  }).output();
  for (const [key, ms] of Object.entries(JSON.parse(new TextDecoder().decode(out.stdout)))) {
    (phases[key] ??= []).push(ms as number);
  }
}
for (const [key, times] of Object.entries(phases)) report(`in process: ${key}`, times);

async function timed(
  command: string,
  args: string[],
  env: Record<string, string>,
  stdin?: Uint8Array,
) {
  const started = performance.now();
  const child = new Deno.Command(command, {
    args,
    env,
    clearEnv: true,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const out = await child.output();
  return { ms: performance.now() - started, stdout: new TextDecoder().decode(out.stdout) };
}
const envFor = (name: string) => ({
  PATH: Deno.env.get("PATH")!,
  XDG_STATE_HOME: `${dir}/${name}/state`,
  XDG_CONFIG_HOME: `${dir}/${name}/config`,
});
await Deno.writeTextFile(`${dir}/empty.js`, "");
const reduceArgs = ["result-reduce", "--command", "cargo test", "--exit-code", "0"];
const branchEnv = envFor("branch");
const stored =
  (await timed(`${ROOT}bin/yarp`, ["archive", "put", "--command", "cargo test"], branchEnv, input))
    .stdout.trim();
const cases: [string, () => Promise<{ ms: number; stdout: string }>][] = [
  [
    "deno run (empty script, floor)",
    () => timed(Deno.execPath(), ["run", "--quiet", `${dir}/empty.js`], {}),
  ],
  [
    "yarp result-reduce, archiving (this tree)",
    () => timed(`${ROOT}bin/yarp`, reduceArgs, branchEnv, input),
  ],
  [
    "yarp result-reduce --archive-id (this tree)",
    () => timed(`${ROOT}bin/yarp`, [...reduceArgs, "--archive-id", stored], branchEnv, input),
  ],
];
if (values.baseline !== undefined) {
  const baseEnv = envFor("baseline");
  cases.push([
    "yarp result-reduce, archiving (baseline)",
    () => timed(`${values.baseline}/bin/yarp`, reduceArgs, baseEnv, input),
  ]);
}
const times = cases.map(() => [] as number[]);
for (let run = 0; run < RUNS + 2; run += 1) {
  for (const [i, [, go]] of cases.entries()) {
    const { ms, stdout } = await go();
    if (i > 0 && !/yarp read [0-9a-f]{8}[ \]]/.test(stdout)) {
      throw new Error(`${cases[i][0]}: not reduced`);
    }
    if (run >= 2) times[i].push(ms); // two warm-up rounds
  }
}
for (const [i, [name]] of cases.entries()) report(`whole process: ${name}`, times[i]);
await Deno.remove(dir, { recursive: true });
