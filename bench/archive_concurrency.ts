/**
 * The archive under load (docs/archive.md, "Concurrency"):
 * N concurrent processes (default 256) on one archive, outputs spread over
 * 150 KB to 6 MB.
 *
 * 1. N writer processes (`bench/_archive_writer.ts`), each spooling its
 *    output and committing through `ArchiveCapture` exactly as `yarp run`
 *    does, started at once; each reports its outcome, its wait for the write
 *    lock, its hold of it, and its whole commit time (open, call file,
 *    rows, retention, indexing).
 * 2. `--cli-runs` (default 64) `yarp result-reduce` processes through
 *    `bin/yarp`, started at once, over cargo-test-shaped results of the same
 *    sizes: how many came back reduced with a committed id (the rest fell
 *    back to the exact input). Fewer by default: each holds its input and
 *    the parser (about 100 MB RSS at 6 MB), and 256 of them would need 25 GB.
 *
 * After each phase: `PRAGMA integrity_check`, and every call's bytes checked
 * with `yarp archive check`. Gates: >= 99% archived and reduced, no wait
 * over 2 s, integrity ok.
 *
 * Usage: `deno run -A bench/archive_concurrency.ts [--runs N] [--cli-runs N] [--min BYTES] [--max BYTES]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { DatabaseSync } from "node:sqlite";

const ROOT = new URL("..", import.meta.url).pathname;
const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "256" },
    "cli-runs": { type: "string", default: "64" },
    min: { type: "string", default: "150000" },
    max: { type: "string", default: "6000000" },
  },
  strict: true,
});
const RUNS = Number(values.runs);
const CLI_RUNS = Number(values["cli-runs"]);
const MIN = Number(values.min);
const MAX = Number(values.max);
const dir = await Deno.makeTempDir({ prefix: "yarp_archive_concurrency_" });
const sizeOf = (i: number) =>
  Math.round(MIN + ((i * 7919) % RUNS) / Math.max(1, RUNS - 1) * (MAX - MIN));

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
function line(name: string, times: number[]): void {
  const s = times.toSorted((a, b) => a - b);
  const f = (ms: number) => ms.toFixed(1).padStart(9);
  console.log(
    `${name.padEnd(44)} ${f(quantile(s, 0.5))} ${f(quantile(s, 0.95))} ${f(s.at(-1) ?? NaN)}`,
  );
}
function integrity(path: string): string {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string })
      .integrity_check;
  } finally {
    db.close();
  }
}
async function archiveCheck(env: Record<string, string>): Promise<string> {
  const out = await new Deno.Command(`${ROOT}bin/yarp`, {
    args: ["archive", "check", "--json"],
    env,
    stdout: "piped",
  }).output();
  const report = JSON.parse(new TextDecoder().decode(out.stdout));
  return `${report.calls} calls, ${report.damaged.length} damaged, integrity ${report.integrity}`;
}

let pass = true;
console.log(
  `${RUNS} concurrent processes, outputs ${MIN}..${MAX} bytes (${
    (Array.from({ length: RUNS }, (_, i) => sizeOf(i)).reduce((a, b) => a + b, 0) / 1e6).toFixed(0)
  } MB in all)`,
);
console.log(
  `${"".padEnd(44)} ${"median ms".padStart(9)} ${"p95 ms".padStart(9)} ${"max ms".padStart(9)}`,
);

// ------------------------------------------------------------ phase 1: ArchiveCapture writers
{
  const path = `${dir}/writers/archive.sqlite3`;
  const started = performance.now();
  const outputs = await Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          `${ROOT}bench/_archive_writer.ts`,
          "--path",
          path,
          "--spool",
          `${dir}/writers/spool`,
          "--bytes",
          String(sizeOf(i)),
          "--seed",
          String(i),
        ],
        stdout: "piped",
        stderr: "piped",
      }).output()),
  );
  const wall = performance.now() - started;
  const rows = outputs.map((o) => JSON.parse(new TextDecoder().decode(o.stdout)));
  const archived = rows.filter((r) => r.outcome === "archived");
  line("writer: wait for the write lock", archived.map((r) => r.wait_ms));
  line("writer: write lock held", archived.map((r) => r.hold_ms));
  line("writer: whole commit (open..index)", archived.map((r) => r.commit_ms));
  const maxWait = Math.max(...archived.map((r) => r.wait_ms));
  const share = archived.length / RUNS;
  console.log(
    `writers: ${archived.length}/${RUNS} archived (${(share * 100).toFixed(1)}%), max wait ${
      maxWait.toFixed(0)
    } ms, wall ${(wall / 1000).toFixed(1)} s; integrity_check: ${integrity(path)}`,
  );
  for (const r of rows.filter((r) => r.outcome !== "archived").slice(0, 3)) {
    console.log(`  not archived: ${r.reason}`);
  }
  if (share < 0.99 || maxWait > 2000 || integrity(path) !== "ok") pass = false;
}

// ------------------------------------------------------------ phase 2: yarp result-reduce
{
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    XDG_STATE_HOME: `${dir}/cli/state`,
    XDG_CONFIG_HOME: `${dir}/cli/config`,
  };
  const inputs = Array.from({ length: CLI_RUNS }, (_, i) => {
    let text = "running tests\n";
    for (let t = 0; text.length < sizeOf(i); t += 1) text += `test tests::case_${i}_${t} ... ok\n`;
    return new TextEncoder().encode(text + "\ntest result: ok. 1 passed; 0 failed\n");
  });
  const started = performance.now();
  const results = await Promise.all(inputs.map(async (input) => {
    const child = new Deno.Command(`${ROOT}bin/yarp`, {
      args: ["result-reduce", "--command", "cargo test", "--exit-code", "0"],
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(input);
    await writer.close();
    const t0 = performance.now();
    const out = await child.output();
    return { out, ms: performance.now() - t0 };
  }));
  const wall = performance.now() - started;
  const reduced =
    results.filter((r) => /yarp read [0-9a-f]{8}[ \]]/.test(new TextDecoder().decode(r.out.stdout)))
      .length;
  line("result-reduce: whole process", results.map((r) => r.ms));
  console.log(
    `result-reduce: ${reduced}/${CLI_RUNS} reduced and archived (${
      (reduced / CLI_RUNS * 100).toFixed(1)
    }%), wall ${(wall / 1000).toFixed(1)} s; ${await archiveCheck(env)}`,
  );
  if (reduced / CLI_RUNS < 0.99) pass = false;
}

await Deno.remove(dir, { recursive: true });
console.log(
  `gate (>= 99% archived and reduced, no wait > 2 s, integrity ok): ${pass ? "PASS" : "FAIL"}`,
);
if (!pass) Deno.exit(1);
