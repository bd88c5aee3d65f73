/**
 * `yarp hook gemini`, `yarp setup gemini` and the Gemini CLI chat reader:
 * event shapes and chat lines as Gemini CLI 0.61.0 writes them
 * (hand-written from what the real CLI sent and stored in
 * tests/gemini_e2e_test.ts's sessions), the permission proof with real
 * policy rules, the settings edit, and the fail-open promise.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { geminiWrapAnswer, readGeminiEvent } from "../lib/hosts/gemini/hook.ts";
import { isYoloArgv, proveGeminiUnchanged } from "../lib/hosts/gemini/permissions.ts";
import { geminiRuntime, parseShellResult } from "../lib/hosts/gemini/session.ts";
import { detectRuntime, type RecordedCall } from "../lib/hosts/mod.ts";
import { editHookSettings, installedHookCommands } from "../lib/hosts/hook_settings.ts";
import { answerHookEvent } from "../lib/cli/hook.ts";
import { privateHome, runYarp, spawnText, tempDir, YARP } from "./_process.ts";

/** A BeforeTool event as Gemini CLI 0.61.0 sent it. */
function before(command: string, cwd = "/tmp/e2e/work") {
  return {
    session_id: "c25eb4c7-0000-4000-8000-000000000000",
    transcript_path: "/tmp/e2e/home/.gemini/tmp/work/chats/session-2026-12-06T17-32-c25eb4c7.jsonl",
    cwd,
    hook_event_name: "BeforeTool",
    timestamp: "2026-12-06T17:32:27.597Z",
    tool_name: "run_shell_command",
    tool_input: { command },
  };
}

Deno.test("gemini events: BeforeTool for the shell tool is read; AfterTool, other tools and bad shapes are not", () => {
  assert.deepEqual(readGeminiEvent(before("git log --stat")), {
    kind: "before",
    command: "git log --stat",
    cwd: "/tmp/e2e/work",
  });
  const table: [unknown, string][] = [
    [
      { ...before("ls"), hook_event_name: "AfterTool", tool_response: { llmContent: "x" } },
      "other-event",
    ],
    [{ ...before("ls"), tool_name: "read_file" }, "other-tool"],
    [{ ...before("ls"), tool_input: { command: "  " } }, "no-command"],
    [{ ...before("ls"), tool_input: "ls" }, "no-command"],
    [[], "not-an-object"],
  ];
  for (const [event, reason] of table) assert.deepEqual(readGeminiEvent(event), { ignore: reason });
  // A relative cwd is no working directory.
  assert.deepEqual(readGeminiEvent({ ...before("ls"), cwd: "rel" }), {
    kind: "before",
    command: "ls",
    cwd: undefined,
  });
  assert.deepEqual(geminiWrapAnswer("/y/yarp run -- ls").hookSpecificOutput.tool_input, {
    command: "/y/yarp run -- ls",
  });
});

Deno.test("gemini permissions: only in YOLO mode and with no rule that could tell the two commands apart", () => {
  const facts = {
    program: "git",
    wrapperProgram: "/opt/y/bin/yarp",
    hostArgv: ["node", "/x/bundle/gemini.js", "-p", "go", "--yolo"],
    policyFiles: [] as string[],
    settingsFiles: [] as string[],
  };
  const hookOnly = JSON.stringify({
    hooks: { BeforeTool: [{ hooks: [{ command: "/opt/y/bin/yarp hook gemini" }] }] },
  });
  const table: [Partial<typeof facts> & { hostArgv?: string[] | undefined }, string][] = [
    [{}, "proven"],
    [{ settingsFiles: [hookOnly] }, "proven"],
    [{ hostArgv: undefined }, "host-not-found"],
    [{ hostArgv: ["gemini", "-p", "go"] }, "not-yolo"],
    [{ hostArgv: ["gemini", "--approval-mode", "auto_edit"] }, "not-yolo"],
    [{ policyFiles: ['[[rule]]\ncommandPrefix = "git log"\ndecision = "deny"'] }, "rule-may-match"],
    [
      { policyFiles: ['[[rule]]\ncommandPrefix = "yarp"\ndecision = "ask_user"'] },
      "rule-may-match",
    ],
    [{ policyFiles: ['[[rule]]\ncommandRegex = "^.*$"\ndecision = "deny"'] }, "pattern-rule"],
    [{ policyFiles: ['commandPrefix = "gitk"'] }, "proven"],
    [
      { settingsFiles: ['{"tools": {"allowed": ["run_shell_command(git status)"]}}'] },
      "rule-may-match",
    ],
    [{ settingsFiles: ["{ // a comment\n}"] }, "unreadable-settings"],
  ];
  for (const [change, expected] of table) {
    const proof = proveGeminiUnchanged({ ...facts, ...change } as typeof facts);
    assert.equal(proof.proven ? "proven" : proof.reason, expected, JSON.stringify(change));
  }
  assert.equal(isYoloArgv(["gemini", "-y"]), true);
  assert.equal(isYoloArgv(["gemini", "--approval-mode=yolo"]), true);
  assert.equal(isYoloArgv(["gemini", "--approval-mode", "default", "yolo"]), false);
});

Deno.test("property: any text that is not a Gemini BeforeTool shell event gets no answer", async () => {
  const garbage = fc.oneof(
    fc.string(),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.record({
      hook_event_name: fc.constantFrom("BeforeTool", "AfterTool", "BeforeModel", "PreToolUse"),
      tool_name: fc.constantFrom("run_shell_command", "Bash", "read_file", 3, null),
      tool_input: fc.oneof(
        fc.jsonValue(),
        fc.record({ command: fc.oneof(fc.integer(), fc.constant("")) }),
      ),
    }).filter((value) =>
      !(value.hook_event_name === "BeforeTool" && value.tool_name === "run_shell_command" &&
        typeof (value.tool_input as { command?: unknown } | null)?.command === "string" &&
        (value.tool_input as { command: string }).command.trim() !== "")
    ).map((value) => JSON.stringify(value)),
  );
  await fc.assert(
    fc.asyncProperty(garbage, async (text) => {
      const outcome = await answerHookEvent("gemini", text);
      assert.equal(outcome.answer, undefined, `answered ${text}`);
    }),
    { numRuns: 200 },
  );
});

/** Runs `yarp hook gemini` as a child of a script named `gemini`, as Gemini CLI starts its hooks. */
async function hookUnderGemini(
  dir: string,
  event: unknown,
  env: Record<string, string>,
  hostArgs: string[],
) {
  const script = `${dir}/bin/gemini`;
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  await Deno.writeTextFile(script, `#!/bin/sh\n'${YARP}' hook gemini\n`, { mode: 0o755 });
  return await spawnText(script, { args: hostArgs, input: JSON.stringify(event), env });
}

Deno.test("yarp hook gemini: wraps only in YOLO mode with no policy rule for the program; exact command kept", async () => {
  const dir = await tempDir("yarp-hook-gemini-");
  const work = `${dir}/work`;
  await Deno.mkdir(`${dir}/.gemini/policies`, { recursive: true });
  await Deno.mkdir(work);
  const env = privateHome(dir);
  const yolo = ["-p", "go", "-m", "gemini-2.5-flash", "--yolo"];
  const wrapped = await hookUnderGemini(dir, before("git log --stat", work), env, yolo);
  assert.equal(wrapped.code, 0);
  assert.deepEqual(JSON.parse(wrapped.stdout), {
    hookSpecificOutput: {
      hookEventName: "BeforeTool",
      tool_input: { command: `${YARP} run --host gemini --expect-rule git/log -- git log --stat` },
    },
  });
  const asking = await hookUnderGemini(dir, before("git log --stat", work), env, ["-p", "go"]);
  assert.deepEqual([asking.code, asking.stdout], [0, ""]);
  // A command no rule reduces, a pipeline, an opt-out and YARP's own command: never wrapped.
  for (
    const command of ["echo hi", "git log | head", "YARP=off git log", `${YARP} read 0c0ffee0`]
  ) {
    const out = await hookUnderGemini(dir, before(command, work), env, yolo);
    assert.deepEqual([out.code, out.stdout], [0, ""], command);
  }
  await Deno.writeTextFile(
    `${dir}/.gemini/policies/mine.toml`,
    '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git log"\ndecision = "deny"\npriority = 500\n',
  );
  const ruled = await hookUnderGemini(dir, before("git log --stat", work), env, yolo);
  assert.deepEqual([ruled.code, ruled.stdout], [0, ""]);
  // Not under Gemini at all: never wrapped.
  await Deno.remove(`${dir}/.gemini/policies/mine.toml`);
  const orphan = await runYarp(["hook", "gemini"], {
    input: JSON.stringify(before("git log --stat", work)),
    env,
  });
  assert.deepEqual([orphan.code, orphan.stdout.length], [0, 0]);
  const off = await hookUnderGemini(dir, before("git log --stat", work), {
    ...env,
    YARP_HOOK: "off",
  }, yolo);
  assert.deepEqual([off.code, off.stdout], [0, ""]);
});

Deno.test("yarp setup gemini: BeforeTool for run_shell_command in milliseconds, fail-open command, other settings kept, idempotent, uninstall exact", async () => {
  const original =
    '{\n  "model": {"name": "gemini-2.5-pro"},\n  "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint"}]}]}\n}\n';
  const installed = editHookSettings("s.json", original, "gemini", "/y/bin/yarp");
  if ("error" in installed) throw new Error(installed.error);
  assert.deepEqual(installed.added, ["BeforeTool"]);
  const value = JSON.parse(installed.text);
  assert.deepEqual(value.model, { name: "gemini-2.5-pro" });
  assert.deepEqual(value.hooks.BeforeTool, [
    { matcher: "write_file", hooks: [{ type: "command", command: "lint" }] },
    {
      matcher: "run_shell_command",
      hooks: [{
        type: "command",
        command: "/y/bin/yarp hook gemini 2>/dev/null || true",
        timeout: 30000,
      }],
    },
  ]);
  assert.deepEqual(installedHookCommands("s.json", installed.text, "gemini"), [
    { event: "BeforeTool", command: "/y/bin/yarp hook gemini 2>/dev/null || true" },
  ]);
  assert.deepEqual(installedHookCommands("s.json", installed.text, "codex"), []);
  const again = editHookSettings("s.json", installed.text, "gemini", "/y/bin/yarp");
  assert.equal("error" in again ? again.error : again.changed, false);
  const removed = editHookSettings("s.json", installed.text, "gemini", undefined);
  if ("error" in removed) throw new Error(removed.error);
  assert.deepEqual(JSON.parse(removed.text), JSON.parse(original));

  const dir = await tempDir("yarp-setup-gemini-");
  // The Deno cache stays the test's own when HOME moves (setup loads an npm package).
  const env = {
    ...privateHome(dir),
    DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
  };
  await Deno.mkdir(`${dir}/work`);
  const run = (...args: string[]) =>
    spawnText(YARP, { args: ["setup", ...args], env, cwd: `${dir}/work` });
  const project = await run("gemini", "--project");
  assert.equal(project.code, 0, project.stderr);
  assert.match(project.stdout, /added BeforeTool hooks running .*\.gemini\/settings\.json/);
  const written = JSON.parse(await Deno.readTextFile(`${dir}/work/.gemini/settings.json`));
  assert.equal(
    written.hooks.BeforeTool[0].hooks[0].command,
    `${YARP} hook gemini 2>/dev/null || true`,
  );
  const status = await run("--status");
  assert.match(
    status.stdout,
    new RegExp(`\\ngemini: installed: project .*\\(BeforeTool\\) runs ${YARP}\\n`),
  );
  const user = await run("gemini", "--user", "--dry-run");
  assert.match(
    user.stdout,
    /would have added BeforeTool hooks .*\/\.gemini\/settings\.json \(dry run/,
  );
  const gone = await run("gemini", "--project", "--uninstall");
  assert.match(gone.stdout, /removed 1 YARP hook entry/);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${dir}/work/.gemini/settings.json`)), {});
});

/** The chat lines of one real-shaped session: header, updates, the call written twice. */
function chatLines(output: string, command = "git log --stat"): unknown[] {
  const call = (withResult: boolean) => ({
    id: "763e0a13",
    timestamp: "2026-12-06T17:32:27.580Z",
    type: "gemini",
    content: "",
    model: "gemini-2.5-flash",
    toolCalls: [{
      id: "run_shell_command__run_shell_command_1_0",
      name: "run_shell_command",
      args: { command },
      ...(withResult
        ? {
          result: [{
            functionResponse: {
              id: "run_shell_command__run_shell_command_1_0",
              name: "run_shell_command",
              response: { output },
            },
          }],
          status: "success",
        }
        : { status: "executing" }),
    }],
  });
  return [
    {
      sessionId: "c25eb4c7",
      projectHash: "7750b2f0",
      startTime: "t",
      lastUpdated: "t",
      kind: "main",
    },
    { $set: { lastUpdated: "t" } },
    { id: "u1", type: "user", content: [{ text: "Run it" }] },
    call(false),
    call(true),
    { $set: { lastUpdated: "t" } },
    call(true),
  ];
}

function readChat(lines: unknown[]): { calls: RecordedCall[]; skips: string[]; open: number } {
  const calls: RecordedCall[] = [];
  const skips: string[] = [];
  const reader = geminiRuntime.createReader({
    call: (c) => calls.push(c),
    skip: (r) => skips.push(r),
  });
  for (const line of lines) reader.push(line);
  return { calls, skips, open: reader.finish() };
}

Deno.test("gemini chats: detected by their header; each shell call read once with its exit code and output", () => {
  const lines = chatLines(
    "<untrusted_context>\nOutput: a\nerr\nExit Code: 3\nProcess Group PGID: 18598\n</untrusted_context>",
  );
  assert.equal(detectRuntime(lines[0])?.name, "gemini");
  const { calls, skips, open } = readChat(lines);
  assert.deepEqual([skips, open], [[], 0]);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].command, "git log --stat");
  assert.equal(calls[0].exitCode, 3);
  assert.deepEqual(calls[0].streams, {
    mode: "combined",
    output: new TextEncoder().encode("a\nerr"),
  });
  assert.equal(calls[0].priorReduction, null);

  const table: [string, { exitCode: number | null; prior: string | null } | "skip"][] = [
    ["<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 5\n</untrusted_context>", {
      exitCode: 0,
      prior: null,
    }],
    [
      "<untrusted_context>\nOutput: x\n[yarp: kept 3 of 900 lines · exact: yarp read 0c0ffee0]\nProcess Group PGID: 5\n</untrusted_context>\n\n[System] Tool input parameters were modified by a hook before execution.",
      { exitCode: 0, prior: "yarp" },
    ],
    [
      "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /h/t.txt\n<untrusted_context>\nOutput: a\n... [9,000 characters omitted] ...\nb\nExit Code: 1\nProcess Group PGID: 5\n</untrusted_context>",
      { exitCode: 1, prior: "other" },
    ],
    ["<untrusted_context>\nOutput: x\nSignal: 9\nProcess Group PGID: 5\n</untrusted_context>", {
      exitCode: null,
      prior: null,
    }],
    [
      "Command was cancelled by user before it could complete. There was no output before it was cancelled.",
      "skip",
    ],
  ];
  for (const [output, expected] of table) {
    const read = readChat(chatLines(output));
    if (expected === "skip") {
      assert.deepEqual([read.calls.length, read.skips], [0, ["not-command-output"]], output);
      continue;
    }
    assert.equal(read.calls.length, 1, output);
    assert.equal(read.calls[0].exitCode, expected.exitCode, output);
    assert.equal(read.calls[0].priorReduction, expected.prior, output);
  }
  // A call that never got a result is counted open.
  assert.equal(readChat(chatLines("x").slice(0, 4)).open, 1);
});

Deno.test("property: a shell result Gemini formats reads back as the same output and exit code", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom("a", "b", "\n", " ", ":") }).filter((s) =>
        !/\n(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): /.test(`\n${s}`) &&
        s !== "(empty)"
      ),
      fc.integer({ min: 0, max: 255 }),
      (output, code) => {
        const parts = [`Output: ${output || "(empty)"}`];
        if (code !== 0) parts.push(`Exit Code: ${code}`);
        parts.push("Process Group PGID: 42");
        const text = `<untrusted_context>\n${parts.join("\n")}\n</untrusted_context>`;
        assert.deepEqual(parseShellResult(text), { output, exitCode: code });
      },
    ),
  );
});
