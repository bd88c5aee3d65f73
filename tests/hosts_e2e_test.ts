/**
 * End to end with the real hosts (issue 27, deliverable 5): Claude Code
 * 2.1.328 and Codex 0.169.0 (direct and code tool modes), pinned from npm,
 * driven offline by the scripted model server on 127.0.0.1, asserting on
 * what the model received. Each host runs the same script without YARP (the
 * baseline) and with YARP installed by `yarp setup` into the session's own
 * home and config directory: `git log --stat` in a 300-commit repository,
 * `yarp read ID` of that first result, a failing `npm test`,
 * `grep -rn … | head -500`, an exact `cat`, a command an ask rule covers and
 * one a deny rule covers.
 *
 * Set `YARP_HOSTS_E2E=off` to skip (e.g. offline without a cached install).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sh, yarpIn } from "./_pi_e2e.ts";
import {
  COMMANDS,
  type Fixture,
  type HostRun,
  INDEX,
  makeFixture,
  seen,
  session,
  type Target,
  targets,
} from "./_hosts_e2e.ts";

const { LOG, READ, NPM, GREP, CAT, ASK, DENY } = INDEX;

const ENABLED = Deno.env.get("YARP_HOSTS_E2E") !== "off";

/** The real outputs, for comparison: what the commands print in the project. */
async function truth(project: string) {
  return {
    log: await sh(project, "git log --stat"),
    grep: await sh(project, "grep -rn needle . | head -500"),
    allMatches: await sh(project, "grep -rn needle ."),
    cat: await Deno.readTextFile(join(project, "src/f7.txt")),
  };
}

const MARKER = /\[yarp: [^\]\n]* · exact: yarp read ([0-9a-f]+)[ \]]/;

/** The baseline facts every session must show, with or without YARP. */
function assertCommon(target: Target, run: HostRun, real: Awaited<ReturnType<typeof truth>>) {
  assert.equal(run.code, 0, `${target.name}: ${run.stderr}`);
  assert.equal(run.results.length, COMMANDS.length, `${target.name}: ${run.stderr}`);
  assert.ok(run.urls.every((url) => /^\/v1\/(messages|responses)\b/.test(url)), run.urls.join());
  // The failing test run: the model sees the real exit status.
  assert.equal(seen(target, run, NPM).exitCode, 1, `${target.name}: npm test exit status`);
  // The exact cat: byte for byte (Claude Code drops the last newline, with or without YARP).
  const cat = seen(target, run, CAT);
  assert.equal(cat.exitCode, 0);
  assert.equal(cat.output.trimEnd(), real.cat.trimEnd(), `${target.name}: cat is exact`);
  // The ask and deny rules keep their outcome: refused, never run.
  for (const index of [ASK, DENY]) {
    const refused = seen(target, run, index);
    assert.ok(
      refused.refused || (refused.exitCode !== 0 && !refused.output.includes("commit")),
      `${target.name}: '${COMMANDS[index]}' must be refused: ${run.results[index].text}`,
    );
  }
}

function hostTest(name: string, ignore: boolean, fn: () => Promise<void> | void): void {
  Deno.test({ name, ignore, sanitizeResources: false, sanitizeOps: false, fn });
}

/** Codex prints its own timing and chunk ids: equal results up to those. */
function sameUpToTiming(text: string): string {
  return text.replace(/^Chunk ID: \w+$/m, "Chunk ID: X").replace(
    /^Wall time:? [\d.]+ seconds$/m,
    "Wall time X",
  );
}

/** One project, server and set of baseline sessions for the whole file (removed by the last test). */
let shared: Promise<Fixture> | undefined;
const fixture = () => shared ??= makeFixture();
/** The baseline session of each target, for the YARP sessions to be compared with. */
const plainRuns = new Map<string, HostRun>();

async function plainRun(target: Target): Promise<HostRun> {
  const known = plainRuns.get(target.name);
  if (known !== undefined) return known;
  const run = await session(target, await fixture(), `${target.name}-plain`, false);
  plainRuns.set(target.name, run);
  return run;
}

hostTest(
  "hosts e2e: baseline without YARP in Claude Code and Codex (both tool modes)",
  !ENABLED,
  async () => {
    const fx = await fixture();
    const real = await truth(fx.project);
    for (const target of await targets()) {
      const run = await plainRun(target);
      assertCommon(target, run, real);
      const log = seen(target, run, LOG);
      assert.equal(log.exitCode, 0);
      assert.ok(!MARKER.test(log.output));
      assert.ok(seen(target, run, READ).exitCode !== 0, "no id to read without YARP");
      if (target.host.host === "claude-code") {
        // Over 30,000 characters: the host keeps a 2 KB preview and a file.
        assert.match(log.output, /^<persisted-output>\nOutput too large/);
        // A failure is cut to about 10,000 characters: the failing tests at the end are lost.
        assert.ok(!seen(target, run, NPM).output.includes("subtracts negative numbers"));
        // Claude Code's shell runs its own grep (no `./` prefix): the 500 lines, whole.
        assert.equal(seen(target, run, GREP).output.trimEnd().split("\n").length, 500);
        assert.deepEqual(run.denied, [COMMANDS[ASK], COMMANDS[DENY]]);
      } else {
        // Codex keeps the head and tail of a long output around a notice.
        assert.match(run.results[LOG].text, /truncated output/);
        assert.equal(seen(target, run, GREP).output.trimEnd(), real.grep.trimEnd());
      }
    }
  },
);

hostTest(
  "hosts e2e: with YARP (yarp setup) the model gets reduced results, exact recovery and the same permissions",
  !ENABLED,
  async () => {
    const fx = await fixture();
    const real = await truth(fx.project);
    const decoder = new TextDecoder();
    for (const target of await targets()) {
      const plain = await plainRun(target);
      const state = join(fx.scratch, `${target.name}-yarp`);
      const run = await session(target, fx, `${target.name}-yarp`, true);
      assertCommon(target, run, real);
      // Nothing asked, refused or allowed that was not before: the same refusals, word for word.
      assert.deepEqual(run.denied, plain.denied, "the same permission denials");
      for (const index of [ASK, DENY]) {
        assert.equal(
          sameUpToTiming(run.results[index].text),
          sameUpToTiming(plain.results[index].text),
          `${target.name}: ${COMMANDS[index]}`,
        );
      }
      // git log --stat is wrapped in yarp run (no rule names git), reduced, and read back exactly.
      const log = seen(target, run, LOG);
      assert.equal(log.exitCode, 0);
      const id = MARKER.exec(log.output)?.[1];
      assert.ok(id !== undefined, `${target.name}: no marker in ${log.output.slice(-300)}`);
      assert.ok(
        run.results[LOG].text.length < plain.results[LOG].text.length,
        `${target.name}: fewer characters than the host's own cut`,
      );
      const exact = decoder.decode(await yarpIn(state, fx.project, ["read", id]));
      assert.equal(exact, real.log, `${target.name}: yarp read is exact`);
      // The model's own `yarp read ID` got the exact bytes, never reduced again: as much as the
      // host shows of the plain command (Claude Code keeps the rest in a file, checked whole).
      const read = seen(target, run, READ);
      assert.equal(read.exitCode, 0);
      assert.ok(!MARKER.test(read.output), "yarp read is never reduced");
      if (target.host.host === "claude-code") {
        const file = /Full output saved to: (\S+)/.exec(read.output)?.[1];
        assert.ok(file !== undefined, read.output.slice(0, 300));
        assert.equal((await Deno.readTextFile(file)).trimEnd(), real.log.trimEnd());
      } else {
        assert.equal(
          sameUpToTiming(run.results[READ].text),
          sameUpToTiming(plain.results[LOG].text),
        );
      }
      // The failing npm test is wrapped too: the real exit status and every failing test.
      const npm = seen(target, run, NPM);
      assert.equal(npm.exitCode, 1);
      for (const line of ["not ok 601 - subtracts negative numbers", "not ok 602 - divides"]) {
        assert.ok(npm.output.includes(line), `${target.name}: ${line}`);
      }
      assert.ok(MARKER.test(npm.output));
      // The pipeline: Claude Code and Codex in direct mode replace the result after the call;
      // Codex in code mode leaves it alone (its only replacement reads as an error).
      const grep = seen(target, run, GREP);
      if (target.name === "codex-direct") {
        const grepId = MARKER.exec(grep.output)?.[1];
        assert.ok(grepId !== undefined, grep.output.slice(-300));
        assert.equal(grep.exitCode, 0, "the real status line");
        const whole = decoder.decode(await yarpIn(state, fx.project, ["read", grepId]));
        assert.equal(whole.trimEnd(), real.grep.trimEnd(), "the whole result, exactly");
      } else if (target.host.host === "claude-code") {
        const grepId = MARKER.exec(grep.output)?.[1];
        assert.ok(grepId !== undefined, grep.output.slice(-300));
        const whole = decoder.decode(await yarpIn(state, fx.project, ["read", grepId]));
        // Claude Code's grep walks files in parallel, so `head -500` keeps a different 500 lines
        // each run: the copy holds 500 real match lines, and every line the model saw.
        const lines = whole.trimEnd().split("\n");
        assert.equal(lines.length, 500);
        const all = new Set(
          real.allMatches.trimEnd().split("\n").map((l) => l.replace(/^\.\//, "")),
        );
        assert.ok(lines.every((line) => all.has(line)), "only real match lines");
        for (const line of grep.output.split("\n").filter((l) => !l.startsWith("[yarp:"))) {
          assert.ok(lines.includes(line), `kept line ${line} is in the copy`);
        }
      } else if (target.mode === "code") {
        assert.equal(grep.output, seen(target, plain, GREP).output);
      }
      // yarp gain counts what this session reduced, under its host.
      const gain = JSON.parse(decoder.decode(await yarpIn(state, fx.project, ["gain", "--json"])));
      assert.deepEqual(gain.hosts.map((h: { host: string }) => h.host), [target.host.host]);
      assert.ok(gain.total.saved > 0 && gain.total.calls >= 2, JSON.stringify(gain));
    }
  },
);

hostTest("hosts e2e: clean up", !ENABLED, async () => {
  if (shared === undefined) return;
  const fx = await shared;
  await fx.server.stop();
  await Deno.remove(fx.scratch, { recursive: true });
});
