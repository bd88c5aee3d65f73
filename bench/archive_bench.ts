/**
 * Archive benchmarks (docs/archive.md; docs/architecture.md, "Performance gates"):
 *
 * - commit cost of 1 KiB, 1 MiB and 100 MiB results: spool write + one
 *   commit transaction (digest, chunks, search text), in process;
 * - `yarp search` over an archive of 100,000 calls: the query in process,
 *   and the whole `yarp search` process (gate: p95 ≤ 50 ms);
 * - `yarp read` throughput: in process (chunks from SQLite) and the whole
 *   process writing to /dev/null.
 *
 * Prints median and p95 per case; exits 1 when the search gate fails.
 *
 * Usage: `deno run --allow-read --allow-write --allow-run --allow-env bench/archive_bench.ts [--calls N] [--runs N]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { DatabaseSync } from "node:sqlite";
import {
  commitCall,
  findCall,
  memorySource,
  openArchive,
  rawChunks,
  RunSpool,
  searchCalls,
  type StoredCall,
} from "../lib/archive/mod.ts";

const SEARCH_GATE_MS = 50;
const ROOT = new URL("..", import.meta.url).pathname;
const { values } = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "100000" },
    runs: { type: "string", default: "30" },
  },
  strict: true,
});
const CALLS = Number(values.calls);
const RUNS = Number(values.runs);
const dir = await Deno.makeTempDir({ prefix: "yarp_archive_bench_" });

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}
function summary(times: number[]): { median: number; p95: number } {
  const sorted = times.toSorted((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
}
const fmt = (ms: number) => ms.toFixed(2).padStart(9);
function report(name: string, times: number[], extra = ""): { median: number; p95: number } {
  const s = summary(times);
  console.log(`${name.padEnd(58)} ${fmt(s.median)} ${fmt(s.p95)}  ${extra}`);
  return s;
}

function noiseLines(bytes: number, seed: number): Uint8Array {
  const words = ["error", "warning", "compiling", "test", "ok", "src/main.rs", "passed", "failed"];
  const enc = new TextEncoder();
  let text = "";
  let state = seed;
  while (text.length < bytes) {
    state = (state * 1103515245 + 12345) >>> 0;
    text += `${words[state % words.length]} line ${state.toString(36)} item ${
      (state >>> 8) % 997
    }\n`;
  }
  return enc.encode(text).subarray(0, bytes);
}

console.log(`${"case".padEnd(58)} ${"median ms".padStart(9)} ${"p95 ms".padStart(9)}`);

// ------------------------------------------------------------ commit cost
const commitDb = await openArchive(`${dir}/commit/archive.sqlite3`, "write");
for (
  const [label, size, runs] of [
    ["commit 1 KiB result (spool + transaction)", 1024, RUNS * 4],
    ["commit 1 MiB result", 1024 * 1024, RUNS],
    ["commit 100 MiB result", 100 * 1024 * 1024, Math.max(3, Math.ceil(RUNS / 6))],
  ] as const
) {
  const bytes = noiseLines(size, size);
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const spool = RunSpool.open(`${dir}/spool`, ["stdout", "stderr"]);
    const started = performance.now();
    for (let at = 0; at < bytes.length; at += 65536) {
      spool.write("stdout", bytes.subarray(at, at + 65536));
    }
    await commitCall(commitDb, {
      createdMs: Date.now(),
      cwd: "/bench",
      source: "run",
      command: `bench ${run}`,
      argv: ["bench", String(run)],
      exitCode: 0,
      signal: null,
      ruleId: "bench",
    }, [spool.source("stdout"), spool.source("stderr")]);
    times.push(performance.now() - started);
    spool.close();
  }
  const s = summary(times);
  report(label, times, `${(size / 1024 / 1024 / (s.median / 1000)).toFixed(0)} MiB/s`);
}
commitDb.close();

// ------------------------------------------------------------ search over N calls
const searchPath = `${dir}/search/archive.sqlite3`;
const searchDb = await openArchive(searchPath, "write");
searchDb.exec("PRAGMA synchronous = OFF"); // set-up only
const setupStarted = performance.now();
const programs = ["cargo test", "npm test", "git diff", "rg TODO", "tsc -p .", "go test ./..."];
for (let i = 0; i < CALLS; i += 1) {
  const out = noiseLines(1024 + (i % 7) * 512, i + 1);
  const enc = new TextEncoder();
  const marker = i % 1000 === 0
    ? enc.encode(`\nrare_token_${i / 1000} panicked at src/lib.rs\n`)
    : new Uint8Array();
  const bytes = new Uint8Array(out.length + marker.length);
  bytes.set(out);
  bytes.set(marker, out.length);
  await commitCall(searchDb, {
    createdMs: 1_700_000_000_000 + i * 1000,
    cwd: "/repo",
    source: "run",
    command: `${programs[i % programs.length]} --case ${i}`,
    argv: null,
    exitCode: i % 5 === 0 ? 1 : 0,
    signal: null,
    ruleId: "bench",
  }, [memorySource("stdout", bytes)]);
}
searchDb.exec("PRAGMA wal_checkpoint(TRUNCATE)");
console.log(
  `(built an archive of ${CALLS} calls in ${
    ((performance.now() - setupStarted) / 1000).toFixed(1)
  } s, ` +
    `${(Deno.statSync(searchPath).size / 1024 / 1024).toFixed(0)} MiB)`,
);
const queries = [
  "error",
  "cargo test",
  "panicked rare_token_7",
  "src/main.rs failed",
  "nomatchword",
];
/** Times `searchCalls` for each query, RUNS times, and reports it under `label(query, hits)`. */
function timeSearches(
  db: DatabaseSync,
  queries: readonly string[],
  label: (query: string, hits: number) => string,
): void {
  for (const query of queries) {
    const times: number[] = [];
    let hits = 0;
    for (let run = 0; run < RUNS; run += 1) {
      const started = performance.now();
      hits = searchCalls(db, query, 10).length;
      times.push(performance.now() - started);
    }
    report(label(query, hits), times);
  }
}
timeSearches(searchDb, queries, (query, hits) => `search in process '${query}' (${hits} hits)`);
searchDb.close();

// A term on every line of large outputs (cargo test logs): snippet cost must
// stay linear in the text (FTS5's own snippet() was quadratic in the count).
const denseDb = await openArchive(`${dir}/dense/archive.sqlite3`, "write");
const DENSE_CALLS = 12;
for (let i = 0; i < DENSE_CALLS; i += 1) {
  let log = "";
  for (let test = 0; log.length < 120 * 1024; test += 1) {
    log += `test tests::case_${i}_${test} ... ok\n`;
  }
  const bytes = new TextEncoder().encode(log);
  await commitCall(denseDb, {
    createdMs: 1_700_000_000_000 + i,
    cwd: "/repo",
    source: "run",
    command: `cargo test --case ${i}`,
    argv: null,
    exitCode: 0,
    signal: null,
    ruleId: "bench",
  }, [memorySource("stdout", bytes)]);
}
timeSearches(
  denseDb,
  ["ok", "test", "case_3_100"],
  (query, hits) => `search '${query}' over ${DENSE_CALLS} x 120 KiB test logs (${hits} hits)`,
);
denseDb.close();

const yarpArgs = [
  "run",
  "--quiet",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  `${ROOT}main.ts`,
];
async function timeProcess(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: [...yarpArgs, ...args],
    env,
    stdout: "null",
    stderr: "null",
  }).output();
  const elapsed = performance.now() - started;
  if (code > 1) throw new Error(`yarp ${args.join(" ")}: exit ${code}`);
  return elapsed;
}
const searchEnv = { YARP_ARCHIVE_PATH: searchPath, XDG_CONFIG_HOME: `${dir}/noconfig` };
let gate = true;
for (const query of ["error", "panicked rare_token_7"]) {
  await timeProcess(["search", query], searchEnv);
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    times.push(await timeProcess(["search", query], searchEnv));
  }
  const s = report(`whole process: yarp search '${query}'`, times);
  if (s.p95 > SEARCH_GATE_MS) gate = false;
}
const floorTimes: number[] = [];
await Deno.writeTextFile(`${dir}/empty.js`, "");
for (let run = 0; run < RUNS; run += 1) {
  const started = performance.now();
  await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", `${dir}/empty.js`],
    stdout: "null",
  }).output();
  floorTimes.push(performance.now() - started);
}
report("deno run (empty script, runtime floor)", floorTimes);

// ------------------------------------------------------------ read throughput
const readDb = await openArchive(`${dir}/commit/archive.sqlite3`, "read");
const big = findCall(
  readDb,
  (readDb.prepare(
    "SELECT id FROM calls WHERE total_bytes >= 100 * 1024 * 1024 LIMIT 1",
  ).get() as { id: string }).id,
);
const call = (big as { call: StoredCall }).call;
const stream = call.streams.find((s) => s.name === "stdout")!;
const readTimes: number[] = [];
for (let run = 0; run < 5; run += 1) {
  const started = performance.now();
  let total = 0;
  for (const chunk of rawChunks(readDb, call, stream)) total += chunk.length;
  readTimes.push(performance.now() - started);
  if (total !== stream.size) throw new Error("short read");
}
const readStats = report(
  "read 100 MiB in process (call file, unverified)",
  readTimes,
  `${(100 / (summary(readTimes).median / 1000)).toFixed(0)} MiB/s`,
);
readDb.close();
const readEnv = {
  YARP_ARCHIVE_PATH: `${dir}/commit/archive.sqlite3`,
  XDG_CONFIG_HOME: `${dir}/noconfig`,
};
const processTimes: number[] = [];
for (let run = 0; run < 5; run += 1) {
  processTimes.push(await timeProcess(["read", call.id], readEnv));
}
report(
  "whole process: yarp read ID > /dev/null (100 MiB)",
  processTimes,
  `${(100 / (summary(processTimes).median / 1000)).toFixed(0)} MiB/s`,
);
void readStats;

await Deno.remove(dir, { recursive: true });
console.log(
  `gate (yarp search whole-process p95 <= ${SEARCH_GATE_MS} ms): ${gate ? "PASS" : "FAIL"}`,
);
if (!gate) Deno.exit(1);
