/**
 * `yarp setup claude-code|codex` and its pure editor: exactly YARP's hook
 * entries are added and removed, idempotently, every other key and hook
 * kept; malformed settings are refused with one line and left alone; a
 * symlinked settings file stays a link, written through to its target with
 * its mode; a backup sits beside it; `--status` names the binary.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  editHookSettings,
  HOOK_EVENTS,
  installedHookCommands,
  type SetupHost,
} from "../lib/hosts/hook_settings.ts";
import { parseSetupArgs } from "../lib/cli/setup.ts";
import { privateHome, spawnText, tempDir, YARP } from "./_process.ts";

const YARP_BIN = "/opt/yarp/bin/yarp";
/** The Deno cache stays the test's own when HOME moves (setup loads an npm package). */
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;

function edit(
  text: string | undefined,
  invocation: string | undefined,
  host = "claude-code" as const,
) {
  const result = editHookSettings("settings.json", text, host, invocation);
  if ("error" in result) throw new Error(result.error);
  return result;
}

Deno.test("setup editor: adds a Bash group per event, keeps other hooks and settings, and is idempotent", () => {
  const original = {
    model: "opus",
    permissions: { allow: ["Bash(git log:*)"] },
    hooks: {
      PreToolUse: [{ matcher: "Edit", hooks: [{ type: "command", command: "lint.sh" }] }],
      Stop: [{ hooks: [{ type: "command", command: "notify" }] }],
    },
  };
  const text = JSON.stringify(original, null, 2) + "\n";
  const installed = edit(text, YARP_BIN);
  assert.equal(installed.changed, true);
  assert.deepEqual(installed.added, ["PreToolUse", "PostToolUse"]);
  const value = JSON.parse(installed.text);
  assert.deepEqual(value.hooks.PreToolUse[0], original.hooks.PreToolUse[0]);
  assert.deepEqual(value.hooks.Stop, original.hooks.Stop);
  assert.deepEqual(value.hooks.PreToolUse[1], {
    matcher: "Bash",
    hooks: [{ type: "command", command: `${YARP_BIN} hook claude-code`, timeout: 30 }],
  });
  assert.deepEqual(Object.keys(value), ["model", "permissions", "hooks"]);
  assert.deepEqual(edit(installed.text, YARP_BIN), {
    text: installed.text,
    changed: false,
    added: [],
    removed: 0,
  });
  // A new binary replaces the old entries instead of adding a second pair.
  const moved = edit(installed.text, "/usr/local/bin/yarp");
  assert.equal(moved.removed, 2);
  const commands = installedHookCommands("s", moved.text, "claude-code");
  assert.deepEqual(commands, [
    { event: "PreToolUse", command: "/usr/local/bin/yarp hook claude-code" },
    { event: "PostToolUse", command: "/usr/local/bin/yarp hook claude-code" },
  ]);
  // Uninstall gives back the original text exactly (same indentation, final newline).
  assert.equal(edit(installed.text, undefined).text, text);
  assert.equal(edit(text, undefined).changed, false);
  // The other host's entries are not touched.
  const both = edit(installed.text, YARP_BIN, "codex" as never);
  assert.equal((installedHookCommands("s", both.text, "claude-code") as unknown[]).length, 2);
});

Deno.test("setup editor: a new file, and settings that are not what they should be, refused with one line", () => {
  const fresh = edit(undefined, YARP_BIN);
  assert.equal(fresh.changed, true);
  assert.equal(Object.keys(JSON.parse(fresh.text)).join(), "hooks");
  const refuse = (text: string) => {
    const result = editHookSettings("/h/.claude/settings.json", text, "claude-code", YARP_BIN);
    assert.ok("error" in result, text);
    assert.doesNotMatch(result.error, /\n/);
    assert.match(result.error, /^\/h\/\.claude\/settings\.json/);
    return result.error;
  };
  assert.match(refuse("{"), /settings\.json:/);
  assert.match(refuse('{"hooks": 1, "hooks": 2}'), /duplicate key/);
  assert.match(refuse("[]"), /top level is not a JSON object/);
  assert.match(refuse('{"hooks": []}'), /\/hooks is not an object/);
  assert.match(refuse('{"hooks": {"PreToolUse": {}}}'), /\/hooks\/PreToolUse is not a list/);
  assert.match(
    refuse('{"hooks": {"PreToolUse": [{"hooks": 3}]}}'),
    /\/hooks\/PreToolUse\/0\/hooks/,
  );
});

/**
 * `value` without the empty lists of the events YARP hooks and then an
 * empty `hooks` map: they hold no hook, and an uninstall drops those its
 * removal emptied.
 */
function withoutEmptyHooks(
  value: Record<string, unknown>,
  host: SetupHost,
): Record<string, unknown> {
  if (typeof value.hooks !== "object" || value.hooks === null) return value;
  const hooks = Object.fromEntries(
    Object.entries(value.hooks).filter(([event, groups]) =>
      (groups as unknown[]).length > 0 || !HOOK_EVENTS[host].includes(event)
    ),
  );
  const { hooks: _dropped, ...rest } = value;
  return Object.keys(hooks).length === 0 ? rest : { ...rest, hooks };
}

Deno.test("property: install then uninstall gives back every setting and hook that was there", () => {
  const hook = fc.record({ type: fc.constant("command"), command: fc.string() });
  const group = fc.record({ matcher: fc.string(), hooks: fc.array(hook, { maxLength: 3 }) });
  const hooks = fc.dictionary(
    fc.constantFrom("PreToolUse", "PostToolUse", "Stop", "Notification"),
    fc.array(group, { maxLength: 3 }),
  );
  const settings = fc.record(
    { model: fc.string(), env: fc.dictionary(fc.string(), fc.string()), hooks },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(settings, fc.constantFrom("claude-code", "codex"), (value, host) => {
      const text = JSON.stringify(value);
      const installed = editHookSettings("s", text, host as "codex", YARP_BIN);
      assert.ok(!("error" in installed));
      const found = installedHookCommands("s", installed.text, host as "codex") as unknown[];
      assert.ok(found.length >= 2);
      const removed = editHookSettings("s", installed.text, host as "codex", undefined);
      assert.ok(!("error" in removed));
      assert.deepEqual(
        JSON.parse(removed.text),
        withoutEmptyHooks(JSON.parse(text), host as SetupHost),
      );
    }),
    { numRuns: 300 },
  );
});

Deno.test("setup arguments: one error line for each misuse", () => {
  assert.deepEqual(parseSetupArgs(["claude-code"]), {
    mode: "install",
    host: "claude-code",
    scope: "user",
    dryRun: false,
  });
  assert.deepEqual(parseSetupArgs(["codex", "--uninstall", "--project"]), {
    mode: "uninstall",
    host: "codex",
    scope: "project",
    dryRun: false,
  });
  assert.deepEqual(parseSetupArgs([]), {
    error: "missing host (claude-code, codex, gemini or opencode)",
  });
  assert.deepEqual(parseSetupArgs(["codex", "--user", "--project"]), {
    error: "--project and --user exclude each other",
  });
  assert.deepEqual(parseSetupArgs(["--status", "codex"]), {
    error: "--status takes no other argument",
  });
  assert.deepEqual(parseSetupArgs(["codex", "--force"]), { error: "unknown option '--force'" });
});

Deno.test("yarp setup: a symlinked settings file stays a link, its target keeps its mode; backup, summary, status, uninstall", async () => {
  const dir = await tempDir("yarp-setup-");
  const env = { ...privateHome(dir), DENO_DIR, CLAUDE_CONFIG_DIR: "", CODEX_HOME: "" };
  await Deno.mkdir(`${dir}/.claude`);
  await Deno.mkdir(`${dir}/dotfiles`);
  const target = `${dir}/dotfiles/claude.json`;
  const original =
    '{\n    "model": "opus",\n    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bell"}]}]}\n}\n';
  await Deno.writeTextFile(target, original, { mode: 0o640 });
  await Deno.chmod(target, 0o640);
  await Deno.symlink("../dotfiles/claude.json", `${dir}/.claude/settings.json`);
  const run = (...args: string[]) => spawnText(YARP, { args: ["setup", ...args], env, cwd: dir });

  const dry = await run("claude-code", "--dry-run");
  assert.equal(dry.code, 0);
  assert.match(
    dry.stdout,
    /^yarp setup claude-code: would have added .*dry run, nothing written\)\n$/,
  );
  assert.equal(await Deno.readTextFile(target), original);

  const installed = await run("claude-code");
  assert.equal(installed.code, 0, installed.stderr);
  assert.equal(installed.stdout.split("\n").length, 2, "one summary line");
  assert.match(installed.stdout, /added PreToolUse and PostToolUse hooks running .*bin\/yarp in /);
  assert.ok((await Deno.lstat(`${dir}/.claude/settings.json`)).isSymlink);
  assert.equal((await Deno.stat(target)).mode! & 0o777, 0o640);
  assert.equal(await Deno.readTextFile(`${dir}/.claude/settings.json.yarp-backup`), original);
  const value = JSON.parse(await Deno.readTextFile(target));
  assert.equal(value.model, "opus");
  assert.deepEqual(value.hooks.Stop, [{ hooks: [{ type: "command", command: "bell" }] }]);
  assert.equal(value.hooks.PostToolUse[0].hooks[0].command, `${YARP} hook claude-code`);

  const again = await run("claude-code");
  assert.match(again.stdout, /already installed/);
  const status = await run("--status");
  assert.equal(status.code, 0);
  assert.match(status.stdout, new RegExp(`^claude-code: installed: user .*runs ${YARP}\\n`));
  assert.match(
    status.stdout,
    /\ncodex: not installed\ngemini: not installed\nopencode: not installed\n$/,
  );

  const removed = await run("claude-code", "--uninstall");
  assert.match(removed.stdout, /removed 2 YARP hook entries/);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(target)), JSON.parse(original));
  assert.ok((await Deno.lstat(`${dir}/.claude/settings.json`)).isSymlink);
});

Deno.test("yarp setup codex --project: a new hooks.json 0600; malformed settings change nothing", async () => {
  const dir = await tempDir("yarp-setup-codex-");
  const env = { ...privateHome(dir), DENO_DIR, CODEX_HOME: "" };
  const run = (...args: string[]) => spawnText(YARP, { args: ["setup", ...args], env, cwd: dir });
  const made = await run("codex", "--project");
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /review them with \/hooks\n$/);
  assert.equal((await Deno.stat(`${dir}/.codex/hooks.json`)).mode! & 0o777, 0o600);
  const bad = '{"hooks": {"PreToolUse": 7}}\n';
  await Deno.writeTextFile(`${dir}/.codex/hooks.json`, bad);
  const refused = await run("codex", "--project");
  assert.equal(refused.code, 1);
  assert.equal(refused.stdout, "");
  assert.match(
    refused.stderr,
    /^yarp setup codex: .*hooks\.json: \/hooks\/PreToolUse is not a list of objects \(nothing changed\)\n$/,
  );
  assert.equal(await Deno.readTextFile(`${dir}/.codex/hooks.json`), bad);
  // A regular file keeps its mode through the replacement; the backup gets it too.
  await Deno.writeTextFile(`${dir}/.codex/hooks.json`, '{"hooks": {}}\n');
  await Deno.chmod(`${dir}/.codex/hooks.json`, 0o640);
  const replaced = await run("codex", "--project");
  assert.equal(replaced.code, 0, replaced.stderr);
  assert.equal((await Deno.stat(`${dir}/.codex/hooks.json`)).mode! & 0o777, 0o640);
  assert.equal((await Deno.stat(`${dir}/.codex/hooks.json.yarp-backup`)).mode! & 0o777, 0o640);
  assert.equal(await Deno.readTextFile(`${dir}/.codex/hooks.json.yarp-backup`), '{"hooks": {}}\n');
  const usage = await run("cursor");
  assert.equal(usage.code, 2);
});
