/**
 * The build digest `yarp --version --build` prints: computed from the
 * sources, the same for a build made from them (stamped by
 * scripts/build.ts), and different as soon as one build input changes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { stampBuild } from "../scripts/build.ts";
import { sourceDigest, YARP_VERSION } from "../lib/cli/version.ts";

const ROOT = join(import.meta.dirname!, "..");

Deno.test("yarp --version --build from source prints the sources' digest; --version alone is unchanged", async () => {
  const run = async (args: string[]) =>
    new TextDecoder().decode(
      (await new Deno.Command(join(ROOT, "bin/yarp"), { args, stdout: "piped" }).output()).stdout,
    );
  assert.equal(
    await run(["--version", "--build"]),
    `yarp ${YARP_VERSION} (build ${await sourceDigest(ROOT)})\n`,
  );
  assert.equal(await run(["--version"]), `yarp ${YARP_VERSION}\n`);
});

Deno.test("sourceDigest: every build input counts, nothing else does", async () => {
  const dir = await Deno.makeTempDir({ prefix: "yarp-digest-" });
  try {
    await Deno.mkdir(join(dir, "lib/a"), { recursive: true });
    for (const name of ["main.ts", "deno.json", "deno.lock", "lib/a/x.ts", "lib/y.json"]) {
      await Deno.writeTextFile(join(dir, name), `${name}\n`);
    }
    const first = await sourceDigest(dir);
    assert.match(first, /^[0-9a-f]{16}$/);
    await Deno.writeTextFile(join(dir, "README.md"), "not an input\n");
    await Deno.mkdir(join(dir, "tests"));
    await Deno.writeTextFile(join(dir, "tests/t.ts"), "not an input\n");
    assert.equal(await sourceDigest(dir), first);
    await Deno.writeTextFile(join(dir, "lib/a/x.ts"), "lib/a/x.ts changed\n");
    const changed = await sourceDigest(dir);
    assert.notEqual(changed, first);
    await Deno.rename(join(dir, "lib/a/x.ts"), join(dir, "lib/a/z.ts"));
    assert.notEqual(await sourceDigest(dir), changed, "a renamed file is another build");
    await Deno.remove(join(dir, "deno.lock"));
    await assert.rejects(sourceDigest(dir));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stampBuild: exactly one YARP_BUILD assignment takes the digest", () => {
  const digest = "0123456789abcdef";
  assert.equal(
    stampBuild('a\n    YARP_BUILD = "source";\nb', digest),
    `a\n    YARP_BUILD = "${digest}";\nb`,
  );
  assert.equal(
    stampBuild('var YARP_BUILD2 = "source";\n', digest),
    `var YARP_BUILD2 = "${digest}";\n`,
  );
  assert.throws(() => stampBuild("no assignment\n", digest), /0 YARP_BUILD/);
  assert.throws(
    () => stampBuild('var YARP_BUILD = "source";\n  YARP_BUILD = "source";\n', digest),
    /2 YARP_BUILD/,
  );
  assert.throws(() => stampBuild('var YARP_BUILD = "source";\n', "xyz"), /16 hex/);
  // The rest of the text never changes (property).
  fc.assert(fc.property(fc.string(), fc.string(), (before, after) => {
    fc.pre(!before.includes("YARP_BUILD") && !after.includes("YARP_BUILD"));
    const text = `${before}\nvar YARP_BUILD = "source";\n${after}`;
    assert.equal(stampBuild(text, digest), text.replace('"source"', `"${digest}"`));
  }));
});
