/**
 * The archive's fault suite (docs/archive.md), through the real
 * launcher `bin/yarp`: exact recovery never returns wrong bytes without
 * saying so, `--archive-id` never names unrelated bytes, reading streams in
 * bounded memory, pruning gives the space back, and the write lock is never
 * held for an output's bytes. Reading from a read-only or full disk is
 * tested in `fault_readonly_disk_test.ts`.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { base64Pieces, jsonTextPieces } from "../lib/cli/read.ts";
import { chunksAt, concatBytes, cutPoints } from "./_bytes.ts";
import { ROOT, runYarp, spawn, tempDir } from "./_process.ts";

const DIR = await tempDir("yarp_archive_faults_");
const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface Result {
  readonly code: number;
  readonly stdout: Uint8Array;
  readonly stderr: string;
}

/** A per-test home: its own state and config directories. */
async function home(name: string): Promise<Record<string, string>> {
  const root = `${DIR}/${name}`;
  await Deno.mkdir(`${root}/config`, { recursive: true });
  await Deno.mkdir(`${root}/state`, { recursive: true });
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    XDG_STATE_HOME: `${root}/state`,
    XDG_CONFIG_HOME: `${root}/config`,
  };
}

const archiveDir = (env: Record<string, string>) => `${env.XDG_STATE_HOME}/yarp`;

/** Runs `bin/yarp ARGS` with only `env`, `stdin` fed and closed (empty by default); 120 s cap. */
async function yarp(
  args: readonly string[],
  env: Record<string, string>,
  stdin: Uint8Array = new Uint8Array(),
): Promise<Result> {
  const { code, stdout, stderr } = await runYarp(args, {
    env,
    clearEnv: true,
    input: stdin,
    timeoutMs: 120_000,
  });
  return { code, stdout, stderr: decoder.decode(stderr) };
}

/** Archives `bytes` with `archive put` and returns the new id. */
async function put(env: Record<string, string>, bytes: Uint8Array, command = "x"): Promise<string> {
  const result = await yarp(["archive", "put", "--command", command], env, bytes);
  assert.equal(result.code, 0, result.stderr);
  return decoder.decode(result.stdout).trim();
}

/** Every regular file under `dir`, recursively. */
function* files(dir: string): Generator<string> {
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* files(path);
    else if (entry.isFile) yield path;
  }
}

/** Total bytes of every file under `dir`. */
function diskBytes(dir: string): number {
  let total = 0;
  for (const path of files(dir)) total += Deno.statSync(path).size;
  return total;
}

/** Overwrites every copy of `marker` in the archive's files with bytes of the same length. */
function damage(dir: string, marker: Uint8Array): void {
  let found = 0;
  for (const path of files(dir)) {
    const bytes = Deno.readFileSync(path);
    let changed = false;
    for (let i = 0; i + marker.length <= bytes.length; i += 1) {
      if (bytes[i] === marker[0] && marker.every((b, j) => bytes[i + j] === b)) {
        bytes.fill(0x5a, i, i + marker.length);
        changed = true;
        found += 1;
      }
    }
    if (changed) Deno.writeFileSync(path, bytes);
  }
  if (found === 0) throw new Error("marker not found in any archive file");
}

/** Output bytes of `size` with a unique 300-byte marker in the middle. */
function withMarker(size: number, seed: string): { bytes: Uint8Array; marker: Uint8Array } {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 1) bytes[i] = 0x61 + (i * 7) % 26;
  const marker = encoder.encode(`MARK-${seed}-`.padEnd(300, "#"));
  bytes.set(marker, Math.floor(size / 2));
  return { bytes, marker };
}

// ------------------------------------------------------------ damage is reported

Deno.test("damaged bytes make read, --verify-only and archive check fail with one line", async (t) => {
  for (const [label, size] of [["small", 64 * 1024], ["streamed", 6 * 1024 * 1024]] as const) {
    await t.step(label, async () => {
      const env = await home(`damage-${label}`);
      const { bytes, marker } = withMarker(size, label);
      const id = await put(env, bytes);
      const intact = await put(env, encoder.encode("an intact neighbour\n"));
      assert.deepEqual((await yarp(["read", id], env)).stdout, bytes);
      damage(archiveDir(env), marker);
      const line = `yarp read ${id}: output is damaged in the archive (digest mismatch)\n`;
      const read = await yarp(["read", id], env);
      assert.equal(read.code, 1);
      assert.equal(read.stderr, line);
      if (size <= 4 * 1024 * 1024) assert.equal(read.stdout.length, 0, "verified before writing");
      const json = await yarp(["read", "--json", id], env);
      assert.equal(json.code, 1);
      assert.equal(json.stdout.length, 0, "--json verifies every stream before printing");
      const verify = await yarp(["read", "--verify-only", id], env);
      assert.equal(verify.code, 1);
      assert.equal(verify.stderr, line);
      assert.equal((await yarp(["read", "--verify-only", intact], env)).code, 0);
      const check = await yarp(["archive", "check"], env);
      assert.equal(check.code, 1);
      const report = decoder.decode(check.stdout);
      assert.match(report, new RegExp(`^${id}: output is damaged in the archive`, "m"));
      assert.doesNotMatch(report, new RegExp(intact));
      assert.match(report, /checked 2 calls .*: 1 damaged/);
    });
  }
});

// ------------------------------------------------------------ --archive-id

function cargoOutput(tests: number, tag: string): Uint8Array {
  let text = `running ${tests} tests\n`;
  for (let i = 0; i < tests; i++) text += `test tests::${tag}_${i} ... ok\n`;
  return encoder.encode(text + `\ntest result: ok. ${tests} passed; 0 failed\n`);
}

Deno.test("--archive-id counts only when the call holds exactly this input", async () => {
  const env = await home("archive-id");
  const input = cargoOutput(400, "mine");
  const unrelated = await put(env, cargoOutput(400, "other"));
  const sameLength = await put(env, cargoOutput(400, "mind")); // same size, other bytes
  const own = await put(env, input, "cargo test");
  const reduce = (id: string) =>
    yarp(
      ["result-reduce", "--command", "cargo test", "--exit-code", "0", "--archive-id", id],
      env,
      input,
    );
  const markerId = (result: Result) =>
    /yarp read ([0-9a-f]{8})[ \]]/.exec(decoder.decode(result.stdout))?.[1];

  assert.equal(markerId(await reduce(own)), own);
  assert.equal(markerId(await reduce(own.slice(0, 6))), own, "an unambiguous prefix");
  for (const wrong of [unrelated, sameLength, "ffffffff"]) {
    const result = await reduce(wrong);
    const named = markerId(result);
    assert.ok(named !== undefined, "reduced against its own copy");
    assert.notEqual(named, wrong);
    assert.deepEqual((await yarp(["read", named!], env)).stdout, input);
  }
});

// ------------------------------------------------------------ bounded reads

Deno.test("streamed JSON pieces equal the whole encoding, for any bytes and cuts", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), fc.array(fc.nat(600)), (bytes, cuts) => {
      const parts = chunksAt(bytes, cuts);
      const join = (outs: Uint8Array[]) => outs.map((b) => decoder.decode(b)).join("");
      const b64 = base64Pieces();
      assert.equal(
        join([...parts.map((p) => b64.push(p).slice()), b64.finish()]),
        bytes.toBase64(),
      );
      const text = new TextDecoder().decode(bytes);
      const valid = new TextEncoder().encode(text);
      const pieces = jsonTextPieces();
      const outs: Uint8Array[] = [];
      let from = 0;
      for (const point of [...cutPoints(cuts, bytes.length), valid.length]) {
        const end = Math.min(point, valid.length);
        outs.push(pieces.push(valid.subarray(Math.min(from, end), end)).slice());
        from = point;
      }
      outs.push(pieces.finish());
      // Pieces cut inside a code point decode as U+FFFD alone: compare the joined bytes.
      assert.equal(decoder.decode(concatBytes(outs)), JSON.stringify(text).slice(1, -1));
    }),
  );
});

Deno.test("read and read --json of a 48 MiB call fit in a 32 MiB JavaScript heap", async () => {
  const env = await home("bounded");
  const size = 48 * 1024 * 1024;
  const text = new Uint8Array(size).fill(0x78);
  for (let i = 99; i < size; i += 100) text[i] = 10;
  const binary = text.slice();
  binary[7] = 0xff;
  for (const [label, bytes] of [["text", text], ["base64", binary]] as const) {
    const id = await put(env, bytes);
    // The launcher's sandbox, with the heap capped: holding the stream or its JSON would not fit.
    const run = (args: string[]) =>
      spawn(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          "--v8-flags=--max-old-space-size=32",
          "--allow-read",
          "--allow-write",
          "--allow-env",
          `${ROOT}/main.ts`,
          ...args,
        ],
        env,
        clearEnv: true,
      });
    const raw = await run(["read", id]);
    assert.equal(raw.code, 0, decoder.decode(raw.stderr));
    assert.equal(raw.stdout.length, size);
    const json = await run(["read", "--json", id]);
    assert.equal(json.code, 0, decoder.decode(json.stderr).slice(0, 300));
    const record = JSON.parse(decoder.decode(json.stdout));
    const stream = record.streams.output;
    assert.equal(stream.size, size);
    if (label === "text") assert.equal(stream.text.length, size);
    else assert.equal(Uint8Array.fromBase64(stream.base64).length, size);
  }
});

// Read-only and full disks live in fault_readonly_disk_test.ts, one test per condition.

// ------------------------------------------------------------ prune gives space back

Deno.test("a full prune returns the space to the file system", async () => {
  const env = await home("prune");
  for (let i = 0; i < 24; i += 1) await put(env, withMarker(1024 * 1024, `p${i}`).bytes);
  const before = diskBytes(archiveDir(env));
  assert.ok(before > 24 * 1024 * 1024, `${before} bytes on disk before pruning`);
  const pruned = await yarp(["archive", "prune", "--max-bytes", "0"], env);
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.match(decoder.decode(pruned.stdout), /removed 24 calls/);
  const after = diskBytes(archiveDir(env));
  assert.ok(after < 2 * 1024 * 1024, `${after} bytes still on disk after a full prune`);
});

// ------------------------------------------------------------ short write transactions

Deno.test("a commit writes no output bytes into the database under its write lock", async () => {
  const env = await home("short-transaction");
  await put(env, encoder.encode("first\n"));
  const database = () =>
    ["archive.sqlite3", "archive.sqlite3-wal"].reduce((sum, name) => {
      try {
        return sum + Deno.statSync(`${archiveDir(env)}/${name}`).size;
      } catch {
        return sum;
      }
    }, 0);
  const before = database();
  await put(env, withMarker(8 * 1024 * 1024, "big").bytes);
  const grown = database() - before;
  assert.ok(grown < 256 * 1024, `the database grew by ${grown} bytes for an 8 MiB call`);
});

Deno.test("concurrent reduced results: none lost, none falls back, integrity holds", async () => {
  const env = await home("concurrent");
  const inputs = Array.from({ length: 16 }, (_, i) => cargoOutput(300 + i * 40, `c${i}`));
  const results = await Promise.all(
    inputs.map((input) =>
      yarp(["result-reduce", "--command", "cargo test", "--exit-code", "0"], env, input)
    ),
  );
  const ids = results.map((result, i) => {
    assert.equal(result.code, 0, result.stderr);
    const id = /yarp read ([0-9a-f]{8})[ \]]/.exec(decoder.decode(result.stdout))?.[1];
    assert.ok(id !== undefined, `result ${i} fell back to the unreduced input`);
    return id!;
  });
  assert.equal(new Set(ids).size, ids.length);
  for (const [i, id] of ids.entries()) {
    assert.deepEqual((await yarp(["read", id], env)).stdout, inputs[i]);
  }
  const check = await yarp(["archive", "check", "--json"], env);
  assert.equal(check.code, 0, check.stderr);
  const report = JSON.parse(decoder.decode(check.stdout));
  assert.equal(report.calls, 16);
  assert.equal(report.integrity, "ok");
  assert.deepEqual(report.damaged, []);
});
