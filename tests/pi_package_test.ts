/**
 * The Pi package as npm would publish it (issue 18, item 1): its sources
 * import nothing outside the package, the sandbox copy it carries is
 * lib/base/sandbox.ts and sandbox.json as they are now, and the tarball
 * `npm pack` makes loads alone in a real Pi from a directory outside the
 * repository, running its own `dist/yarp.js` with the npm Deno it depends
 * on. The last test needs the npm registry (the `deno` package) and the
 * cached Pi of the end-to-end tests; set `YARP_PI_E2E=off` to skip it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { makeProject, ModelServer, pi073, ROOT, runPi, sh } from "./_pi_e2e.ts";

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
  name: "pi package: the npm pack tarball installs outside the repository and works in Pi alone",
  ignore: Deno.env.get("YARP_PI_E2E") === "off",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    if (!(await Deno.stat(join(ROOT, "dist/yarp.js")).catch(() => null))) {
      await sh(ROOT, `"${Deno.execPath()}" task build >/dev/null 2>&1`);
    }
    const scratch = await Deno.makeTempDir({ prefix: "yarp-pi-package-" });
    const server = await ModelServer.start(scratch);
    try {
      const packed = await sh(
        PACKAGE,
        `npm pack --silent --pack-destination "${scratch}" 2>/dev/null`,
      );
      const tarball = join(scratch, packed.trim().split("\n").at(-1)!);
      const listing = await sh(scratch, `tar -tzf "${tarball}"`);
      for (
        const file of [
          "index.ts",
          "src/extension.ts",
          "src/_sandbox.generated.ts",
          "dist/yarp.js",
        ]
      ) {
        assert.ok(listing.includes(`package/${file}\n`), `${file} is packed`);
      }
      assert.ok(!listing.includes("node_modules"), "no node_modules in the tarball");
      const home = join(scratch, "home");
      await Deno.mkdir(home);
      await sh(
        home,
        `npm init -y >/dev/null && npm install --no-audit --no-fund --omit=peer "${tarball}" >/dev/null 2>&1`,
      );
      const installed = join(home, "node_modules/@yarp/pi");
      const project = join(scratch, "project");
      await makeProject(project, 200);
      const path = (Deno.env.get("PATH") ?? "").split(":").filter((dir) =>
        dir !== join(ROOT, "bin")
      );
      const run = await runPi({
        pi: await pi073(),
        server,
        cwd: project,
        script: [
          { tool_calls: [{ name: "bash", arguments: { command: "git log" } }] },
          { text: "done" },
        ],
        scratch: join(scratch, "run"),
        yarp: false,
        extensions: [join(installed, "index.ts")],
        env: { PATH: path.join(":") },
        more: ["/yarp doctor"],
      });
      assert.equal(run.code, 0, run.stderr);
      assert.ok(
        run.stderr.includes(
          `binary: ${installed}/dist/yarp.js run by npm deno ${installed}/node_modules/deno/`,
        ) ||
          run.stderr.includes(
            `binary: ${installed}/dist/yarp.js run by npm deno ${home}/node_modules/deno/`,
          ),
        run.stderr,
      );
      assert.match(run.stderr, /state: enabled/);
      assert.match(run.toolTexts[0], /\[yarp: kept [^\]\n]* · exact: yarp read [0-9a-f]+[ \]]/);
    } finally {
      await server.stop();
      await Deno.remove(scratch, { recursive: true });
    }
  },
});
