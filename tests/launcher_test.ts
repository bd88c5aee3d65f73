/**
 * `bin/yarp` (bash) and `lib/base/sandbox.ts` read the one sandbox,
 * `lib/base/sandbox.json`, and must build the same `deno` argument list; a
 * launcher that cannot find its runtime says so in one line and exits 127.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { denoRunArgs, runtimeEnv, SANDBOX, stateDirectory } from "../lib/base/sandbox.ts";
import { errorMessage, sandboxMessage } from "../lib/base/error_message.ts";
import { dropRuntimeEnv } from "../lib/config/env.ts";
import { ROOT, spawn, withTempDir, YARP as LAUNCHER } from "./_process.ts";

/** Runs bin/yarp with a fake runtime that prints its argv NUL-separated; returns that argv. */
async function launcherArgv(args: string[], env: Record<string, string>): Promise<string[]> {
  return await withTempDir(async (dir) => {
    const fake = join(dir, "fake-deno");
    await Deno.writeTextFile(fake, "#!/bin/sh\nprintf '%s\\0' \"$@\"\n");
    await Deno.chmod(fake, 0o755);
    const out = await spawn(LAUNCHER, {
      args,
      env: { ...env, YARP_DENO: fake },
      clearEnv: true,
    });
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout).split("\0").slice(0, -1);
  });
}

const CASES: { args: string[]; env: Record<string, string> }[] = [
  { args: ["run", "--", "git", "status"], env: { HOME: "/h", PATH: "/usr/bin:/bin" } },
  { args: ["doctor"], env: { PATH: "/usr/bin:/bin" } },
  { args: ["read", "abc"], env: { HOME: "/h//", XDG_STATE_HOME: "relative/dir" } },
  { args: ["read", "abc"], env: { HOME: "/h", XDG_STATE_HOME: "/x/" } },
  { args: ["run", "--", "x"], env: { HOME: "/", YARP_ARCHIVE_PATH: "/a/b//db.sqlite3" } },
  {
    args: [
      "rules",
      "compile",
      "d",
      "--output",
      "o/x.yrp",
      "-o",
      "/p/q",
      "--output=r/",
      "--",
      "-o",
      "z",
    ],
    env: { HOME: "/h" },
  },
  { args: ["corpus", "analyze", "f", "--html", "rep/r.html", "-o", "nope"], env: { HOME: "/h" } },
  { args: ["corpus", "import", "f", "-o", "out.gz"], env: { HOME: "/h" } },
  { args: ["setup", "claude-code", "--project"], env: { HOME: "/h" } },
  { args: ["hook", "codex"], env: { HOME: "/h", CODEX_HOME: "/c" } },
];

Deno.test("bin/yarp builds exactly the argument list lib/base/sandbox.ts builds", async () => {
  for (const { args, env } of CASES) {
    const seen = await launcherArgv(args, env);
    const expected = denoRunArgs((name) => env[name], args, {
      kind: "source",
      entry: join(ROOT, "main.ts"),
      config: join(ROOT, "deno.json"),
    });
    assert.deepEqual(seen, expected, JSON.stringify({ args, env }));
  }
});

Deno.test("a relative XDG_STATE_HOME is ignored, as the XDG base directory spec says", () => {
  const env: Record<string, string> = { XDG_STATE_HOME: "state", HOME: "/home/u" };
  assert.equal(stateDirectory((name) => env[name]), "/home/u/.local/state/yarp");
  assert.equal(stateDirectory(() => undefined), undefined);
  assert.equal(stateDirectory((name) => ({ XDG_STATE_HOME: "/" })[name]), "/yarp");
});

Deno.test("the sandbox never grants network, FFI, sys or all access", () => {
  const all = [...SANDBOX.flags, ...SANDBOX.sourceFlags, ...SANDBOX.artefactFlags];
  for (const flag of all) {
    assert.doesNotMatch(flag, /^--(allow-(net|ffi|sys|all)|unstable-.*ffi)|^-A$/, flag);
  }
  assert.ok(SANDBOX.env.includes("PATH"), "the runner must read PATH to find programs");
});

Deno.test("without a runtime the launcher says so in one line and exits 127", async () => {
  await withTempDir(async (dir) => {
    const out = await spawn("/bin/bash", {
      args: [LAUNCHER, "run", "--", "touch", join(dir, "ran")],
      env: { PATH: dir, HOME: dir },
      clearEnv: true,
    });
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 127);
    assert.equal(out.stdout.length, 0);
    assert.match(err, /^yarp: cannot find 'deno' on PATH; [^\n]+\n$/);
    await assert.rejects(Deno.stat(join(dir, "ran")));
  });
});

Deno.test("a Deno cache without YARP's packages gives one line and status 70, no stack trace", async () => {
  await withTempDir(async (dir) => {
    const out = await spawn(LAUNCHER, {
      args: ["rules", "list"],
      env: { PATH: "/usr/bin:/bin", HOME: dir, DENO_DIR: dir, YARP_DENO: Deno.execPath() },
      clearEnv: true,
    });
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 70);
    assert.match(err, /^yarp: cannot load 'rules': [^\n]*run 'deno install' once[^\n]*\n$/);
  });
});

Deno.test("doctor names the state directory the launcher granted, and that it is writable", async () => {
  await withTempDir(async (dir) => {
    const out = await spawn(LAUNCHER, {
      args: ["doctor"],
      env: { PATH: "/usr/bin:/bin", HOME: dir, XDG_STATE_HOME: "rel", YARP_DENO: Deno.execPath() },
      clearEnv: true,
    });
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, text);
    assert.ok(text.includes(`state directory: ${dir}/.local/state/yarp (write granted)\n`), text);
  });
});

Deno.test("Deno's permission errors become YARP's words, without the advice to widen the sandbox", () => {
  const cases: [string, RegExp][] = [
    [
      'Requires write access to "/etc/x", run again with the --allow-write flag',
      /write access to "\/etc\/x"; .*state directory/,
    ],
    [
      'Requires env access to "SECRET", run again with the --allow-env flag',
      /env access to "SECRET"; .*sandbox\.json/,
    ],
    [
      'Requires run access to "/bin/x", specify the required permissions',
      /run access to "\/bin\/x"/,
    ],
    [
      'Requires all access to "/dev/tty", run again with the --allow-all flag',
      /full access to "\/dev\/tty"/,
    ],
  ];
  for (const [deno, expected] of cases) {
    const message = sandboxMessage(deno);
    assert.ok(message !== undefined, deno);
    assert.match(message, expected);
    assert.doesNotMatch(message, /--allow|run again/);
    assert.equal(errorMessage(new Error(deno)), message);
  }
  assert.equal(sandboxMessage("No such file or directory (os error 2)"), undefined);
});

Deno.test("runtimeEnv sets only what the caller lacks; dropRuntimeEnv removes only the launcher's value", () => {
  assert.deepEqual(runtimeEnv(() => undefined), { DENO_NO_UPDATE_CHECK: "yarp-launcher" });
  assert.deepEqual(runtimeEnv((name) => name === "DENO_NO_UPDATE_CHECK" ? "" : undefined), {});
  const sandbox = { ...SANDBOX, runtimeEnv: ["YARP_TEST_RUNTIME_X=launcher"] };
  for (const [value, kept] of [["launcher", false], ["mine", true]] as const) {
    Deno.env.set("YARP_TEST_RUNTIME_X", value);
    dropRuntimeEnv(sandbox);
    assert.equal(Deno.env.get("YARP_TEST_RUNTIME_X"), kept ? value : undefined);
  }
  Deno.env.delete("YARP_TEST_RUNTIME_X");
});

Deno.test("bin/yarp finds its checkout by a relative path, a symlinked bin/ and a linked launcher", async () => {
  await withTempDir(async (dir) => {
    const fake = join(dir, "fake-deno");
    await Deno.writeTextFile(fake, "#!/bin/sh\nprintf '%s\\0' \"$@\"\n");
    await Deno.chmod(fake, 0o755);
    await Deno.symlink(join(ROOT, "bin"), join(dir, "linked-bin"));
    await Deno.symlink(LAUNCHER, join(dir, "yarp"));
    const ways = [
      ['cd "$1" && bin/yarp --version', ROOT],
      ['cd "$1"/bin && ./yarp --version', ROOT],
      ['"$1"/linked-bin/yarp --version', dir],
      ['"$1"/yarp --version', dir],
      ['"$1"/bin/../bin/yarp --version', ROOT],
    ];
    for (const [script, arg] of ways) {
      const out = await spawn("/bin/bash", {
        args: ["-c", script, "_", arg],
        env: { PATH: "/usr/bin:/bin", HOME: dir, YARP_DENO: fake },
        clearEnv: true,
      });
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const argv = new TextDecoder().decode(out.stdout).split("\0");
      assert.ok(argv.includes(`--config=${join(ROOT, "deno.json")}`), `${script}: ${argv}`);
      assert.equal(argv.at(-3), join(ROOT, "main.ts"), script);
    }
  });
});

Deno.test("without YARP_DENO the launcher runs the first executable deno on PATH", async () => {
  await withTempDir(async (dir) => {
    for (const name of ["a", "b", "c"]) await Deno.mkdir(join(dir, name));
    await Deno.mkdir(join(dir, "a", "deno")); // a directory: passed over
    await Deno.writeTextFile(join(dir, "b", "deno"), "#!/bin/sh\necho not executable\n");
    await Deno.writeTextFile(join(dir, "c", "deno"), "#!/bin/sh\necho c-deno\n");
    await Deno.chmod(join(dir, "c", "deno"), 0o755);
    const out = await spawn("/bin/bash", {
      args: [LAUNCHER, "--version"],
      env: { PATH: `${dir}/a:${dir}/b::${dir}/c:/usr/bin:/bin`, HOME: dir },
      cwd: dir,
      clearEnv: true,
    });
    assert.equal(new TextDecoder().decode(out.stdout), "c-deno\n");
    assert.equal(out.code, 0);
  });
});
