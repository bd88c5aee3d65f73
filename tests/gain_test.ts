/**
 * `yarp gain` (issue 27, deliverable 4): the pure aggregation
 * (lib/archive/gain.ts) sums exactly and signs savings; `run` and
 * `result-reduce` record the host (`--host`, else `YARP_HOST`, else `cli`)
 * and the characters before and after for every result they change; a
 * limit the agent set itself (`| head -50`) is never credited; a schema-2
 * archive stays readable and upgrades on the first write.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import { callHost, type GainGroup, gainReport, HOSTS, renderGain } from "../lib/archive/gain.ts";
import { sinceMs } from "../lib/cli/gain.ts";
import { countChars } from "../lib/bytes/count_chars.ts";

const YARP = new URL("../bin/yarp", import.meta.url).pathname;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const group = fc.record({
  host: fc.constantFrom(...HOSTS),
  rule: fc.constantFrom("git/log", "tests/cargo-test", "output-cap"),
  calls: fc.integer({ min: 1, max: 1000 }),
  charsBefore: fc.integer({ min: 0, max: 1e9 }),
  charsAfter: fc.integer({ min: 0, max: 1e9 }),
});

Deno.test("property: gain totals are exact sums, per rule, per host and overall, and signed", () => {
  fc.assert(fc.property(fc.array(group, { maxLength: 30 }), (groups: GainGroup[]) => {
    const report = gainReport(groups);
    const sum = (pick: (g: GainGroup) => number, of = groups) =>
      of.reduce((n, g) => n + pick(g), 0);
    assert.equal(report.total.calls, sum((g) => g.calls));
    assert.equal(report.total.charsBefore, sum((g) => g.charsBefore));
    assert.equal(report.total.saved, sum((g) => g.charsBefore - g.charsAfter));
    for (const host of report.hosts) {
      const mine = groups.filter((g) => g.host === host.total.host);
      assert.equal(host.total.saved, sum((g) => g.charsBefore - g.charsAfter, mine));
      assert.equal(new Set(host.rules.map((r) => r.rule)).size, host.rules.length, "merged");
      for (const rule of host.rules) {
        const parts = mine.filter((g) => g.rule === rule.rule);
        assert.equal(rule.calls, sum((g) => g.calls, parts));
        assert.equal(rule.saved, rule.charsBefore - rule.charsAfter);
      }
      for (let i = 1; i < host.rules.length; i++) {
        assert.ok(host.rules[i - 1].saved >= host.rules[i].saved, "most saved first");
      }
    }
    assert.equal(report.hosts.length, new Set(groups.map((g) => g.host)).size);
  }));
});

Deno.test("a result that grew counts negative, in the report and its text", () => {
  const report = gainReport([
    { host: "codex", rule: "output-cap", calls: 1, charsBefore: 100, charsAfter: 150 },
  ]);
  assert.equal(report.total.saved, -50);
  assert.equal(
    renderGain(report, "none"),
    "codex: 1 call, 100 → 150 characters, saved -50 (-50.0%)\n" +
      "  output-cap: 1 call, 100 → 150 characters, saved -50 (-50.0%)\n" +
      "total: 1 call, 100 → 150 characters, saved -50 (-50.0%)\n",
  );
  assert.equal(renderGain(gainReport([]), "none"), "none\n");
});

Deno.test("the host: --host, else YARP_HOST, else cli; anything else is one line naming its source", () => {
  assert.deepEqual(callHost("pi", "codex"), { host: "pi" });
  assert.deepEqual(callHost(undefined, ""), { host: "cli" });
  assert.match((callHost("Pi", undefined) as { error: string }).error, /^--host: .*got 'Pi'$/);
  assert.match((callHost(undefined, "x") as { error: string }).error, /^YARP_HOST: .*got 'x'$/);
});

Deno.test("--since: a duration back from now, or a UTC date or ISO time", () => {
  assert.equal(sinceMs("12h", 100 * 3_600_000), 88 * 3_600_000);
  assert.equal(sinceMs("2026-12-06T05:00:00Z", 0), Date.UTC(2026, 11, 6, 5));
  for (const bad of ["", "7", "2026-13-01", "2026-12-01 05:00", "-1d"]) {
    assert.equal(sinceMs(bad, 0), undefined, bad);
  }
});

interface Yarp {
  code: number;
  stdout: Uint8Array;
  stderr: string;
}

async function yarp(
  state: string,
  args: string[],
  input?: Uint8Array,
  env: Record<string, string> = {},
  cwd?: string,
): Promise<Yarp> {
  const child = new Deno.Command(YARP, {
    args,
    cwd,
    env: { XDG_STATE_HOME: state, ...env },
    stdin: input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(input);
    await writer.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: out.stdout, stderr: decoder.decode(out.stderr) };
}

interface GainJson {
  since: string | null;
  hosts: {
    host: string;
    calls: number;
    chars_before: number;
    chars_after: number;
    saved: number;
    rules: { rule: string; calls: number; chars_before: number; chars_after: number }[];
  }[];
  total: { calls: number; chars_before: number; chars_after: number; saved: number };
}

async function gainJson(state: string, ...args: string[]): Promise<GainJson> {
  const out = await yarp(state, ["gain", "--json", ...args]);
  assert.equal(out.code, 0, out.stderr);
  return JSON.parse(decoder.decode(out.stdout));
}

/** `git log` text of `n` commits, as git prints it (hand-written, no repository needed). */
function gitLog(n: number): Uint8Array {
  let text = "";
  for (let i = n; i >= 1; i--) {
    text += `commit ${i.toString(16).padStart(40, "0")}\nAuthor: e2e <e2e@example.invalid>\n` +
      `Date:   Sun Dec 6 05:00:00 2026 +0000\n\n    change number ${i}: adjust the counter\n\n`;
  }
  return encoder.encode(text);
}

/** 500 `grep -rn` lines: what `grep -rn needle . | head -500` printed (the full grep had more). */
function grepHead(): Uint8Array {
  let text = "";
  for (let i = 0; i < 500; i++) text += `./src/f${i % 30}.txt:${i}:line ${i} needle ✓ value\n`;
  return encoder.encode(text);
}

Deno.test("result-reduce records host, rule and characters; the agent's own head limit is not credited", async () => {
  const state = await Deno.makeTempDir({ prefix: "yarp-gain-" });
  try {
    const log = gitLog(300);
    const reduced = await yarp(
      state,
      ["result-reduce", "--command", "git log", "--host", "codex"],
      log,
    );
    assert.equal(reduced.code, 0, reduced.stderr);
    assert.ok(reduced.stdout.length < log.length);
    const grep = grepHead();
    const viaEnv = await yarp(
      state,
      ["result-reduce", "--command", "grep -rn needle . | head -500"],
      grep,
      { YARP_HOST: "claude-code" },
    );
    assert.ok(viaEnv.stdout.length < grep.length, "the grep result is reduced");
    // An unchanged result is not a reduction.
    const small = encoder.encode("one line\n");
    const same = await yarp(state, ["result-reduce", "--command", "git log"], small);
    assert.deepEqual(same.stdout, small);

    const all = await gainJson(state);
    assert.equal(all.total.calls, 2);
    const codex = all.hosts.find((h) => h.host === "codex")!;
    assert.deepEqual(codex.rules, [{
      rule: "git/log",
      calls: 1,
      chars_before: countChars(log),
      chars_after: countChars(reduced.stdout),
      saved: countChars(log) - countChars(reduced.stdout),
    }]);
    const claude = all.hosts.find((h) => h.host === "claude-code")!;
    assert.equal(claude.chars_before, countChars(grep), "before is what head -500 showed");
    assert.ok(countChars(grep) < grep.length, "characters, not bytes");
    assert.equal(claude.chars_after, countChars(viaEnv.stdout));

    const onlyCodex = await gainJson(state, "--host", "codex");
    assert.deepEqual(onlyCodex.hosts.map((h) => h.host), ["codex"]);
    const future = await gainJson(state, "--since", "2999-01-01");
    assert.equal(future.total.calls, 0);
    assert.equal(future.since, "2999-01-01T00:00:00.000Z");
    assert.equal((await gainJson(state, "--since", "1h")).total.calls, 2);
    const text = await yarp(state, ["gain", "--host", "codex"]);
    assert.match(decoder.decode(text.stdout), /^codex: 1 call, [\d,]+ → [\d,]+ characters, saved/);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("yarp run records its host and the characters of both streams before and after", async () => {
  const state = await Deno.makeTempDir({ prefix: "yarp-gain-run-" });
  try {
    const repo = join(state, "repo");
    await Deno.mkdir(repo);
    const git = (...args: string[]) =>
      new Deno.Command("git", { args, cwd: repo, stdout: "null", stderr: "null" }).output();
    await git("init", "-q");
    for (let i = 1; i <= 60; i++) {
      await Deno.writeTextFile(join(repo, "c"), `${i}\n`);
      await git("add", "c");
      await git(
        "-c",
        "user.name=e2e",
        "-c",
        "user.email=e2e@example.invalid",
        "commit",
        "-qm",
        `change ${i}: adjust the counter ✓`,
      );
    }
    const raw = await new Deno.Command("git", { args: ["log"], cwd: repo, stdout: "piped" })
      .output();
    const run = await yarp(state, ["run", "--host", "pi", "--", "git", "log"], undefined, {
      YARP_HOST: "codex",
    }, repo);
    assert.equal(run.code, 0, run.stderr);
    assert.match(decoder.decode(run.stdout), /exact: yarp read [0-9a-f]{8}[ \]]/);
    const report = await gainJson(state);
    assert.deepEqual(report.hosts.map((h) => [h.host, h.calls]), [["pi", 1]], "--host wins");
    assert.equal(report.total.chars_before, countChars(raw.stdout));
    assert.equal(report.total.chars_after, countChars(run.stdout));

    const bad = await yarp(
      state,
      ["run", "--", "git", "log"],
      undefined,
      { YARP_HOST: "vim" },
      repo,
    );
    assert.deepEqual(bad.stdout, raw.stdout, "an unknown YARP_HOST runs the command untouched");
    assert.match(
      bad.stderr,
      /^yarp run: YARP_HOST: expected .* got 'vim' \(output not reduced\)\n$/,
    );
    const badFlag = await yarp(
      state,
      ["result-reduce", "--command", "git log", "--host", "x"],
      raw.stdout,
    );
    assert.equal(badFlag.code, 2);
    assert.deepEqual(badFlag.stdout, raw.stdout, "the input comes back exactly");
    assert.equal((await gainJson(state)).total.calls, 1, "nothing recorded for either");
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("a schema-2 archive reports no reductions when read and gains the table on the first write", async () => {
  const state = await Deno.makeTempDir({ prefix: "yarp-gain-v2-" });
  try {
    assert.equal((await gainJson(state)).total.calls, 0, "no archive at all: nothing saved");
    const put = await yarp(state, ["archive", "put", "--command", "old"], encoder.encode("x\n"));
    assert.equal(put.code, 0, put.stderr);
    const path = join(state, "yarp/archive.sqlite3");
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path);
    db.exec("DROP TABLE reductions; PRAGMA user_version = 2");
    db.close();
    assert.equal((await gainJson(state)).total.calls, 0);
    await yarp(state, ["result-reduce", "--command", "git log"], gitLog(300));
    const after = await gainJson(state);
    assert.equal(after.total.calls, 1);
    const read = await yarp(state, ["read", decoder.decode(put.stdout).trim()]);
    assert.equal(decoder.decode(read.stdout), "x\n", "the old call still reads");
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("gain: malformed arguments are one line and exit 2", async () => {
  for (
    const [args, line] of [
      [
        ["--host", "vim"],
        "yarp gain: --host: expected pi, claude-code, codex, gemini, opencode or cli, got 'vim'\n",
      ],
      [["--since", "soon"], /^yarp gain: --since: expected a duration/],
      [["extra"], "yarp gain: unexpected argument 'extra'\n"],
    ] as const
  ) {
    const out = await yarp("/nonexistent-state", ["gain", ...args]);
    assert.equal(out.code, 2);
    if (typeof line === "string") assert.equal(out.stderr, line);
    else assert.match(out.stderr, line);
  }
});

Deno.test("yarp rewrite --host puts the host into the wrapper, which yarp run then records", async () => {
  const out = await yarp("/nonexistent-state", [
    "rewrite",
    "--host",
    "claude-code",
    "--",
    "git log --stat",
  ]);
  assert.equal(
    decoder.decode(out.stdout),
    "yarp run --host claude-code --expect-rule git/log -- git log --stat\n",
  );
  const bad = await yarp("/nonexistent-state", ["rewrite", "--host", "vi", "--", "git log"]);
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /^yarp rewrite: --host: expected pi, claude-code, codex, gemini, opencode or cli/,
  );
});
