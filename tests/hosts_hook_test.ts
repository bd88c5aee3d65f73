/**
 * `yarp hook claude-code|codex` and the hosts layer under it: event shapes
 * as the real hosts send them (hand-written from the observations in
 * HOSTS-E2E.md: Claude Code 2.1.328, Codex 0.169.0), the permission proofs
 * with real allow/ask/deny rules, the answers, and the fail-open promise
 * (any garbage on stdin: exit 0, nothing on stdout).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { readClaudeEvent } from "../lib/hosts/claude_code/hook.ts";
import {
  mayMatch,
  proveClaudeAllows,
  type SettingsFile,
  surelyAllows,
} from "../lib/hosts/claude_code/permissions.ts";
import { findEndedCall, readCodexEvent } from "../lib/hosts/codex/hook.ts";
import { proveCodexUnchanged } from "../lib/hosts/codex/permissions.ts";
import { answerHookEvent } from "../lib/cli/hook.ts";
import { privateHome, runYarp, spawnText, tempDir, YARP } from "./_process.ts";

const WORK = "/tmp/e2e/work";

/** A Claude Code PreToolUse event as observed (fields the host sends, values of the same kinds). */
function claudePre(command: string, mode = "default", cwd = WORK) {
  return {
    session_id: "3cc872c4-0000-4000-8000-000000000000",
    transcript_path: "/tmp/e2e/config/projects/-tmp-e2e-work/3cc872c4.jsonl",
    cwd,
    prompt_id: "7f946ccf-0000-4000-8000-000000000000",
    permission_mode: mode,
    effort: { level: "medium" },
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command, description: "Run it", timeout: 60000 },
    tool_use_id: "toolu_fake_0_0",
  };
}

/** A Claude Code PostToolUse event as observed. */
function claudePost(command: string, stdout: string, extra: Record<string, unknown> = {}) {
  return {
    ...claudePre(command),
    hook_event_name: "PostToolUse",
    tool_response: {
      stdout,
      stderr: "",
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
      ...extra,
    },
    duration_ms: 113,
  };
}

/** A Codex event as observed (direct mode ids are `call_…`, code mode's `exec-…`). */
function codexEvent(
  name: string,
  command: string,
  id: string,
  extra: Record<string, unknown> = {},
) {
  return {
    session_id: "01a24991-0000-7000-8000-000000000000",
    turn_id: "01a24991-0000-7000-8000-000000000001",
    transcript_path: "/tmp/e2e/codex/sessions/2026/12/06/rollout-x.jsonl",
    cwd: WORK,
    hook_event_name: name,
    model: "gpt-5.5",
    permission_mode: "bypassPermissions",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: id,
    ...extra,
  };
}

Deno.test("claude-code events: the observed Pre and Post shapes are read; failures and other tools are not", () => {
  const pre = readClaudeEvent(claudePre("git log --stat"));
  assert.ok("kind" in pre && pre.kind === "before");
  assert.equal(pre.command, "git log --stat");
  assert.equal(pre.permissionMode, "default");
  assert.deepEqual(pre.toolInput, {
    command: "git log --stat",
    description: "Run it",
    timeout: 60000,
  });

  const post = readClaudeEvent(claudePost("ls", "a\nb"));
  assert.ok("kind" in post && post.kind === "after");
  assert.equal(post.visible, "a\nb");
  assert.equal(post.exitCode, 0);
  assert.equal(post.untouchable, undefined);

  const cut = readClaudeEvent(
    claudePost("seq 100000", "1\n2", {
      persistedOutputPath: "/tmp/e2e/config/projects/p/tool-results/b1.txt",
      persistedOutputSize: 588895,
    }),
  );
  assert.ok("kind" in cut && cut.kind === "after");
  assert.equal(cut.persistedOutputPath, "/tmp/e2e/config/projects/p/tool-results/b1.txt");

  const grep = readClaudeEvent(
    claudePost("grep x f", "", { returnCodeInterpretation: "No matches found" }),
  );
  assert.ok("kind" in grep && grep.kind === "after" && grep.exitCode === undefined);
  const interrupted = readClaudeEvent(claudePost("sleep 9", "", { interrupted: true }));
  assert.ok("kind" in interrupted && interrupted.kind === "after");
  assert.equal(interrupted.untouchable, "interrupted");

  const failure = {
    ...claudePre("echo some-out; exit 1"),
    hook_event_name: "PostToolUseFailure",
    error: "Exit code 1\nsome-out",
    is_interrupt: false,
  };
  assert.deepEqual(readClaudeEvent(failure), { ignore: "other-event" });
  assert.deepEqual(readClaudeEvent({ ...claudePre("x"), tool_name: "Read" }), {
    ignore: "other-tool",
  });
  assert.deepEqual(readClaudeEvent({ ...claudePre("x"), tool_input: { command: 3 } }), {
    ignore: "no-command",
  });
});

Deno.test("codex events: direct and code mode are told apart by the tool_use_id", () => {
  const pre = readCodexEvent(codexEvent("PreToolUse", "echo hello-from-codex", "call_fake_0_0"));
  assert.ok("kind" in pre && pre.kind === "before" && pre.command === "echo hello-from-codex");
  const direct = readCodexEvent(
    codexEvent("PostToolUse", "echo x; exit 1", "call_fake_0_0", { tool_response: "x\n" }),
  );
  assert.ok("kind" in direct && direct.kind === "after" && direct.direct);
  const nested = readCodexEvent(
    codexEvent("PostToolUse", "ls", "exec-8c1d6f0e-0000-4000-8000-000000000000", {
      tool_response: "a\n",
    }),
  );
  assert.ok("kind" in nested && nested.kind === "after" && !nested.direct);
  assert.deepEqual(readCodexEvent(codexEvent("PostToolUse", "ls", "call_1")), {
    ignore: "no-response",
  });
});

function files(user: unknown, project?: unknown, nearby?: unknown): SettingsFile[] {
  const list: SettingsFile[] = [
    { path: "/h/.claude/settings.json", scope: "user", text: JSON.stringify(user) },
  ];
  if (project !== undefined) {
    list.push({
      path: `${WORK}/.claude/settings.json`,
      scope: "project",
      text: JSON.stringify(project),
    });
  }
  if (nearby !== undefined) {
    list.push({
      path: "/tmp/.claude/settings.json",
      scope: "nearby",
      text: JSON.stringify(nearby),
    });
  }
  return list;
}

const CLAUDE = ["claude", "-p", "Run the e2e command.", "--output-format", "json"];
const WRAPPER = "/opt/yarp/bin/yarp run --expect-rule git/log -- git log --stat";

Deno.test("claude-code permissions: a wrap is allowed only where the user's own rules allow the command and nothing asks or denies", () => {
  const prove = (settings: SettingsFile[], mode = "default", host: string[] | null = CLAUDE) =>
    proveClaudeAllows({
      command: "git log --stat",
      wrapper: WRAPPER,
      permissionMode: mode,
      files: settings,
      hostArgv: host ?? undefined,
    });
  const allow = { permissions: { allow: ["Bash(git log:*)"] } };
  assert.deepEqual(prove(files(allow)), { proven: true, by: "Bash(git log:*)" });
  assert.deepEqual(prove(files({ permissions: { allow: ["Bash"] } })), {
    proven: true,
    by: "Bash",
  });
  // An ask rule and a deny rule for the command YARP would otherwise wrap: no wrap.
  const ask = { permissions: { allow: ["Bash"], ask: ["Bash(git log:*)"] } };
  assert.deepEqual(prove(files(ask)), { proven: false, reason: "ask-or-deny-rule" });
  const deny = { permissions: { deny: ["Bash(git log --stat)"] } };
  assert.deepEqual(prove(files(allow, deny)), { proven: false, reason: "ask-or-deny-rule" });
  assert.deepEqual(prove(files(allow, undefined, deny)), {
    proven: false,
    reason: "ask-or-deny-rule",
  });
  // A deny rule for YARP itself would turn an allowed call into a denied one.
  const denyYarp = { permissions: { allow: ["Bash"], deny: ["Bash(/opt/yarp/bin/yarp:*)"] } };
  assert.deepEqual(prove(files(denyYarp)), { proven: false, reason: "ask-or-deny-rule" });
  // Nothing allows it: it would be asked about (or run as read-only, which YARP cannot prove).
  assert.deepEqual(prove(files({})), { proven: false, reason: "no-allow-rule" });
  assert.deepEqual(prove(files({ permissions: { allow: ["Bash(git * --stat)"] } })), {
    proven: false,
    reason: "no-allow-rule",
  });
  // An allow rule only in a file Claude Code does not read proves nothing.
  assert.deepEqual(prove(files({}, undefined, allow)), { proven: false, reason: "no-allow-rule" });
  assert.deepEqual(prove(files(allow), "plan"), { proven: false, reason: "permission-mode:plan" });
  assert.deepEqual(prove(files({}), "bypassPermissions"), {
    proven: true,
    by: "bypassPermissions",
  });
  assert.deepEqual(prove(files(allow), "default", null), {
    proven: false,
    reason: "host-not-found",
  });
  assert.deepEqual(prove(files(allow), "default", [...CLAUDE, "--disallowedTools", "Bash(rm:*)"]), {
    proven: false,
    reason: "host-flag:--disallowedTools",
  });
  const broken: SettingsFile[] = [...files(allow), { path: "/x", scope: "project", text: "{" }];
  assert.deepEqual(prove(broken), { proven: false, reason: "unreadable-settings" });
  const managed: SettingsFile = {
    path: "/etc/claude-code/managed-settings.json",
    scope: "managed",
    text: JSON.stringify({ allowManagedPermissionRulesOnly: true }),
  };
  assert.deepEqual(prove([...files(allow), managed]), { proven: false, reason: "no-allow-rule" });
});

Deno.test("property: an allow rule that surely matches a command is one an ask or deny rule of the same text may match", () => {
  const word = fc.stringMatching(/^[a-z0-9._\/-]{1,6}$/);
  fc.assert(
    fc.property(
      fc.array(word, { minLength: 1, maxLength: 4 }),
      fc.nat(4),
      fc.constantFrom(":*", " *", ""),
      (words, cut, suffix) => {
        const command = words.join(" ");
        const prefix = words.slice(0, Math.max(1, Math.min(cut, words.length))).join(" ");
        const rule = `Bash(${suffix === "" ? command : prefix + suffix})`;
        if (surelyAllows(rule, command)) assert.ok(mayMatch(rule, command), rule);
      },
    ),
  );
});

Deno.test("codex permissions: only with approvals and sandbox bypassed, and no rule naming either program", () => {
  const host = ["codex", "exec", "--dangerously-bypass-approvals-and-sandbox", "--json", "go"];
  const prove = (argv: string[] | undefined, rules: string[] = []) =>
    proveCodexUnchanged({
      program: "git",
      wrapperProgram: "/opt/yarp/bin/yarp",
      hostArgv: argv,
      rulesFiles: rules,
    });
  assert.deepEqual(prove(host), {
    proven: true,
    by: "--dangerously-bypass-approvals-and-sandbox",
  });
  assert.deepEqual(prove(["codex", "exec", "-s", "read-only"]), {
    proven: false,
    reason: "approvals-or-sandbox",
  });
  assert.deepEqual(prove(undefined), { proven: false, reason: "host-not-found" });
  const prompt = 'prefix_rule(pattern=["git", "log"], decision="prompt")\n';
  assert.deepEqual(prove(host, [prompt]), { proven: false, reason: "rule-may-match" });
  const forbidYarp = 'prefix_rule(pattern=["yarp"], decision="forbidden")\n';
  assert.deepEqual(prove(host, [forbidYarp]), { proven: false, reason: "rule-may-match" });
  const other = '# tidy\nprefix_rule(pattern=["rm"], decision="forbidden", justification="no")\n';
  assert.equal(prove(host, [other]).proven, true);
  assert.deepEqual(prove(host, ['P = ["git"]\nprefix_rule(pattern=P, decision="prompt")']), {
    proven: false,
    reason: "unreadable-rules",
  });
});

Deno.test("codex: the call's exit code and whole output come from its end event in the rollout", () => {
  const lines = [
    JSON.stringify({ timestamp: "t", type: "session_meta", payload: { id: "s" } }),
    JSON.stringify({
      timestamp: "t",
      type: "response_item",
      payload: {
        type: "function_call",
        name: "exec_command",
        arguments: JSON.stringify({ cmd: "npm test" }),
        call_id: "call_7",
      },
    }),
    "{ a cut line",
    JSON.stringify({
      timestamp: "t",
      type: "event_msg",
      payload: {
        type: "exec_command_end",
        call_id: "call_7",
        stdout: "1 failing\n",
        stderr: "npm ERR!\n",
        aggregated_output: "1 failing\nnpm ERR!\n",
        exit_code: 1,
      },
    }),
  ];
  const call = findEndedCall(lines, "call_7");
  assert.ok(call !== undefined);
  assert.equal(call.exitCode, 1);
  assert.equal(call.command, "npm test");
  assert.equal(findEndedCall(lines, "call_8"), undefined);
  // Codex 0.169.0 writes the end as an item_completed CommandExecution (observed), before the hook runs.
  const completed = JSON.stringify({
    timestamp: "t",
    type: "event_msg",
    payload: {
      type: "item_completed",
      item: {
        type: "CommandExecution",
        id: "call_7",
        command: ["/bin/bash", "-lc", "npm test"],
        status: "completed",
        aggregated_output: "1 failing\nnpm ERR!\n",
        exit_code: 1,
        duration: { secs: 0, nanos: 516718176 },
      },
    },
  });
  const fromItem = findEndedCall([...lines.slice(0, 2), completed], "call_7");
  assert.equal(fromItem?.exitCode, 1);
  assert.deepEqual(fromItem?.streams, {
    mode: "combined",
    output: new TextEncoder().encode("1 failing\nnpm ERR!\n"),
  });
  assert.equal(findEndedCall(lines.slice(0, 2), "call_7"), undefined);
});

const STATE = await tempDir("yarp-hook-state-");
Deno.env.set("XDG_STATE_HOME", STATE);

Deno.test("property: any text that is not an event YARP acts on gets no answer", async () => {
  const garbage = fc.oneof(
    fc.string(),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.record({
      hook_event_name: fc.constantFrom("PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop"),
      tool_name: fc.constantFrom("Bash", "Read", 3, null),
      tool_input: fc.oneof(
        fc.jsonValue(),
        fc.record({ command: fc.oneof(fc.integer(), fc.constant("")) }),
      ),
      tool_response: fc.jsonValue(),
    }).map((value) => JSON.stringify(value)),
  );
  await fc.assert(
    fc.asyncProperty(
      garbage,
      fc.constantFrom("claude-code", "codex") as fc.Arbitrary<"claude-code" | "codex">,
      async (text, host) => {
        const outcome = await answerHookEvent(host, text);
        assert.equal(outcome.answer, undefined, `${host} answered ${text}`);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("yarp hook: garbage on stdin is exit 0 and nothing on stdout; a bad host is exit 2", async () => {
  const dir = await tempDir("yarp-hook-garbage-");
  const samples = [
    "",
    "not json",
    "{",
    "[]",
    "null",
    '{"hook_event_name":"PreToolUse"}',
    "\u0000\uffff",
  ];
  for (const [index, input] of samples.entries()) {
    const out = await runYarp(["hook", index % 2 === 0 ? "claude-code" : "codex"], {
      input,
      env: privateHome(dir),
    });
    assert.equal(out.code, 0);
    assert.equal(out.stdout.length, 0, `answered ${JSON.stringify(input)}`);
  }
  const bad = await spawnText(YARP, { args: ["hook", "cursor"], input: "{}" });
  assert.equal(bad.code, 2);
  assert.equal(bad.stdout, "");
  assert.match(bad.stderr, /^yarp hook: unknown host 'cursor'/);
});

/** A git repository with `count` commits, made by git itself. */
async function gitRepo(dir: string, count: number): Promise<void> {
  const git = (...args: string[]) =>
    spawnText("git", {
      args: ["-c", "user.email=t@example.com", "-c", "user.name=T", ...args],
      cwd: dir,
      env: { GIT_CONFIG_NOSYSTEM: "1", HOME: dir },
    });
  await git("init", "-q");
  for (let i = 1; i <= count; i++) {
    await Deno.writeTextFile(`${dir}/file${i % 7}.txt`, `line ${i}\n`, { append: true });
    await git("add", ".");
    await git("commit", "-qm", `change number ${i}`);
  }
}

/**
 * Runs `yarp hook HOST` as a child of a script named like the host (`claude`
 * or `codex`, with `hostArgs` after it), as the real host starts its hooks.
 */
async function hookUnderHost(
  dir: string,
  host: "claude-code" | "codex",
  event: unknown,
  env: Record<string, string>,
  hostArgs: string[] = [],
) {
  const name = host === "claude-code" ? "claude" : "codex";
  const script = `${dir}/bin/${name}`;
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  await Deno.writeTextFile(script, `#!/bin/sh\n'${YARP}' hook ${host}\n`, { mode: 0o755 });
  return await spawnText(script, { args: hostArgs, input: JSON.stringify(event), env });
}

Deno.test("yarp hook claude-code: wraps only under an allow rule; an ask or a deny rule for the command leaves it untouched", async () => {
  const dir = await tempDir("yarp-hook-claude-");
  const work = `${dir}/work`;
  await Deno.mkdir(work);
  const env = { ...privateHome(dir), CLAUDE_CONFIG_DIR: `${dir}/config`, CLAUDE_PROJECT_DIR: work };
  await Deno.mkdir(`${dir}/config`);
  const settings = (permissions: unknown) =>
    Deno.writeTextFile(`${dir}/config/settings.json`, JSON.stringify({ permissions }));
  const event = claudePre("git log --stat", "default", work);

  await settings({ allow: ["Bash(git log:*)"] });
  const wrapped = await hookUnderHost(dir, "claude-code", event, env);
  assert.equal(wrapped.code, 0);
  const answer = JSON.parse(wrapped.stdout).hookSpecificOutput;
  assert.equal(answer.permissionDecision, "allow");
  assert.deepEqual(answer.updatedInput, {
    command: `${YARP} run --host claude-code --expect-rule git/log -- git log --stat`,
    description: "Run it",
    timeout: 60000,
  });

  await settings({ allow: ["Bash(git log:*)"], ask: ["Bash(git log:*)"] });
  assert.deepEqual(await hookUnderHost(dir, "claude-code", event, env), {
    code: 0,
    stdout: "",
    stderr: "",
  });
  await settings({ allow: ["Bash"] });
  await Deno.mkdir(`${work}/.claude`);
  await Deno.writeTextFile(
    `${work}/.claude/settings.local.json`,
    JSON.stringify({ permissions: { deny: ["Bash(git log:*)"] } }),
  );
  assert.deepEqual(await hookUnderHost(dir, "claude-code", event, env), {
    code: 0,
    stdout: "",
    stderr: "",
  });
  // Not under Claude Code at all (no host to read flags from): never wrapped.
  await Deno.remove(`${work}/.claude`, { recursive: true });
  const orphan = await runYarp(["hook", "claude-code"], { input: JSON.stringify(event), env });
  assert.equal(orphan.code, 0);
  assert.equal(orphan.stdout.length, 0);
});

Deno.test("yarp hook claude-code: a large successful result is archived and replaced in full shape; yarp read gives it back exactly", async () => {
  const dir = await tempDir("yarp-hook-claude-post-");
  const work = `${dir}/work`;
  await Deno.mkdir(work);
  await gitRepo(work, 60);
  const env = privateHome(dir);
  const log = await spawnText("git", { args: ["log", "--stat"], cwd: work });
  // Claude Code strips the final newline of stdout.
  const stdout = log.stdout.replace(/\n$/, "");
  const out = await spawnText(YARP, {
    args: ["hook", "claude-code"],
    input: JSON.stringify({ ...claudePost("git log --stat", stdout), cwd: work }),
    env,
  });
  assert.equal(out.code, 0);
  const replaced = JSON.parse(out.stdout).hookSpecificOutput;
  assert.equal(replaced.hookEventName, "PostToolUse");
  const shown = replaced.updatedToolOutput;
  assert.deepEqual(Object.keys(shown).sort(), ["interrupted", "isImage", "stderr", "stdout"]);
  assert.ok(shown.stdout.length < stdout.length / 2);
  const id = /yarp read ([0-9a-f]+)/.exec(shown.stdout)?.[1];
  assert.ok(id !== undefined, shown.stdout);
  const read = await spawnText(YARP, { args: ["read", id], env });
  assert.equal(read.stdout, stdout);

  // The whole result from persistedOutputPath when Claude Code cut it; a file that is not it: no answer.
  const persisted = `${dir}/persisted.txt`;
  await Deno.writeTextFile(persisted, stdout);
  const cut = {
    ...claudePost("git log --stat", stdout.slice(0, 1000), { persistedOutputPath: persisted }),
    cwd: work,
  };
  const whole = await spawnText(YARP, {
    args: ["hook", "claude-code"],
    input: JSON.stringify(cut),
    env,
  });
  assert.match(JSON.parse(whole.stdout).hookSpecificOutput.updatedToolOutput.stdout, /60 commits/);
  await Deno.writeTextFile(persisted, "something else\n".repeat(200));
  const other = await spawnText(YARP, {
    args: ["hook", "claude-code"],
    input: JSON.stringify(cut),
    env,
  });
  assert.deepEqual([other.code, other.stdout], [0, ""]);
  // A call YARP wrapped was reduced by yarp run: its result is left alone.
  const wrappedCall = await spawnText(YARP, {
    args: ["hook", "claude-code"],
    input: JSON.stringify({
      ...claudePost(`${YARP} run --expect-rule git/log -- git log --stat`, stdout),
      cwd: work,
    }),
    env,
  });
  assert.deepEqual([wrappedCall.code, wrappedCall.stdout], [0, ""]);
  // Opted out for one call (YARP=off …) or for the session (YARP_HOOK=off): no answer.
  const optedOut = await spawnText(YARP, {
    args: ["hook", "claude-code"],
    input: JSON.stringify({ ...claudePost("YARP=off git log --stat", stdout), cwd: work }),
    env,
  });
  assert.deepEqual([optedOut.code, optedOut.stdout], [0, ""]);
  const off = await spawnText(YARP, {
    args: ["hook", "claude-code"],
    input: JSON.stringify({ ...claudePost("git log --stat", stdout), cwd: work }),
    env: { ...env, YARP_HOOK: "off" },
  });
  assert.deepEqual([off.code, off.stdout], [0, ""]);
  // A small result is left alone.
  const small = await spawnText(YARP, {
    args: ["hook", "claude-code"],
    input: JSON.stringify(claudePost("git log -1", "commit abc")),
    env,
  });
  assert.deepEqual([small.code, small.stdout], [0, ""]);
});

Deno.test("yarp hook codex: direct mode gets the reduced whole output with the real exit status; code mode is left alone", async () => {
  const dir = await tempDir("yarp-hook-codex-");
  const work = `${dir}/work`;
  await Deno.mkdir(work);
  await gitRepo(work, 60);
  const env = privateHome(dir);
  const log = (await spawnText("git", { args: ["log", "--stat"], cwd: work })).stdout;
  const rollout = `${dir}/rollout.jsonl`;
  const line = (type: string, payload: unknown) =>
    JSON.stringify({ timestamp: "t", type, payload });
  await Deno.writeTextFile(
    rollout,
    [
      line("session_meta", { id: "s", cwd: work }),
      line("response_item", {
        type: "function_call",
        name: "exec_command",
        arguments: JSON.stringify({ cmd: "git log --stat" }),
        call_id: "call_git",
      }),
      line("event_msg", {
        type: "exec_command_end",
        call_id: "call_git",
        stdout: log,
        stderr: "",
        aggregated_output: log,
        exit_code: 0,
      }),
    ].join("\n") + "\n",
  );
  const visible = `Warning: truncated output (original token count: 9000)\n${log.slice(0, 9000)}`;
  const event = (id: string) =>
    codexEvent("PostToolUse", "git log --stat", id, {
      cwd: work,
      transcript_path: rollout,
      tool_response: visible,
    });
  const out = await spawnText(YARP, {
    args: ["hook", "codex"],
    input: JSON.stringify(event("call_git")),
    env,
  });
  assert.equal(out.code, 0);
  const answer = JSON.parse(out.stdout);
  assert.equal(answer.decision, "block");
  assert.match(answer.reason, /^Process exited with code 0\nOutput:\n/);
  const id = /yarp read ([0-9a-f]+)/.exec(answer.reason)?.[1];
  assert.ok(id !== undefined);
  assert.equal((await spawnText(YARP, { args: ["read", id], env })).stdout, log);

  const nested = await spawnText(YARP, {
    args: ["hook", "codex"],
    input: JSON.stringify(event("exec-0b5c")),
    env,
  });
  assert.deepEqual([nested.code, nested.stdout], [0, ""]);
  // No end event for the call: nothing is known of its exit status, so nothing is replaced.
  const unknown = await spawnText(YARP, {
    args: ["hook", "codex"],
    input: JSON.stringify(event("call_other")),
    env,
  });
  assert.deepEqual([unknown.code, unknown.stdout], [0, ""]);
});

Deno.test("yarp hook codex: wraps only with approvals and sandbox bypassed and no rule for the program", async () => {
  const dir = await tempDir("yarp-hook-codex-pre-");
  const work = `${dir}/work`;
  await Deno.mkdir(`${dir}/codex/rules`, { recursive: true });
  await Deno.mkdir(work);
  const env = { ...privateHome(dir), CODEX_HOME: `${dir}/codex` };
  const event = { ...codexEvent("PreToolUse", "git log --stat", "call_1"), cwd: work };
  const bypass = ["exec", "--dangerously-bypass-approvals-and-sandbox", "--json"];
  const wrapped = await hookUnderHost(dir, "codex", event, env, bypass);
  const answer = JSON.parse(wrapped.stdout).hookSpecificOutput;
  assert.equal(answer.permissionDecision, "allow");
  assert.equal(
    answer.updatedInput.command,
    `${YARP} run --host codex --expect-rule git/log -- git log --stat`,
  );
  const sandboxed = await hookUnderHost(dir, "codex", event, env, ["exec", "-s", "read-only"]);
  assert.deepEqual([sandboxed.code, sandboxed.stdout], [0, ""]);
  await Deno.writeTextFile(
    `${dir}/codex/rules/default.rules`,
    'prefix_rule(pattern=["git", "log"], decision="prompt")\n',
  );
  const ruled = await hookUnderHost(dir, "codex", event, env, bypass);
  assert.deepEqual([ruled.code, ruled.stdout], [0, ""]);
});
