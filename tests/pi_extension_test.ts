/**
 * The Pi extension's logic with an injected fake Pi API and a fake YARP:
 * decisions, fail-open on every failure, result handling, project-pack
 * trust, the choice of binary (version and build) and the `/yarp` report.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { joinReducedResult, splitBashResult } from "../hooks/pi/src/bash_result.ts";
import {
  decideReducedResult,
  isYarpCommand,
  markerArchiveId,
  type ProcessOutcome,
  readRewriteJson,
  readServedReduction,
  shellCall,
  shellWord,
  withInvocation,
} from "../hooks/pi/src/decisions.ts";
import { invocationWords, type YarpBinary, yarpChoices } from "../hooks/pi/src/binary.ts";
import {
  type ExtensionDeps,
  type PiApi,
  type PiContext,
  registerYarp,
} from "../hooks/pi/src/extension.ts";
import { projectPackArgs, type ProjectPackProbe } from "../hooks/pi/src/project_pack.ts";
import { type LineServer, runProcess, startLineServer } from "../hooks/pi/src/yarp_process.ts";
import { YARP_VERSION } from "../lib/cli/version.ts";
import { SANDBOX } from "../lib/base/sandbox.ts";

const exit = (stdout: string, code = 0): ProcessOutcome => ({
  kind: "exit",
  code,
  stdout,
  stderr: "",
});
const MARKED =
  "a\n[yarp: kept 1 of 900 lines · omitted 899 lines (9,000 bytes) · exact: yarp read 0123abcd]\n";

Deno.test("shellCall: bash command and exec_command cmd, nothing else", () => {
  assert.deepEqual(shellCall("bash", { command: "ls" }), { field: "command", command: "ls" });
  assert.deepEqual(shellCall("exec_command", { cmd: "ls -la" }), {
    field: "cmd",
    command: "ls -la",
  });
  for (
    const [tool, input] of [
      ["bash", { cmd: "ls" }],
      ["exec_command", { command: "ls" }],
      ["bash", { command: "  " }],
      ["bash", null],
      ["bash", "ls"],
      ["read", { path: "x" }],
      [undefined, { command: "ls" }],
      ["bash", { command: 3 }],
    ] as const
  ) {
    assert.equal(shellCall(tool, input), undefined, JSON.stringify([tool, input]));
  }
});

Deno.test("isYarpCommand: the model's own yarp calls", () => {
  for (const yes of ["yarp read 0123abcd", "  yarp search foo", "/opt/bin/yarp read x", "yarp"]) {
    assert.ok(isYarpCommand(yes), yes);
  }
  for (const no of ["yarpx read", "echo yarp read", "git log", "cat yarp"]) {
    assert.ok(!isYarpCommand(no), no);
  }
});

Deno.test("readRewriteJson: one strict JSON line; anything else leaves the command as written", () => {
  const command = "yarp run --host pi --expect-rule git/log -- git log 'a b'";
  assert.deepEqual(
    readRewriteJson(
      exit(JSON.stringify({ rewrite: true, reason: "rewritten", rule: "git/log", command }) + "\n"),
    ),
    { decision: { rewrite: true, rule: "git/log", command } },
  );
  for (const reason of ["not-simple-command", "parse:syntax-error", "unknown-program"]) {
    assert.deepEqual(readRewriteJson(exit(`{"rewrite":false,"reason":"${reason}"}\n`)), {
      decision: { rewrite: false, reason },
    });
  }
  // A rule that declined the source is named (docs/shell.md allows `rule` without `command`).
  for (const [reason, rule] of [["transform-only", "x/y"], ["guarded", "exact/sed"]]) {
    assert.deepEqual(
      readRewriteJson(exit(`{"rewrite":false,"reason":"${reason}","rule":"${rule}"}\n`)),
      { decision: { rewrite: false, reason, rule } },
    );
  }
  for (
    const malformed of [
      "",
      "yarp run --host pi --expect-rule git/log -- git log\n",
      '{"rewrite":true,"reason":"rewritten"}\n',
      '{"rewrite":true,"reason":"rewritten","rule":"git/log","command":"rm -rf /"}\n',
      '{"rewrite":true,"reason":"rewritten","rule":"git/log","command":"yarp run --host pi --expect-rule git/logx -- a"}\n',
      '{"rewrite":true,"reason":"rewritten","rule":"git/log","command":"yarp run --host pi --expect-rule git/log -- a\\nb"}\n',
      '{"rewrite":false,"reason":"transform-only","rule":"a b"}\n',
      '{"rewrite":false,"reason":"guarded","rule":3}\n',
      '{"rewrite":false,"reason":"guarded","rule":"exact/sed","command":"yarp run -- sed"}\n',
      '{"rewrite":false,"reason":"redirect","command":"yarp run -- a"}\n',
      '{"rewrite":true,"reason":"rewritten","rule":"git/log"}',
      '{"rewrite":true,"reason":"rewritten","rule":"git/log"}\n{}\n',
      '{"rewrite":"yes","reason":"rewritten","rule":"git/log"}\n',
      '{"rewrite":true,"reason":"redirect","rule":"git/log"}\n',
      '{"rewrite":false,"reason":"rewritten"}\n',
      '{"rewrite":false,"reason":"Not A Code"}\n',
      '{"rewrite":true,"reason":"rewritten","rule":"a b"}\n',
      '{"rewrite":true,"reason":"rewritten","rule":"git/log;rm"}\n',
      '[true,"rewritten","git/log"]\n',
      "null\n",
    ]
  ) {
    assert.deepEqual(readRewriteJson(exit(malformed)), { reason: "malformed-reply" }, malformed);
  }
  assert.deepEqual(
    readRewriteJson(exit('{"rewrite":true,"reason":"rewritten","rule":"git/log"}\n', 2)),
    { reason: "exit-nonzero" },
  );
  assert.deepEqual(readRewriteJson({ kind: "timeout" }), { reason: "timeout" });
  assert.deepEqual(readRewriteJson({ kind: "spawn-error", message: "ENOENT" }), {
    reason: "spawn-failed",
  });
});

Deno.test("readRewriteJson: every reply shape the real yarp rewrite --json gives is read, none malformed", async () => {
  const sources: [string, string][] = [
    ["git log", "rewritten"],
    ["cat README.md", "transform-only"],
    ["head -5 notes.txt", "transform-only"],
    ["sed -n 1,5p notes.txt", "guarded"],
    ["jq . data.json", "guarded"],
    ["tail -f app.log", "guarded"],
    ["seq 1 5", "unknown-program"],
    ["FOO=1 git log", "assignment"],
    ["git log > out.txt", "parse:redirect-unsupported"],
  ];
  for (const [source, reason] of sources) {
    const out = await new Deno.Command(new URL("../bin/yarp", import.meta.url).pathname, {
      args: ["rewrite", "--json", "--host", "pi", "--", source],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const reply = readRewriteJson(exit(stdout, out.code));
    assert.ok("decision" in reply, `${source}: ${stdout} read as ${JSON.stringify(reply)}`);
    assert.equal(reply.decision.rewrite ? "rewritten" : reply.decision.reason, reason, source);
    assert.equal(reply.decision.rule, JSON.parse(stdout).rule, `${source}: the rule YARP named`);
  }
});

Deno.test("readRewriteJson: a wrap decision only from exactly the documented object (property)", () => {
  fc.assert(fc.property(
    fc.oneof(
      fc.string(),
      fc.json().map((text) => text + "\n"),
      fc.record({
        rewrite: fc.oneof(fc.boolean(), fc.constant("true")),
        reason: fc.constantFrom("rewritten", "redirect", "parse:too-deep", "", "X"),
        rule: fc.option(fc.constantFrom("git/log", "a b", "", "search/grep"), { nil: undefined }),
        command: fc.option(
          fc.constantFrom(
            "yarp run --host pi --expect-rule git/log -- git log",
            "yarp run --host pi --expect-rule search/grep -- grep x",
            "rm -rf /",
            "yarp run --host pi --expect-rule git/log",
          ),
          { nil: undefined },
        ),
      }, { requiredKeys: [] }).map((o) => JSON.stringify(o) + "\n"),
    ),
    (stdout) => {
      const reply = readRewriteJson(exit(stdout));
      if (!("decision" in reply) || !reply.decision.rewrite) return;
      const parsed = JSON.parse(stdout);
      assert.equal(stdout.indexOf("\n"), stdout.length - 1);
      assert.deepEqual(Object.keys(parsed).sort(), ["command", "reason", "rewrite", "rule"]);
      assert.equal(parsed.rewrite, true);
      assert.equal(parsed.reason, "rewritten");
      assert.equal(parsed.rule, reply.decision.rule);
      assert.equal(parsed.command, reply.decision.command);
      assert.ok(parsed.command.startsWith(`yarp run --host pi --expect-rule ${parsed.rule} `));
    },
  ));
});

Deno.test("withInvocation: YARP's wrapper line started by the binary's own words", () => {
  assert.equal(
    withInvocation("yarp run --host pi --expect-rule git/log -- git log 'a b'", "'/x y/yarp'"),
    "'/x y/yarp' run --host pi --expect-rule git/log -- git log 'a b'",
  );
});

Deno.test("decideReducedResult: replace only a changed, smaller result naming an archived copy", () => {
  const input = "x".repeat(20000);
  assert.deepEqual(decideReducedResult(input, exit(MARKED)), {
    replace: true,
    text: MARKED,
    archiveId: "0123abcd",
  });
  assert.deepEqual(decideReducedResult(input, exit(input)), {
    replace: false,
    reason: "unchanged",
  });
  assert.deepEqual(
    decideReducedResult(input, exit("short\n[yarp: kept 1 of 9 lines · no exact copy was kept]\n")),
    {
      replace: false,
      reason: "no-archived-copy",
    },
  );
  assert.deepEqual(decideReducedResult("tiny", exit(MARKED)), {
    replace: false,
    reason: "not-smaller",
  });
  assert.deepEqual(decideReducedResult(input, exit(MARKED, 1)), {
    replace: false,
    reason: "exit-nonzero",
  });
  assert.deepEqual(decideReducedResult(input, { kind: "timeout" }), {
    replace: false,
    reason: "timeout",
  });
  assert.equal(markerArchiveId("no marker"), undefined);
});

Deno.test("splitBashResult: Pi's truncation and status notices, as Pi 0.73.1 writes them", () => {
  const path = "/tmp/pi-bash-0a1b.log";
  const cases: [string, boolean, Partial<ReturnType<typeof splitBashResult>>][] = [
    ["out\n", false, {
      body: "out\n",
      exitCode: 0,
      fullOutputPath: undefined,
      statusNotice: undefined,
    }],
    [
      `tail\n\n[Showing lines 3-2002 of 2002. Full output: ${path}]`,
      false,
      { body: "tail", fullOutputPath: path, exitCode: 0 },
    ],
    [
      `tail\n\n[Showing lines 10-900 of 900 (50.0KB limit). Full output: ${path}]\n\nCommand exited with code 3`,
      true,
      {
        body: "tail",
        fullOutputPath: path,
        statusNotice: "Command exited with code 3",
        exitCode: 3,
      },
    ],
    [
      `x\n\n[Showing last 50.0KB of line 1 (line is 2.0MB). Full output: ${path}]`,
      false,
      { body: "x", fullOutputPath: path },
    ],
    ["part\n\nCommand timed out after 5 seconds", true, { body: "part", exitCode: undefined }],
    ["Command aborted", true, { body: "", statusNotice: "Command aborted", exitCode: undefined }],
    ["boom", true, { body: "boom", statusNotice: undefined, exitCode: undefined }],
    // A success never carries a status notice: text that looks like one is output.
    ["Command exited with code 1", false, { body: "Command exited with code 1", exitCode: 0 }],
  ];
  for (const [text, isError, expected] of cases) {
    const got = splitBashResult(text, isError);
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(got[key as keyof typeof got], value, `${JSON.stringify(text)} ${key}`);
    }
  }
  assert.equal(
    joinReducedResult("r\n", "Command exited with code 1"),
    "r\n\nCommand exited with code 1",
  );
  assert.equal(joinReducedResult("r\n", undefined), "r");
});

Deno.test("splitBashResult: body plus notices always rebuilds the text (property)", () => {
  fc.assert(fc.property(fc.string(), fc.boolean(), (text, isError) => {
    const parts = splitBashResult(text, isError);
    let rebuilt = parts.body;
    if (parts.truncationNotice !== undefined) {
      rebuilt += (rebuilt === "" ? "" : "\n\n") + parts.truncationNotice;
    }
    if (parts.statusNotice !== undefined) {
      rebuilt += (rebuilt === "" ? "" : "\n\n") + parts.statusNotice;
    }
    assert.equal(rebuilt, text);
  }));
});

Deno.test("shellWord: bash reads every quoted word back exactly (property)", async () => {
  const words = fc.sample(fc.string({ minLength: 1 }).filter((w) => !w.includes("\0")), 40);
  const script = words.map((w) => `printf '%s\\0' ${shellWord(w)}`).join("\n");
  const out = await new Deno.Command("bash", { args: ["-c", script], stdout: "piped" }).output();
  assert.deepEqual(new TextDecoder().decode(out.stdout).split("\0").slice(0, -1), words);
});

const PROBES = {
  env: (_: string): string | undefined => undefined,
  which: (_: string): string | undefined => undefined,
  isFile: (_: string) => false,
  npmDeno: (): string | undefined => undefined,
  realpath: (path: string) => path,
  packageDir: "/pkg",
};
const described = (choices: ReturnType<typeof yarpChoices>) => {
  assert.ok(!("error" in choices), JSON.stringify(choices));
  return {
    candidates: choices.candidates.map((c) => c.description),
    reference: choices.reference.description,
  };
};

Deno.test("yarpChoices: an installed package: PATH yarp, compiled, then its own bundle (the reference)", () => {
  const files = ["/pkg/dist/yarp.js", "/pkg/dist/yarp"];
  const choices = yarpChoices({
    ...PROBES,
    env: (n) => n === "HOME" ? "/home/u" : undefined,
    which: (n) => ({ yarp: "/usr/bin/yarp", deno: "/usr/bin/deno" })[n],
    isFile: (p) => files.includes(p),
    npmDeno: () => "/pkg/node_modules/deno/deno",
  });
  assert.deepEqual(described(choices), {
    candidates: [
      "yarp on PATH: /usr/bin/yarp",
      "compiled: /pkg/dist/yarp",
      "/pkg/dist/yarp.js run by npm deno /pkg/node_modules/deno/deno",
      "/pkg/dist/yarp.js run by deno on PATH /usr/bin/deno",
    ],
    reference: "/pkg/dist/yarp.js run by npm deno /pkg/node_modules/deno/deno",
  });
  assert.ok(!("error" in choices));
  const bundled = choices.reference;
  assert.equal(bundled.argv.at(-1), "/pkg/dist/yarp.js");
  assert.ok(bundled.argv.includes("--allow-write=/home/u/.local/state/yarp"));
  assert.ok(bundled.argv.includes("--no-config"));
  assert.ok(
    !bundled.argv.some((a) =>
      a.startsWith("--allow-net") || a.startsWith("--allow-ffi") || a === "-A"
    ),
  );
  assert.match(
    invocationWords(bundled),
    /^DENO_NO_UPDATE_CHECK=yarp-launcher \/pkg\/node_modules\/deno\/deno run /,
  );
  // Without its own bundle or a Deno to run it, there is nothing to check a copy against.
  assert.match(
    (yarpChoices({ ...PROBES, which: (n) => n === "yarp" ? "/usr/bin/yarp" : undefined }) as {
      error: string;
    }).error,
    /no build at \/pkg\/dist\/yarp\.js/,
  );
});

Deno.test("yarpChoices: inside a checkout the sources are the reference, and come before any copy", () => {
  const files = [
    "/repo/main.ts",
    "/repo/lib/cli/version.ts",
    "/repo/bin/yarp",
    "/repo/dist/yarp.js",
    "/repo/hooks/pi/dist/yarp.js",
  ];
  const base = {
    ...PROBES,
    packageDir: "/repo/hooks/pi",
    isFile: (p: string) => files.includes(p),
    npmDeno: () => "/repo/hooks/pi/node_modules/deno/deno",
  };
  // The checkout's bin/yarp on PATH (through a link) is the reference itself, asked once.
  const linked = yarpChoices({
    ...base,
    which: (n) => ({ yarp: "/home/u/bin/yarp", deno: "/usr/bin/deno" })[n],
    realpath: (p) => p === "/home/u/bin/yarp" ? "/repo/bin/yarp" : p,
  });
  assert.deepEqual(described(linked).candidates.slice(0, 2), [
    "yarp on PATH: /home/u/bin/yarp",
    "/repo/hooks/pi/dist/yarp.js run by npm deno /repo/hooks/pi/node_modules/deno/deno",
  ]);
  assert.equal(described(linked).reference, "yarp on PATH: /home/u/bin/yarp");
  // No deno on PATH: the sources run by the npm Deno, with the checkout's deno.json.
  const npmOnly = yarpChoices(base);
  assert.deepEqual(described(npmOnly), {
    candidates: [
      "sources of the checkout: /repo/main.ts run by npm deno /repo/hooks/pi/node_modules/deno/deno",
      "/repo/hooks/pi/dist/yarp.js run by npm deno /repo/hooks/pi/node_modules/deno/deno",
      "/repo/dist/yarp.js run by npm deno /repo/hooks/pi/node_modules/deno/deno",
    ],
    reference:
      "sources of the checkout: /repo/main.ts run by npm deno /repo/hooks/pi/node_modules/deno/deno",
  });
  assert.ok(!("error" in npmOnly));
  assert.ok(npmOnly.reference.argv.includes("--config=/repo/deno.json"));
  assert.ok(npmOnly.reference.argv.includes("--cached-only"));
  // YARP_PI_BINARY alone is tried, as its own reference.
  const configured = yarpChoices({
    ...base,
    env: (n) => n === "YARP_PI_BINARY" ? "/c/yarp" : undefined,
    isFile: (p) => p === "/c/yarp" || files.includes(p),
  });
  assert.deepEqual(described(configured), {
    candidates: ["configured (YARP_PI_BINARY): /c/yarp"],
    reference: "configured (YARP_PI_BINARY): /c/yarp",
  });
  assert.match(
    (yarpChoices({ ...base, env: (n) => n === "YARP_PI_BINARY" ? "/c/yarp" : undefined }) as {
      error: string;
    }).error,
    /not an executable file/,
  );
});

Deno.test("the package's version is YARP's version", async () => {
  const manifest = JSON.parse(
    await Deno.readTextFile(new URL("../hooks/pi/package.json", import.meta.url)),
  );
  assert.equal(manifest.version, YARP_VERSION);
  assert.deepEqual(manifest.keywords, ["pi-package"]);
  assert.deepEqual(manifest.pi.extensions, ["./index.ts"]);
  assert.equal(manifest.dependencies.deno, SANDBOX.deno, "the npm Deno is the sandbox's Deno");
});

// ---------------------------------------------------------------------------
// The wiring, with a fake Pi and a fake YARP.

const BUILD = "0123456789abcdef";

interface FakeYarp {
  version?: string;
  /** The `--version --build` reply of each candidate, by description (default: the current build). */
  identities?: Record<string, string>;
  rewrite?: (source: string, args: readonly string[]) => ProcessOutcome;
  reduce?: (stdin: string, args: readonly string[]) => ProcessOutcome;
  trust?: () => ProcessOutcome;
  gain?: () => ProcessOutcome;
  /** The `yarp rewrite --lead-words` reply (default: exit 2, as a YARP without it answers). */
  leadWords?: (args: readonly string[]) => ProcessOutcome;
}

function harness(yarp: FakeYarp, overrides: Partial<ExtensionDeps> = {}, cwd = "/project") {
  const handlers = new Map<string, (event: unknown, ctx: PiContext) => unknown>();
  const commands = new Map<string, (args: string, ctx: PiContext) => unknown>();
  const calls: string[][] = [];
  const notes: string[] = [];
  const pi: PiApi = {
    on: (name, handler) => handlers.set(name, handler as never),
    registerCommand: (name, options) => commands.set(name, options.handler),
  };
  const deps: ExtensionDeps = {
    version: "0.1.0",
    locate: () => ({ candidates: [FAKE_BINARY], reference: FAKE_BINARY }),
    run: (binary, args, options) => {
      calls.push([...args]);
      if (args[0] === "--version") {
        const identity = yarp.identities?.[binary.description] ??
          `yarp ${yarp.version ?? "0.1.0"} (build ${BUILD})`;
        return Promise.resolve(exit(`${identity}\n`));
      }
      if (args[0] === "rewrite" && args[1] === "--lead-words") {
        return Promise.resolve(yarp.leadWords?.(args) ?? exit("", 2));
      }
      if (args[0] === "rewrite") {
        return Promise.resolve(
          yarp.rewrite?.(args[args.length - 1], args) ?? DECLINE("unknown-program"),
        );
      }
      if (args[0] === "result-reduce") {
        return Promise.resolve(
          yarp.reduce?.(options.stdin ?? "", args) ?? exit(options.stdin ?? ""),
        );
      }
      if (args[0] === "trust") {
        return Promise.resolve(yarp.trust?.() ?? exit('{"recorded_digest":null}'));
      }
      if (args[0] === "archive") {
        return Promise.resolve(exit('{"path":"/state/yarp/archive.sqlite3"}'));
      }
      if (args[0] === "gain") return Promise.resolve(yarp.gain?.() ?? exit(gainJson(0, 0)));
      return Promise.resolve(exit("", 2));
    },
    readFullOutput: (path) => Promise.resolve(path === "/tmp/pi-bash-ab.log" ? FULL : undefined),
    projectPack: {
      realpath: () => Promise.resolve(undefined),
      isRegularFile: () => Promise.resolve(false),
      sha256: () => Promise.resolve(undefined),
    },
    stderr: (line) => notes.push(line),
    ...overrides,
  };
  registerYarp(pi, deps);
  const ctx: PiContext = { cwd, hasUI: false };
  return {
    calls,
    notes,
    async call(toolName: string, input: Record<string, unknown>, id = "c1") {
      return await handlers.get("tool_call")!({ toolName, toolCallId: id, input }, ctx);
    },
    async result(
      toolName: string,
      input: Record<string, unknown>,
      text: string,
      isError = false,
      id = "c1",
    ) {
      return await handlers.get("tool_result")!(
        {
          toolName,
          toolCallId: id,
          input,
          content: [{ type: "text", text }],
          isError,
          details: {},
        },
        ctx,
      ) as { content: { text: string }[]; isError: boolean } | undefined;
    },
    async command(args: string) {
      notes.length = 0;
      await commands.get("yarp")!(args, ctx);
      return notes.join("\n");
    },
  };
}

const FAKE_BINARY: YarpBinary = { argv: ["/bin/yarp"], env: {}, description: "fake" };
const FULL = "FULL OUTPUT\n".repeat(5000);
/**
 * The fake `yarp rewrite --json`: a wrap decision whose wrapper names the
 * `--rule-pack` it was given with `digest` (the source is used as its argv text).
 */
const WRAP = (source: string, args: readonly string[] = [], digest = DIGEST) => {
  const pack = args.indexOf("--rule-pack");
  const packs = pack < 0 ? "" : `--rule-pack ${args[pack + 1]} --pack-digest ${digest} `;
  const command = `yarp run --host pi --expect-rule git/log ${packs}-- ${source}`;
  return exit(
    JSON.stringify({ rewrite: true, reason: "rewritten", rule: "git/log", command }) + "\n",
  );
};
/** A `yarp gain --json` reply whose total is `before` → `after` over one call. */
const gainJson = (before: number, after: number) =>
  JSON.stringify({
    since: null,
    hosts: [],
    total: { calls: 1, chars_before: before, chars_after: after, saved: before - after },
  }) + "\n";
const DECLINE = (reason: string, rule?: string) =>
  exit(JSON.stringify({ rewrite: false, reason, ...(rule === undefined ? {} : { rule }) }) + "\n");

Deno.test("/yarp: guarded and transform-only commands count under YARP's reason, not as malformed", async () => {
  // The reply shapes `yarp rewrite --json` gives for these commands.
  const declined: Record<string, [string, string]> = {
    "cat README.md": ["transform-only", "pipeline/cat"],
    "head -5 x": ["transform-only", "pipeline/head"],
    "sed -n 1,5p x": ["guarded", "exact/sed"],
    "jq . f.json": ["guarded", "exact/jq"],
    "tail -f log": ["guarded", "pipeline/guard-tail-follow"],
  };
  const h = harness({ rewrite: (source) => DECLINE(...declined[source]) });
  let id = 0;
  for (const source of Object.keys(declined)) {
    const input = { command: source };
    await h.call("bash", input, `d${id++}`);
    assert.equal(input.command, source);
  }
  const report = await h.command("");
  assert.match(report, /rewrite:transform-only: 2/);
  assert.match(report, /rewrite:guarded: 3/);
  assert.doesNotMatch(report, /malformed/);
  assert.match(report, /errors: none/);
});

Deno.test("/yarp: recent archive ids include the results yarp run reduced", async () => {
  const h = harness({ rewrite: WRAP, reduce: () => exit(MARKED) });
  const input = { command: "git log" };
  await h.call("bash", input, "w");
  const byRun =
    "b\n[yarp: kept 1 of 900 lines · omitted 899 lines (9,000 bytes) · exact: yarp read 4567cdef]";
  assert.equal(await h.result("bash", input, byRun, false, "w"), undefined);
  await h.call("bash", { command: "make | tail" }, "r");
  assert.ok(await h.result("bash", { command: "make | tail" }, "m".repeat(9000), false, "r"));
  const report = await h.command("");
  assert.match(report, /recent archive ids: 4567cdef, 0123abcd\n/);
});

Deno.test("--host pi on every rewrite and result-reduce; /yarp's saved characters are yarp gain's", async () => {
  const h = harness({
    rewrite: WRAP,
    reduce: () => exit(MARKED),
    gain: () => exit(gainJson(9000, 120)),
  });
  const started = Date.now();
  await h.call("bash", { command: "git log" }, "w");
  await h.call("bash", { command: "make | tail" }, "r");
  assert.ok(await h.result("bash", { command: "make | tail" }, "m".repeat(9000), false, "r"));
  const report = await h.command("");
  const hosted = (name: string) => {
    const calls = h.calls.filter((c) => c[0] === name);
    assert.ok(calls.length > 0, name);
    for (const args of calls) {
      const at = args.indexOf("--host");
      assert.equal(args[at + 1], "pi", `${name}: ${args.join(" ")}`);
      assert.ok(at > 0 && at < (args.indexOf("--") >>> 0), `${name}: options before --`);
    }
    return calls;
  };
  hosted("rewrite");
  hosted("result-reduce");
  const [gain] = hosted("gain");
  assert.deepEqual(gain.slice(0, 2), ["gain", "--json"]);
  const since = Date.parse(gain[gain.indexOf("--since") + 1]);
  assert.ok(since <= started && since > started - 60_000, gain.join(" "));
  assert.match(
    report,
    /saved in Pi since this session started \(yarp gain --host pi\): 1 results reduced, 9000 → 120 characters, saved 8880\n/,
  );
});

Deno.test("/yarp: a failing yarp gain is one line; the rest of the report stays", async () => {
  for (
    const [outcome, said] of [
      [exit("", 1), "exit 1"],
      [{ kind: "timeout" }, "timed out"],
      [exit("not json"), "malformed reply"],
      [exit('{"total":{"calls":1}}'), "malformed reply"],
    ] as [ProcessOutcome, string][]
  ) {
    const h = harness({ gain: () => outcome });
    await h.call("bash", { command: "seq 1 9" }, "s");
    const report = await h.command("");
    const lines = report.split("\n").filter((line) => line.includes("yarp gain"));
    assert.deepEqual(lines, [
      `saved in Pi since this session started: unknown (yarp gain: ${said})`,
    ]);
    assert.match(report, /rewrite:unknown-program: 1/);
    assert.match(report, /archive: \/state\/yarp\/archive\.sqlite3/);
    assert.match(report, /yarp read ID/);
  }
});

Deno.test("tool_call: the wrapper is applied only when YARP says so; bash and exec_command", async () => {
  const h = harness({
    rewrite: (source, args) =>
      source.startsWith("git log") ? WRAP(source, args) : DECLINE("unknown-program"),
  });
  const input = { command: "git log" };
  assert.equal(await h.call("bash", input), undefined);
  assert.equal(input.command, "/bin/yarp run --host pi --expect-rule git/log -- git log");
  assert.deepEqual(h.calls.at(-1), ["rewrite", "--json", "--host", "pi", "--", "git log"]);
  const exec = { cmd: "git log" };
  await h.call("exec_command", exec, "c2");
  assert.equal(exec.cmd, "/bin/yarp run --host pi --expect-rule git/log -- git log");
  const plain = { command: "ls" };
  await h.call("bash", plain, "c3");
  assert.equal(plain.command, "ls");
  // YARP's own wrapper line is used, from one process.
  const quoted = { command: `git log --format="%h %s"` };
  const before = h.calls.length;
  await h.call("bash", quoted, "c4");
  assert.equal(
    quoted.command,
    `/bin/yarp run --host pi --expect-rule git/log -- git log --format="%h %s"`,
  );
  assert.equal(h.calls.length, before + 1);
  // A source that certainly is not one simple command never starts a process.
  const pipeline = { command: "git log | head -5" };
  const count = h.calls.length;
  await h.call("bash", pipeline, "c6");
  assert.equal(pipeline.command, "git log | head -5");
  assert.equal(h.calls.length, count);
  const report = await h.command("");
  assert.match(report, /rewrite:compound: 1/);
  assert.match(report, /rewrite:unknown-program: 1/);
  assert.match(report, /commands rewritten to yarp run: 3/);
  // The wrapped result is never reduced a second time.
  assert.equal(await h.result("bash", input, "x".repeat(9000)), undefined);
  assert.ok(!h.calls.some((c) => c[0] === "result-reduce"));
});

Deno.test("tool_call and tool_result fail open on every failure, and never throw", async () => {
  const failures: ProcessOutcome[] = [
    { kind: "timeout" },
    { kind: "spawn-error", message: "ENOENT" },
    exit('{"rewrite":true,"reason":"rewritten","rule":"git/log"}\n', 1),
    exit("yarp run --host pi --expect-rule git/log -- git log\n"),
    exit('{"rewrite":true,"reason":"rewritten"}\n'),
  ];
  for (const failure of failures) {
    const h = harness({ rewrite: () => failure, reduce: () => failure });
    const input = { command: "git log" };
    await h.call("bash", input);
    assert.equal(input.command, "git log", JSON.stringify(failure));
    assert.equal(await h.result("bash", input, "y".repeat(9000)), undefined);
  }
  const throwing = harness({
    rewrite: () => {
      throw new Error("boom");
    },
    reduce: () => {
      throw new Error("boom");
    },
  });
  const input = { command: "git log" };
  assert.equal(await throwing.call("bash", input), undefined);
  assert.equal(input.command, "git log");
  assert.equal(await throwing.result("bash", input, "z"), undefined);
  assert.match(await throwing.command(""), /tool-call/);
  const missing = harness({}, { locate: () => ({ error: "no yarp on PATH" }) });
  await missing.call("bash", input);
  assert.equal(input.command, "git log");
  assert.match(missing.notes.join("\n"), /YARP disabled for this session: no yarp on PATH/);
});

Deno.test("a timeout disables YARP for the session, so a hang costs one timeout", async () => {
  const h = harness({ rewrite: () => ({ kind: "timeout" }) });
  await h.call("bash", { command: "git log" }, "a");
  await h.call("bash", { command: "git log" }, "b");
  assert.equal(h.calls.filter((c) => c[0] === "rewrite").length, 1);
  assert.equal(h.notes.filter((n) => n.startsWith("YARP disabled")).length, 1);
});

Deno.test("version mismatch: nothing rewritten or reduced, one notice, shown in /yarp", async () => {
  const h = harness({ version: "9.9.9", rewrite: WRAP, reduce: () => exit(MARKED) });
  const input = { command: "git log" };
  await h.call("bash", input, "a");
  await h.call("bash", { command: "git log" }, "b");
  assert.equal(input.command, "git log");
  assert.equal(
    await h.result("bash", { command: "git log | head" }, "q".repeat(9000), false, "x"),
    undefined,
  );
  assert.equal(
    h.notes.filter((n) => /version mismatch: extension 0\.1\.0, binary 9\.9\.9/.test(n)).length,
    1,
  );
  assert.ok(!h.calls.some((c) => c[0] === "rewrite" || c[0] === "result-reduce"));
  assert.match(await h.command(""), /disabled: version mismatch/);
});

Deno.test("tool_result: full output from Pi's file, notices and isError kept, yarp read never reduced", async () => {
  const seen: { stdin: string; args: readonly string[] }[] = [];
  const h = harness({
    reduce: (stdin, args) => {
      seen.push({ stdin, args });
      return exit(MARKED);
    },
  });
  const visible =
    "tail\n\n[Showing lines 2-3 of 3. Full output: /tmp/pi-bash-ab.log]\n\nCommand exited with code 4";
  const input = { command: "make 2>&1 | tail -3" };
  await h.call("bash", input);
  const replaced = await h.result("bash", input, visible.padStart(30000, "z"), true);
  assert.ok(replaced !== undefined);
  assert.equal(seen[0].stdin, FULL);
  assert.deepEqual(seen[0].args, [
    "result-reduce",
    "--command",
    "make 2>&1 | tail -3",
    "--exit-code",
    "4",
    "--host",
    "pi",
  ]);
  assert.equal(replaced.isError, true);
  assert.ok(
    replaced.content[0].text.endsWith("exact: yarp read 0123abcd]\n\nCommand exited with code 4"),
  );
  // A full-output path that is not Pi's file: pass through.
  const other = "tail\n\n[Showing lines 2-3 of 3. Full output: /etc/shadow]";
  assert.equal(
    await h.result("bash", { command: "x | y" }, other.padStart(30000, "z"), false, "o"),
    undefined,
  );
  // The model's own yarp read: runs the binary the extension found, and is never reduced.
  const read = { command: "yarp read 0123abcd" };
  await h.call("bash", read, "r");
  assert.equal(read.command, "/bin/yarp read 0123abcd");
  assert.equal(
    await h.result("bash", { command: "yarp read 0123abcd" }, "w".repeat(30000), false, "r"),
    undefined,
  );
  assert.equal(seen.length, 1);
  const report = await h.command("");
  assert.match(report, /recent archive ids: 0123abcd\n/);
  assert.match(report, /result:yarp-command: 1/);
  assert.match(report, /result:full-output-unavailable: 1/);
  assert.match(report, /archive: \/state\/yarp\/archive\.sqlite3/);
  assert.match(report, /recent archive ids: 0123abcd/);
});

Deno.test("session start: the fastest copy with the reference's version and build; stale copies passed over", async () => {
  const copy = (description: string): YarpBinary => ({ argv: [description], env: {}, description });
  const [onPath, stale, old, reference] = ["on-path", "stale", "old", "reference"].map(copy);
  const identities = {
    "on-path": "yarp 0.1.0",
    stale: "yarp 0.1.0 (build ffffffffffffffff)",
    old: "yarp 0.0.9 (build 0123456789abcdef)",
  };
  const asked: string[] = [];
  const h = harness({ identities, rewrite: WRAP }, {
    locate: () => ({ candidates: [onPath, stale, old, reference], reference }),
  });
  const doctor = await h.command("doctor");
  assert.match(doctor, /binary: reference\n/);
  assert.match(doctor, /binary version: 0\.1\.0 \(build 0123456789abcdef\)/);
  assert.match(doctor, /passed over: on-path: stale, yarp 0\.1\.0\n/);
  assert.match(doctor, /passed over: stale: stale, yarp 0\.1\.0 \(build ffffffffffffffff\)/);
  assert.match(doctor, /passed over: old: yarp 0\.0\.9/);
  assert.match(doctor, /state: enabled/);
  const input = { command: "git log" };
  await h.call("bash", input);
  assert.match(input.command, /^reference run /);
  // The reference is asked once, then each faster copy once, in order.
  asked.push(...h.calls.filter((c) => c[0] === "--version").map((c) => c.join(" ")));
  assert.deepEqual(asked, Array(4).fill("--version --build"));
  // The first copy that matches wins; the reference's own answer is not asked again.
  const fast = harness({ identities: {} }, {
    locate: () => ({ candidates: [onPath, reference], reference }),
  });
  assert.match(await fast.command("doctor"), /binary: on-path\n/);
  assert.equal(fast.calls.filter((c) => c[0] === "--version").length, 2);
  // The reference first in line: one `--version`, no build digest asked (costly from source).
  const first = harness({}, { locate: () => ({ candidates: [reference, onPath], reference }) });
  assert.match(await first.command("doctor"), /binary: reference\nbinary version: 0\.1\.0/);
  assert.deepEqual(first.calls.filter((c) => c[0] === "--version"), [["--version"]]);
  // No copy of the current build: disabled, said once.
  const none = harness({ identities: { "on-path": "yarp 0.1.0" } }, {
    locate: () => ({ candidates: [onPath], reference }),
  });
  await none.call("bash", { command: "git log" });
  assert.match(none.notes.join("\n"), /YARP disabled for this session: no copy reports/);
});

Deno.test("/yarp off|on toggles reduction; /yarp doctor names the binary", async () => {
  const h = harness({ rewrite: WRAP });
  await h.command("off");
  const input = { command: "git log" };
  await h.call("bash", input, "a");
  assert.equal(input.command, "git log");
  await h.command("on");
  await h.call("bash", input, "b");
  assert.match(input.command, /^\/bin\/yarp run/);
  assert.match(await h.command("doctor"), /binary: fake/);
  assert.match(await h.command("bogus"), /unknown argument 'bogus'/);
});

// ---------------------------------------------------------------------------
// Project packs and trust.

const DIGEST = "ab".repeat(32);

function probe(files: Record<string, string>, regular = true): ProjectPackProbe {
  return {
    realpath: (path) => Promise.resolve(path in files ? files[path] : undefined),
    isRegularFile: () => Promise.resolve(regular),
    sha256: () => Promise.resolve(DIGEST),
  };
}

const trusted = () => Promise.resolve(exit(`{"recorded_digest":"${DIGEST}"}`));
const PACKED = { "/p": "/p", "/p/.yarp/rules.yrp": "/p/.yarp/rules.yrp" };

Deno.test("project pack: passed only for Pi trust, YARP trust with the same digest, inside the root", async () => {
  const cases: [
    string,
    boolean | undefined,
    ProjectPackProbe,
    () => Promise<ProcessOutcome>,
    RegExp | null,
  ][] = [
    ["trusted by both", true, probe(PACKED), trusted, null],
    ["Pi without a trust API: YARP's trust alone", undefined, probe(PACKED), trusted, null],
    ["Pi does not trust", false, probe(PACKED), trusted, /Pi does not trust/],
    ["no pack", true, probe({ "/p": "/p" }), trusted, /no \.yarp\/rules\.yrp/],
    [
      "symlink escape",
      true,
      probe({ "/p": "/p", "/p/.yarp/rules.yrp": "/elsewhere/rules.yrp" }),
      trusted,
      /outside the project root/,
    ],
    [
      "sibling prefix",
      true,
      probe({ "/p": "/p", "/p/.yarp/rules.yrp": "/p2/rules.yrp" }),
      trusted,
      /outside/,
    ],
    ["not a regular file", true, probe(PACKED, false), trusted, /not a regular file/],
    [
      "never trusted",
      true,
      probe(PACKED),
      () => Promise.resolve(exit('{"recorded_digest":null}')),
      /is not trusted/,
    ],
    [
      "changed since trust",
      true,
      probe(PACKED),
      () => Promise.resolve(exit(`{"recorded_digest":"${"cd".repeat(32)}"}`)),
      /changed since/,
    ],
    [
      "trust status fails",
      true,
      probe(PACKED),
      () => Promise.resolve({ kind: "timeout" } as const),
      /no answer/,
    ],
  ];
  for (const [name, piTrust, files, ask, reason] of cases) {
    const { args, trust } = await projectPackArgs("/p", piTrust, files, ask, new Map());
    if (reason === null) {
      assert.deepEqual(args, ["--rule-pack", "/p/.yarp/rules.yrp"], name);
      assert.equal(trust.state, "passed", name);
    } else {
      assert.deepEqual(args, [], name);
      assert.match(trust.detail, reason, name);
    }
  }
});

Deno.test("project pack: the trusted pack reaches rewrite and result-reduce", async () => {
  const seen: (readonly string[])[] = [];
  const h = harness({
    rewrite: (source, args) => {
      seen.push(args);
      return source === "git log" ? WRAP(source, args) : DECLINE("unknown-program");
    },
    reduce: (stdin, args) => {
      seen.push(args);
      return exit(stdin);
    },
    trust: () => exit(`{"recorded_digest":"${DIGEST}"}`),
  }, {
    projectPack: probe({
      "/project": "/project",
      "/project/.yarp/rules.yrp": "/project/.yarp/rules.yrp",
    }),
  });
  await h.call("bash", { command: "seq 1 9" });
  await h.result("bash", { command: "seq 1 9" }, "1\n".repeat(600));
  const input = { command: "git log" };
  await h.call("bash", input, "g");
  assert.equal(seen.length, 3);
  for (const args of seen) {
    assert.ok(args.join(" ").includes("--rule-pack /project/.yarp/rules.yrp"), args.join(" "));
  }
  assert.equal(
    input.command,
    `/bin/yarp run --host pi --expect-rule git/log --rule-pack /project/.yarp/rules.yrp --pack-digest ${DIGEST} -- git log`,
  );
});

Deno.test("project pack: a wrapper naming another digest than the trusted one is refused", async () => {
  const h = harness({
    rewrite: (source, args) => WRAP(source, args, "cd".repeat(32)),
    trust: () => exit(`{"recorded_digest":"${DIGEST}"}`),
  }, {
    projectPack: probe({
      "/project": "/project",
      "/project/.yarp/rules.yrp": "/project/.yarp/rules.yrp",
    }),
  });
  const input = { command: "git log" };
  await h.call("bash", input);
  assert.equal(input.command, "git log");
  assert.match(await h.command(""), /rewrite:pack-changed: 1/);
});

Deno.test("with the real yarp: /yarp's saved characters equal yarp gain --json --host pi's", async () => {
  const dir = await Deno.makeTempDir({ prefix: "yarp-pi-gain-" });
  try {
    const env = { HOME: dir, XDG_STATE_HOME: `${dir}/state` };
    const yarp = new URL("../bin/yarp", import.meta.url).pathname;
    const binary: YarpBinary = { argv: [yarp], env, description: "checkout" };
    const h = harness({}, {
      version: YARP_VERSION,
      locate: () => ({ candidates: [binary], reference: binary }),
      run: (b, args, options) => runProcess([...b.argv, ...args], { ...options, env: b.env }),
    }, dir);
    // The wrapper YARP writes runs `yarp run --host pi`.
    const input = { command: "git log" };
    await h.call("bash", input, "w");
    assert.match(
      input.command,
      /\/bin\/yarp run --host pi (\S+ )*-- git log$/,
    );
    // Two results reduced in Pi, and one by the CLI in the same archive (not Pi's).
    const lines = (n: number, word: string) =>
      Array.from({ length: n }, (_, i) => `${word} ${i}\n`).join("");
    for (const [id, text] of [["a", lines(3000, "built")], ["b", lines(2000, "ok")]]) {
      const reduced = await h.result("bash", { command: "make" }, text, false, id);
      assert.ok(reduced !== undefined && reduced.content[0].text.length < text.length, id);
    }
    const cli = await new Deno.Command(yarp, {
      args: ["result-reduce", "--command", "make"],
      env,
      stdin: "piped",
      stdout: "null",
    }).spawn();
    const writer = cli.stdin.getWriter();
    await writer.write(new TextEncoder().encode(lines(4000, "cli")));
    await writer.close();
    assert.equal((await cli.status).code, 0);
    const report = await h.command("");
    const shown =
      /\(yarp gain --host pi\): (\d+) results reduced, (\d+) → (\d+) characters, saved (-?\d+)\n/
        .exec(report);
    assert.ok(shown !== null, report);
    const gain = await new Deno.Command(yarp, { args: ["gain", "--json", "--host", "pi"], env })
      .output();
    const total = JSON.parse(new TextDecoder().decode(gain.stdout)).total;
    assert.deepEqual(shown.slice(1).map(Number), [
      total.calls,
      total.chars_before,
      total.chars_after,
      total.saved,
    ]);
    assert.equal(total.calls, 2, "the CLI's reduction is not Pi's");
    assert.ok(total.saved > 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---------------------------------------------------------------------------
// The process edge.

Deno.test("runProcess: stdin in, stdout out, exit code, spawn failure", async () => {
  assert.deepEqual(await runProcess(["cat"], { stdin: "hello", timeoutMs: 5000 }), exit("hello"));
  const failed = await runProcess(["sh", "-c", "echo e >&2; exit 3"], { timeoutMs: 5000 });
  assert.deepEqual(failed, { kind: "exit", code: 3, stdout: "", stderr: "e\n" });
  assert.equal((await runProcess(["/nonexistent/yarp"], { timeoutMs: 5000 })).kind, "spawn-error");
});

Deno.test("runProcess: a timeout kills the whole process group and releases the pipes", async () => {
  const pidFile = await Deno.makeTempFile();
  const started = performance.now();
  // The grandchild holds stdout open; without the group kill it would keep the pipe alive.
  const outcome = await runProcess([
    "sh",
    "-c",
    `sh -c 'echo $$ > ${pidFile}; exec sleep 30' & sleep 30`,
  ], {
    timeoutMs: 500,
  });
  assert.deepEqual(outcome, { kind: "timeout" });
  assert.ok(performance.now() - started < 5000);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const pid = (await Deno.readTextFile(pidFile)).trim();
  assert.match(pid, /^\d+$/);
  let state = "gone";
  try {
    state = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1][0];
  } catch {
    // no such process
  }
  assert.ok(state === "gone" || state === "Z", `the grandchild is gone (state ${state})`);
  await Deno.remove(pidFile);
});

Deno.test("the real I/O edge: Pi's full-output file only, pack probes, version from package.json", async () => {
  const { realDeps } = await import("../hooks/pi/index.ts");
  const deps = realDeps();
  assert.equal(deps.version, YARP_VERSION);
  const { tmpdir } = await import("node:os");
  const path = `${tmpdir()}/pi-bash-${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}.log`;
  await Deno.writeTextFile(path, "head\nmiddle\ntail\n");
  try {
    assert.equal(await deps.readFullOutput(path, "middle\ntail"), "head\nmiddle\ntail\n");
    assert.equal(
      await deps.readFullOutput(path, "something else"),
      undefined,
      "must end with what Pi showed",
    );
    assert.equal(await deps.readFullOutput("/etc/passwd", ""), undefined, "only Pi's files");
    assert.equal(await deps.readFullOutput(`${tmpdir()}/pi-bash-zz.log`, ""), undefined);
    assert.equal(await deps.projectPack.realpath("/nonexistent/x"), undefined);
    assert.equal(await deps.projectPack.isRegularFile(path), true);
    assert.equal(await deps.projectPack.isRegularFile("/nonexistent/x"), false);
    assert.match((await deps.projectPack.sha256(path))!, /^[0-9a-f]{64}$/);
    assert.equal(await deps.projectPack.sha256("/nonexistent/x"), undefined);
  } finally {
    await Deno.remove(path);
  }
  // In this checkout the sources are the reference; no way of starting YARP goes through node.
  const located = deps.locate();
  assert.ok(!("error" in located), JSON.stringify(located));
  assert.match(located.reference.description, /^(sources of the checkout|yarp on PATH): /);
  for (const candidate of located.candidates) {
    assert.ok(!/(^|\/)node$|\.cjs$/.test(candidate.argv[0]), candidate.description);
  }
});

Deno.test("lead words: a simple command naming no rule program starts no yarp rewrite once known", async () => {
  const stamps = new Map<string, string | null>([["/c/config.yaml", "1:10"]]);
  const leadWords = () =>
    exit(
      JSON.stringify({
        programs: ["git"],
        patterns: ["^go1\\.\\d+$"],
        inputs: [{ path: "/c/config.yaml", stamp: stamps.get("/c/config.yaml") }],
      }) + "\n",
    );
  const h = harness({
    rewrite: (source, args) =>
      source === "git log" ? WRAP(source, args) : DECLINE("no-rule-matched"),
    leadWords,
  }, { fileStamp: (path) => Promise.resolve(stamps.get(path) ?? null) });
  const rewrites = () => h.calls.filter((c) => c[0] === "rewrite" && c[1] !== "--lead-words");
  const asked = () => h.calls.filter((c) => c[1] === "--lead-words").length;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  await h.call("bash", { command: "seq 1 5" }, "a");
  assert.equal(rewrites().length, 1, "the first call is asked while the lead words load");
  assert.equal(asked(), 1);
  await settle();
  await h.call("bash", { command: "seq 1 5" }, "b");
  assert.equal(rewrites().length, 1, "known: no process");
  const wrapped = { command: "git log" };
  await h.call("bash", wrapped, "c");
  assert.equal(rewrites().length, 2, "a rule program is asked");
  assert.match(wrapped.command, /^\/bin\/yarp run --host pi --expect-rule git\/log /);
  for (const source of ["go1.22 test", "'seq' 1", "time seq 3", "X=1 seq"]) {
    await h.call("bash", { command: source }, source);
  }
  assert.equal(rewrites().length, 6, "renamed forms, quoting, reserved words, assignments");
  stamps.set("/c/config.yaml", "3:11");
  await h.call("bash", { command: "seq 1 5" }, "d");
  assert.equal(rewrites().length, 7, "a changed input: asked again");
  await h.call("bash", { command: "seq 1 5" }, "e");
  assert.equal(asked(), 2, "and the lead words are asked again");
  await settle();
  await h.call("bash", { command: "seq 1 5" }, "f");
  assert.equal(rewrites().length, 8, "e was asked while they loaded; f is not");
  assert.match(await h.command(""), /rewrite:unknown-program: 2\n/);
});

Deno.test("lead words: no stamp probe, or a failed reply, leaves every simple command asked", async () => {
  const bare = harness({ rewrite: () => DECLINE("unknown-program") });
  await bare.call("bash", { command: "seq 1" }, "a");
  await bare.call("bash", { command: "seq 2" }, "b");
  assert.equal(bare.calls.filter((c) => c[1] === "--lead-words").length, 0);
  assert.equal(bare.calls.filter((c) => c[0] === "rewrite").length, 2);
  const failing = harness({ leadWords: () => exit("not json\n") }, {
    fileStamp: () => Promise.resolve(null),
  });
  for (const id of ["a", "b", "c"]) {
    await failing.call("bash", { command: "seq 1" }, id);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  assert.equal(failing.calls.filter((c) => c[1] === "--lead-words").length, 1);
  assert.equal(
    failing.calls.filter((c) => c[0] === "rewrite" && c[1] !== "--lead-words").length,
    3,
  );
});

Deno.test("remembered decisions: a repeated source starts no yarp rewrite until a rule file changes", async () => {
  let stamp = "1:10";
  const h = harness({
    rewrite: (source, args) =>
      source === "git log" ? WRAP(source, args) : DECLINE("guarded", "exact/x"),
    leadWords: () =>
      exit(
        JSON.stringify({
          programs: ["git"],
          patterns: [],
          inputs: [{ path: "/c/config.yaml", stamp }],
        }) + "\n",
      ),
  }, { fileStamp: () => Promise.resolve(stamp) });
  const rewrites = () => h.calls.filter((c) => c[0] === "rewrite" && c[1] !== "--lead-words");
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  await h.call("bash", { command: "git log" }, "a");
  await settle();
  assert.equal(rewrites().length, 1, "asked before the knowledge is there: not remembered");
  const inputs = [{ command: "git log" }, { command: "git log" }, { command: "git status" }];
  for (const [index, input] of inputs.entries()) await h.call("bash", input, `b${index}`);
  assert.equal(rewrites().length, 3, "git log once more, then remembered; git status once");
  assert.match(inputs[1].command, /^\/bin\/yarp run --host pi --expect-rule git\/log -- git log$/);
  assert.equal(inputs[1].command, inputs[0].command, "the remembered wrapper is the same");
  await h.call("bash", { command: "git status" }, "c");
  assert.equal(rewrites().length, 3, "a remembered decline starts no process either");
  stamp = "2:11";
  await h.call("bash", { command: "git log" }, "d");
  await settle();
  assert.equal(rewrites().length, 4, "a changed file forgets every decision");
  await h.call("bash", { command: "git log" }, "e");
  await settle();
  await h.call("bash", { command: "git log" }, "f");
  await h.call("bash", { command: "git log" }, "g");
  assert.equal(
    rewrites().length,
    6,
    "asked while the knowledge reloads, then once, then remembered",
  );
  const report = await h.command("");
  assert.match(report, /rewrite:guarded: 2\n/);
  assert.match(report, /commands rewritten to yarp run: 7\n/);
});

Deno.test("rewrite server: new sources are answered by yarp rewrite --serve; a failed server falls back", async () => {
  const served: string[] = [];
  let broken = false;
  let closed = 0;
  const server: LineServer = {
    request: (line) => {
      served.push(JSON.parse(line));
      if (broken) return Promise.resolve(undefined);
      const source = JSON.parse(line) as string;
      const reply = source === "git log" ? WRAP(source, []) : DECLINE("no-rule-matched");
      return Promise.resolve((reply as { stdout: string }).stdout.trimEnd());
    },
    close: () => void closed++,
  };
  const started: string[][] = [];
  const h = harness({
    rewrite: (source, args) =>
      source === "git log" ? WRAP(source, args) : DECLINE("no-rule-matched"),
    leadWords: () =>
      exit('{"programs":["git"],"patterns":[],"inputs":[{"path":"/c","stamp":"1:1"}]}\n'),
  }, {
    fileStamp: () => Promise.resolve("1:1"),
    serve: (_binary, args) => (started.push([...args]), server),
  });
  const oneShot = () => h.calls.filter((c) => c[0] === "rewrite" && c[1] === "--json").length;
  await h.call("bash", { command: "git status" }, "a");
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(started, [["rewrite", "--serve", "--host", "pi"]]);
  assert.equal(oneShot(), 1, "asked before the knowledge is there");
  const wrapped = { command: "git log" };
  await h.call("bash", wrapped, "b");
  await h.call("bash", { command: "git diff" }, "c");
  assert.deepEqual(served, ["git log", "git diff"]);
  assert.equal(oneShot(), 1, "the server answered: no process");
  assert.match(wrapped.command, /^\/bin\/yarp run --host pi --expect-rule git\/log -- git log$/);
  broken = true;
  await h.call("bash", { command: "git show" }, "d");
  await h.call("bash", { command: "git blame x" }, "e");
  assert.equal(closed, 1, "a failed server is closed");
  assert.deepEqual(served, ["git log", "git diff", "git show"], "and not asked again");
  assert.equal(oneShot(), 3, "the one-shot process answers instead");
  assert.match(await h.command(""), /errors: none/);
});

Deno.test("result server: results are reduced by yarp result-reduce --serve once the knowledge is there; a failed one falls back", async () => {
  const requests: Record<string, unknown>[] = [];
  let broken = false;
  let closed = 0;
  let stamp = "1:1";
  const resultServer: LineServer = {
    request: (line) => {
      requests.push(JSON.parse(line));
      if (broken) return Promise.resolve('{"changed":true}');
      return Promise.resolve(
        JSON.stringify({ changed: true, archive_id: "0123abcd", output: MARKED }),
      );
    },
    close: () => void closed++,
  };
  const started: string[][] = [];
  const h = harness({
    reduce: () => exit(MARKED),
    leadWords: () =>
      exit(
        JSON.stringify({ programs: ["git"], patterns: [], inputs: [{ path: "/c", stamp }] }) + "\n",
      ),
  }, {
    fileStamp: () => Promise.resolve(stamp),
    serve: (_binary, args) => {
      started.push([...args]);
      return args[0] === "result-reduce"
        ? resultServer
        : { request: () => Promise.resolve(undefined), close: () => {} };
    },
  });
  const oneShot = () => h.calls.filter((c) => c[0] === "result-reduce").length;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  const pipeline = { command: "make | tail" };
  const text = "m".repeat(9000);
  assert.equal(
    (await h.result("bash", pipeline, text, false, "a"))?.content[0].text,
    MARKED.trimEnd(),
  );
  await settle();
  assert.equal(oneShot(), 1, "the first result, before the knowledge is there, starts a process");
  assert.deepEqual(started, [["rewrite", "--serve", "--host", "pi"]], "not yet a result server");
  assert.equal(
    (await h.result("bash", pipeline, text, true, "b"))?.content[0].text,
    MARKED.trimEnd(),
  );
  assert.equal(
    (await h.result(
      "bash",
      pipeline,
      `${text}

Command exited with code 2`,
      true,
      "c",
    ))
      ?.content[0].text,
    `${MARKED.trimEnd()}

Command exited with code 2`,
  );
  assert.equal(oneShot(), 1, "the server answered: no process");
  assert.deepEqual(started[1], ["result-reduce", "--serve", "--host", "pi"]);
  assert.equal(started.length, 2, "one result server for the session");
  assert.deepEqual(requests, [
    { command: "make | tail", input: text, cwd: "/project" },
    { command: "make | tail", input: text, exit_code: 2, cwd: "/project" },
  ]);
  broken = true;
  assert.equal(
    (await h.result("bash", pipeline, text, false, "d"))?.content[0].text,
    MARKED.trimEnd(),
  );
  assert.equal(closed, 1, "a malformed reply closes the server");
  assert.equal(oneShot(), 2, "and the one-shot process answers instead");
  broken = false;
  await h.result("bash", pipeline, text, false, "e");
  assert.equal(started.length, 2, "a failed server is not started again");
  assert.equal(requests.length, 3);
  assert.equal(oneShot(), 3);
  stamp = "2:2";
  for (const id of ["f", "g"]) {
    await h.result("bash", pipeline, text, false, id);
    await settle();
  }
  assert.equal(oneShot(), 5, "a changed rule file drops the knowledge, which is asked again");
  await h.result("bash", pipeline, text, false, "h");
  assert.deepEqual(started.slice(2), [
    ["rewrite", "--serve", "--host", "pi"],
    ["result-reduce", "--serve", "--host", "pi"],
  ], "and the new knowledge may start a new result server");
  assert.equal(requests.length, 4);
  assert.equal(oneShot(), 5);
  assert.match(await h.command(""), /errors: none/);
});

Deno.test("startLineServer: a real yarp result-reduce --serve reduces, and the marker's copy reads back", async () => {
  const yarp = new URL("../bin/yarp", import.meta.url).pathname;
  const dir = await Deno.makeTempDir({ prefix: "yarp-result-server-" });
  try {
    const env = { XDG_STATE_HOME: `${dir}/state`, XDG_CONFIG_HOME: `${dir}/config` };
    const server = startLineServer([yarp, "result-reduce", "--serve", "--host", "pi"], { env });
    const input = "ok line\n".repeat(2000) + "x.c:1:2: error: bad\n";
    const reply = await server.request(
      JSON.stringify({ command: "make 2>&1 | cat", input, exit_code: 2 }),
      20_000,
    );
    server.close();
    const outcome = readServedReduction(reply ?? "", input);
    const decision = outcome === undefined ? undefined : decideReducedResult(input, outcome);
    assert.ok(decision?.replace, reply);
    assert.match(decision.text, /x\.c:1:2: error: bad\n/);
    const read = await runProcess([yarp, "read", decision.archiveId], { timeoutMs: 20_000, env });
    assert.deepEqual(read.kind === "exit" && read.stdout === input, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("startLineServer: replies in order from a real yarp rewrite --serve; closed or silent is undefined", async () => {
  const yarp = new URL("../bin/yarp", import.meta.url).pathname;
  const server = startLineServer([yarp, "rewrite", "--serve"], {});
  const [log, seq] = await Promise.all([
    server.request(JSON.stringify("git log"), 20_000),
    server.request(JSON.stringify("seq 1"), 20_000),
  ]);
  assert.equal(
    log,
    '{"rewrite":true,"reason":"rewritten","rule":"git/log","command":"yarp run --expect-rule git/log -- git log"}',
  );
  assert.equal(seq, '{"rewrite":false,"reason":"unknown-program"}');
  server.close();
  assert.equal(await server.request(JSON.stringify("git log"), 1000), undefined);
  const silent = startLineServer(["sh", "-c", "cat >/dev/null"], {});
  assert.equal(await silent.request("x", 200), undefined, "no answer in time");
  assert.equal(await silent.request("y", 200), undefined, "closed after a timeout");
  const missing = startLineServer(["/nonexistent/yarp"], {});
  assert.equal(await missing.request("x", 2000), undefined);
});
