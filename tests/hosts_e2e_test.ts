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
  type HostRun,
  INDEX,
  ROOT,
  seen,
  session,
  type Target,
  targets,
  withFixture,
} from "./_hosts_e2e.ts";

const { LOG, READ, NPM, GREP, CAT, ASK, DENY } = INDEX;

const ENABLED = Deno.env.get("YARP_HOSTS_E2E") !== "off";

/** Is `yarp setup` there yet (the hosts layer lands on its own branch)? */
async function setupAvailable(): Promise<boolean> {
  const out = await new Deno.Command(join(ROOT, "bin/yarp"), {
    args: ["setup", "--status"],
    stdout: "null",
    stderr: "piped",
  }).output();
  return !new TextDecoder().decode(out.stderr).includes("unknown command");
}

/** The real outputs, for comparison: what the commands print in the project. */
async function truth(project: string) {
  return {
    log: await sh(project, "git log --stat"),
    grep: await sh(project, "grep -rn needle . | head -500"),
    cat: await Deno.readTextFile(join(project, "src/f7.txt")),
  };
}

const MARKER = /\[yarp: [^\]\n]* · exact: yarp read ([0-9a-f]+)\]/;

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

function hostTest(name: string, ignore: boolean, fn: () => Promise<void>): void {
  Deno.test({ name, ignore, sanitizeResources: false, sanitizeOps: false, fn });
}

hostTest(
  "hosts e2e: baseline without YARP in Claude Code and Codex (both tool modes)",
  !ENABLED,
  async () => {
    await withFixture(async (fx) => {
      const real = await truth(fx.project);
      for (const target of await targets()) {
        const run = await session(target, fx, `${target.name}-plain`, false);
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
          assert.match(log.output, /truncated output/, "Codex cuts at about 10 KB");
        }
      }
    });
  },
);

const SETUP = ENABLED && await setupAvailable();

hostTest(
  "hosts e2e: with YARP (yarp setup) the model gets reduced results, exact recovery and the same permissions" +
    (SETUP ? "" : " [ignored: 'yarp setup' is not on this branch yet]"),
  !SETUP,
  async () => {
    await withFixture(async (fx) => {
      const real = await truth(fx.project);
      for (const target of await targets()) {
        const plain = await session(target, fx, `${target.name}-plain`, false);
        const run = await session(target, fx, `${target.name}-yarp`, true);
        assertCommon(target, run, real);
        if (target.host.host === "claude-code") {
          assert.deepEqual(
            run.denied,
            plain.denied,
            "nothing asked or allowed that was not before",
          );
        }
        for (const index of [ASK, DENY]) {
          assert.equal(run.results[index].text, plain.results[index].text, COMMANDS[index]);
        }
        // The recovery read of the first result is exact.
        const log = seen(target, run, LOG);
        const id = MARKER.exec(log.output)?.[1];
        if (id !== undefined) {
          const exact = await yarpIn(join(fx.scratch, `${target.name}-yarp`), fx.project, [
            "read",
            id,
          ]);
          assert.equal(new TextDecoder().decode(exact), real.log, `${target.name}: yarp read`);
        }
      }
    });
  },
);
