/**
 * The pack file edge: atomic 0600 writes that leave nothing behind on
 * failure, bounded reads with typed one-line errors, and detection of a pack
 * replaced or modified between two reads (rewrite and run agreement).
 */
import assert from "node:assert/strict";
import { encodeCompiledPack, PackFormatError } from "../lib/rules/compiled_pack.ts";
import type { RulePack } from "../lib/rules/model.ts";
import {
  openCompiledPackFile,
  PackFileError,
  writeCompiledPackFile,
} from "../lib/rules/pack_file.ts";

function packWith(programs: string[]): RulePack {
  return {
    id: "local",
    sourceDigest: "ab".repeat(32),
    rules: [{
      id: "guard/x",
      action: "passthrough",
      match: { programs, argvPrefix: [], argvContainsAll: [] },
    }],
  };
}

const BYTES = encodeCompiledPack(packWith(["git"]));

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "yarp-pack-file-" });
  try {
    await run(dir);
  } finally {
    await Deno.chmod(dir, 0o700);
    await Deno.remove(dir, { recursive: true });
  }
}

async function names(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name).sort();
}

async function rejectsWith(
  promise: Promise<unknown>,
  type: typeof PackFileError | typeof PackFormatError,
  code: string,
  prefix: string,
) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof type, `expected ${type.name}, got ${error}`);
    assert.equal(error.code, code);
    assert.ok(error.message.startsWith(`${prefix}: `), error.message);
    assert.ok(!error.message.includes("\n"));
    return true;
  });
}

Deno.test("a written pack has mode 0600, exact bytes and no temporary file beside it", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/rules.yrp`;
    await writeCompiledPackFile(path, BYTES);
    assert.deepEqual(await Deno.readFile(path), BYTES);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.deepEqual(await names(dir), ["rules.yrp"]);
    const loaded = await openCompiledPackFile(path);
    assert.equal(loaded.path, path);
    assert.deepEqual(loaded.pack.candidates("git").map((rule) => rule.id), ["guard/x"]);
  });
});

Deno.test("replacing an existing 0644 file yields a new 0600 file; the parent is untouched", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/rules.yrp`;
    await Deno.writeFile(path, new Uint8Array([1, 2, 3]), { mode: 0o644 });
    await Deno.chmod(path, 0o644);
    await Deno.chmod(dir, 0o755);
    await writeCompiledPackFile(path, BYTES);
    assert.deepEqual(await Deno.readFile(path), BYTES);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o755);
  });
});

Deno.test("a failed write removes its temporary file and names the path", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/taken`;
    await Deno.mkdir(path);
    await Deno.writeTextFile(`${path}/keep`, "x");
    await rejectsWith(writeCompiledPackFile(path, BYTES), PackFileError, "write-failed", path);
    assert.deepEqual(await names(dir), ["taken"]);
    assert.deepEqual(await names(path), ["keep"]);

    const missing = `${dir}/absent/rules.yrp`;
    await rejectsWith(
      writeCompiledPackFile(missing, BYTES),
      PackFileError,
      "write-failed",
      missing,
    );
    assert.deepEqual(await names(dir), ["taken"]);
  });
});

Deno.test("reading refuses missing, non-regular, oversized and malformed files", async () => {
  await withDir(async (dir) => {
    await rejectsWith(
      openCompiledPackFile(`${dir}/none.yrp`),
      PackFileError,
      "not-found",
      `${dir}/none.yrp`,
    );
    await rejectsWith(openCompiledPackFile(dir), PackFileError, "not-a-file", dir);

    const huge = `${dir}/huge.yrp`;
    await Deno.writeFile(huge, new Uint8Array());
    await Deno.truncate(huge, 64 * 1024 * 1024 + 1); // sparse: never read
    await rejectsWith(openCompiledPackFile(huge), PackFormatError, "too-large", huge);

    const junk = `${dir}/junk.yrp`;
    await Deno.writeFile(junk, new Uint8Array(200).fill(7));
    await rejectsWith(openCompiledPackFile(junk), PackFormatError, "bad-magic", junk);

    const short = `${dir}/short.yrp`;
    await Deno.writeFile(short, BYTES.subarray(0, BYTES.length - 1));
    await rejectsWith(openCompiledPackFile(short), PackFormatError, "out-of-bounds", short);
  });
});

Deno.test("a pack replaced or modified after it was read is reported as changed", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/rules.yrp`;
    await writeCompiledPackFile(path, BYTES);
    const loaded = await openCompiledPackFile(path);
    await loaded.assertUnchanged();

    await writeCompiledPackFile(path, encodeCompiledPack(packWith(["npm"])));
    await rejectsWith(loaded.assertUnchanged(), PackFormatError, "changed", path);

    const second = await openCompiledPackFile(path);
    await second.assertUnchanged();
    const bytes = await Deno.readFile(path);
    bytes[bytes.length - 1] ^= 1; // same size, same inode, new content and mtime
    const file = await Deno.open(path, { write: true });
    await file.write(bytes);
    file.close();
    await Deno.utime(path, 0, 1);
    await rejectsWith(second.assertUnchanged(), PackFormatError, "changed", path);

    const third = await openCompiledPackFile(path); // records are checked when selected
    assert.throws(() => third.pack.candidates("npm"), { code: "bad-record-digest" });
    await Deno.remove(path);
    await rejectsWith(second.assertUnchanged(), PackFormatError, "changed", path);
  });
});
