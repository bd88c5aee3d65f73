/**
 * The opencode plugin's decision (hooks/opencode/src/plugin.ts) driven with a
 * fake YARP, and `yarp setup opencode`'s config editor.
 */
import assert from "node:assert/strict";
import { afterBash, type PluginDeps } from "../hooks/opencode/src/plugin.ts";
import type { ProcessOutcome } from "../hooks/pi/src/decisions.ts";
import { editPluginList } from "../lib/hosts/opencode/settings.ts";

const BIG = "line\n".repeat(400);
const REDUCED = "line\n[yarp: kept 1 of 400 lines · exact: yarp read 0c0ffee0]\n";

function deps(outcome: ProcessOutcome, full?: string) {
  const calls: { argv: readonly string[]; stdin: string }[] = [];
  const value: PluginDeps = {
    yarp: () => ["/y/yarp"],
    run: (argv, options) => {
      calls.push({ argv, stdin: options.stdin });
      return Promise.resolve(outcome);
    },
    env: () => undefined,
    readFullOutput: () => Promise.resolve(full),
    stderr: () => {},
  };
  return { value, calls };
}

const ok = (stdout: string): ProcessOutcome => ({ kind: "exit", code: 0, stdout, stderr: "" });

Deno.test("opencode plugin: a reduction with an archived copy replaces the output, exit code passed", async () => {
  const { value, calls } = deps(ok(REDUCED));
  const output = { title: "t", output: BIG, metadata: { exit: 3, truncated: false } };
  const reason = await afterBash({ tool: "bash", args: { command: "make" } }, output, value, "/w");
  assert.equal(reason, "reduced");
  assert.equal(output.output, REDUCED);
  assert.deepEqual(output.metadata, { exit: 3, truncated: false });
  assert.deepEqual(calls[0].argv, [
    "/y/yarp",
    "result-reduce",
    "--command",
    "make",
    "--exit-code",
    "3",
    "--host",
    "opencode",
  ]);
});

Deno.test("opencode plugin: every failure or doubt leaves the output exactly as it was", async () => {
  const table: [string, ProcessOutcome, Record<string, unknown>, string][] = [
    ["make", { kind: "timeout" }, { exit: 0, truncated: false }, "timeout"],
    ["make", ok(BIG), { exit: 0, truncated: false }, "unchanged"],
    ["make", ok("short\n"), { exit: 0, truncated: false }, "no-archived-copy"],
    ["make", ok(REDUCED), { exit: 0 }, "full-output-unavailable"],
    ["make", ok(REDUCED), { truncated: false }, "no-exit-code"],
    ["yarp read 0c0ffee0", ok(REDUCED), { exit: 0, truncated: false }, "yarp-command"],
    ["YARP=off make", ok(REDUCED), { exit: 0, truncated: false }, "opted-out"],
    [
      "make",
      ok(REDUCED),
      { exit: 0, truncated: true, outputPath: "/x/tool-output/a" },
      "full-output-unavailable",
    ],
  ];
  for (const [command, outcome, metadata, expected] of table) {
    const output = { output: BIG, metadata };
    const reason = await afterBash(
      { tool: "bash", args: { command } },
      output,
      deps(outcome).value,
      undefined,
    );
    assert.equal(reason, expected, command);
    assert.equal(output.output, BIG);
  }
  const small = { output: "x\n", metadata: { exit: 0, truncated: false } };
  assert.equal(
    await afterBash(
      { tool: "bash", args: { command: "ls" } },
      small,
      deps(ok(REDUCED)).value,
      undefined,
    ),
    "small",
  );
  assert.equal(
    await afterBash(
      { tool: "read", args: {} },
      { output: BIG },
      deps(ok(REDUCED)).value,
      undefined,
    ),
    "other-tool",
  );
});

Deno.test("opencode plugin: a cut result is reduced from opencode's whole file", async () => {
  const path = "/h/opencode/tool-output/tool_1";
  const shown = `...output truncated...\n\nFull output saved to: ${path}\n\n${
    "line\n".repeat(150)
  }`;
  const { value, calls } = deps(ok(REDUCED), BIG);
  const output = { output: shown, metadata: { exit: 0, truncated: true, outputPath: path } };
  assert.equal(
    await afterBash({ tool: "bash", args: { command: "make" } }, output, value, undefined),
    "reduced",
  );
  assert.equal(calls[0].stdin, BIG);
});

Deno.test("yarp setup opencode's editor: keeps other plugins and keys, idempotent, removes only YARP's", () => {
  const spec = "file:///y/hooks/opencode/index.ts";
  const text =
    '{\n\t"model": "a/b",\n\t"plugin": ["x", "file:///old/hooks/opencode/index.ts"]\n}\n';
  const installed = editPluginList("o.json", text, spec);
  if ("error" in installed) throw new Error(installed.error);
  assert.deepEqual(JSON.parse(installed.text), { model: "a/b", plugin: ["x", spec] });
  assert.equal(installed.removed, 1);
  assert.match(installed.text, /\n\t"model"/);
  const again = editPluginList("o.json", installed.text, spec);
  assert.equal("error" in again ? again.error : again.changed, false);
  const removed = editPluginList("o.json", installed.text, undefined);
  if ("error" in removed) throw new Error(removed.error);
  assert.deepEqual(JSON.parse(removed.text), { model: "a/b", plugin: ["x"] });
  const only = editPluginList("o.json", '{"plugin": ["' + spec + '"]}', undefined);
  assert.deepEqual("error" in only ? only : JSON.parse(only.text), {});
  assert.deepEqual(editPluginList("o.json", '{"plugin": "x"}', spec), {
    error: "o.json: /plugin is not a list",
  });
  assert.ok("error" in editPluginList("o.json", '{"a": 1, "a": 2}', spec));
  assert.ok("error" in editPluginList("o.json", "// c\n{}", spec));
});
