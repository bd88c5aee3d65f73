/**
 * The Pi package as npm would publish it: its sources import nothing
 * outside the package, the sandbox copy it carries is lib/base/sandbox.ts
 * and sandbox.json as they are now, `npm pack` gives exactly the package's
 * files and leaves nothing behind, and the one install command docs/pi.md
 * gives, `pi install npm:@yarp/pi` (here from a registry on 127.0.0.1 that
 * serves the packed tarball), works in one step in a real Pi 0.73.1 and
 * 1.6.0, running its own `dist/yarp.js` with the npm Deno it depends on. The last two tests need the npm registry
 * (the `deno` package) and the cached Pi of the end-to-end tests; set
 * `YARP_PI_E2E=off` to skip them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  installedPiPackage,
  installPiPackage,
  makeProject,
  ModelServer,
  packPiPackage,
  pi073,
  pi16,
  type PiInstall,
  ROOT,
  runPi,
  sh,
} from "./_pi_e2e.ts";

const PACKAGE = join(ROOT, "hooks/pi");

Deno.test("pi package: the committed sandbox copy is lib/base/sandbox.ts and sandbox.json now", async () => {
  const out = await new Deno.Command("node", {
    args: [join(PACKAGE, "scripts/prepack.mjs"), "--check"],
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(
    await Deno.readTextFile(join(PACKAGE, "src/_sandbox.generated.json")),
    await Deno.readTextFile(join(ROOT, "lib/base/sandbox.json")),
  );
});

Deno.test("pi package: every import is inside the package or a node: builtin", async () => {
  const files = ["index.ts"];
  for await (const entry of Deno.readDir(join(PACKAGE, "src"))) {
    if (entry.name.endsWith(".ts")) files.push(`src/${entry.name}`);
  }
  assert.ok(files.length > 5);
  for (const file of files) {
    const text = await Deno.readTextFile(join(PACKAGE, file));
    for (
      const [, specifier] of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+["']([^"']+)["']/gm)
    ) {
      const inside = specifier.startsWith("./") && !join(file, "..", specifier).startsWith("..");
      assert.ok(inside || specifier.startsWith("node:"), `${file} imports ${specifier}`);
    }
  }
});

Deno.test({
  name: "pi package: npm pack is self-contained and leaves no copy of the build behind",
  ignore: Deno.env.get("YARP_PI_E2E") === "off",
  async fn() {
    const scratch = await Deno.makeTempDir({ prefix: "yarp-pi-pack-" });
    try {
      const tarball = await packPiPackage(scratch);
      const listing = (await sh(scratch, `tar -tzf "${tarball}"`)).trim().split("\n").sort();
      const build: string[] = [];
      for await (const entry of Deno.readDir(join(ROOT, "dist/pi"))) build.push(entry.name);
      assert.ok(build.includes("yarp.js") && build.includes("_bash_parser.generated.wasm"));
      assert.deepEqual(
        listing,
        [
          "package/README.md",
          ...build.map((name) => `package/dist/${name}`),
          "package/index.ts",
          "package/package.json",
          "package/src/_sandbox.generated.json",
          "package/src/_sandbox.generated.ts",
          "package/src/bash_result.ts",
          "package/src/binary.ts",
          "package/src/decisions.ts",
          "package/src/extension.ts",
          "package/src/lead_words.ts",
          "package/src/project_pack.ts",
          "package/src/session_stats.ts",
          "package/src/shell_words.ts",
          "package/src/yarp_process.ts",
          ...(await Deno.stat(join(ROOT, "LICENSE")).catch(() => null) ? ["package/LICENSE"] : []),
        ].sort(),
      );
      // The packed build is the checkout's split build; npm's postpack removed the copy again.
      await sh(scratch, `tar -xzf "${tarball}"`);
      for (const name of build) {
        assert.deepEqual(
          await Deno.readFile(join(scratch, "package/dist", name)),
          await Deno.readFile(join(ROOT, "dist/pi", name)),
          name,
        );
      }
      assert.equal(await Deno.stat(join(PACKAGE, "dist")).catch(() => null), null);
    } finally {
      await Deno.remove(scratch, { recursive: true });
    }
  },
});

/**
 * Installs the tarball as docs/pi.md says, in one step, then a session that
 * loads the installed package with no yarp on PATH: it runs the package's
 * own dist/yarp.js with the package's npm Deno, and nothing from the
 * checkout.
 */
async function installedSession(pi: PiInstall, tarball: string, scratch: string) {
  const said = await installPiPackage(pi, tarball, scratch);
  assert.match(said, /Installed npm:@yarp\/pi\n/);
  const server = await ModelServer.start(scratch);
  try {
    const project = join(scratch, "project");
    await makeProject(project, 200);
    // On PATH: a `yarp` of the same version but another build, which must be passed over.
    const stale = join(scratch, "stale-bin");
    await Deno.mkdir(stale);
    await Deno.writeTextFile(
      join(stale, "yarp"),
      '#!/bin/sh\n[ "$1" = --version ] && echo "yarp 0.1.0 (build ffffffffffffffff)" && exit 0\nexit 70\n',
    );
    await Deno.chmod(join(stale, "yarp"), 0o755);
    const path = [
      stale,
      ...(Deno.env.get("PATH") ?? "").split(":").filter((dir) => dir !== join(ROOT, "bin")),
    ];
    const run = await runPi({
      pi,
      server,
      cwd: project,
      script: [
        { tool_calls: [{ name: "bash", arguments: { command: "git log" } }] },
        { tool_calls: [{ name: "bash", arguments: { command: "yarp read {{marker_id}}" } }] },
        { text: "done" },
      ],
      scratch,
      yarp: false,
      packages: true,
      env: { PATH: path.join(":") },
      more: ["/yarp doctor"],
    });
    assert.equal(run.code, 0, run.stderr);
    const binary = /binary: (\S+)\/dist\/yarp\.js run by npm deno (\S+)\n/.exec(run.stderr);
    assert.ok(binary !== null, run.stderr);
    const [, installed, deno] = binary;
    assert.equal(installed, installedPiPackage(pi, scratch));
    assert.match(deno, /\/node_modules\/(deno\/deno|@deno\/[\w-]+\/deno)$/);
    assert.ok(deno.startsWith(`${scratch}/`), deno);
    assert.ok(!run.stderr.includes(ROOT), `nothing from the checkout: ${run.stderr}`);
    assert.match(run.stderr, /binary version: 0\.1\.0 \(build [0-9a-f]{16}\)/);
    assert.match(
      run.stderr,
      /passed over: yarp on PATH: .*stale-bin\/yarp: stale, yarp 0\.1\.0 \(build ffffffffffffffff\)/,
    );
    assert.match(run.stderr, /state: enabled/);
    assert.match(run.toolTexts[0], /\[yarp: kept [^\]\n]* · exact: yarp read [0-9a-f]+[ \]]/);
    assert.equal(run.toolTexts[1].trimEnd(), (await sh(project, "git log")).trimEnd());
  } finally {
    await server.stop();
  }
}

for (const [label, host] of [["0.73.1", pi073], ["1.6.0", pi16]] as const) {
  Deno.test({
    name:
      `pi package: pi install npm:@yarp/pi of the packed tarball works in one step in Pi ${label}`,
    ignore: Deno.env.get("YARP_PI_E2E") === "off",
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const scratch = await Deno.makeTempDir({ prefix: "yarp-pi-package-" });
      try {
        const tarball = await packPiPackage(scratch);
        await installedSession(await host(), tarball, join(scratch, "home"));
      } finally {
        await Deno.remove(scratch, { recursive: true });
      }
    },
  });
}
