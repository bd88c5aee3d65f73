/**
 * `yarp trust` (the record the Pi extension checks before passing a project
 * pack) and the rule layers of DESIGN.md "Rules and packs": built-ins, the
 * config file's `rules.packs`, `--rule-pack`; a duplicate id disables the
 * later external pack, never a built-in.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseTrustArgs, parseTrustFile, renderTrustFile, updateTrust } from "../lib/cli/trust.ts";
import { ROOT, spawn, spawnText, withTempDir, YARP } from "./_process.ts";

const PACK_SOURCE = join(ROOT, "tests/fixtures/pi/project_pack");

function yarp(args: string[], cwd: string, env: Record<string, string>) {
  return spawnText(YARP, { args, cwd, env });
}

interface Scratch {
  readonly dir: string;
  readonly project: string;
  readonly env: { XDG_STATE_HOME: string; XDG_CONFIG_HOME: string };
}

/**
 * Runs `fn` in a new scratch directory (its real path), removed afterwards: a
 * project whose `.yarp/rules.yrp` is the fixture pack compiled, and private
 * state and config directories.
 */
function withScratch(fn: (scratch: Scratch) => Promise<void>): Promise<void> {
  return withTempDir(async (tmp) => await fn(await scratch(await Deno.realPath(tmp))), {
    prefix: "yarp-trust-",
  });
}

async function scratch(dir: string): Promise<Scratch> {
  const project = join(dir, "project");
  await Deno.mkdir(join(project, ".yarp"), { recursive: true });
  const env = { XDG_STATE_HOME: join(dir, "state"), XDG_CONFIG_HOME: join(dir, "config") };
  const compiled = await yarp(
    ["rules", "compile", PACK_SOURCE, "--output", join(project, ".yarp/rules.yrp")],
    dir,
    env,
  );
  assert.equal(compiled.code, 0, compiled.stderr);
  return { dir, project, env };
}

Deno.test("parseTrustArgs and the trust file: strict, sorted, one error line", () => {
  assert.deepEqual(parseTrustArgs([]), { mode: "trust", json: false, dir: undefined });
  assert.deepEqual(parseTrustArgs(["--status", "--json", "/p"]), {
    mode: "status",
    json: true,
    dir: "/p",
  });
  assert.deepEqual(parseTrustArgs(["--revoke", "--", "/p"]), {
    mode: "revoke",
    json: false,
    dir: "/p",
  });
  assert.deepEqual(parseTrustArgs(["--status", "--revoke"]), {
    error: "--status and --revoke exclude each other",
  });
  assert.deepEqual(parseTrustArgs(["a", "b"]), { error: "unexpected argument 'b'" });
  assert.deepEqual(parseTrustArgs(["--nope"]), { error: "unknown option '--nope'" });
  const digest = "a".repeat(64);
  const records = updateTrust(updateTrust([], "/b", digest), "/a", digest);
  assert.deepEqual(records.map((r) => r.root), ["/a", "/b"]);
  assert.deepEqual(parseTrustFile(renderTrustFile(records)), records);
  assert.deepEqual(updateTrust(records, "/a", undefined).map((r) => r.root), ["/b"]);
  for (
    const [text, error] of [
      ["[", "not valid JSON"],
      ["[]", "expected an object"],
      ['{"version":1,"projects":[],"x":1}', "unknown field 'x'"],
      ['{"version":1,"projects":{}}', "projects: expected a list"],
      [
        '{"version":1,"projects":[{"root":"rel","pack_digest":"' + digest + '"}]}',
        "projects[0].root: expected an absolute path",
      ],
      [
        '{"version":1,"projects":[{"root":"/a","pack_digest":"xyz"}]}',
        "projects[0].pack_digest: expected 64 hex digits",
      ],
      ['{"version":1,"projects":[{"root":"/a"}]}', "projects[0]: expected root and pack_digest"],
      [
        renderTrustFile([{ root: "/a", pack_digest: digest }, { root: "/a", pack_digest: digest }]),
        "projects[1].root: duplicate",
      ],
    ] as const
  ) {
    assert.deepEqual(parseTrustFile(text), { error }, text);
  }
});

Deno.test("yarp trust: records root and digest, a changed pack is untrusted, revoke removes it", async () => {
  await withScratch(async ({ project, env }) => {
    const status = async () =>
      JSON.parse((await yarp(["trust", "--status", "--json"], project, env)).stdout);
    assert.equal((await status()).trusted, false);
    assert.equal((await status()).recorded_digest, null);
    const trusted = await yarp(["trust", "--json"], project, env);
    assert.equal(trusted.code, 0, trusted.stderr);
    const { pack_digest: digest } = JSON.parse(trusted.stdout);
    assert.match(digest, /^[0-9a-f]{64}$/);
    assert.deepEqual(await status(), {
      root: project,
      pack: join(project, ".yarp/rules.yrp"),
      recorded_digest: digest,
      current_digest: digest,
      trusted: true,
    });
    const file = join(env.XDG_STATE_HOME, "yarp/trust.json");
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    // A changed pack is no longer trusted; an invalid one cannot be trusted at all.
    await Deno.writeFile(join(project, ".yarp/rules.yrp"), new Uint8Array([1]), { append: true });
    assert.equal((await status()).trusted, false);
    const bad = await yarp(["trust"], project, env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^yarp trust: .*rules\.yrp: /);
    assert.equal(bad.stderr.split("\n").length, 2, "one line");
    const revoked = await yarp(["trust", "--revoke"], project, env);
    assert.equal(revoked.code, 0);
    assert.equal((await status()).recorded_digest, null);
  });
});

Deno.test("yarp trust: a pack that resolves outside the project root is refused", async () => {
  await withScratch(async ({ dir, project, env }) => {
    const outside = join(dir, "outside.yrp");
    await Deno.rename(join(project, ".yarp/rules.yrp"), outside);
    await Deno.symlink(outside, join(project, ".yarp/rules.yrp"));
    const refused = await yarp(["trust"], project, env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /resolves outside the project root/);
    assert.equal((await yarp(["trust", "--status", "--json"], project, env)).code, 0);
    const missing = await yarp(["trust"], dir, env);
    assert.match(missing.stderr, /\.yarp\/rules\.yrp: not found/);
  });
});

Deno.test("rule layers: config rules.packs apply in rewrite, run and rules explain; a duplicate is disabled", async () => {
  await withScratch(async ({ project, env }) => {
    const pack = join(project, ".yarp/rules.yrp");
    const plain = await yarp(["rewrite", "--json", "--", "seq 1 100"], project, env);
    assert.equal(JSON.parse(plain.stdout).rewrite, false);
    await Deno.mkdir(join(env.XDG_CONFIG_HOME, "yarp"), { recursive: true });
    // A relative entry is relative to the config file's directory.
    await Deno.copyFile(pack, join(env.XDG_CONFIG_HOME, "yarp/team.yrp"));
    await Deno.writeTextFile(
      join(env.XDG_CONFIG_HOME, "yarp/config.yaml"),
      "rules:\n  packs: [team.yrp]\n",
    );
    const layered = await yarp(["rewrite", "--json", "--", "seq 1 100"], project, env);
    assert.deepEqual(JSON.parse(layered.stdout), {
      rewrite: true,
      reason: "rewritten",
      rule: "e2e/seq",
      command: "yarp run --expect-rule e2e/seq -- seq 1 100",
    });
    const wrapper = (await yarp(["rewrite", "--", "seq 1 100"], project, env)).stdout;
    assert.equal(wrapper, "yarp run --expect-rule e2e/seq -- seq 1 100\n");
    const run = await yarp(
      ["run", "--expect-rule", "e2e/seq", "--", "seq", "1", "100"],
      project,
      env,
    );
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^1\n2\n3\n\[yarp: kept 5 of 100 lines/);
    const reduced = await spawn(YARP, {
      args: ["result-reduce", "--json", "--command", "seq 1 100", "--exit-code", "0"],
      cwd: project,
      env,
      input: Array.from({ length: 100 }, (_, i) => `${i + 1}\n`).join(""),
      stderr: "inherit",
    });
    const report = JSON.parse(new TextDecoder().decode(reduced.stdout));
    assert.equal(report.rule, "e2e/seq");
    assert.equal(report.changed, true);
    // The same pack again through --rule-pack: the later external copy is disabled, the first applies.
    const explain = await yarp(
      ["rules", "explain", "--rule-pack", pack, "--json", "--", "seq", "1"],
      project,
      env,
    );
    const explained = JSON.parse(explain.stdout);
    assert.match(JSON.stringify(explained), /e2e\/seq/);
    assert.match(JSON.stringify(explained), /disabled/);
    // An invalid config passes through, never a different rule.
    await Deno.writeTextFile(join(env.XDG_CONFIG_HOME, "yarp/config.yaml"), "rules:\n  packs: 3\n");
    const invalid = await yarp(["rewrite", "--json", "--", "seq 1 100"], project, env);
    assert.deepEqual(JSON.parse(invalid.stdout), { rewrite: false, reason: "invalid-pack" });
    const passed = await yarp(["run", "--", "seq", "1", "100"], project, env);
    assert.equal(passed.stdout, Array.from({ length: 100 }, (_, i) => `${i + 1}\n`).join(""));
  });
});
