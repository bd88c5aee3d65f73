/**
 * The opencode plugin's decision (hooks/opencode/src/plugin.ts) driven with a
 * fake YARP, its reading of opencode's full-output file, `yarp setup
 * opencode`'s config editor, the entry it writes and `yarp setup --status`.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { afterBash, type PluginDeps } from "../hooks/opencode/src/plugin.ts";
import {
  type LineServer,
  MAX_SERVED_RESULT_CHARS,
  type ResultServerSlot,
} from "../hooks/pi/src/yarp_process.ts";
import { type FullOutputFs, readFullOutput } from "../hooks/opencode/src/full_output.ts";
import type { ProcessOutcome } from "../hooks/pi/src/decisions.ts";
import { editPluginList, yarpPluginEntries } from "../lib/hosts/opencode/settings.ts";
import { opencodePluginSpec } from "../lib/cli/setup.ts";
import { privateHome, spawnText, tempDir, YARP } from "./_process.ts";

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

Deno.test("opencode plugin: one result server per instance answers; a failed one is closed and each result starts a process", async () => {
  const { value, calls } = deps(ok(REDUCED));
  const requests: Record<string, unknown>[] = [];
  const started: (readonly string[])[] = [];
  let reply: string | undefined = JSON.stringify({ changed: true, output: REDUCED });
  let closed = 0;
  const server: LineServer = {
    request: (line) => (requests.push(JSON.parse(line)), Promise.resolve(reply)),
    close: () => void closed++,
  };
  const served: PluginDeps = { ...value, serve: (argv) => (started.push(argv), server) };
  const slot: ResultServerSlot = {};
  const after = async (command: string, text: string, exit: number) => {
    const output = { title: "t", output: text, metadata: { exit, truncated: false } };
    return [
      await afterBash({ tool: "bash", args: { command } }, output, served, "/w", slot),
      output,
    ];
  };
  assert.deepEqual(await after("make | tail", BIG, 2), [
    "reduced",
    { title: "t", output: REDUCED, metadata: { exit: 2, truncated: false } },
  ]);
  reply = JSON.stringify({ changed: false, reasons: ["no-savings"] });
  assert.equal((await after("npm test", BIG, 0))[0], "unchanged");
  assert.deepEqual(started, [["/y/yarp", "result-reduce", "--serve", "--host", "opencode"]]);
  assert.deepEqual(requests, [
    { command: "make | tail", input: BIG, exit_code: 2, cwd: "/w" },
    { command: "npm test", input: BIG, exit_code: 0, cwd: "/w" },
  ]);
  assert.equal(calls.length, 0, "no process started");
  reply = undefined;
  assert.equal((await after("make", BIG, 0))[0], "reduced", "the process answers instead");
  assert.equal(closed, 1);
  assert.equal(calls.length, 1);
  assert.equal((await after("make", BIG, 0))[0], "reduced");
  assert.equal(requests.length, 3, "a failed server is not asked again");
  assert.equal(started.length, 1, "nor started again");
  assert.equal(calls.length, 2);
});

Deno.test("opencode plugin: a result too long for the server gets its own process and leaves the server up", async () => {
  const { value, calls } = deps(ok(REDUCED));
  let closed = 0;
  const requests: string[] = [];
  const server: LineServer = {
    request: (line) => (requests.push(line), Promise.resolve('{"changed":true,"output":"x"}')),
    close: () => void closed++,
  };
  const slot: ResultServerSlot = {};
  const served: PluginDeps = { ...value, serve: () => server };
  const huge = "y".repeat(MAX_SERVED_RESULT_CHARS + 1);
  const output = { title: "t", output: huge, metadata: { exit: 0, truncated: false } };
  const reason = await afterBash(
    { tool: "bash", args: { command: "make" } },
    output,
    served,
    "/w",
    slot,
  );
  assert.equal(reason, "reduced");
  assert.equal(output.output, REDUCED);
  assert.deepEqual([calls.length, requests.length, closed], [1, 0, 0]);
  assert.equal(slot.server, undefined, "not started for a request it would refuse");
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

Deno.test("yarp setup opencode's editor: the npm form replaces the checkout form and the other way", () => {
  const text = '{"plugin": ["x", "file:///old/hooks/opencode/index.ts"]}\n';
  const npm = editPluginList("o.json", text, "@yarp/opencode");
  if ("error" in npm) throw new Error(npm.error);
  assert.deepEqual(JSON.parse(npm.text).plugin, ["x", "@yarp/opencode"]);
  assert.deepEqual(yarpPluginEntries(npm.text), ["@yarp/opencode"]);
  const back = editPluginList(
    "o.json",
    '{"plugin": ["@yarp/opencode@0.1.0", "@yarp/opencode-x"]}',
    "file:///y/hooks/opencode/index.ts",
  );
  if ("error" in back) throw new Error(back.error);
  assert.deepEqual(JSON.parse(back.text).plugin, [
    "@yarp/opencode-x",
    "file:///y/hooks/opencode/index.ts",
  ]);
  assert.deepEqual(yarpPluginEntries("// not JSON"), []);
});

Deno.test("yarp setup opencode writes the checkout's file:// URL from a checkout, else the npm package", async () => {
  const checkout = new URL("../lib/cli/setup.ts", import.meta.url).href;
  assert.equal(
    await opencodePluginSpec(checkout),
    new URL("../hooks/opencode/index.ts", import.meta.url).href,
  );
  // A YARP without the checkout beside it (the compiled binary, dist/yarp.js): the package.
  const dir = await tempDir("yarp-opencode-spec-");
  assert.equal(await opencodePluginSpec(`file://${dir}/lib/cli/setup.ts`), "@yarp/opencode");
  assert.equal(
    await opencodePluginSpec("https://example.invalid/lib/cli/setup.ts"),
    "@yarp/opencode",
  );
});

Deno.test("yarp setup --status lists opencode's plugin entries, per scope, a missing file marked", async () => {
  const dir = await tempDir("yarp-opencode-status-");
  const env = {
    ...privateHome(dir),
    DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
  };
  const run = (...args: string[]) => spawnText(YARP, { args: ["setup", ...args], env, cwd: dir });
  assert.match((await run("--status")).stdout, /\nopencode: not installed\n$/);
  const installed = await run("opencode", "--user");
  assert.equal(installed.code, 0, installed.stderr);
  await Deno.writeTextFile(
    `${dir}/opencode.json`,
    '{"plugin": ["file:///gone/hooks/opencode/index.ts"]}\n',
  );
  const status = await run("--status");
  assert.equal(status.code, 0, status.stderr);
  const plugin = new URL("../hooks/opencode/index.ts", import.meta.url).href;
  assert.match(
    status.stdout,
    new RegExp(
      `\\nopencode: installed: user [^ ]*/opencode/opencode\\.json \\(plugin\\) loads ${plugin}; ` +
        `project ${dir}/opencode\\.json \\(plugin\\) loads file:///gone/hooks/opencode/index\\.ts \\(missing\\)\\n$`,
    ),
  );
});

/** A fake file system over one file whose size and time `stat` reports in turn. */
function fakeFs(bytes: Uint8Array, stats: { size: number; mtimeMs: number }[]): FullOutputFs {
  let call = 0;
  return {
    stat: () =>
      Promise.resolve({ isFile: () => true, ...stats[Math.min(call++, stats.length - 1)] }),
    read: () => Promise.resolve(bytes),
  };
}

Deno.test("opencode full output: only a stable, whole file that ends with the shown tail", async () => {
  const path = "/h/opencode/tool-output/tool_1";
  const text = "a\nb\nc\n";
  const bytes = new TextEncoder().encode(text);
  const stable = { size: bytes.length, mtimeMs: 5 };
  assert.equal(await readFullOutput(path, "b\nc\n", fakeFs(bytes, [stable])), text);
  // Growing while read, or changed after: refused.
  assert.equal(
    await readFullOutput(path, "c\n", fakeFs(bytes, [{ size: 4, mtimeMs: 5 }, stable])),
    undefined,
  );
  assert.equal(
    await readFullOutput(path, "c\n", fakeFs(bytes, [stable, { size: 9, mtimeMs: 6 }])),
    undefined,
  );
  assert.equal(
    await readFullOutput(path, "c\n", fakeFs(bytes, [stable, { size: 6, mtimeMs: 6 }])),
    undefined,
  );
  // Not ending with what opencode showed, not UTF-8, not a tool-output file: refused.
  assert.equal(await readFullOutput(path, "x\n", fakeFs(bytes, [stable])), undefined);
  const bad = new Uint8Array([0x61, 0xff, 0x0a]);
  assert.equal(await readFullOutput(path, "\n", fakeFs(bad, [{ size: 3, mtimeMs: 1 }])), undefined);
  assert.equal(await readFullOutput("/etc/passwd", "", fakeFs(bytes, [stable])), undefined);
  // The real file system: a real file read back exactly.
  const dir = await tempDir("yarp-opencode-full-");
  await Deno.mkdir(`${dir}/tool-output`);
  await Deno.writeTextFile(`${dir}/tool-output/t`, text);
  assert.equal(await readFullOutput(`${dir}/tool-output/t`, "c"), text);
  assert.equal(await readFullOutput(`${dir}/tool-output/none`, "c"), undefined);
});

Deno.test("property: a stable full-output file is returned byte for byte whenever it ends with the tail", async () => {
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: "binary" }), fc.nat(40), async (text, cut) => {
      const bytes = new TextEncoder().encode(text);
      const tail = text.slice(Math.max(0, text.length - cut));
      const got = await readFullOutput(
        "/d/tool-output/t",
        tail,
        fakeFs(bytes, [{ size: bytes.length, mtimeMs: 1 }]),
      );
      // Lone surrogates become U+FFFD in UTF-8; the text decoded is then not the text, but it is the bytes.
      const decoded = new TextDecoder().decode(bytes);
      const expected = decoded.trimEnd().endsWith(tail.trimEnd()) ? decoded : undefined;
      assert.equal(got, expected);
      if (got !== undefined) assert.deepEqual(new TextEncoder().encode(got), bytes);
    }),
  );
});
