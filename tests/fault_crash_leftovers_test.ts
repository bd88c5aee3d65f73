/**
 * Crash leftovers (issue 26, item 2): a `kill -9` at any stage of a commit
 * (or of retention's removal) leaves at most an orphan call file, which
 * `archive stats` counts, `archive check` reports, and the next run's
 * retention removes once it is older than the orphan bound, so the space
 * comes back. The child `_commit_crash.ts` commits through the real
 * `commitCall` and stops at the stage named; the test SIGKILLs it there,
 * ages the leftovers past the bound, and runs `bin/yarp`.
 */
import assert from "node:assert/strict";
import { ORPHAN_AGE_MS } from "../lib/archive/mod.ts";
import { ROOT, runYarp, tempDir } from "./_process.ts";

const DIR = await tempDir("yarp_crash_leftovers_");
const decoder = new TextDecoder();
const SIZE = 40 * 1024 * 1024; // over 32 MiB: the call file is written 1 MiB at a time

function home(name: string): Record<string, string> {
  const root = `${DIR}/${name}`;
  Deno.mkdirSync(`${root}/state`, { recursive: true });
  Deno.mkdirSync(`${root}/config`, { recursive: true });
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    XDG_STATE_HOME: `${root}/state`,
    XDG_CONFIG_HOME: `${root}/config`,
  };
}

async function yarp(args: string[], env: Record<string, string>, input?: Uint8Array) {
  const out = await runYarp(args, { env, clearEnv: true, input, timeoutMs: 120_000 });
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

function* files(dir: string): Generator<string> {
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* files(path);
    else if (entry.isFile) yield path;
  }
}

/** Bytes of every call file and pending mark under the archive's byte directory. */
function callFileBytes(db: string): number {
  let total = 0;
  for (const path of files(`${db}-bytes`)) total += Deno.statSync(path).size;
  return total;
}

/** Sets every file under `dir` back past the orphan bound. */
function age(dir: string): void {
  const then = new Date(Date.now() - 2 * ORPHAN_AGE_MS);
  for (const path of files(dir)) Deno.utimeSync(path, then, then);
}

/** Runs the crash child to `stage` and kills it there with SIGKILL. */
async function crashAt(db: string, stage: string): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}/tests/_commit_crash.ts`, db, String(SIZE), stage],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  let seen = "";
  while (!seen.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value);
  }
  child.kill("SIGKILL");
  reader.releaseLock();
  await child.stdout.cancel();
  const status = await child.status;
  assert.equal(seen.trim(), stage, "the child reached the stage");
  assert.equal(status.signal, "SIGKILL");
}

const stages = [
  { stage: "writing", orphan: true },
  { stage: "written", orphan: true },
  { stage: "committing", orphan: true },
  { stage: "committed", orphan: false },
  { stage: "pruning", orphan: true },
];

for (const { stage, orphan } of stages) {
  Deno.test(`SIGKILL at '${stage}': stats and check ${orphan ? "show" : "show no"} orphan, the next run gives the space back`, async () => {
    const env = home(stage);
    const db = `${env.XDG_STATE_HOME}/yarp/archive.sqlite3`;
    const first = await yarp(["archive", "put", "--command", "first"], env, new Uint8Array(4096));
    assert.equal(first.code, 0, first.stderr);
    const before = callFileBytes(db);
    await crashAt(db, stage);
    age(`${db}-bytes`);

    const stats = await yarp(["archive", "stats", "--json"], env);
    assert.equal(stats.code, 0, stats.stderr);
    const counted = JSON.parse(stats.stdout);
    assert.equal(counted.orphan_files, orphan ? 1 : 0);
    if (orphan) assert.ok(counted.orphan_bytes > 0);
    const check = await yarp(["archive", "check"], env);
    assert.equal(check.code, 0, check.stderr);
    assert.equal(/orphan call files: 1 /.test(check.stdout), orphan, check.stdout);

    const next = await yarp(["archive", "put", "--command", "next"], env, new Uint8Array(10));
    assert.equal(next.code, 0, next.stderr);
    const after = JSON.parse((await yarp(["archive", "stats", "--json"], env)).stdout);
    assert.equal(after.orphan_files, 0, "the next run removed the orphan");
    assert.deepEqual([...files(`${db}-bytes`)].filter((p) => p.includes("/pending/")), []);
    const committed = stage === "committed" ? SIZE : 0;
    const pruned = stage === "pruning" ? 4096 : 0;
    assert.equal(callFileBytes(db), before + 10 + committed - pruned, "the space came back");
  });
}
