/**
 * Reading the archive from a disk YARP cannot write (issue 26, item 1),
 * through the real launcher `bin/yarp` and so under the sandbox flags of
 * `lib/base/sandbox.json`: `read`, `read --json`, `search`, `archive stats`
 * and `archive check` work on a read-only bind mount, a read-only remount,
 * an immutable directory (`chattr +i`) and a full tmpfs with zero bytes
 * free, after a clean close (no `-wal`/`-shm` files: the normal state) and
 * after a search (an index, and the -wal/-shm files its read-only
 * connections leave), from a working directory other than the
 * archive's, and create or remove no file there.
 *
 * Each condition is made for real, so it needs root, mount(8) and, for
 * `chattr +i`, an ext2/3/4-like file system under the test's temporary
 * directory. Where the machine does not allow a condition its test is
 * registered as ignored, with the reason in its name.
 *
 * The last test is about writing on a full disk: there, and only there,
 * retention may remove calls younger than `archive.min_age_minutes` so the
 * commit can go (issue 26, item 3).
 */
import assert from "node:assert/strict";
import { runYarp, tempDir } from "./_process.ts";

const mounts: string[] = [];
const immutable: string[] = [];
const DIR = await tempDir("yarp_readonly_disk_", () => {
  for (const dir of immutable) new Deno.Command("chattr", { args: ["-i", dir] }).outputSync();
  for (const mount of mounts.reverse()) {
    new Deno.Command("umount", { args: ["-l", mount] }).outputSync();
  }
});
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function succeeds(command: string, args: string[]): boolean {
  try {
    return new Deno.Command(command, { args, stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

const isRoot = (() => {
  const id = new Deno.Command("id", { args: ["-u"], stdout: "piped" }).outputSync();
  return decoder.decode(id.stdout).trim() === "0";
})();
const canMount = isRoot && succeeds("mount", ["--version"]);
const canChattr = (() => {
  if (!isRoot || !succeeds("chattr", ["--help"]) && !succeeds("lsattr", ["-d", DIR])) return false;
  const probe = `${DIR}/chattr-probe`;
  Deno.mkdirSync(probe);
  const ok = succeeds("chattr", ["+i", probe]);
  if (ok) succeeds("chattr", ["-i", probe]);
  return ok;
})();
const NEEDS_MOUNT = "needs root and mount(8), as in CI";
const NEEDS_CHATTR = "needs root and a file system that takes chattr +i";

function run(command: string, args: string[]): void {
  const result = new Deno.Command(command, { args, stderr: "piped" }).outputSync();
  if (!result.success) {
    throw new Error(`${command} ${args.join(" ")}: ${decoder.decode(result.stderr)}`);
  }
}

/** A fresh home (state and config directories) named `name`. */
function home(name: string): Record<string, string> {
  const root = `${DIR}/${name}`;
  Deno.mkdirSync(`${root}/config`, { recursive: true });
  Deno.mkdirSync(`${root}/state`, { recursive: true });
  Deno.mkdirSync(`${root}/elsewhere`, { recursive: true });
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    XDG_STATE_HOME: `${root}/state`,
    XDG_CONFIG_HOME: `${root}/config`,
  };
}

async function yarp(args: string[], env: Record<string, string>, cwd: string, input?: Uint8Array) {
  const out = await runYarp(args, { env, clearEnv: true, cwd, input, timeoutMs: 120_000 });
  return { code: out.code, stdout: out.stdout, stderr: decoder.decode(out.stderr) };
}

/** Every name under `dir` with its size, sorted: what a read must leave unchanged. */
function listing(dir: string): string[] {
  const names: string[] = [];
  const walk = (at: string) => {
    for (const entry of Deno.readDirSync(at)) {
      const path = `${at}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else names.push(`${path.slice(dir.length)} ${Deno.lstatSync(path).size}`);
    }
  };
  walk(dir);
  return names.sort();
}

const BYTES = encoder.encode("a needle in the output\n".repeat(2000));

/**
 * Archives {@link BYTES} (a clean close: the last connection removes the
 * -wal and -shm files), optionally indexes it with a search, then applies
 * `lock` and checks every read-side command from a directory that is not
 * the archive's.
 */
async function readsUnder(
  name: string,
  indexed: boolean,
  prepare: (env: Record<string, string>) => void,
  lock: (env: Record<string, string>) => void,
): Promise<void> {
  const env = home(name);
  prepare(env);
  const cwd = `${DIR}/${name}/elsewhere`;
  const put = await yarp(["archive", "put", "--command", "make needle"], env, cwd, BYTES);
  assert.equal(put.code, 0, put.stderr);
  const id = decoder.decode(put.stdout).trim();
  if (indexed) assert.equal((await yarp(["search", "needle"], env, cwd)).code, 0);
  const archive = `${env.XDG_STATE_HOME}/yarp`;
  const sidecars = listing(archive).filter((line) => /-(wal|shm) /.test(line));
  // A search's read-only connections cannot remove the -wal/-shm files they found.
  if (!indexed) assert.deepEqual(sidecars, [], "a clean close leaves no -wal or -shm file");
  else assert.notDeepEqual(sidecars, []);
  lock(env);
  const before = listing(archive);

  const read = await yarp(["read", id], env, cwd);
  assert.equal(read.code, 0, read.stderr);
  assert.deepEqual(read.stdout, BYTES);
  const json = await yarp(["read", "--json", id], env, cwd);
  assert.equal(json.code, 0, json.stderr);
  assert.equal(JSON.parse(decoder.decode(json.stdout)).streams.output.text.length, BYTES.length);
  const search = await yarp(["search", "needle"], env, "/");
  if (indexed) {
    assert.equal(search.code, 0, search.stderr);
    assert.match(decoder.decode(search.stdout), new RegExp(id));
    assert.equal(search.stderr, "");
  } else {
    assert.equal(search.code, 1);
    assert.match(
      search.stderr,
      /^yarp search: 1 archived call is not indexed and was not searched/,
    );
  }
  const stats = await yarp(["archive", "stats"], env, cwd);
  assert.equal(stats.code, 0, stats.stderr);
  assert.match(decoder.decode(stats.stdout), /calls: 1\n/);
  const check = await yarp(["archive", "check"], env, cwd);
  assert.equal(check.code, 0, check.stderr);
  assert.match(decoder.decode(check.stdout), /checked 1 calls .*: 0 damaged/);
  // No file created or removed (a search may still write into an index file it can write).
  const names = (lines: string[]) => lines.map((line) => line.slice(0, line.lastIndexOf(" ")));
  assert.deepEqual(names(listing(archive)), names(before), "reading left no file behind");
}

function readOnlyBind(env: Record<string, string>): void {
  const dir = `${env.XDG_STATE_HOME}/yarp`;
  run("mount", ["--bind", dir, dir]);
  mounts.push(dir);
  run("mount", ["-o", "remount,bind,ro", dir]);
}

function tmpfs(size: string) {
  return (env: Record<string, string>) => {
    run("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", env.XDG_STATE_HOME]);
    mounts.push(env.XDG_STATE_HOME);
  };
}

function remountReadOnly(env: Record<string, string>): void {
  run("mount", ["-o", "remount,ro", env.XDG_STATE_HOME]);
}

function chattrImmutable(env: Record<string, string>): void {
  const dir = `${env.XDG_STATE_HOME}/yarp`;
  run("chattr", ["+i", dir]);
  immutable.push(dir);
}

/** Fills the file system of `env`'s state directory to zero free bytes, and proves it. */
function fill(env: Record<string, string>): void {
  const filler = Deno.openSync(`${env.XDG_STATE_HOME}/filler`, { write: true, create: true });
  try {
    for (const size of [64 * 1024, 4096, 1]) {
      const block = new Uint8Array(size);
      try {
        while (true) filler.writeSync(block);
      } catch {
        // ENOSPC at this block size; go on with a smaller one
      }
    }
  } finally {
    filler.close();
  }
  const df = new Deno.Command("df", {
    args: ["--output=avail", "-B1", env.XDG_STATE_HOME],
    stdout: "piped",
  }).outputSync();
  assert.equal(decoder.decode(df.stdout).trim().split("\n").at(-1)?.trim(), "0", "zero bytes free");
}

const none = () => {};

for (const indexed of [false, true]) {
  const state = indexed ? "after a search" : "after a clean close, no index";
  Deno.test({
    name: `reads work on a read-only bind mount, ${state}` +
      (canMount ? "" : ` (ignored: ${NEEDS_MOUNT})`),
    ignore: !canMount,
    fn: () => readsUnder(`bind-${indexed}`, indexed, none, readOnlyBind),
  });
  Deno.test({
    name: `reads work on a read-only remount, ${state}` +
      (canMount ? "" : ` (ignored: ${NEEDS_MOUNT})`),
    ignore: !canMount,
    fn: () => readsUnder(`remount-${indexed}`, indexed, tmpfs("16m"), remountReadOnly),
  });
  Deno.test({
    name: `reads work in an immutable (chattr +i) directory, ${state}` +
      (canChattr ? "" : ` (ignored: ${NEEDS_CHATTR})`),
    ignore: !canChattr,
    fn: () => readsUnder(`chattr-${indexed}`, indexed, none, chattrImmutable),
  });
  Deno.test({
    name: `reads work on a full tmpfs with zero bytes free, ${state}` +
      (canMount ? "" : ` (ignored: ${NEEDS_MOUNT})`),
    ignore: !canMount,
    fn: () => readsUnder(`full-${indexed}`, indexed, tmpfs("2m"), fill),
  });
}

Deno.test({
  name:
    "a full disk lets retention remove calls younger than the minimum age, then the commit goes" +
    (canMount ? "" : ` (ignored: ${NEEDS_MOUNT})`),
  ignore: !canMount,
  async fn() {
    const env = home("full-commit");
    tmpfs("4m")(env);
    Deno.mkdirSync(`${env.XDG_CONFIG_HOME}/yarp`, { recursive: true });
    // Over max_bytes after the second call, but every call is younger than the default 60 minutes.
    Deno.writeTextFileSync(
      `${env.XDG_CONFIG_HOME}/yarp/config.yaml`,
      "archive:\n  max_bytes: 1000000\n",
    );
    const cwd = `${DIR}/full-commit/elsewhere`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const put = await yarp(
        ["archive", "put", "--command", `p${i}`],
        env,
        cwd,
        new Uint8Array(900_000),
      );
      assert.equal(put.code, 0, put.stderr);
      ids.push(decoder.decode(put.stdout).trim());
    }
    // Leave 64 KiB free: the next call file cannot fit, a removal's few rows can.
    const filler = Deno.openSync(`${env.XDG_STATE_HOME}/filler`, { write: true, create: true });
    try {
      const block = new Uint8Array(4096);
      while (true) filler.writeSync(block);
    } catch {
      // full
    } finally {
      filler.close();
    }
    Deno.truncateSync(
      `${env.XDG_STATE_HOME}/filler`,
      Deno.statSync(`${env.XDG_STATE_HOME}/filler`).size - 64 * 1024,
    );
    const input = encoder.encode("line of build output\n".repeat(30_000)); // 630,000 bytes
    const reduced = await runYarp(["result-reduce", "--command", "make", "--json"], {
      env,
      clearEnv: true,
      cwd,
      input,
      timeoutMs: 120_000,
    });
    const report = JSON.parse(decoder.decode(reduced.stdout));
    assert.equal(typeof report.archive_id, "string", decoder.decode(reduced.stderr));
    const gone = await yarp(["read", ids[0]], env, cwd);
    assert.match(gone.stderr, /was pruned at \S+Z by archive\.max_bytes \(1000000 bytes\)/);
    const kept = await yarp(["read", report.archive_id], env, cwd);
    assert.equal(kept.code, 0, kept.stderr);
    assert.deepEqual(kept.stdout, input);
  },
});
