/**
 * End to end with the real Gemini CLI 0.61.0 (docs/hosts.md, "Gemini CLI"),
 * pinned from npm, driven offline in `-p --yolo` mode by the scripted model
 * server's Gemini API route on 127.0.0.1, asserting on what the model
 * received. The same script as the Claude Code and Codex tests
 * (tests/hosts_e2e_test.ts): `git log --stat` in a 300-commit repository,
 * `yarp read ID` of that first result, a failing `npm test`,
 * `grep -rn … | head -500`, an exact `cat`, a command an ask rule covers
 * and one a deny rule covers; once without YARP, once with `yarp setup
 * gemini`; once with the hook installed but its YARP missing; and once
 * with an `AfterTool` hook answering every field that could replace the
 * output, to keep the reason YARP wraps before the call in view.
 *
 * Set `YARP_HOSTS_E2E=off` to skip (e.g. offline without a cached install).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sh, yarpIn } from "./_pi_e2e.ts";
import {
  COMMANDS,
  type Fixture,
  gemini,
  type HostRun,
  INDEX,
  makeFixture,
  PERMISSIONS,
  ROOT,
  runHost,
  SCRIPT,
  setupYarp,
  type Target,
} from "./_hosts_e2e.ts";
import { parseShellResult } from "../lib/hosts/gemini/session.ts";

const { LOG, READ, NPM, GREP, CAT, ASK, DENY } = INDEX;
const ENABLED = Deno.env.get("YARP_HOSTS_E2E") !== "off";
const MARKER = /\[yarp: [^\]\n]* · exact: yarp read ([0-9a-f]+)[ \]]/;

/** What one tool result told the model; `refused` when it is no command output at all. */
function seen(run: HostRun, index: number) {
  const result = run.results[index];
  assert.ok(result !== undefined, `no result ${index}: ${run.stdout} ${run.stderr}`);
  const parsed = parseShellResult(result.text);
  return parsed === undefined
    ? { exitCode: undefined, output: result.text, refused: true }
    : { exitCode: parsed.exitCode ?? undefined, output: parsed.output, refused: false };
}

async function truth(project: string) {
  return {
    log: await sh(project, "git log --stat"),
    grep: await sh(project, "grep -rn needle . | head -500"),
    cat: await Deno.readTextFile(join(project, "src/f7.txt")),
  };
}

let shared: Promise<{ fx: Fixture; target: Target }> | undefined;
const fixture = () =>
  shared ??= (async () => ({
    fx: await makeFixture(),
    target: { host: await gemini(), mode: "direct", name: "gemini" } as Target,
  }))();

function run(name: string, yarp: boolean, env: Record<string, string> = {}): Promise<HostRun> {
  return fixture().then(({ fx, target }) =>
    runHost({
      host: target.host,
      server: fx.server,
      cwd: fx.project,
      script: SCRIPT,
      scratch: join(fx.scratch, name),
      permissions: PERMISSIONS,
      env,
      ...(yarp ? { setup: (e: Record<string, string>) => setupYarp(target, e) } : {}),
    })
  );
}

let plain: Promise<HostRun> | undefined;
const plainRun = () => plain ??= run("gemini-plain", false);

function assertCommon(session: HostRun, real: Awaited<ReturnType<typeof truth>>) {
  assert.equal(session.code, 0, session.stderr);
  assert.equal(session.results.length, COMMANDS.length, session.stdout);
  assert.ok(
    session.urls.every((url) => /^\/v1beta\/models\/[^/]+:/.test(url)),
    session.urls.join(),
  );
  assert.equal(seen(session, NPM).exitCode, 1, "npm test exit status");
  const cat = seen(session, CAT);
  assert.equal(cat.exitCode, 0);
  assert.equal(cat.output, real.cat.replace(/\n$/, ""), "cat is exact");
  for (const index of [ASK, DENY]) {
    assert.ok(seen(session, index).refused, `${COMMANDS[index]} must be refused`);
  }
}

function hostTest(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, ignore: !ENABLED, sanitizeResources: false, sanitizeOps: false, fn });
}

hostTest("gemini e2e: baseline without YARP", async () => {
  const { fx } = await fixture();
  const real = await truth(fx.project);
  const session = await plainRun();
  assertCommon(session, real);
  const log = seen(session, LOG);
  assert.equal(log.exitCode, 0);
  assert.ok(!MARKER.test(log.output));
  assert.notEqual(seen(session, READ).exitCode, 0, "no id to read without YARP");
  assert.equal(seen(session, GREP).output, real.grep.replace(/\n$/, ""));
});

hostTest(
  "gemini e2e: with YARP the model gets reduced results, exact recovery and the same permissions",
  async () => {
    const { fx } = await fixture();
    const real = await truth(fx.project);
    const decoder = new TextDecoder();
    const before = await plainRun();
    const state = join(fx.scratch, "gemini-yarp");
    const session = await run("gemini-yarp", true);
    assertCommon(session, real);
    // The ask and deny rules: the same refusal, word for word.
    for (const index of [ASK, DENY]) {
      assert.equal(session.results[index].text, before.results[index].text, COMMANDS[index]);
    }
    // git log --stat is wrapped, reduced, and read back exactly.
    const log = seen(session, LOG);
    assert.equal(log.exitCode, 0);
    const id = MARKER.exec(log.output)?.[1];
    assert.ok(id !== undefined, `no marker in ${log.output.slice(-300)}`);
    assert.ok(session.results[LOG].text.length < before.results[LOG].text.length);
    const exact = decoder.decode(await yarpIn(state, fx.project, ["read", id]));
    assert.equal(exact, real.log, "yarp read is exact");
    // The model's own yarp read: never wrapped or reduced, the same text as the plain command.
    const read = seen(session, READ);
    assert.equal(read.exitCode, 0);
    assert.ok(!MARKER.test(read.output));
    assert.equal(read.output, seen(before, LOG).output);
    // The failing npm test: the real status and every failing test.
    const npm = seen(session, NPM);
    assert.equal(npm.exitCode, 1);
    for (const line of ["not ok 601 - subtracts negative numbers", "not ok 602 - divides"]) {
      assert.ok(npm.output.includes(line), line);
    }
    assert.ok(MARKER.test(npm.output));
    // A pipeline is not one simple command: Gemini shows it as without YARP.
    assert.equal(seen(session, GREP).output, seen(before, GREP).output);
    const gain = JSON.parse(decoder.decode(await yarpIn(state, fx.project, ["gain", "--json"])));
    assert.deepEqual(gain.hosts.map((h: { host: string }) => h.host), ["gemini"]);
    assert.ok(gain.total.saved > 0 && gain.total.calls >= 2, JSON.stringify(gain));
  },
);

hostTest("gemini e2e: a hook whose YARP is missing fails open", async () => {
  const { fx, target } = await fixture();
  const real = await truth(fx.project);
  const before = await plainRun();
  const session = await runHost({
    host: target.host,
    server: fx.server,
    cwd: fx.project,
    script: SCRIPT,
    scratch: join(fx.scratch, "gemini-broken"),
    permissions: PERMISSIONS,
    setup: async (env) => {
      await setupYarp(target, env);
      const path = join(env.HOME, ".gemini/settings.json");
      const settings = await Deno.readTextFile(path);
      // The installed hook now starts a yarp that is not there.
      await Deno.writeTextFile(path, settings.replaceAll(ROOT, "/nonexistent"));
    },
  });
  assertCommon(session, real);
  for (const index of [LOG, GREP, CAT]) {
    assert.equal(seen(session, index).output, seen(before, index).output, COMMANDS[index]);
  }
});

hostTest(
  "gemini e2e: an AfterTool answer cannot replace the output, only add to it or make it an error",
  async () => {
    // Why YARP reduces Gemini's output only by wrapping before the call (docs/hosts.md).
    const { fx, target } = await fixture();
    const real = await truth(fx.project);
    const scratch = join(fx.scratch, "gemini-aftertool");
    const replace = join(fx.scratch, "aftertool-replace.json");
    const deny = join(fx.scratch, "aftertool-deny.json");
    await Deno.writeTextFile(
      replace,
      JSON.stringify({
        hookSpecificOutput: {
          hookEventName: "AfterTool",
          additionalContext: "HOOK-RAN",
          tool_output: "REPLACED",
          llmContent: "REPLACED",
          tool_response: { llmContent: "REPLACED" },
        },
      }),
    );
    await Deno.writeTextFile(deny, JSON.stringify({ decision: "deny", reason: "REASON" }));
    const session = await runHost({
      host: target.host,
      server: fx.server,
      cwd: fx.project,
      script: [{ command: "cat src/f7.txt" }, { command: "echo some-out" }, { text: "done" }],
      scratch,
      setup: async (env) => {
        const path = join(env.HOME, ".gemini/settings.json");
        const settings = JSON.parse(await Deno.readTextFile(path));
        const answer =
          `case "$(cat)" in *"cat src/f7.txt"*) cat '${replace}';; *) cat '${deny}';; esac`;
        settings.hooks = {
          AfterTool: [{
            matcher: "run_shell_command",
            hooks: [{ type: "command", command: answer, timeout: 30000 }],
          }],
        };
        await Deno.writeTextFile(path, JSON.stringify(settings));
      },
    });
    assert.equal(session.code, 0, session.stderr);
    const added = "\n\n<hook_context>HOOK-RAN</hook_context>";
    const [cat, echo] = session.results;
    assert.ok(cat.text.endsWith(added), cat.text);
    assert.equal(
      parseShellResult(cat.text.slice(0, -added.length))?.output,
      real.cat.replace(/\n$/, ""),
    );
    assert.ok(!cat.text.includes("REPLACED"), "tool_output and llmContent are not read");
    // A block's reason does replace the result, but as an error: a success would read as a failure.
    assert.deepEqual(echo, { text: JSON.stringify({ error: "REASON" }), isError: true });
  },
);

hostTest("gemini e2e: clean up", async () => {
  if (shared === undefined) return;
  const { fx } = await shared;
  await fx.server.stop();
  await Deno.remove(fx.scratch, { recursive: true });
});
