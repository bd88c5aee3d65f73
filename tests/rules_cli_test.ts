/**
 * `yarp rules …` as a user meets it: exit statuses, one-line errors, nothing
 * written on failure, deterministic compiled bytes, and the explanations.
 * Commands run in-process through the CLI dispatcher with captured output;
 * the last tests run the real launcher to prove its sandbox.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import { captureTextIo } from "../lib/cli/io.ts";
import { main } from "../lib/cli/main.ts";
import { spawn, withTempDir, YARP } from "./_process.ts";

async function yarp(...args: string[]) {
  const io = captureTextIo();
  const status = await main(args, io);
  return { status, stdout: io.stdout, stderr: io.stderr };
}

const POLICY = {
  head_lines: 5,
  tail_lines: 5,
  max_line_bytes: 1024,
  max_output_bytes: 4096,
  min_savings_bytes: 64,
};

const RULES: Record<string, unknown> = {
  "rules/tool/build.json": {
    id: "tool/build",
    match: { program: ["demo-tool"], argv_prefix: ["build"] },
    action: "reduce",
    reducer: { kind: "head_tail" },
    success: POLICY,
    failure: POLICY,
  },
  "rules/tool/build-json.json": {
    id: "tool/build-json",
    match: { program: ["demo-tool"], argv_contains_all: ["--json"] },
    action: "passthrough",
  },
};

/** Writes a source pack with the given rule files into a new temp dir. */
async function sourcePack(rules: Record<string, unknown> = RULES, id = "demo-pack") {
  const dir = await Deno.makeTempDir();
  for (const [path, rule] of Object.entries(rules)) {
    await Deno.mkdir(join(dir, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, path), JSON.stringify(rule, null, 2));
  }
  const manifest = { schema_version: 1, id, rules: Object.keys(rules) };
  await Deno.writeTextFile(join(dir, "pack.json"), JSON.stringify(manifest, null, 2));
  return dir;
}

Deno.test("check accepts a valid pack and names its digest", async () => {
  const dir = await sourcePack();
  const result = await yarp("rules", "check", dir);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /pack demo-pack: 2 rules valid; source digest [0-9a-f]{64}\n$/);
});

Deno.test("check reports each problem on one line naming file, pointer and code", async () => {
  const bad = structuredClone(RULES);
  (bad["rules/tool/build.json"] as Record<string, unknown>).extra = true;
  const dir = await sourcePack(bad);
  const result = await yarp("rules", "check", dir);
  assert.equal(result.status, 1);
  assert.equal(result.stdout, "");
  const lines = result.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^rules\/tool\/build\.json:\d+:\d+: \/extra: .* \[unknown-field\]$/);
});

Deno.test("check refuses two reduction rules that can select the same argv", async () => {
  const overlapping = {
    ...RULES,
    "rules/tool/build-all.json": {
      ...(RULES["rules/tool/build.json"] as object),
      id: "tool/build-all",
      match: { program: ["demo-tool"], argv_prefix: ["build"], argv_contains_all: ["--all"] },
    },
  };
  const result = await yarp("rules", "check", await sourcePack(overlapping));
  assert.equal(result.status, 1);
  assert.match(result.stderr, /'tool\/build' and 'tool\/build-all' .* \[overlapping-rules\]/);
});

Deno.test("compile writes deterministic bytes with mode 0600, verify reports the digest", async () => {
  const dir = await sourcePack();
  const out = await Deno.makeTempDir();
  const first = await yarp("rules", "compile", dir, "--output", join(out, "a.yrp"));
  const second = await yarp("rules", "compile", dir, "--output", join(out, "b.yrp"));
  assert.equal(first.status, 0, first.stderr);
  assert.equal(second.status, 0, second.stderr);
  const a = await Deno.readFile(join(out, "a.yrp"));
  assert.deepEqual(a, await Deno.readFile(join(out, "b.yrp")));
  assert.equal((await Deno.stat(join(out, "a.yrp"))).mode! & 0o777, 0o600);
  const verified = await yarp("rules", "verify", join(out, "a.yrp"));
  assert.equal(verified.status, 0, verified.stderr);
  const digest = first.stdout.match(/digest ([0-9a-f]{64})/)![1];
  assert.match(verified.stdout, new RegExp(`file digest ${digest}`));
  assert.deepEqual((await Array.fromAsync(Deno.readDir(out))).map((e) => e.name).sort(), [
    "a.yrp",
    "b.yrp",
  ]);
});

Deno.test("compile of an invalid pack writes nothing", async () => {
  const dir = await sourcePack({ "rules/x.json": { id: "x" } });
  const out = join(await Deno.makeTempDir(), "x.yrp");
  const result = await yarp("rules", "compile", dir, "--output", out);
  assert.equal(result.status, 1);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});

Deno.test("verify of a corrupted pack fails with one line", async () => {
  const out = join(await Deno.makeTempDir(), "p.yrp");
  assert.equal((await yarp("rules", "compile", await sourcePack(), "--output", out)).status, 0);
  const bytes = await Deno.readFile(out);
  bytes[bytes.length - 3] ^= 0xff;
  await Deno.writeFile(out, bytes);
  const result = await yarp("rules", "verify", out);
  assert.equal(result.status, 1);
  assert.equal(result.stderr.trimEnd().split("\n").length, 1);
  assert.match(result.stderr, /p\.yrp/);
});

Deno.test("explain names the rule, the winning guard, or why it passes through", async () => {
  const out = join(await Deno.makeTempDir(), "p.yrp");
  assert.equal((await yarp("rules", "compile", await sourcePack(), "--output", out)).status, 0);
  const explain = (...argv: string[]) =>
    yarp("rules", "explain", "--rule-pack", out, "--", ...argv);

  const reduced = await explain("demo-tool", "build", "x");
  assert.match(
    reduced.stdout,
    /^rule: tool\/build \(pack demo-pack\)\naction: reduce \(head_tail\)/,
  );
  assert.match(reduced.stdout, /success: head 5, tail 5/);
  assert.match(reduced.stdout, /\noutput cap: none for the rule's own result; /);
  assert.match(
    (await explain("no-such-tool")).stdout,
    /\noutput cap: yarp result-reduce \(host hooks\) cuts a result over 4096 B/,
  );

  const guarded = await explain("demo-tool", "build", "--json");
  assert.equal(
    guarded.stdout,
    "pass-through: guard tool/build-json (pack demo-pack) wins over tool/build (pack demo-pack)\n" +
      "output cap: none (a guarded result stays exact)\n",
  );
  assert.match((await explain("demo-tool", "test")).stdout, /no rule for 'demo-tool' matches/);
  assert.match((await explain("no-such-tool")).stdout, /no rule for program 'no-such-tool'/);
  assert.match((await explain("/usr/bin/demo-tool", "build")).stdout, /no rule/);

  const json = await yarp(
    "rules",
    "explain",
    "--json",
    "--rule-pack",
    out,
    "--",
    "demo-tool",
    "build",
  );
  const parsed = JSON.parse(json.stdout);
  assert.equal(parsed.outcome, "reduce");
  assert.equal(parsed.rule, "tool/build");
  assert.equal(parsed.pack, "demo-pack");
  assert.equal(parsed.success.headLines, 5);
});

Deno.test("explain and list report a pack that cannot be used, and still answer", async () => {
  const missing = join(await Deno.makeTempDir(), "missing.yrp");
  const explained = await yarp(
    "rules",
    "explain",
    "--rule-pack",
    missing,
    "--",
    "demo-tool",
    "build",
  );
  assert.equal(explained.status, 0);
  assert.match(explained.stderr, /missing\.yrp/);
  assert.match(explained.stdout, /pass-through/);
  const listed = await yarp("rules", "list", "--rule-pack", missing);
  assert.equal(listed.status, 1);
  assert.match(listed.stderr, /missing\.yrp/);
});

Deno.test("list prints every rule of a loaded pack", async () => {
  const out = join(await Deno.makeTempDir(), "p.yrp");
  assert.equal((await yarp("rules", "compile", await sourcePack(), "--output", out)).status, 0);
  const listed = await yarp("rules", "list", "--rule-pack", out);
  assert.equal(listed.status, 0, listed.stderr);
  const mine = listed.stdout.split("\n").filter((line) => line.startsWith("demo-pack\t"));
  assert.deepEqual(mine, [
    "demo-pack\ttool/build\treduce (head_tail)\tprogram demo-tool, argv_prefix [build]",
    "demo-pack\ttool/build-json\tpassthrough\tprogram demo-tool, argv_contains_all [--json]",
  ]);
});

Deno.test("bad arguments give one line and exit 2", async () => {
  const cases: string[][] = [
    ["rules"],
    ["rules", "frobnicate"],
    ["rules", "check"],
    ["rules", "check", "a", "b"],
    ["rules", "compile", "dir"],
    ["rules", "compile", "dir", "--output"],
    ["rules", "verify"],
    ["rules", "list", "--bogus"],
    ["rules", "explain", "git", "status"],
    ["rules", "explain", "--"],
    ["nope"],
  ];
  for (const args of cases) {
    const result = await yarp(...args);
    assert.equal(result.status, 2, args.join(" "));
    assert.equal(result.stderr.trimEnd().split("\n").length, 1, args.join(" "));
  }
});

Deno.test("the launcher runs from any directory inside a sandbox without network", async () => {
  const cwd = await Deno.makeTempDir();
  const env = { YARP_DENO: Deno.execPath() };
  const doctor = await spawn(YARP, { args: ["doctor"], cwd, env });
  const text = new TextDecoder().decode(doctor.stdout);
  assert.equal(doctor.code, 0, text);
  assert.match(text, /permission net: denied/);
  assert.match(text, /permission ffi: denied/);
  const version = await spawn(YARP, { args: ["--version"], cwd, env });
  assert.match(new TextDecoder().decode(version.stdout), /^yarp \d+\.\d+\.\d+\n$/);
});

Deno.test("the launcher finds its root through a chain of relative symlinks", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/bin`);
    await Deno.symlink(YARP, `${dir}/real-yarp`);
    await Deno.symlink("../real-yarp", `${dir}/bin/yarp`);
    const env = { YARP_DENO: Deno.execPath() };
    const out = await spawn(`${dir}/bin/yarp`, { args: ["--version"], cwd: dir, env });
    assert.match(new TextDecoder().decode(out.stdout), /^yarp \d+\.\d+\.\d+\n$/);
  });
});

Deno.test("property: the launcher's dir_of says what dirname says", async () => {
  const launcher = await Deno.readTextFile(YARP);
  const fn = launcher.match(/^dir_of\(\) \{\n[\s\S]*?\n\}\n/m);
  assert.ok(fn, "bin/yarp defines dir_of");
  const paths = fc.sample(
    fc.string({ unit: fc.constantFrom("a", "/", ".", " ", "-"), maxLength: 8 }),
    300,
  );
  paths.push("", "/", "//", "a/b/", "///a//b//", "-o/x");
  // NUL-separated in and out, so every path arrives and leaves intact.
  const script = `${
    fn[0]
  }while IFS= read -r -d '' p; do dir_of "$p"; printf '%s\\0%s\\0' "$dir" "$(dirname -- "$p")"; done`;
  const input = paths.map((p) => p + "\0").join("");
  const { stdout } = await spawn("bash", { args: ["-c", script], input, stderr: "inherit" });
  const fields = new TextDecoder().decode(stdout).split("\0");
  for (const [i, path] of paths.entries()) {
    assert.equal(fields[2 * i], fields[2 * i + 1], JSON.stringify(path));
  }
});

Deno.test("check refuses a rule whose retained state could exceed 4 MiB per stream", async () => {
  const huge = { ...POLICY, max_output_bytes: 16_777_216, max_line_bytes: 1_048_576 };
  const rules = {
    "rules/tool/build.json": { ...(RULES["rules/tool/build.json"] as object), success: huge },
  };
  const result = await yarp("rules", "check", await sourcePack(rules));
  assert.equal(result.status, 1);
  assert.match(result.stderr, /rule tool\/build: .* \[memory-bound-exceeded\]\n$/);
});
