/**
 * `yarp run` as a whole program (docs/architecture.md, "Process runner"; docs/run.md): the real
 * launcher `bin/yarp` runs child scripts written to a temporary directory.
 * Covers exact pass-through of large interleaved streams, every exit code,
 * signal deaths and forwarding, stdin, argv/env/cwd, spawn failures, closed
 * stdout, argument errors, and reduced runs through a compiled pack with
 * digest agreement.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { parseRunArgs, planRun, type RunOptions } from "../lib/cli/run.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { encodeCompiledPack } from "../lib/rules/compiled_pack.ts";
import type { OutputPolicy, ReductionRule, RulePack } from "../lib/rules/model.ts";
import { runYarp, tempDir, YARP } from "./_process.ts";

const DIR = await tempDir("yarp_run_test_");
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A trampoline named like a real program so a test pack can select it. */
const TRAMPOLINE = '#!/bin/sh\nexec "$@"\n';
for (const name of ["yarptestprog", "yarpotherprog"]) {
  await Deno.writeTextFile(`${DIR}/${name}`, TRAMPOLINE, { mode: 0o755 });
}
/** A private state and config directory, so reduced runs archive into the test's own store. */
const ENV = {
  PATH: `${DIR}:${Deno.env.get("PATH")}`,
  XDG_STATE_HOME: `${DIR}/state`,
  XDG_CONFIG_HOME: `${DIR}/config`,
};

/** Writes `out.bin` and `err.bin` alternately in chunks of varying size (1 B to 128 KiB). */
const INTERLEAVE = `
function writeAll(file, bytes) {
  let offset = 0;
  while (offset < bytes.length) offset += file.writeSync(bytes.subarray(offset));
}
const out = Deno.readFileSync(Deno.args[0]);
const err = Deno.readFileSync(Deno.args[1]);
let o = 0, e = 0, step = 1;
while (o < out.length || e < err.length) {
  const size = 1 + ((step++ * 7919) % 131072);
  writeAll(Deno.stdout, out.subarray(o, o + size));
  o += size;
  writeAll(Deno.stderr, err.subarray(e, e + size * 2));
  e += size * 2;
}
`;
await Deno.writeTextFile(`${DIR}/interleave.js`, INTERLEAVE);
const INTERLEAVE_ARGV = [Deno.execPath(), "run", "--quiet", "--allow-read", `${DIR}/interleave.js`];

interface Result {
  readonly code: number;
  readonly signal: Deno.Signal | null;
  readonly stdout: Uint8Array;
  readonly stderr: Uint8Array;
}

interface YarpOptions {
  readonly stdin?: Uint8Array;
  readonly env?: Record<string, string>;
  readonly cwd?: string;
}

/** Runs `bin/yarp ARGS` and collects both streams concurrently (60 s cap). */
async function yarp(args: readonly string[], options: YarpOptions = {}): Promise<Result> {
  const { code, signal, stdout, stderr } = await runYarp(args, {
    env: { ...ENV, ...options.env },
    cwd: options.cwd,
    input: options.stdin,
    timeoutMs: 60_000,
  });
  return { code, signal, stdout, stderr };
}

const text = (bytes: Uint8Array) => decoder.decode(bytes);

/** Deterministic bytes of every value, including NUL, CR and invalid UTF-8. */
function noise(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed;
  for (let i = 0; i < length; i += 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

function lines(prefix: string, count: number): string {
  let result = "";
  for (let i = 1; i <= count; i += 1) result += `${prefix} ${i}\n`;
  return result;
}

// ---------------------------------------------------------------- pass-through

Deno.test("pass-through keeps large interleaved stdout and stderr separate and exact", async () => {
  const out = noise(4 * 1024 * 1024 + 3, 1);
  const err = noise(6 * 1024 * 1024 + 5, 2);
  await Deno.writeFile(`${DIR}/out.bin`, out);
  await Deno.writeFile(`${DIR}/err.bin`, err);
  const result = await yarp(["run", "--", ...INTERLEAVE_ARGV, `${DIR}/out.bin`, `${DIR}/err.bin`]);
  assert.equal(result.code, 0);
  assert.ok(result.stdout.length === out.length && result.stdout.every((b, i) => b === out[i]));
  assert.ok(result.stderr.length === err.length && result.stderr.every((b, i) => b === err[i]));
});

Deno.test("every exit code 0 to 255 comes back exactly", async () => {
  const codes = Array.from({ length: 256 }, (_, code) => code);
  const seen: number[] = [];
  for (let start = 0; start < codes.length; start += 32) {
    const batch = codes.slice(start, start + 32);
    const results = await Promise.all(
      batch.map((code) => yarp(["run", "--", "sh", "-c", `exit ${code}`])),
    );
    for (const result of results) {
      assert.equal(result.stderr.length, 0);
      seen.push(result.code);
    }
  }
  assert.deepEqual(seen, codes);
});

Deno.test("death by signal reports 128 + n", async () => {
  for (const [signal, status] of [["TERM", 143], ["KILL", 137], ["INT", 130], ["SEGV", 139]]) {
    const result = await yarp(["run", "--", "sh", "-c", `kill -${signal} $$`]);
    assert.equal(result.code, status, signal as string);
    assert.equal(result.signal, null, "yarp itself exits normally");
  }
});

Deno.test("SIGTERM, SIGINT and SIGHUP sent to yarp reach the child", async () => {
  for (const [signal, status] of [["SIGTERM", 143], ["SIGINT", 130], ["SIGHUP", 129]] as const) {
    const child = new Deno.Command(YARP, {
      args: ["run", "--", "sh", "-c", "echo ready; exec sleep 30"],
      env: ENV,
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(20_000),
    }).spawn();
    const reader = child.stdout.getReader();
    const first = await reader.read();
    assert.equal(text(first.value!), "ready\n");
    child.kill(signal);
    reader.releaseLock();
    const result = await child.output();
    assert.equal(result.code, status, signal);
    assert.equal(result.signal, null, `${signal}: yarp waited for the child and exited itself`);
  }
});

Deno.test("stdin reaches the child byte for byte", async () => {
  const input = noise(3 * 1024 * 1024 + 1, 3);
  const result = await yarp(["run", "--", "cat"], { stdin: input });
  assert.equal(result.code, 0);
  assert.ok(result.stdout.length === input.length && result.stdout.every((b, i) => b === input[i]));
});

Deno.test("argv after --, environment and cwd reach the child unchanged", async () => {
  const args = ["a b", "", "--", "--rule-pack", "-x", "é\u{1F600}", "$HOME", "*"];
  const result = await yarp(
    [
      "run",
      "--",
      "sh",
      "-c",
      'printf "[%s]" "$@"; printf "|%s|%s" "$YARP_SECRET_X" "$(pwd)"',
      "sh",
      ...args,
    ],
    { env: { YARP_SECRET_X: "kept" }, cwd: DIR },
  );
  assert.equal(result.code, 0);
  const cwd = await Deno.realPath(DIR);
  assert.equal(text(result.stdout), args.map((a) => `[${a}]`).join("") + `|kept|${cwd}`);
});

Deno.test("the child's environment is exactly the caller's, through the launcher", async () => {
  // Everything the caller passes, names no shell could declare included, and nothing else. PWD
  // is the real cwd and SHLVL is set, as a calling shell exports them (docs/run.md says what the
  // bash launcher does otherwise, and with `_`).
  const cwd = await Deno.realPath(DIR);
  const env: Record<string, string> = {
    ...ENV,
    PWD: cwd,
    HOME: DIR,
    SHLVL: "7",
    EMPTY: "",
    "WITH SPACE": "a\tb c",
    "A-B.C": "dash would drop this name",
    UNICODE: "é\u{1F600}",
    LINES: "1\n2",
  };
  const child = await runYarp(["run", "--", "env", "-0"], { env, clearEnv: true, cwd: DIR });
  assert.equal(child.code, 0, text(child.stderr));
  const seen = Object.fromEntries(
    text(child.stdout).split("\0").filter((entry) => entry !== "").map((entry) => {
      const at = entry.indexOf("=");
      return [entry.slice(0, at), entry.slice(at + 1)];
    }),
  );
  assert.deepEqual(seen, env);
});

Deno.test("the child's argv[0] is the program name as written, not its resolved path", async () => {
  // With -c and no further operand, $0 is the shell's own argv[0].
  const plain = await yarp(["run", "--", "bash", "-c", 'printf %s "$0"']);
  assert.equal(text(plain.stdout), "bash");
  const ls = await yarp(["run", "--", "ls", `${DIR}/no-such-entry`]);
  assert.equal(ls.code, 2);
  assert.match(text(ls.stderr), /^ls: cannot access/);
});

Deno.test("a missing program gives 127 and one line, as a shell does", async () => {
  const result = await yarp(["run", "--", "yarp-no-such-program-xyz", "arg"]);
  assert.equal(result.code, 127);
  assert.equal(text(result.stderr), "yarp: yarp-no-such-program-xyz: command not found\n");
  assert.equal(result.stdout.length, 0);
});

Deno.test("a file that is not executable gives 126", async () => {
  await Deno.writeTextFile(`${DIR}/plain.sh`, "#!/bin/sh\necho hi\n", { mode: 0o644 });
  const result = await yarp(["run", "--", `${DIR}/plain.sh`]);
  assert.equal(result.code, 126);
  assert.equal(text(result.stderr), `yarp: ${DIR}/plain.sh: Permission denied\n`);
});

Deno.test("an executable found on disk is exec'd as execvp does: no #! runs under sh", async () => {
  await Deno.writeTextFile(`${DIR}/noshebang`, 'echo "ran $0 $1"\nexit 3\n', { mode: 0o755 });
  const script = await yarp(["run", "--", `${DIR}/noshebang`, "arg"]);
  assert.equal(script.code, 3);
  assert.equal(text(script.stdout), `ran ${DIR}/noshebang arg\n`);
  // A missing interpreter: env's message and 127 (bash 5.2 also gives 127).
  await Deno.writeTextFile(`${DIR}/badinterp`, "#!/yarp/no/such/interpreter\n", { mode: 0o755 });
  const bad = await yarp(["run", "--", `${DIR}/badinterp`]);
  assert.equal(bad.code, 127);
  assert.match(text(bad.stderr), /^\S*env: .*badinterp.*: No such file or directory\n$/);
});

Deno.test("directories answer as bash answers: passed over on PATH, named by a path", async () => {
  // Directories named like programs, first on PATH: bash passes over them.
  await Deno.mkdir(`${DIR}/dirs/yarpdirprog`, { recursive: true });
  await Deno.mkdir(`${DIR}/dirs/yarptestprog`, { recursive: true });
  const env = { PATH: `${DIR}/dirs:${ENV.PATH}` };
  const onPath = await yarp(["run", "--", "yarpdirprog"], { env });
  assert.equal(onPath.code, 127);
  assert.equal(text(onPath.stderr), "yarp: yarpdirprog: command not found\n");
  // The program of the same name further on runs.
  const found = await yarp(["run", "--", "yarptestprog", "sh", "-c", "exit 7"], { env });
  assert.equal(found.code, 7);
  const named = await yarp(["run", "--", `${DIR}/dirs`]);
  assert.equal(named.code, 126);
  assert.equal(text(named.stderr), `yarp: ${DIR}/dirs: Is a directory\n`);
});

Deno.test("a closed stdout in pass-through: the child's own SIGPIPE status, no crash", async () => {
  const child = new Deno.Command(YARP, {
    args: ["run", "--", "yes"],
    env: ENV,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(20_000),
  }).spawn();
  const reader = child.stdout.getReader();
  assert.match(text((await reader.read()).value!), /^y\n/);
  await reader.cancel();
  const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
  assert.equal(status.code, 141, "yes died by SIGPIPE, as under `yes | head -1`");
  assert.equal(status.signal, null, "yarp itself did not crash");
  assert.equal(stderr, "");
});

Deno.test("argument errors: exit 2, one line, child not run", async () => {
  const marker = `${DIR}/ran`;
  const touch = ["touch", marker];
  const digest = "a".repeat(64);
  const table: [string[], RegExp][] = [
    [[], /expected '--'/],
    [[...touch], /expected '--'/],
    [["--"], /missing command/],
    [["--bogus", "--", ...touch], /bogus/],
    [["stray", "--", ...touch], /unexpected argument 'stray' before '--'/],
    [["--rule-pack"], /expected '--'/],
    [["--rule-pack", "--", ...touch], /option '--rule-pack' needs a value/],
    [["--expect-rule", "-x", "--", ...touch], /option '--expect-rule' needs a value/],
    [["--expect-rule", "a", "--expect-rule=b", "--", ...touch], /more than once/],
    [["-v", "--", ...touch], /unknown option '-v'/],
    [["--bogus=1", "--", ...touch], /unknown option '--bogus'/],
    [["--rule-pack", "", "--", ...touch], /--rule-pack: empty path/],
    [["--expect-rule", "", "--", ...touch], /--expect-rule: empty/],
    [["--pack-digest", "xyz", "--", ...touch], /--pack-digest: 'xyz'/],
    [["--pack-digest", digest, "--", ...touch], /1 digests for 0 --rule-pack/],
  ];
  const results = await Promise.all(table.map(([args]) => yarp(["run", ...args])));
  for (const [index, result] of results.entries()) {
    const [args, pattern] = table[index];
    const stderr = text(result.stderr);
    assert.equal(result.code, 2, args.join(" "));
    assert.match(stderr, /^yarp run: [^\n]+\n$/, args.join(" "));
    assert.match(stderr, pattern, args.join(" "));
    assert.equal(result.stdout.length, 0);
  }
  await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
});

Deno.test("yarp run --help prints usage and exits 0", async () => {
  const result = await yarp(["run", "--help"]);
  assert.equal(result.code, 0);
  assert.match(text(result.stdout), /^usage: yarp run /);
});

// ---------------------------------------------------------------- reduced runs

function policy(headLines: number, tailLines: number, maxOutputBytes: number): OutputPolicy {
  return { headLines, tailLines, maxLineBytes: 256, maxOutputBytes, minSavingsBytes: 0 };
}

function rule(id: string, program: string): ReductionRule {
  return {
    id,
    action: "reduce",
    match: { programs: [program], argvPrefix: [], argvContainsAll: [] },
    reducer: { kind: "head_tail" },
    success: policy(3, 2, 1024),
    failure: policy(6, 4, 2048),
  };
}

function pack(id: string, rules: ReductionRule[]): RulePack {
  const sourceDigest = createHash("sha256").update(id).digest("hex");
  return { id, sourceDigest, rules };
}

const PACK_A = encodeCompiledPack(
  pack("test-a", [rule("test.prog", "yarptestprog"), rule("test.other", "yarpotherprog")]),
);
const PACK_B = encodeCompiledPack(pack("test-b", [rule("test.prog", "yarptestprog")]));
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function writePack(name: string, bytes: Uint8Array): Promise<string> {
  const path = `${DIR}/${name}.yrp`;
  await Deno.writeFile(path, bytes);
  return path;
}

/** `yarptestprog` printing N numbered lines on each stream, then exiting with CODE. */
function numbered(count: number, code: number): string[] {
  const script = `i=1; while [ $i -le ${count} ]; do echo "out $i"; echo "err $i" >&2; ` +
    `i=$((i+1)); done; exit ${code}`;
  return ["yarptestprog", "sh", "-c", script];
}

/** The lines of a reduced stream that came from the child (not YARP's marker). */
function keptLines(bytes: Uint8Array, prefix: string): string[] {
  return text(bytes).split("\n").filter((line) => line.startsWith(`${prefix} `));
}

Deno.test("a reduced run reduces stdout and stderr separately with the success policy", async () => {
  const path = await writePack("a", PACK_A);
  const result = await yarp(["run", "--rule-pack", path, "--", ...numbered(500, 0)]);
  assert.equal(result.code, 0);
  assert.deepEqual(keptLines(result.stdout, "out"), [
    "out 1",
    "out 2",
    "out 3",
    "out 499",
    "out 500",
  ]);
  assert.deepEqual(keptLines(result.stderr, "err"), [
    "err 1",
    "err 2",
    "err 3",
    "err 499",
    "err 500",
  ]);
  assert.doesNotMatch(text(result.stdout), /err /);
  assert.doesNotMatch(text(result.stderr), /out /);
  assert.match(text(result.stdout), /yarp/, "an omission marker says what was left out");
  assert.match(text(result.stderr), /yarp/);
  assert.ok(result.stdout.length <= 1024 && result.stderr.length <= 1024);
});

Deno.test("a failed reduced run uses the failure policy and keeps the exact code", async () => {
  const path = await writePack("a", PACK_A);
  for (const code of [1, 3, 255]) {
    const result = await yarp(["run", "--rule-pack", path, "--", ...numbered(500, code)]);
    assert.equal(result.code, code);
    assert.equal(keptLines(result.stdout, "out").length, 10);
    assert.equal(keptLines(result.stderr, "err").length, 10);
  }
  const killed = await yarp([
    "run",
    "--rule-pack",
    path,
    "--",
    "yarptestprog",
    "sh",
    "-c",
    "kill -TERM $$",
  ]);
  assert.equal(killed.code, 143);
});

Deno.test("a reduced run drains both pipes concurrently: no deadlock on large interleaved output", async () => {
  const out = encoder.encode(lines("out", 300_000));
  const err = encoder.encode(lines("err", 300_000));
  await Deno.writeFile(`${DIR}/out.bin`, out);
  await Deno.writeFile(`${DIR}/err.bin`, err);
  const path = await writePack("a", PACK_A);
  const result = await yarp([
    "run",
    "--rule-pack",
    path,
    "--",
    "yarptestprog",
    ...INTERLEAVE_ARGV,
    `${DIR}/out.bin`,
    `${DIR}/err.bin`,
  ]);
  assert.equal(result.code, 0);
  assert.deepEqual(keptLines(result.stdout, "out"), [
    "out 1",
    "out 2",
    "out 3",
    "out 299999",
    "out 300000",
  ]);
  assert.deepEqual(keptLines(result.stderr, "err"), [
    "err 1",
    "err 2",
    "err 3",
    "err 299999",
    "err 300000",
  ]);
});

Deno.test("a reduced run passes stdin through to the child", async () => {
  const path = await writePack("a", PACK_A);
  const input = noise(1024 * 1024, 4);
  const result = await yarp(["run", "--rule-pack", path, "--", "yarptestprog", "wc", "-c"], {
    stdin: input,
  });
  assert.equal(result.code, 0);
  assert.equal(text(result.stdout).trim(), String(input.length));
});

Deno.test("a closed stdout in a reduced run: the child's own status, no crash", async () => {
  const path = await writePack("a", PACK_A);
  const child = new Deno.Command(YARP, {
    args: ["run", "--rule-pack", path, "--", "yarptestprog", "sh", "-c", "seq 1 200000; exit 7"],
    env: ENV,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(20_000),
  }).spawn();
  await child.stdout.cancel();
  const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
  assert.equal(status.code, 7);
  assert.equal(status.signal, null, "yarp itself did not crash");
  assert.equal(stderr, "", "BrokenPipe is silent");
});

Deno.test("--expect-rule: the named rule reduces, any other rule passes through exactly", async () => {
  const path = await writePack("a", PACK_A);
  const argv = numbered(100, 0);
  const expected = await yarp(["run", "--", ...argv]);
  assert.equal(keptLines(expected.stdout, "out").length, 100, "no pack: exact");

  const matching = await yarp([
    "run",
    "--rule-pack",
    path,
    "--expect-rule",
    "test.prog",
    "--",
    ...argv,
  ]);
  assert.equal(keptLines(matching.stdout, "out").length, 5);

  const other = await yarp([
    "run",
    "--rule-pack",
    path,
    "--expect-rule",
    "test.other",
    "--",
    ...argv,
  ]);
  assert.deepEqual(other, expected);

  const debug = await yarp(
    ["run", "--rule-pack", path, "--expect-rule", "test.other", "--", ...argv],
    { env: { YARP_DEBUG: "1" } },
  );
  assert.deepEqual(debug.stdout, expected.stdout);
  assert.equal(
    text(debug.stderr),
    "yarp run: pass-through: selected rule test.prog, expected test.other\n" +
      text(expected.stderr),
  );
});

Deno.test("--pack-digest: the right digest reduces, a wrong or stale one passes through", async () => {
  const path = await writePack("digest", PACK_A);
  const argv = numbered(100, 0);
  const exact = await yarp(["run", "--", ...argv]);

  const right = await yarp([
    "run",
    "--rule-pack",
    path,
    "--pack-digest",
    sha256(PACK_A),
    "--",
    ...argv,
  ]);
  assert.equal(keptLines(right.stdout, "out").length, 5);
  const upper = sha256(PACK_A).toUpperCase();
  const rightUpper = await yarp([
    "run",
    "--rule-pack",
    path,
    "--pack-digest",
    upper,
    "--",
    ...argv,
  ]);
  /** The same result up to the archive id each reduced run gets. */
  const withoutId = (result: Result) => ({
    ...result,
    stdout: text(result.stdout).replace(/yarp read [0-9a-f]{8}/g, "yarp read ID"),
    stderr: text(result.stderr).replace(/yarp read [0-9a-f]{8}/g, "yarp read ID"),
  });
  assert.deepEqual(withoutId(rightUpper), withoutId(right));

  const wrong = await yarp([
    "run",
    "--rule-pack",
    path,
    "--pack-digest",
    "0".repeat(64),
    "--",
    ...argv,
  ]);
  assert.deepEqual(wrong, exact);

  // The pack is replaced between `yarp rewrite` and `yarp run`: the digest
  // the wrapper carries is stale, so the command runs exactly.
  await writePack("digest", PACK_B);
  const replaced = await yarp(
    ["run", "--rule-pack", path, "--pack-digest", sha256(PACK_A), "--", ...argv],
    { env: { YARP_DEBUG: "1" } },
  );
  assert.deepEqual(replaced.stdout, exact.stdout);
  assert.match(text(replaced.stderr), /^yarp run: pass-through: .*digest differs/);
});

Deno.test("a missing or corrupt pack passes through exactly", async () => {
  const argv = numbered(100, 4);
  const exact = await yarp(["run", "--", ...argv]);
  assert.equal(exact.code, 4);
  const corrupt = PACK_A.slice();
  corrupt[corrupt.length - 1] ^= 0xff;
  const corruptPath = await writePack("corrupt", corrupt);
  for (const path of [`${DIR}/missing.yrp`, corruptPath]) {
    assert.deepEqual(await yarp(["run", "--rule-pack", path, "--", ...argv]), exact, path);
  }
});

Deno.test("an ambiguous selection passes through exactly", async () => {
  const clash = encodeCompiledPack(pack("test-c", [rule("test.clash", "yarptestprog")]));
  const paths = [await writePack("a", PACK_A), await writePack("clash", clash)];
  const argv = numbered(100, 0);
  const exact = await yarp(["run", "--", ...argv]);
  const result = await yarp(
    ["run", "--rule-pack", paths[0], "--rule-pack", paths[1], "--", ...argv],
    { env: { YARP_DEBUG: "1" } },
  );
  assert.deepEqual(result.stdout, exact.stdout);
  assert.match(text(result.stderr), /^yarp run: pass-through: selection is ambiguous\n/);
});

// ---------------------------------------------------------------- in-process: parse and plan

Deno.test("parseRunArgs: everything after the first -- is the child argv, verbatim", () => {
  const d1 = "a".repeat(64), d2 = "B".repeat(64);
  assert.deepEqual(
    parseRunArgs([
      "--rule-pack=one.yrp",
      "--rule-pack",
      "two.yrp",
      "--pack-digest",
      d1,
      "--pack-digest",
      d2,
      "--expect-rule",
      "r.id",
      "--",
      "prog",
      "--rule-pack",
      "x",
      "--",
      "",
    ]),
    {
      rulePacks: ["one.yrp", "two.yrp"],
      expectRule: "r.id",
      packDigests: [d1, d2.toLowerCase()],
      argv: ["prog", "--rule-pack", "x", "--", ""],
    },
  );
  assert.deepEqual(parseRunArgs(["--rule-pack=-odd=name", "--", "p"]), {
    rulePacks: ["-odd=name"],
    expectRule: undefined,
    packDigests: [],
    argv: ["p"],
  });
  assert.deepEqual(parseRunArgs(["--", "-x"]), {
    rulePacks: [],
    expectRule: undefined,
    packDigests: [],
    argv: ["-x"],
  });
});

Deno.test("planRun: no rule for the program means pass-through", async () => {
  const plan = await planRun(parseRunArgs(["--", "yarp-unknown-prog"]) as RunOptions);
  assert.deepEqual(plan, { kind: "passthrough", reason: "unsupported: unknown-program" });
});

Deno.test("planRun: without packs, it plans as the built-in registry selects", async () => {
  // planRun skips loading the rules for a program no built-in names; the plan must not change.
  const registry = createRuleRegistry([builtinRuleSource()]);
  const argvs = [
    ["true"],
    ["/usr/bin/git", "log"],
    ["git", "log"],
    ["git", "log", "-z"],
    ["cargo", "test"],
    ["cat", "x"],
    ["rg", "--json", "x"],
    ["npx", "vitest", "run"],
    ["unknown-tool", "--json"],
    ["GIT", "status"],
  ];
  for (const argv of argvs) {
    const plan = await planRun({ rulePacks: [], expectRule: undefined, packDigests: [], argv });
    const selection = registry.select(argv);
    if (selection.outcome === "reduce") {
      assert.equal(plan.kind === "reduce" && plan.rule.id, selection.match.rule.id, argv.join(" "));
    } else {
      const reason = selection.outcome === "unsupported"
        ? `unsupported: ${selection.reason}`
        : `selection is ${selection.outcome}`;
      assert.deepEqual(plan, { kind: "passthrough", reason }, argv.join(" "));
    }
  }
});

Deno.test("planRun: a pack changed after it was read fails the pre-spawn check", async () => {
  const path = await writePack("changing", PACK_A);
  const plan = await planRun(
    parseRunArgs(["--rule-pack", path, "--", "yarptestprog"]) as RunOptions,
  );
  assert.equal(plan.kind, "reduce");
  if (plan.kind !== "reduce") return;
  assert.equal(plan.rule.id, "test.prog");
  await plan.assertPacksUnchanged();
  await Deno.remove(path);
  await writePack("changing", PACK_A); // same bytes, new file
  await assert.rejects(plan.assertPacksUnchanged(), /changed/);
});

Deno.test("planRun: a rule over the memory bound passes through", async () => {
  const huge: ReductionRule = {
    ...rule("test.huge", "yarptestprog"),
    failure: { ...policy(10_000, 10_000, 16_777_216), maxLineBytes: 1_048_576 },
  };
  const path = await writePack("huge", encodeCompiledPack(pack("test-huge", [huge])));
  const plan = await planRun(
    parseRunArgs(["--rule-pack", path, "--", "yarptestprog"]) as RunOptions,
  );
  assert.equal(plan.kind, "passthrough");
  assert.match((plan as { reason: string }).reason, /^rule test\.huge: /);
});

Deno.test("./mvnw selects Maven's built-in rule in yarp run, as it does in rewrite", async () => {
  const project = await Deno.makeTempDir({ dir: DIR });
  const classes = Array.from(
    { length: 300 },
    (_, i) =>
      `[INFO] Running com.example.Case${i}Test\n` +
      `[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.01 s -- in com.example.Case${i}Test\n`,
  ).join("");
  const output = `[INFO] Scanning for projects...\n${classes}[INFO] \n[INFO] Results:\n[INFO] \n` +
    "[INFO] Tests run: 900, Failures: 0, Errors: 0, Skipped: 0\n[INFO] \n[INFO] BUILD SUCCESS\n";
  await Deno.writeTextFile(`${project}/out.txt`, output);
  await Deno.writeTextFile(`${project}/mvnw`, '#!/bin/sh\ncat "$(dirname "$0")/out.txt"\n');
  await Deno.chmod(`${project}/mvnw`, 0o755);
  const run = await yarp(["run", "--expect-rule", "tests/mvn-test", "--", "./mvnw", "test"], {
    cwd: project,
  });
  assert.equal(run.code, 0);
  const shown = text(run.stdout);
  assert.ok(shown.length < output.length / 4, `${shown.length} of ${output.length} bytes shown`);
  assert.match(shown, /Tests run: 900, Failures: 0/);
  assert.match(shown, /BUILD SUCCESS/);
  const id = /yarp read ([0-9a-f]+)[ \]]/.exec(shown)?.[1];
  assert.ok(id !== undefined, shown);
  assert.equal(text((await yarp(["read", id])).stdout), output);
});
