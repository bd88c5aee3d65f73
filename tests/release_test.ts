/**
 * The release artefact and every documented way to run it (docs/release.md):
 * `deno task build` is reproducible and ASCII-only with a true SHA256SUMS;
 * `dist/yarp.js` behaves as `bin/yarp` (exit codes, streams, archive, read);
 * it runs from a URL served on 127.0.0.1 with the README's flags and no
 * `--allow-net`; `deno install --global` of that URL gives a working `yarp`;
 * and the CI recipe's command sequence works in a clean HOME and Deno cache.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { denoRunArgs, SANDBOX } from "../lib/base/sandbox.ts";
import { YARP_VERSION } from "../lib/cli/version.ts";
import { releaseUrl } from "../scripts/build.ts";
import {
  machineEnv,
  onlyWhere,
  ROOT,
  spawnText,
  type TextOutput,
  withTempDir,
  YARP,
} from "./_process.ts";

const DENO = Deno.execPath();
/**
 * The Deno cache and the machine's certificate settings: the build fetches
 * esbuild and the npm packages through them, and bin/yarp resolves packages
 * from that cache only.
 */
const MACHINE = machineEnv();
const SANDBOX_ENV = Object.fromEntries(
  SANDBOX.runtimeEnv.map((pair) => pair.split("=", 2) as [string, string]),
);

type Result = TextOutput;

/** Runs `command ARGS` in `cwd` with only `env`, stdin closed; decoded streams. */
function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd = ROOT,
): Promise<Result> {
  return spawnText(command, { args, env, clearEnv: true, cwd });
}

/** Builds the release into `out` with scripts/build.ts (`more` joins its environment). */
async function build(out: string, more: Record<string, string> = {}): Promise<void> {
  const result = await run(DENO, [
    "run",
    "--allow-read",
    "--allow-write",
    "--allow-run",
    "--allow-env",
    "scripts/build.ts",
    "--out",
    out,
  ], { PATH: Deno.env.get("PATH")!, HOME: Deno.env.get("HOME")!, ...MACHINE, ...more });
  assert.equal(result.code, 0, `scripts/build.ts failed:\n${result.stdout}${result.stderr}`);
}

let built: string | undefined;
let building: Promise<string> | undefined;
/**
 * One build shared by the tests below (a temporary directory, not dist/).
 * When it fails, every test that needs it fails with the build's own error.
 */
function artefact(): Promise<string> {
  building ??= (async () => {
    built = await Deno.makeTempDir({ prefix: "yarp_release_" });
    await build(built);
    return join(built, "yarp.js");
  })();
  return building;
}

/**
 * A fresh HOME with a program directory outside /usr/bin on PATH and an npm
 * project (`project/`) whose `npm test` prints 2,000 lines and fails.
 */
async function freshHome(): Promise<{ home: string; env: Record<string, string> }> {
  const home = await Deno.makeTempDir({ prefix: "yarp_release_home_" });
  await Deno.mkdir(join(home, "tools"));
  const tool = join(home, "tools", "yarp-release-tool");
  await Deno.writeTextFile(
    tool,
    '#!/bin/sh\ni=0\nwhile [ $i -lt 3000 ]; do echo "line $i"; i=$((i+1)); done\necho oops >&2\nexit 4\n',
  );
  await Deno.chmod(tool, 0o755);
  // The recipes call `deno` by name: the one running these tests (npx's copy on a machine
  // with only Node.js and npm).
  await Deno.symlink(DENO, join(home, "tools", "deno"));
  const script = "for(let i=0;i<2000;i++)console.log('test '+i+' ok');" +
    "console.error('1 failing');process.exit(1)";
  await Deno.mkdir(join(home, "project"));
  await Deno.writeTextFile(
    join(home, "project", "package.json"),
    JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: `node -e "${script}"` } }),
  );
  const { DENO_DIR: _cache, ...certificates } = MACHINE;
  const PATH = `${home}/tools:/usr/local/bin:/usr/bin:/bin`;
  return { home, env: { HOME: home, PATH, ...certificates } };
}

/** Output with what differs from run to run (archive ids, times) replaced. */
const normalize = (text: string) =>
  text.replace(/yarp read [0-9a-f]+/g, "yarp read ID").replace(/"id":"[0-9a-f]+"/g, '"id":"ID"')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "TIME");

Deno.test("the build is reproducible, ASCII-only, version-stamped, with a true SHA256SUMS", async () => {
  const first = await artefact();
  await withTempDir(async (second) => {
    await build(second);
    const a = await Deno.readFile(first);
    const b = await Deno.readFile(join(second, "yarp.js"));
    assert.ok(a.length > 1_000_000, "the parser wasm and rule tables are inside");
    assert.deepEqual(a, b, "two builds of the same sources differ");
    assert.ok(a.every((byte) => byte < 0x80), "dist/yarp.js is ASCII-only");
    const sums = await Deno.readTextFile(join(built!, "SHA256SUMS"));
    assert.equal(sums, await Deno.readTextFile(join(second, "SHA256SUMS")));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", a)).toHex();
    assert.match(sums, new RegExp(`^${digest}  yarp\\.js\\n`));
    const { version } = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
    assert.equal(version, YARP_VERSION);
  }, { prefix: "yarp_release_again_" });
});

Deno.test("dist/yarp.js behaves as bin/yarp: exit codes, streams, archive, read", async () => {
  const bundle = await artefact();
  const cases = [
    ["--version"],
    ["run", "--", "sh", "-c", "printf out; printf err >&2; exit 3"],
    ["run", "--", "yarp-release-tool"],
    ["run", "--", "no-such-program-yarp"],
    ["rules", "explain", "--", "git", "status"],
    ["run", "--", "npm", "test"],
    ["search", "npm test", "--limit", "1", "--json"],
  ];
  const results: Result[][] = [];
  for (const kind of ["launcher", "artefact"] as const) {
    const { home, env } = await freshHome();
    const project = join(home, "project");
    /** `yarp ARGS` in the project, through bin/yarp or the bundle with the sandbox's flags. */
    const yarp = (args: string[]) =>
      kind === "launcher"
        ? run(YARP, args, { ...env, YARP_DENO: DENO, DENO_DIR: MACHINE.DENO_DIR }, project)
        : run(
          DENO,
          denoRunArgs((name) => env[name], args, { kind: "artefact", entry: bundle }),
          { ...env, ...SANDBOX_ENV },
          project,
        );
    try {
      const rows: Result[] = [];
      for (const args of cases) rows.push(await yarp(args));
      assert.equal(rows[0].code, 0, `${kind} --version: ${rows[0].stderr}`);
      assert.equal(rows[6].code, 0, `${kind} search: ${rows[6].stderr}`);
      const id = JSON.parse(rows[6].stdout)[0]?.id;
      assert.ok(id, `${kind}: the run was archived`);
      const read = await yarp(["read", id]);
      const direct = await run("npm", ["test"], env, project);
      assert.equal(read.code, 0, read.stderr);
      assert.equal(read.stdout, direct.stdout, `${kind}: read gives the exact stdout back`);
      rows.push(read);
      results.push(rows);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  }
  const [launcher, bundled] = results;
  assert.equal(launcher[1].code, 3);
  assert.equal(launcher[1].stdout, "out");
  assert.equal(launcher[1].stderr, "err");
  assert.equal(launcher[2].code, 4, "a program outside /usr/bin is found on PATH");
  assert.equal(launcher[3].code, 127);
  assert.equal(launcher[5].code, 1);
  assert.match(
    launcher[5].stdout + launcher[5].stderr,
    /yarp read [0-9a-f]+/,
    "npm test is reduced",
  );
  for (const [i, row] of launcher.entries()) {
    const other = bundled[i];
    const label = JSON.stringify(cases[i] ?? ["read"]);
    assert.equal(other.code, row.code, label);
    assert.equal(normalize(other.stdout), normalize(row.stdout), label);
    assert.equal(normalize(other.stderr), normalize(row.stderr), label);
  }
});

Deno.test("README and docs/release.md name the release URL deno.json's repository gives", async () => {
  const url = releaseUrl(JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))));
  for (const doc of ["README.md", "docs/release.md"]) {
    const text = await Deno.readTextFile(join(ROOT, doc));
    const named = text.match(/https:\/\/\S+\/releases\/download\/\S+?yarp\.js/g) ?? [];
    assert.ok(named.length > 0, `${doc} names the release URL`);
    for (const found of named) assert.equal(found, url, `${doc}: update it to deno.json's`);
  }
});

/** Serves `dir` as `/v<version>/…` on 127.0.0.1; returns the base URL and a stop function. */
function serve(dir: string): { url: string; stop: () => Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const prefix = `/v${YARP_VERSION}/`;
    if (!path.startsWith(prefix) || path.slice(prefix.length).includes("/")) {
      return new Response("not found", { status: 404 });
    }
    try {
      return new Response(await Deno.readFile(join(dir, path.slice(prefix.length))), {
        headers: { "content-type": "application/javascript" },
      });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/v${YARP_VERSION}/yarp.js`,
    stop: () => server.shutdown(),
  };
}

Deno.test("deno run from a URL-pinned release, with the README's flags and no --allow-net", async () => {
  const bundle = await artefact();
  const { url, stop } = serve(join(bundle, ".."));
  const { home, env } = await freshHome();
  try {
    const denoDir = join(home, "deno-cache");
    const args = (yarpArgs: string[]) =>
      denoRunArgs((name) => env[name], yarpArgs, { kind: "artefact", entry: url });
    assert.ok(!args([]).some((flag) => /^--allow-(net|import|all)/.test(flag)));
    const cfg = { ...env, ...SANDBOX_ENV, DENO_DIR: denoDir };
    const version = await run(DENO, args(["--version"]), cfg, home);
    assert.equal(version.stdout, `yarp ${YARP_VERSION}\n`, version.stderr);
    const child = await run(DENO, args(["run", "--", "sh", "-c", "echo hi; exit 9"]), cfg, home);
    assert.equal(child.code, 9);
    assert.equal(child.stdout, "hi\n");
    const doctor = await run(DENO, args(["doctor"]), cfg, home);
    assert.match(doctor.stdout, /permission net: denied/);
    // The README's line, word for word, is this argument list.
    const readme = await Deno.readTextFile(join(ROOT, "README.md"));
    assert.ok(readme.includes(`--allow-env=${SANDBOX.env.join(",")}`), "README names the env list");
  } finally {
    await stop();
    await Deno.remove(home, { recursive: true });
  }
});

/** Whether `strace` runs here: the installed command's no-socket check needs it. */
const CAN_TRACE = await (async () => {
  try {
    return (await new Deno.Command("strace", { args: ["-V"], stdout: "null" }).output()).success;
  } catch {
    return false;
  }
})();

Deno.test("deno install --global into a temporary DENO_INSTALL_ROOT gives a working yarp", async (t) => {
  const bundle = await artefact();
  const { url, stop } = serve(join(bundle, ".."));
  const { home, env } = await freshHome();
  try {
    const root = join(home, "install-root");
    const installEnv = { ...env, DENO_INSTALL_ROOT: root, DENO_DIR: join(home, "deno-cache") };
    const doc = await Deno.readTextFile(join(ROOT, "docs", "release.md"));
    const recipe = doc.match(/```sh install-recipe\n([\s\S]*?)```/)?.[1];
    assert.ok(recipe, "docs/release.md has the ```sh install-recipe block");
    for (const flag of installFlags(env).filter((f) => !f.startsWith("--allow-write"))) {
      assert.ok(recipe.includes(flag), `the install line has ${flag}`);
    }
    const install = await run(
      "/bin/bash",
      ["-e", "-c", recipe],
      { ...installEnv, YARP_URL: url },
      home,
    );
    assert.equal(install.code, 0, install.stderr);
    const yarp = join(root, "bin", "yarp");
    const runEnv = { ...installEnv, PATH: `${join(root, "bin")}:${env.PATH}` };
    const version = await run("yarp", ["--version"], runEnv, home);
    assert.equal(version.stdout, `yarp ${YARP_VERSION}\n`, version.stderr);
    const project = join(home, "project");
    const tool = await run(yarp, ["run", "--", "yarp-release-tool"], runEnv, project);
    assert.equal(tool.code, 4);
    const child = await run(yarp, ["run", "--", "npm", "test"], runEnv, project);
    assert.equal(child.code, 1);
    const found = await run(yarp, ["search", "npm test", "--json"], runEnv, project);
    assert.equal(found.code, 0, found.stderr);
    const id = JSON.parse(found.stdout)[0]?.id;
    assert.ok(id, found.stderr);
    const read = await run(yarp, ["read", id], runEnv, project);
    assert.equal(read.stdout, (await run("npm", ["test"], env, project)).stdout);
    const caller = await run(yarp, ["run", "--", "env"], runEnv, project);
    assert.doesNotMatch(caller.stdout, /DENO_NO_UPDATE_CHECK/, "the child gets the caller's env");
    await t.step({
      ...onlyWhere(CAN_TRACE, "opens no socket under strace", "strace is not installed"),
      fn: async () => {
        const log = join(home, "strace.log");
        // With the profile line docs/release.md recommends for an installed yarp; the update
        // check would run while the child sleeps.
        const traceArgs = ["-f", "-qq", "-e", "trace=socket,connect", "-o", log];
        const profile = { ...runEnv, DENO_NO_UPDATE_CHECK: "1" };
        await run("strace", [...traceArgs, yarp, "run", "--", "sleep", "2"], profile, home);
        assert.doesNotMatch(await Deno.readTextFile(log), /AF_INET|connect\(/);
      },
    });
  } finally {
    await stop();
    await Deno.remove(home, { recursive: true });
  }
});

/** The install line's flags (docs/release.md): the sandbox with the state directory fixed now. */
function installFlags(env: Record<string, string>): string[] {
  return denoRunArgs((name) => env[name], [], { kind: "artefact", entry: "" }).slice(1, -1);
}

Deno.test("the CI recipe's commands in a clean HOME and Deno cache: exit code, archive artefact", async () => {
  const bundle = await artefact();
  const { url, stop } = serve(join(bundle, ".."));
  const { home, env } = await freshHome();
  try {
    const project = join(home, "project");
    const ci = await Deno.readTextFile(join(ROOT, "docs", "release.md"));
    const recipe = ci.match(/```sh ci-recipe\n([\s\S]*?)```/)?.[1];
    assert.ok(recipe, "docs/release.md has the ```sh ci-recipe block");
    const artefacts = join(home, "artefacts");
    const result = await run("/bin/bash", ["-e", "-c", recipe], {
      ...env,
      YARP_URL: url,
      RUNNER_TEMP: join(home, "runner-temp"),
      ARTEFACTS: artefacts,
      DENO_DIR: join(home, "deno-cache"),
      DENO_BIN: DENO,
    }, project);
    assert.equal(result.code, 1, result.stderr);
    const ids = await Deno.readTextFile(join(artefacts, "ids.json"));
    assert.notEqual(ids, "", `the recipe's search wrote nothing: ${result.stderr}`);
    // The kept archive reads back the exact output of `npm test`.
    const direct = await run("npm", ["test"], env, project);
    const id = result.stdout.match(/yarp read ([0-9a-f]+)/)?.[1] ??
      JSON.parse(ids)[0]?.id;
    assert.ok(id, result.stdout.slice(-300));
    const read = await run(
      DENO,
      denoRunArgs(
        (name) => ({ ...env, YARP_ARCHIVE_PATH: join(artefacts, "archive.sqlite3") })[name],
        [
          "read",
          id,
        ],
        { kind: "artefact", entry: url },
      ),
      {
        ...env,
        ...SANDBOX_ENV,
        YARP_ARCHIVE_PATH: join(artefacts, "archive.sqlite3"),
        DENO_DIR: join(home, "deno-cache"),
      },
      project,
    );
    assert.equal(read.code, 0, read.stderr);
    assert.equal(read.stdout, direct.stdout);
  } finally {
    await stop();
    await Deno.remove(home, { recursive: true });
  }
});

const DENORT = Deno.env.get("DENORT_BIN");

Deno.test({
  ...onlyWhere(
    DENORT !== undefined,
    "dist/yarp (deno compile) behaves as the bundle",
    "DENORT_BIN does not name a denort; docs/release.md says where one comes from",
  ),
  fn: async () => {
    await withTempDir(async (out) => {
      await build(out, { DENORT_BIN: DENORT! });
      const version = await run(join(out, "yarp"), ["--version"], { PATH: "/usr/bin:/bin" });
      assert.equal(version.stdout, `yarp ${YARP_VERSION}\n`);
      const sums = await Deno.readTextFile(join(out, "SHA256SUMS"));
      assert.match(sums, / {2}yarp\n$/);
    });
  },
});

globalThis.addEventListener("unload", () => {
  if (built !== undefined) Deno.removeSync(built, { recursive: true });
});
