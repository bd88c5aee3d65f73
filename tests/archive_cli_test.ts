/**
 * The archive as a whole program, through the real launcher `bin/yarp`
 * (docs/archive.md): reduced runs name a committed id that `yarp read`
 * turns back into the exact bytes; `search`, `archive stats|prune|forget|put`;
 * and the reliability cases: 64 runs 8 at a time, SIGKILL mid-run, a
 * read-only or full state directory (`ulimit -f`, a tiny tmpfs when mount
 * works), a corrupt database, and an unwritable archive path. Each test
 * uses its own XDG_STATE_HOME and XDG_CONFIG_HOME.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { encodeCompiledPack } from "../lib/rules/compiled_pack.ts";
import type { OutputPolicy, ReductionRule } from "../lib/rules/model.ts";
import { canMountTmpfs, onlyWhere, runYarp, spawn, tempDir, YARP } from "./_process.ts";

const mounts: string[] = [];
const DIR = await tempDir("yarp_archive_cli_", () => {
  for (const mount of mounts) new Deno.Command("umount", { args: [mount] }).outputSync();
});
const decoder = new TextDecoder();
const text = (bytes: Uint8Array) => decoder.decode(bytes);
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

await Deno.writeTextFile(`${DIR}/yarptestprog`, '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
const policy: OutputPolicy = {
  headLines: 3,
  tailLines: 2,
  maxLineBytes: 256,
  maxOutputBytes: 2048,
  minSavingsBytes: 0,
};
const RULE: ReductionRule = {
  id: "test.archive",
  action: "reduce",
  match: { programs: ["yarptestprog"], argvPrefix: [], argvContainsAll: [] },
  reducer: { kind: "head_tail" },
  success: policy,
  failure: policy,
};
const PACK = `${DIR}/test.yrp`;
await Deno.writeFile(
  PACK,
  encodeCompiledPack({
    id: "test-archive",
    sourceDigest: sha256(new Uint8Array(1)),
    rules: [RULE],
  }),
);

/** A per-test home: its own state and config directories. */
async function home(name: string): Promise<Record<string, string>> {
  const root = `${DIR}/${name}`;
  await Deno.mkdir(`${root}/config`, { recursive: true });
  return {
    PATH: `${DIR}:${Deno.env.get("PATH")}`,
    XDG_STATE_HOME: `${root}/state`,
    XDG_CONFIG_HOME: `${root}/config`,
  };
}

interface Result {
  readonly code: number;
  readonly stdout: Uint8Array;
  readonly stderr: Uint8Array;
}

/** Runs `bin/yarp ARGS` with exactly `env` over the test's own; 120 s cap. */
async function yarp(
  args: readonly string[],
  env: Record<string, string>,
  stdin?: Uint8Array,
): Promise<Result> {
  const { code, stdout, stderr } = await runYarp(args, { env, input: stdin, timeoutMs: 120_000 });
  return { code, stdout, stderr };
}

/** Runs `sh -c SCRIPT` through the test rule. */
const reduced = (script: string, env: Record<string, string>, prefix: string[] = []) =>
  yarp(["run", "--rule-pack", PACK, "--", ...prefix, "yarptestprog", "sh", "-c", script], env);

function bare(script: string): Promise<Deno.CommandOutput> {
  return spawn("sh", { args: ["-c", script] });
}

function idOf(result: Result): string {
  const match = /· exact: yarp read ([0-9a-f]{8})[ \]]/.exec(
    text(result.stdout) + text(result.stderr),
  );
  assert.ok(match, `no archive id in: ${text(result.stdout).slice(0, 400)}`);
  return match[1];
}

/** Prints 2,000 numbered lines, bytes NUL and 0xff, on both streams, then exits with CODE. */
const NOISY = (code: number) =>
  `i=1; while [ $i -le 2000 ]; do printf 'out %d \\000\\377\\n' $i; echo "err $i" >&2; i=$((i+1)); done; exit ${code}`;

Deno.test("a reduced run names a committed id; yarp read gives back the exact bytes", async () => {
  const env = await home("roundtrip");
  const result = await reduced(NOISY(3), env);
  assert.equal(result.code, 3);
  const id = idOf(result);
  assert.ok(result.stdout.length <= 2048);
  const exact = await bare(NOISY(3));
  const out = await yarp(["read", id, "--stream", "stdout"], env);
  assert.equal(out.code, 0);
  assert.deepEqual(out.stdout, exact.stdout);
  const err = await yarp(["read", id, "--stream", "stderr"], env);
  assert.deepEqual(err.stdout, exact.stderr);
  const both = await yarp(["read", id.slice(0, 5)], env);
  assert.deepEqual(both.stdout, exact.stdout);
  assert.deepEqual(both.stderr, exact.stderr);
  const json = JSON.parse(text((await yarp(["read", id, "--json"], env)).stdout));
  assert.equal(json.id, id);
  assert.equal(json.exit_code, 3);
  assert.equal(json.rule_id, "test.archive");
  assert.deepEqual(json.argv, ["yarptestprog", "sh", "-c", NOISY(3)]);
  assert.equal(json.streams.stdout.sha256, sha256(exact.stdout));
  assert.deepEqual(Uint8Array.fromBase64(json.streams.stdout.base64), exact.stdout);
  assert.equal(json.streams.stderr.text, text(exact.stderr));
  // The state directory is private; no spool file is left behind.
  const state = `${env.XDG_STATE_HOME}/yarp`;
  assert.equal(Deno.statSync(state).mode! & 0o777, 0o700);
  assert.equal(Deno.statSync(`${state}/archive.sqlite3`).mode! & 0o777, 0o600);
  assert.deepEqual([...Deno.readDirSync(`${state}/spool`)], []);
});

Deno.test("a search that cannot index says how many calls it did not search", async () => {
  const env = await home("unindexed");
  const first = idOf(await reduced("seq 1 5000; echo needle-unique-43", env));
  const indexed = await yarp(["search", "needle-unique-43"], env);
  assert.equal(indexed.code, 0);
  assert.equal(text(indexed.stderr), "");
  await reduced("seq 1 5000; echo needle-unique-44", env);
  // The index cannot be written (a directory stands where its file is): the new call is not searched.
  const database = `${env.XDG_STATE_HOME}/yarp/archive.sqlite3`;
  for (const suffix of ["-search", "-search-wal", "-search-shm"]) {
    await Deno.remove(database + suffix).catch(() => {});
  }
  await Deno.mkdir(`${database}-search`);
  const blind = await yarp(["search", "needle-unique-44"], env);
  assert.equal(blind.code, 1);
  assert.equal(
    text(blind.stderr),
    "yarp search: 2 archived calls are not indexed and were not searched (the search index could " +
      "not be written: a read-only or full disk, or another search held it); 'yarp read ID' still reads every call\n",
  );
  assert.equal((await yarp(["read", first], env)).code, 0);
});

Deno.test("search, stats, forget and put work through the CLI", async () => {
  const env = await home("commands");
  const first = idOf(await reduced("seq 1 5000; echo needle-unique-42", env));
  const second = idOf(await reduced("seq 1 5000 >&2; exit 1", env));
  const search = await yarp(["search", "needle-unique-42"], env);
  assert.equal(search.code, 0);
  assert.match(text(search.stdout), new RegExp(`^${first}  \\S+Z  exit 0  yarptestprog sh -c`));
  assert.match(text(search.stdout), /«needle/);
  const json = JSON.parse(text((await yarp(["search", "yarptestprog", "--json"], env)).stdout));
  assert.deepEqual(json.map((hit: { id: string }) => hit.id), [second, first]);
  const none = await yarp(["search", "no-such-word-zzz"], env);
  assert.equal(none.code, 1);
  const stats = JSON.parse(text((await yarp(["archive", "stats", "--json"], env)).stdout));
  assert.equal(stats.calls, 2);
  assert.equal((await yarp(["archive", "forget", first], env)).code, 0);
  const gone = await yarp(["read", first], env);
  assert.equal(gone.code, 1);
  assert.match(
    text(gone.stderr),
    new RegExp(
      `^yarp read: call ${first} was pruned at \\S+Z by yarp archive forget; its bytes are gone ` +
        `\\(archived \\S+Z\\)\n$`,
    ),
  );
  const never = await yarp(["read", "0000abcd"], env);
  assert.equal(text(never.stderr), `yarp read: no archived call '0000abcd' (see 'yarp search')\n`);
  const input = new Uint8Array([104, 105, 0, 255, 10]);
  const put = await yarp(
    ["archive", "put", "--command", "pi bash", "--exit-code", "2"],
    env,
    input,
  );
  assert.equal(put.code, 0);
  const putId = text(put.stdout).trim();
  assert.match(putId, /^[0-9a-f]{8}$/);
  assert.deepEqual((await yarp(["read", putId], env)).stdout, input);
  assert.deepEqual((await yarp(["read", putId, "--stream", "output"], env)).stdout, input);
  const pruned = await yarp(["archive", "prune", "--max-bytes", "0", "--json"], env);
  assert.deepEqual(JSON.parse(text(pruned.stdout)), {
    removed_calls: 2,
    removed_bytes: 23893 + 5,
    calls: 0,
    bytes: 0,
  });
});

Deno.test("argument and lookup errors: one line, exit 2 or 1, nothing changed", async () => {
  const env = await home("errors");
  const table: [string[], number, RegExp][] = [
    [["read"], 2, /^yarp read: missing ID\n$/],
    [["read", "xyz"], 2, /^yarp read: 'xyz' is not a call id/],
    [
      ["read", "abcd", "--stream", "both"],
      2,
      /^yarp read: --stream: expected stdout, stderr or output/,
    ],
    [["read", "abcd", "--bogus"], 2, /^yarp read: unknown option '--bogus'\n$/],
    [
      ["read", "abcd"],
      1,
      /^yarp read: no archive at .*archive\.sqlite3 \(nothing has been archived yet\)\n$/,
    ],
    [["search"], 2, /^yarp search: missing QUERY\n$/],
    [
      ["search", "x", "--limit", "0"],
      2,
      /^yarp search: --limit: expected an integer from 1 to 1000/,
    ],
    [["archive"], 2, /^yarp archive: missing action/],
    [["archive", "prune", "--max-bytes", "lots"], 2, /^yarp archive prune: --max-bytes: /],
    [["archive", "prune", "--older-than", "7"], 2, /^yarp archive prune: --older-than: /],
    [["archive", "forget"], 2, /^yarp archive forget: missing ID\n$/],
    [["archive", "put"], 2, /^yarp archive put: --command: required\n$/],
    [
      ["archive", "put", "--command", "x", "--exit-code", "300"],
      2,
      /--exit-code: expected 0 to 255/,
    ],
  ];
  for (const [args, code, pattern] of table) {
    const result = await yarp(args, env);
    assert.equal(result.code, code, args.join(" "));
    assert.match(text(result.stderr), pattern, args.join(" "));
    assert.equal(result.stdout.length, 0, args.join(" "));
  }
  assert.throws(() => Deno.statSync(`${env.XDG_STATE_HOME}/yarp/archive.sqlite3`));
});

Deno.test("YARP_ARCHIVE=off: reduced with a plain 'no exact copy' marker, nothing written", async () => {
  const env: Record<string, string> = { ...await home("off"), YARP_ARCHIVE: "off" };
  const result = await reduced(NOISY(0), env);
  assert.equal(result.code, 0);
  assert.match(text(result.stdout), /· no exact copy was kept\]/);
  assert.throws(() => Deno.statSync(`${env.XDG_STATE_HOME}/yarp`));
  const read = await yarp(["read", "abcd"], env);
  assert.equal(text(read.stderr), "yarp read: the archive is off (YARP_ARCHIVE=off)\n");
});

Deno.test("an invalid config or YARP_ARCHIVE value: one line, then exact pass-through", async () => {
  const env = await home("badconfig");
  const exact = await bare(NOISY(4));
  await Deno.mkdir(`${env.XDG_CONFIG_HOME}/yarp`);
  const config = `${env.XDG_CONFIG_HOME}/yarp/config.yaml`;
  await Deno.writeTextFile(config, "archive:\n  colour: red\n");
  const result = await reduced(NOISY(4), env);
  assert.equal(result.code, 4);
  assert.deepEqual(result.stdout, exact.stdout);
  assert.equal(
    text(result.stderr),
    `yarp run: config ${config}:2: unknown field 'archive.colour' (output not reduced)\n` +
      text(exact.stderr),
  );
  const search = await yarp(["search", "x"], env);
  assert.equal(search.code, 1);
  assert.equal(
    text(search.stderr),
    `yarp search: config ${config}:2: unknown field 'archive.colour'\n`,
  );
  await Deno.remove(config);
  const bad = await reduced(NOISY(4), { ...env, YARP_ARCHIVE: "maybe" });
  assert.deepEqual(bad.stdout, exact.stdout);
  assert.match(text(bad.stderr), /^yarp run: YARP_ARCHIVE: expected 'on' or 'off', got 'maybe'/);
});

Deno.test("a config file moves the archive and sets retention", async () => {
  const env = await home("configured");
  await Deno.mkdir(`${env.XDG_CONFIG_HOME}/yarp`);
  const path = `${env.XDG_STATE_HOME}/yarp/elsewhere/a.db`;
  await Deno.writeTextFile(
    `${env.XDG_CONFIG_HOME}/yarp/config.yaml`,
    `archive:\n  path: ${path}\n  max_bytes: 30000\n  min_age_minutes: 0\n`,
  );
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push(idOf(await reduced("seq 1 3000", env))); // 13,893 bytes each
  const stats = JSON.parse(text((await yarp(["archive", "stats", "--json"], env)).stdout));
  assert.equal(stats.path, path);
  assert.equal(stats.calls, 2, "automatic retention removed the oldest");
  assert.equal(stats.max_bytes, 30000);
  assert.equal(stats.min_age_minutes, 0);
  const pruned = await yarp(["read", ids[0]], env);
  assert.equal(pruned.code, 1);
  assert.match(
    text(pruned.stderr),
    new RegExp(
      `^yarp read: call ${ids[0]} was pruned at \\S+Z by archive\\.max_bytes \\(30000 bytes\\); ` +
        "its bytes are gone \\(archived \\S+Z\\)\n$",
    ),
  );
});

Deno.test("a burst over archive.max_bytes keeps every call younger than the minimum age", async () => {
  const env = await home("burst");
  await Deno.mkdir(`${env.XDG_CONFIG_HOME}/yarp`);
  await Deno.writeTextFile(
    `${env.XDG_CONFIG_HOME}/yarp/config.yaml`,
    "archive:\n  max_bytes: 30000\n", // the default minimum age: 60 minutes
  );
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push(idOf(await reduced("seq 1 3000", env))); // 13,893 bytes each
  const stats = JSON.parse(text((await yarp(["archive", "stats", "--json"], env)).stdout));
  assert.equal(stats.calls, 4, "no marker printed in the last hour went dead");
  assert.equal(stats.min_age_minutes, 60);
  for (const id of ids) assert.equal((await yarp(["read", id], env)).code, 0);
  // An explicit prune is the user's choice and names itself.
  assert.equal((await yarp(["archive", "prune", "--max-bytes", "20000"], env)).code, 0);
  const gone = await yarp(["read", ids[0]], env);
  assert.match(
    text(gone.stderr),
    /was pruned at \S+Z by yarp archive prune --max-bytes \(20000 bytes\); its bytes are gone/,
  );
});

// ---------------------------------------------------------------- reliability

Deno.test("a corrupt database: exact output, one clear line, the same exit code", async () => {
  const env = await home("corrupt");
  await Deno.mkdir(`${env.XDG_STATE_HOME}/yarp`, { recursive: true });
  const db = `${env.XDG_STATE_HOME}/yarp/archive.sqlite3`;
  const garbage = new TextEncoder().encode("not sqlite at all ".repeat(500));
  await Deno.writeFile(db, garbage);
  const exact = await bare(NOISY(5));
  const result = await reduced(NOISY(5), env);
  assert.equal(result.code, 5);
  assert.deepEqual(result.stdout, exact.stdout);
  assert.equal(
    text(result.stderr),
    text(exact.stderr) +
      `yarp: archive ${db}: file is not a database; the output above is exact and was not archived\n`,
  );
  assert.deepEqual(await Deno.readFile(db), garbage, "the file is left alone");
  const read = await yarp(["search", "x"], env);
  assert.equal(read.code, 1);
  assert.equal(text(read.stderr), `yarp search: archive ${db}: file is not a database\n`);
});

Deno.test("an archive path that cannot be written: the exact raw output is restored", async () => {
  const env = await home("unwritable-db");
  await Deno.writeTextFile(`${DIR}/unwritable-db/file`, "");
  const exact = await bare(NOISY(0));
  const result = await reduced(NOISY(0), {
    ...env,
    YARP_ARCHIVE_PATH: `${DIR}/unwritable-db/file/sub/a.db`,
  });
  assert.equal(result.code, 0);
  assert.deepEqual(result.stdout, exact.stdout);
  assert.match(
    text(result.stderr),
    /^err 1\n[\s\S]*err 2000\nyarp: archive .*a\.db: .*; the output above is exact and was not archived\n$/,
  );
});

Deno.test("an unwritable state directory: reduced output says plainly no exact copy exists", async () => {
  const env = await home("readonly-state");
  await Deno.writeTextFile(`${DIR}/readonly-state/file`, "");
  const result = await reduced(NOISY(1), { ...env, XDG_STATE_HOME: `${DIR}/readonly-state/file` });
  assert.equal(result.code, 1);
  assert.match(text(result.stdout), /· no exact copy was kept\]/);
  assert.match(text(result.stderr), /· no exact copy was kept\]/);
  assert.doesNotMatch(text(result.stdout) + text(result.stderr), /yarp read/);
});

/** Mounts a tmpfs of `size` at a new directory; throws when the mount fails. */
function tmpfs(name: string, size: string, readOnly = false): string {
  const dir = `${DIR}/${name}`;
  Deno.mkdirSync(dir, { recursive: true });
  const options = `size=${size},mode=0700${readOnly ? ",ro" : ""}`;
  const { code, stderr } = new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", options, "tmpfs", dir],
    stdout: "null",
    stderr: "piped",
  }).outputSync();
  if (code !== 0) throw new Error(`mount ${dir}: ${decoder.decode(stderr)}`);
  mounts.push(dir);
  return dir;
}

Deno.test({
  // Where mounting is not permitted, the ulimit -f and unwritable-directory tests cover this.
  ...onlyWhere(
    canMountTmpfs(),
    "a read-only or full state directory (tmpfs): the marker, never lost output",
    "this process cannot mount a tmpfs",
  ),
}, async (t) => {
  const readOnly = tmpfs("ro-tmpfs", "1m", true);
  const full = tmpfs("full-tmpfs", "64k");
  const env = await home("tmpfs");
  await t.step("read-only", async () => {
    const result = await reduced(NOISY(0), { ...env, XDG_STATE_HOME: readOnly });
    assert.equal(result.code, 0);
    assert.match(text(result.stdout), /· no exact copy was kept\]/);
  });
  await t.step("full", async () => {
    // 1 MiB of output into a 64 KiB file system: the spool fails mid-run.
    const result = await reduced("seq 1 150000; exit 9", { ...env, XDG_STATE_HOME: full });
    assert.equal(result.code, 9);
    assert.match(text(result.stdout), /^1\n2\n3\n/);
    assert.match(text(result.stdout), /· no exact copy was kept\]\n149999\n150000\n$/);
  });
});

Deno.test("ulimit -f: the spool write fails with EFBIG, YARP survives and says no copy exists", async () => {
  const env = await home("ulimit");
  // Warm the state directory and archive first so only the spool can hit the limit.
  idOf(await reduced("seq 1 3000", env));
  const script =
    `ulimit -f 256; exec "$0" run --rule-pack "$1" -- yarptestprog sh -c 'seq 1 200000; exit 6'`;
  const child = await spawn("bash", { args: ["-c", script, YARP, PACK], env });
  assert.equal(child.code, 6, text(child.stderr));
  assert.equal(child.signal, null);
  assert.match(text(child.stdout), /· no exact copy was kept\]\n199999\n200000\n$/);
});

Deno.test("SIGKILL of yarp mid-run: the database stays usable and no spool is left", async () => {
  const env = await home("sigkill");
  idOf(await reduced("seq 1 3000", env));
  for (const delay of [150, 400, 800, 1200]) {
    // Spawn deno directly (not through bash) so the kill reaches YARP itself.
    const child = new Deno.Command(YARP, {
      args: [
        "run",
        "--rule-pack",
        PACK,
        "--",
        "yarptestprog",
        "sh",
        "-c",
        "seq 1 3000000; sleep 3",
      ],
      env,
      stdout: "null",
      stderr: "null",
    }).spawn();
    await new Promise((resolve) => setTimeout(resolve, delay));
    try {
      child.kill("SIGKILL");
    } catch (error) {
      // On a loaded machine the run may already be over: then there is nothing to kill.
      if (!(error instanceof TypeError)) throw error;
    }
    await child.status;
  }
  await new Promise((resolve) => setTimeout(resolve, 1500)); // the orphaned children finish
  const next = await reduced("seq 1 3000", env);
  const id = idOf(next);
  assert.deepEqual((await yarp(["read", id], env)).stdout, (await bare("seq 1 3000")).stdout);
  assert.deepEqual([...Deno.readDirSync(`${env.XDG_STATE_HOME}/yarp/spool`)], []);
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(`${env.XDG_STATE_HOME}/yarp/archive.sqlite3`);
  const check = db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
  assert.deepEqual(check.map((row) => row.integrity_check), ["ok"]);
  const totals = db.prepare("SELECT calls, bytes FROM archive_totals").get() as {
    calls: number;
    bytes: number;
  };
  const actual = db.prepare(
    "SELECT count(*) AS calls, coalesce(sum(total_bytes), 0) AS bytes FROM calls",
  )
    .get() as { calls: number; bytes: number };
  assert.deepEqual({ ...totals }, { ...actual });
  db.close();
});

/**
 * Concurrent writers: 64 runs, at most {@link IN_FLIGHT} at a time. All 64 at
 * once made every one of them (a Deno start, a 1.1 MiB capture, a commit) share
 * 2 cores with the rest of a loaded machine, so single runs hit the 120 s cap
 * and the test failed for want of CPU, not for a lost write. Eight in flight,
 * four times the cores here, still has every commit racing seven other writers
 * for the database lock while each run gets enough CPU to finish.
 */
const IN_FLIGHT = 8;

Deno.test("64 yarp runs with large outputs, 8 writing at a time: every row present, every digest matches", async () => {
  const env = await home("concurrent");
  const script = (i: number) => `seq -f 'run ${i} line %g' 1 60000; seq 1 ${i} >&2`; // ~1.1 MiB
  const results: Result[] = new Array(64);
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < results.length) {
      const i = next++;
      results[i] = await reduced(script(i), env);
    }
  }));
  const ids = results.map((result) => {
    assert.equal(result.code, 0, text(result.stderr));
    assert.doesNotMatch(text(result.stderr), /not archived/);
    return idOf(result);
  });
  assert.equal(new Set(ids).size, 64);
  const expected = await bare(script(7));
  for (const [i, id] of ids.entries()) {
    const json = JSON.parse(text((await yarp(["read", id, "--json"], env)).stdout));
    assert.equal(json.command.includes(`run ${i} line`), true);
    const stdout = new TextEncoder().encode(json.streams.stdout.text);
    assert.equal(json.streams.stdout.sha256, sha256(stdout));
    assert.equal(json.streams.stdout.size, stdout.length);
    if (i === 7) assert.deepEqual(stdout, expected.stdout);
  }
  const stats = JSON.parse(text((await yarp(["archive", "stats", "--json"], env)).stdout));
  assert.equal(stats.calls, 64);
});

Deno.test("no commit path touches the search index; the first search indexes every pending call", async () => {
  const env = await home("index-at-search");
  const index = `${env.XDG_STATE_HOME}/yarp/archive.sqlite3-search`;
  const ran = idOf(await reduced("seq 1 5000; echo ran-word-7", env));
  const put = await yarp(
    ["archive", "put", "--command", "host put-word-7"],
    env,
    new TextEncoder().encode("put-word-7\n"),
  );
  assert.equal(put.code, 0, text(put.stderr));
  const result = new TextEncoder().encode(
    Array.from({ length: 400 }, (_, i) => `commit ${i}\n result-word-7 line ${i}`).join("\n"),
  );
  const reduce = await yarp(
    ["result-reduce", "--command", "git log", "--exit-code", "0", "--json"],
    env,
    result,
  );
  const report = JSON.parse(text(reduce.stdout));
  assert.equal(report.changed, true, text(reduce.stdout));
  await assert.rejects(Deno.stat(index), Deno.errors.NotFound);
  for (
    const [word, id] of [
      ["ran-word-7", ran],
      ["put-word-7", text(put.stdout).trim()],
      ["result-word-7", report.archive_id],
    ]
  ) {
    const hits = JSON.parse(text((await yarp(["search", word, "--json"], env)).stdout));
    assert.deepEqual(hits.map((hit: { id: string }) => hit.id), [id], word);
  }
  assert.ok((await Deno.stat(index)).isFile);
});
