/**
 * The sandbox holds (docs/release.md, "The sandbox"): no YARP process opens an
 * internet socket or connects anywhere (Deno's update check and npm
 * metadata fetches included, with a Deno cache that holds the package files
 * but no registry metadata), the child's environment stays the caller's,
 * `LOG_TOKENS`/`LOG_STREAM` print nothing, and a relative XDG_STATE_HOME is
 * ignored by the launcher and the library alike.
 *
 * The syscall check needs Debian's `strace`: set `YARP_TEST_INSTALL_STRACE=1`
 * to have the test `apt-get install` it, else that test is registered as ignored.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { machineEnv, onlyWhere, ROOT, runYarp, spawnText, withTempDir, YARP } from "./_process.ts";

const { DENO_DIR } = machineEnv();
const decoder = new TextDecoder();

async function have(program: string): Promise<boolean> {
  try {
    const { code } = await new Deno.Command("sh", { args: ["-c", `command -v ${program}`] })
      .output();
    return code === 0;
  } catch {
    return false;
  }
}

async function strace(): Promise<boolean> {
  if (await have("strace")) return true;
  if (Deno.env.get("YARP_TEST_INSTALL_STRACE") === "1") {
    await new Deno.Command("apt-get", { args: ["install", "-y", "-qq", "strace"] }).output();
  }
  return await have("strace");
}

/**
 * Sockets and connects made by processes running `deno` (YARP itself), from
 * an `strace -f` log: each process inherits its parent's program at fork and
 * takes the name of what it executes, so the child command's own traffic
 * (npm's, say) is not YARP's.
 */
export function yarpNetworkCalls(log: string): string[] {
  const program = new Map<string, string>();
  const found: string[] = [];
  for (const line of log.split("\n")) {
    const match = /^(\d+) +(.*)$/.exec(line);
    if (match === null) continue;
    const [, pid, call] = match;
    const exec = /execve\("([^"]*)"/.exec(call);
    if (exec !== null) program.set(pid, exec[1].slice(exec[1].lastIndexOf("/") + 1));
    const fork = /(clone3?|v?fork)\b.*= (\d+)$/.exec(call);
    if (fork !== null) program.set(fork[2], program.get(pid) ?? "?");
    const yarp = (program.get(pid) ?? "?") === "deno";
    if (yarp && (/socket\(AF_INET6?\b/.test(call) || /^connect\(|connect resumed/.test(call))) {
      found.push(line);
    }
  }
  return found;
}

Deno.test("yarpNetworkCalls counts YARP's sockets and not its child's", () => {
  const log = [
    '10 execve("/usr/bin/deno", ["deno"], 0x0 /* 3 vars */) = 0',
    "10 clone3({flags=CLONE_VM}, 88) = 11",
    "11 socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 23",
    "10 clone3({flags=CLONE_VM}, 88) = 12",
    '12 execve("/usr/bin/npm", ["npm"], 0x0 /* 3 vars */) = 0',
    "12 socket(AF_INET6, SOCK_STREAM, IPPROTO_TCP) = 5",
    "12 connect(5, {sa_family=AF_INET6}, 28) = 0",
    '10 connect(3, {sa_family=AF_UNIX, sun_path="/x"}, 110) = -1 ENOENT',
  ].join("\n");
  assert.deepEqual(yarpNetworkCalls(log), [
    "11 socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 23",
    '10 connect(3, {sa_family=AF_UNIX, sun_path="/x"}, 110) = -1 ENOENT',
  ]);
});

/**
 * Runs `fn` in a new scratch directory, removed afterwards: an npm project
 * (`project/`) whose `npm test` prints 2,000 lines and fails, and `env`, a
 * whole environment with HOME there and YARP's runtime and Deno cache.
 */
function withScratch(fn: (dir: string, env: Record<string, string>) => Promise<void>) {
  return withTempDir(async (dir) => await fn(dir, await scratch(dir)), { prefix: "yarp_sandbox_" });
}

async function scratch(dir: string): Promise<Record<string, string>> {
  const project = join(dir, "project");
  await Deno.mkdir(project);
  const script = "for(let i=0;i<2000;i++)console.log('test '+i+' ok');" +
    "console.error('1 failing');process.exit(1)";
  await Deno.writeTextFile(
    join(project, "package.json"),
    JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: `node -e "${script}"` } }),
  );
  return {
    HOME: dir,
    PATH: Deno.env.get("PATH")!,
    YARP_DENO: Deno.execPath(),
    DENO_DIR,
    npm_config_update_notifier: "false",
  };
}

/** A copy of the Deno cache's npm package files without the registry metadata. */
async function cacheWithoutMetadata(dir: string): Promise<string> {
  const copy = join(dir, "deno-cache");
  await Deno.mkdir(copy);
  const { code } = await new Deno.Command("cp", { args: ["-R", `${DENO_DIR}/npm`, copy] })
    .output();
  assert.equal(code, 0);
  const out = await new Deno.Command("find", {
    args: [copy, "-name", "registry.json", "-delete"],
  }).output();
  assert.equal(out.code, 0);
  return copy;
}

interface Traced {
  code: number;
  stdout: string;
  stderr: string;
  network: string[];
}

async function traced(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  stdin?: string,
): Promise<Traced> {
  const log = join(env.HOME, `strace-${crypto.randomUUID()}.log`);
  const trace = ["-f", "-qq", "-e", "trace=execve,clone,clone3,fork,vfork,socket,connect"];
  const out = await spawnText("strace", {
    args: [...trace, "-o", log, YARP, ...args],
    env,
    clearEnv: true,
    cwd,
    input: stdin,
  });
  return { ...out, network: yarpNetworkCalls(await Deno.readTextFile(log)) };
}

Deno.test({
  ...onlyWhere(
    await strace(),
    "no YARP process opens a socket: reduced, pass-through, rewrite, result-reduce, read",
    "strace is not installed: apt-get install strace, or YARP_TEST_INSTALL_STRACE=1",
  ),
}, async (t) => {
  await withScratch(async (dir, base) => {
    const env = { ...base, DENO_DIR: await cacheWithoutMetadata(dir) };
    const project = join(dir, "project");
    const direct = await new Deno.Command("npm", { args: ["test"], cwd: project, env }).output();
    const output = decoder.decode(direct.stdout) + decoder.decode(direct.stderr);
    let id = "";
    const paths: [string, string[], string?][] = [
      ["reduced run", ["run", "--", "npm", "test"]],
      ["pass-through run", ["run", "--", "sh", "-c", "echo hi; exit 3"]],
      ["rewrite", ["rewrite", "--", "git status"]],
      ["result-reduce", ["result-reduce", "--command", "npm test", "--exit-code", "1"], output],
    ];
    for (const [name, args, stdin] of paths) {
      await t.step(name, async () => {
        const result = await traced(args, env, project, stdin);
        assert.deepEqual(result.network, [], `${name}: ${result.stderr}`);
        if (name === "reduced run") {
          assert.equal(result.code, 1, result.stderr);
          id = /yarp read ([0-9a-f]+)/.exec(result.stdout + result.stderr)?.[1] ?? "";
          assert.ok(id, "npm test was reduced with a recovery id");
        }
        if (name === "pass-through run") assert.equal(result.stdout, "hi\n");
        if (name === "rewrite") assert.match(result.stdout, /^yarp run --expect-rule git\/status /);
        if (name === "result-reduce") assert.match(result.stdout, /yarp read [0-9a-f]+/);
      });
    }
    await t.step("read", async () => {
      const result = await traced(["read", id], env, project);
      assert.deepEqual(result.network, []);
      assert.equal(result.stdout, decoder.decode(direct.stdout));
    });
    // The metadata was never fetched back into the cache.
    const metadata = await new Deno.Command("find", {
      args: [env.DENO_DIR, "-name", "registry.json"],
    }).output();
    assert.equal(decoder.decode(metadata.stdout), "");
  });
});

Deno.test("the child gets the caller's environment exactly, DENO_NO_UPDATE_CHECK included", async () => {
  await withScratch(async (dir, env) => {
    const extras: Record<string, string>[] = [{}, { DENO_NO_UPDATE_CHECK: "mine" }, {
      DENO_NO_UPDATE_CHECK: "",
    }];
    for (const extra of extras) {
      const caller = { ...env, ...extra, YARP_SANDBOX_MARK: "x y" };
      const out = await runYarp(["run", "--", "env", "-0"], {
        env: caller,
        clearEnv: true,
        cwd: dir,
      });
      assert.equal(out.code, 0, decoder.decode(out.stderr));
      const seen = Object.fromEntries(
        decoder.decode(out.stdout).split("\0").filter((e) => e !== "").map((e) => {
          const eq = e.indexOf("=");
          return [e.slice(0, eq), e.slice(eq + 1)];
        }),
      );
      // bash, which runs the launcher, sets PWD and SHLVL as any shell does.
      delete seen.PWD;
      delete seen.SHLVL;
      delete seen._;
      assert.deepEqual(seen, caller);
    }
  });
});

Deno.test("LOG_TOKENS and LOG_STREAM make no library write to YARP's output", async () => {
  await withScratch(async (dir, env) => {
    const configDir = join(dir, "config", "yarp");
    await Deno.mkdir(configDir, { recursive: true });
    await Deno.writeTextFile(join(configDir, "config.yaml"), "archive:\n  max_age_days: 3\n");
    const results: string[] = [];
    const debugs: Record<string, string>[] = [{}, { LOG_TOKENS: "1", LOG_STREAM: "1" }];
    for (const debug of debugs) {
      // A reduced run parses the config file with npm:yaml.
      const out = await runYarp(["run", "--", "npm", "test"], {
        env: {
          ...env,
          ...debug,
          XDG_CONFIG_HOME: join(dir, "config"),
          npm_config_update_notifier: "false",
        },
        clearEnv: true,
        cwd: join(dir, "project"),
      });
      assert.equal(out.code, 1);
      const text = `${decoder.decode(out.stdout)}\n--stderr--\n${decoder.decode(out.stderr)}`;
      assert.match(text, /yarp read [0-9a-f]+/);
      results.push(text.replace(/yarp read [0-9a-f]+/g, "yarp read ID"));
    }
    assert.equal(results[1], results[0]);
  });
});

Deno.test("a relative XDG_STATE_HOME is ignored by launcher and library: the copy is kept", async () => {
  await withScratch(async (dir, env) => {
    const caller = { ...env, XDG_STATE_HOME: "relative-state" };
    const project = join(dir, "project");
    const out = await runYarp(["run", "--", "npm", "test"], {
      env: caller,
      clearEnv: true,
      cwd: project,
    });
    const text = decoder.decode(out.stdout) + decoder.decode(out.stderr);
    assert.doesNotMatch(text, /no exact copy/);
    const id = /yarp read ([0-9a-f]+)/.exec(text)?.[1];
    assert.ok(id, text.slice(-400));
    await Deno.stat(join(dir, ".local", "state", "yarp", "archive.sqlite3"));
    await assert.rejects(Deno.stat(join(project, "relative-state")));
  });
});

Deno.test("a permission failure is a YARP message naming the path, never --allow-all advice", async () => {
  await withScratch(async (dir, env) => {
    for (const output of ["/dev/null", "/proc/yarp-no-such.yrp"]) {
      const out = await runYarp(["rules", "compile", join(ROOT, "rules"), "--output", output], {
        env,
        clearEnv: true,
        cwd: dir,
      });
      const err = decoder.decode(out.stderr);
      assert.notEqual(out.code, 0, `${output}: ${err}`);
      assert.doesNotMatch(err, /--allow-|run again/, err);
      assert.match(err, /^yarp rules compile: [^\n]+\n$/);
    }
  });
});
