/**
 * Fault suite: a config path that is not a small regular
 * file (`/dev/zero`, `/dev/urandom`, a FIFO with no writer, a directory, a
 * file over 64 KiB) is refused with one line before anything is read, and
 * whatever the refusal, the contract holds: a reduced `yarp run` runs the
 * child exactly (bytes, exit code) and says `… (output not reduced)`;
 * `result-reduce` prints its input exactly.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { loadConfig, MAX_CONFIG_BYTES } from "../lib/config/config.ts";
import { envFromRecord } from "../lib/config/env.ts";
import { privateHome, runYarp, tempDir } from "./_process.ts";

const DIR = await tempDir("yarp_fault_config_");
const FIFO = `${DIR}/config.fifo`;
const fifo = await new Deno.Command("mkfifo", { args: [FIFO] }).output();
const BIG = `${DIR}/big.yaml`;
await Deno.writeTextFile(BIG, `#${"x".repeat(MAX_CONFIG_BYTES)}\n`);

/** A `make` that prints 3,000 numbered lines and exits 2: the built-in make rule reduces it. */
await Deno.mkdir(`${DIR}/bin`);
await Deno.writeTextFile(`${DIR}/bin/make`, "#!/bin/sh\nseq 1 3000\nexit 2\n", { mode: 0o755 });
const EXPECTED_OUT = new TextEncoder().encode(
  Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join(""),
);

const BAD_PATHS: { path: string; reason: string; ignore?: boolean }[] = [
  { path: "/dev/zero", reason: "not a regular file (a character device)" },
  { path: "/dev/urandom", reason: "not a regular file (a character device)" },
  { path: FIFO, reason: "not a regular file (a FIFO)", ignore: !fifo.success },
  { path: DIR, reason: "not a regular file (a directory)" },
  { path: BIG, reason: `larger than 65536 bytes (${MAX_CONFIG_BYTES + 2} bytes)` },
];

/** Runs `bin/yarp ARGS` with `YARP_CONFIG=config` and a private state dir; 30 s cap. */
async function yarp(args: string[], config: string, stdin?: Uint8Array) {
  const out = await runYarp(args, {
    env: { PATH: `${DIR}/bin:${Deno.env.get("PATH")}`, YARP_CONFIG: config, ...privateHome(DIR) },
    input: stdin,
    timeoutMs: 30_000,
  });
  return { ...out, err: new TextDecoder().decode(out.stderr) };
}

for (const { path, reason, ignore } of BAD_PATHS) {
  Deno.test({
    name: `config fault: YARP_CONFIG=${path.replace(DIR, "$TMP")} is refused in one line`,
    ignore,
    async fn() {
      assert.deepEqual(await loadConfig(envFromRecord({ YARP_CONFIG: path })), {
        ok: false,
        error: `config ${path}: ${reason}`,
      });
    },
  });

  Deno.test({
    name: `config fault: a reduced yarp run with YARP_CONFIG=${
      path.replace(DIR, "$TMP")
    } runs the child exactly`,
    ignore,
    async fn() {
      const out = await yarp(["run", "--", "make"], path);
      assert.equal(out.err, `yarp run: config ${path}: ${reason} (output not reduced)\n`);
      assert.deepEqual(out.stdout, EXPECTED_OUT);
      assert.equal(out.code, 2);
    },
  });

  Deno.test({
    name: `config fault: result-reduce with YARP_CONFIG=${
      path.replace(DIR, "$TMP")
    } prints its input exactly`,
    ignore,
    async fn() {
      const out = await yarp(
        ["result-reduce", "--command", "make", "--exit-code", "2"],
        path,
        EXPECTED_OUT,
      );
      assert.deepEqual(out.stdout, EXPECTED_OUT);
      assert.equal(out.code, 0);
    },
  });
}

Deno.test("config fault: a regular file is read up to exactly 64 KiB and refused beyond", async () => {
  const file = `${DIR}/sized.yaml`;
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: MAX_CONFIG_BYTES - 64, max: MAX_CONFIG_BYTES + 64 }),
      async (size) => {
        // A comment line padded to `size` bytes: valid YAML at any length.
        await Deno.writeTextFile(file, `#${"y".repeat(size - 2)}\n`);
        const result = await loadConfig(envFromRecord({ YARP_CONFIG: file }));
        if (size <= MAX_CONFIG_BYTES) assert.equal(result.ok, true, JSON.stringify(result));
        else {
          assert.deepEqual(result, {
            ok: false,
            error: `config ${file}: larger than 65536 bytes (${size} bytes)`,
          });
        }
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("config fault: a symlink to a regular config is followed and read", async () => {
  await Deno.writeTextFile(`${DIR}/real.yaml`, "archive:\n  max_age_days: 3\n");
  await Deno.symlink(`${DIR}/real.yaml`, `${DIR}/link.yaml`);
  const result = await loadConfig(envFromRecord({ YARP_CONFIG: `${DIR}/link.yaml` }));
  assert.ok(result.ok);
  assert.equal(result.config.archive.maxAgeDays, 3);
});
