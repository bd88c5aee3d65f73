/**
 * `yarp result-reduce` (docs/architecture.md, "Runtime flow"): the plan's rule reduces
 * the text under its status policy only when an exact copy exists and both
 * savings gates pass; otherwise the input comes back byte for byte. The
 * exact copy is archived first (the `archive put` path) and `yarp read`
 * returns it; `--archive-id` counts only when it holds this input; `YARP_ARCHIVE=off`
 * means no reduction; `--json` reports without command or output text.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  parseResultReduceArgs,
  parseServedRequest,
  resultReduceCommand,
} from "../lib/cli/result_reduce.ts";
import { type ExactCopy, reduceFinishedResult } from "../lib/shell/finished_result.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import { startLineServer } from "../hooks/pi/src/yarp_process.ts";

const YARP = new URL("../bin/yarp", import.meta.url).pathname;
const parser = await loadShellParser();
const registry = createRuleRegistry([builtinRuleSource()]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const COPY: ExactCopy = { obtain: () => Promise.resolve({ id: "0123abcd" }) };
const NO_COPY: ExactCopy = { obtain: () => Promise.resolve({ reason: "archive-off" }) };
const NEVER: ExactCopy = {
  obtain: () => Promise.reject(new Error("no plan may ask for an exact copy")),
};

function cargoOutput(tests: number): Uint8Array {
  let text = `running ${tests} tests\n`;
  for (let i = 0; i < tests; i++) text += `test tests::case_${i} ... ok\n`;
  return encoder.encode(text + `\ntest result: ok. ${tests} passed; 0 failed\n`);
}

Deno.test("reduces a planned result and names the exact copy", async () => {
  const input = cargoOutput(400);
  const { output, report } = await reduceFinishedResult(
    "cargo test | head -500",
    input,
    0,
    parser,
    registry,
    COPY,
  );
  assert.ok(report.changed);
  assert.equal(report.rule, "tests/cargo-test");
  assert.deepEqual(report.reasons, ["reduced", "status:final-stage-only"]);
  assert.ok(output.length < input.length);
  assert.equal(report.bytesAfter, output.length);
  assert.match(decoder.decode(output), /exact: yarp read 0123abcd · --grep TEXT · --lines A:B\]/);
  assert.match(decoder.decode(output), /test result: ok\. 400 passed/);
});

Deno.test("pass-through cases return the input exactly", async () => {
  const input = cargoOutput(400);
  const cases: [string, ExactCopy, string][] = [
    ["cargo test | sed s/a/b/", NEVER, "guarded"],
    ["cargo test | unknown-filter", NEVER, "unknown-program"],
    ['echo "$X" | rg x', NEVER, "parse:expansion"],
    ["cargo test && cargo build", NEVER, "mixed-reducers"],
    ["cargo test", NO_COPY, "archive-off"],
    ["cargo test", { obtain: () => Promise.reject(new Error("disk")) }, "archive-failed"],
  ];
  for (const [source, copy, reason] of cases) {
    // the global output cap is off here: tests/output_cap_test.ts covers where it applies
    const { output, report } = await reduceFinishedResult(
      source,
      input,
      0,
      parser,
      registry,
      copy,
      {
        cap: null,
      },
    );
    assert.equal(output, input, source);
    assert.ok(!report.changed, source);
    assert.deepEqual(report.reasons, [reason], source);
  }
  const small = cargoOutput(2);
  const short = await reduceFinishedResult("cargo test", small, 0, parser, registry, COPY);
  assert.equal(short.output, small);
  assert.deepEqual(short.report.reasons, ["no-savings"]);
  const failing = encoder.encode("bash: line 1: cd: crate: No such file or directory\n");
  const withCd = new Uint8Array([...failing, ...input]);
  const cd = await reduceFinishedResult(
    "cd crate && cargo test",
    withCd,
    1,
    parser,
    registry,
    COPY,
  );
  assert.equal(cd.output, withCd);
  assert.deepEqual(cd.report.reasons, ["stage-diagnostics"]);
});

Deno.test("opaque operands: reduced only where every expansion selects the rule, cd's diagnostics fail open", async () => {
  const input = cargoOutput(400);
  const reduce = (source: string, text = input) =>
    reduceFinishedResult(source, text, 0, parser, registry, COPY, { cap: null });
  const opened = await reduce('cd "$CRATE" && export CARGO_HOME=$HOME/.cargo && cargo test');
  assert.ok(opened.report.changed);
  assert.equal(opened.report.rule, "tests/cargo-test");
  assert.deepEqual(opened.report.reasons, ["reduced", "status:complete", "opaque-words"]);
  // `$ARGS` may be `--message-format=json`: the guard's form, kept exact
  const closed = await reduce("cargo test $ARGS");
  assert.equal(closed.output, input);
  assert.deepEqual(closed.report.reasons, ["parse:expansion"]);
  const failing = encoder.encode("bash: cd: too many arguments\n");
  const split = new Uint8Array([...failing, ...input]);
  const cd = await reduce("cd $DIR && cargo test", split);
  assert.equal(cd.output, split);
  assert.deepEqual(cd.report.reasons, ["stage-diagnostics"]);
});

Deno.test("property: any source and text either reduce with a copy or come back exactly", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom("cargo test | head", "rg x | sort")),
      fc.uint8Array({ maxLength: 2_000 }),
      async (source, input) => {
        let asked = false;
        const copy: ExactCopy = {
          obtain: () => {
            asked = true;
            return Promise.resolve({ id: "0123abcd" });
          },
        };
        const { output, report } = await reduceFinishedResult(
          source,
          input,
          undefined,
          parser,
          registry,
          copy,
        );
        if (!report.changed) return output === input;
        return asked && output.length < input.length;
      },
    ),
    { numRuns: 300 },
  );
});
const DIR = await Deno.makeTempDir({ prefix: "yarp-result-reduce-" });

async function yarp(args: string[], env: Record<string, string>, stdin: Uint8Array) {
  const child = new Deno.Command(YARP, {
    args,
    env: { XDG_STATE_HOME: `${DIR}/state`, XDG_CONFIG_HOME: `${DIR}/config`, ...env },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(stdin);
  await writer.close();
  return await child.output();
}

Deno.test("CLI: archives first, prints the reduction, and yarp read gives the input back", async () => {
  const input = cargoOutput(400);
  const json = await yarp(["result-reduce", "--json", "--command", "cargo test"], {}, input);
  assert.equal(json.code, 0);
  const report = JSON.parse(decoder.decode(json.stdout));
  assert.equal(report.changed, true);
  assert.equal(report.rule, "tests/cargo-test");
  assert.deepEqual(report.reasons, ["reduced", "status:complete"]);
  assert.equal(report.bytes_before, input.length);
  const read = await yarp(["read", report.archive_id], {}, new Uint8Array());
  assert.deepEqual(read.stdout, input);

  const text = await yarp(
    [
      "result-reduce",
      "--command",
      "cargo test",
      "--exit-code",
      "0",
      "--archive-id",
      report.archive_id,
    ],
    {},
    input,
  );
  assert.equal(text.code, 0);
  assert.ok(text.stdout.length < input.length);
  assert.match(
    decoder.decode(text.stdout),
    new RegExp(`yarp read ${report.archive_id} · --grep TEXT · --lines A:B\\]`),
  );

  // An id that does not hold this input is ignored: the input is archived itself.
  const unknown = await yarp(
    ["result-reduce", "--command", "cargo test", "--archive-id", "ffffffff"],
    {},
    input,
  );
  const ownId = /yarp read ([0-9a-f]{8}) /.exec(decoder.decode(unknown.stdout))?.[1];
  assert.ok(ownId !== undefined && ownId !== "ffffffff");
  assert.deepEqual((await yarp(["read", ownId], {}, new Uint8Array())).stdout, input);

  const off = await yarp(
    ["result-reduce", "--command", "cargo test"],
    { YARP_ARCHIVE: "off" },
    input,
  );
  assert.deepEqual(off.stdout, input);

  const bad = await yarp(["result-reduce"], {}, input);
  assert.equal(bad.code, 2);
  assert.equal(decoder.decode(bad.stderr), "yarp result-reduce: --command: required\n");
});

Deno.test("parseResultReduceArgs: options, and one error line naming the bad argument", () => {
  assert.deepEqual(
    parseResultReduceArgs([
      "--command",
      "cargo test",
      "--exit-code=101",
      "--archive-id",
      "abcd1234",
      "--rule-pack",
      "a.yrp",
      "--rule-pack=b.yrp",
      "--json",
    ]),
    {
      command: "cargo test",
      exitCode: 101,
      archiveId: "abcd1234",
      rulePacks: ["a.yrp", "b.yrp"],
      json: true,
    },
  );
  assert.deepEqual(parseResultReduceArgs(["--command", "ls"]), {
    command: "ls",
    exitCode: undefined,
    archiveId: undefined,
    rulePacks: [],
    json: false,
  });
  const errors: [string[], string][] = [
    [[], "--command: required"],
    [["--command", ""], "--command: required"],
    [["--command", "ls", "extra"], "unexpected argument 'extra'"],
    [["--command", "ls", "--", "x"], "unexpected argument '--'"],
    [["--command", "ls", "--exit-code", "1e2"], "--exit-code: expected an integer, got '1e2'"],
    [["--command", "ls", "--rule-pack", ""], "--rule-pack: missing path"],
    [["--command", "ls", "--bogus"], "unknown option '--bogus'"],
  ];
  for (const [args, error] of errors) {
    assert.deepEqual(parseResultReduceArgs(args), { error }, JSON.stringify(args));
  }
});

Deno.test("parseResultReduceArgs: --serve takes only what every request shares", () => {
  assert.deepEqual(
    parseResultReduceArgs(["--serve", "--host", "pi", "--rule-pack", "a.yrp", "--output-cap=2048"]),
    { serve: true, rulePacks: ["a.yrp"], outputCap: 2048, host: "pi" },
  );
  assert.deepEqual(parseResultReduceArgs(["--serve"]), { serve: true, rulePacks: [] });
  const errors: [string[], string][] = [
    [["--serve", "--json"], "--serve always answers in JSON; drop --json"],
    [["--serve", "--command", "ls"], "--command: --serve reads it from each request"],
    [["--serve", "--exit-code", "1"], "--exit-code: --serve reads it from each request"],
    [["--serve", "--archive-id", "abcd"], "--archive-id: --serve reads it from each request"],
    [
      ["--serve", "--host", "nobody"],
      (parseResultReduceArgs(["--command", "x", "--host", "nobody"]) as { error: string }).error,
    ],
  ];
  for (const [args, error] of errors) {
    assert.deepEqual(parseResultReduceArgs(args), { error }, JSON.stringify(args));
  }
});

Deno.test("parseServedRequest: the fields of a request, and one error naming a bad one", () => {
  assert.deepEqual(
    parseServedRequest(
      '{"command":"make","input":"é\\n","exit_code":-1,"archive_id":"abcd1234","cwd":"/w"}',
    ),
    { command: "make", input: "é\n", exitCode: -1, archiveId: "abcd1234", cwd: "/w" },
  );
  assert.deepEqual(parseServedRequest('{"command":"make","input":"","exit_code":null}'), {
    command: "make",
    input: "",
    exitCode: undefined,
  });
  assert.deepEqual(
    parseServedRequest('{"command":"make","input":"","exit_code":9007199254740993}'),
    { command: "make", input: "", exitCode: undefined },
    "beyond 2^53 the code is not kept, as for --exit-code",
  );
  const errors: [string, string][] = [
    ["make", "a request must be one JSON object on one line"],
    ['"make"', "a request must be one JSON object on one line"],
    ["[]", "a request must be one JSON object on one line"],
    ['{"input":"x"}', "command: expected a shell source"],
    ['{"command":"","input":"x"}', "command: expected a shell source"],
    ['{"command":"make","input":3}', "input: expected a string"],
    ['{"command":"make","input":"","exit_code":1.5}', "exit_code: expected an integer or null"],
    ['{"command":"make","input":"","exit_code":"1"}', "exit_code: expected an integer or null"],
    [
      '{"command":"make","input":"","archive_id":"xyz"}',
      "archive_id: expected a call id (4 to 16 hex digits)",
    ],
    ['{"command":"make","input":"","cwd":1}', "cwd: expected a string"],
    ['{"command":"make","input":"","stdin":""}', "stdin: not a request field"],
  ];
  for (const [line, error] of errors) assert.deepEqual(parseServedRequest(line), { error }, line);
});

Deno.test("CLI --serve: each answer is the --json report and the text one run would give", async () => {
  const failing = "x".repeat(20) + "\n";
  const requests = [
    { command: "cargo test", input: decoder.decode(cargoOutput(400)), exit_code: 0 },
    { command: "cargo test | head -500", input: decoder.decode(cargoOutput(300)), exit_code: 0 },
    { command: "git status", input: "On branch main\nnothing to commit\n", exit_code: 0 },
    {
      command: "make",
      input: "ünïcode ✓ line\n".repeat(600) + "x.c:1:2: error: bad\n",
      exit_code: 2,
    },
    { command: "./unknown-tool --all", input: failing.repeat(900), exit_code: 1 },
    { command: "./unknown-tool", input: "short\n" },
    { command: "./unknown-tool", input: "\ufeffbom first\n" + failing.repeat(900), exit_code: 0 },
    { command: "cat notes.txt", input: "line\n".repeat(5000), exit_code: 0 },
  ];
  const served = await yarp(
    ["result-reduce", "--serve", "--host", "pi"],
    {},
    encoder.encode(requests.map((request) => JSON.stringify(request) + "\n").join("")),
  );
  assert.equal(served.code, 0, decoder.decode(served.stderr));
  const replies = decoder.decode(served.stdout).split("\n");
  assert.equal(replies.pop(), "");
  assert.equal(replies.length, requests.length);
  const anyId = (text: string) => text.replaceAll(/\b[0-9a-f]{8}\b/g, "ID");
  let changed = 0;
  for (const [index, request] of requests.entries()) {
    const reply = JSON.parse(replies[index]);
    const input = encoder.encode(request.input);
    const code = request.exit_code === undefined ? [] : ["--exit-code", String(request.exit_code)];
    const args = ["result-reduce", "--host", "pi", "--command", request.command, ...code];
    const json = JSON.parse(decoder.decode((await yarp([...args, "--json"], {}, input)).stdout));
    const { output, ...report } = reply;
    assert.deepEqual(
      anyId(JSON.stringify(report)),
      anyId(JSON.stringify(json)),
      `request ${index}`,
    );
    assert.equal(output !== undefined, report.changed, `output exactly when changed (${index})`);
    if (!report.changed) continue;
    changed++;
    // Decoded with any leading BOM kept, as the host reads a one-shot run's stdout.
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(
      (await yarp(args, {}, input)).stdout,
    );
    assert.equal(anyId(output), anyId(text), `request ${index}`);
    assert.ok(output.includes(`yarp read ${report.archive_id}`));
    const read = await yarp(["read", report.archive_id], {}, new Uint8Array());
    assert.deepEqual(read.stdout, input, `the archived copy of request ${index}`);
  }
  assert.ok(changed >= 5, `${changed} of the requests were reduced`);

  const malformed = await yarp(
    ["result-reduce", "--serve"],
    {},
    encoder.encode(
      `${JSON.stringify(requests[2])}\n{"command":"ls"}\n${JSON.stringify(requests[2])}\n`,
    ),
  );
  assert.equal(malformed.code, 2);
  assert.equal(decoder.decode(malformed.stdout).split("\n").length, 2, "one answer, then none");
  assert.equal(
    decoder.decode(malformed.stderr),
    "yarp result-reduce: --serve: input: expected a string\n",
  );
});

Deno.test("CLI --serve: a changed config file is read again before the next request", async () => {
  const configDir = `${DIR}/served-config`;
  const env = { XDG_STATE_HOME: `${DIR}/state`, XDG_CONFIG_HOME: configDir };
  const server = startLineServer([YARP, "result-reduce", "--serve"], { env });
  try {
    const request = JSON.stringify({
      command: "./unknown-tool",
      input: "row of text\n".repeat(2000),
    });
    const ask = async () => JSON.parse(await server.request(request, 30_000) ?? "null");
    assert.deepEqual((await ask()).reasons, ["capped", "unknown-program"]);
    await Deno.mkdir(`${configDir}/yarp`, { recursive: true });
    await Deno.writeTextFile(`${configDir}/yarp/config.yaml`, "output_cap:\n  enabled: false\n");
    const off = await ask();
    assert.equal(off.changed, false);
    assert.deepEqual(off.reasons, ["unknown-program"]);
    await Deno.writeTextFile(`${configDir}/yarp/config.yaml`, "output_cap: [\n");
    assert.deepEqual((await ask()).reasons, ["invalid-pack"], "an invalid config passes through");
    await Deno.remove(`${configDir}/yarp/config.yaml`);
    assert.deepEqual((await ask()).reasons, ["capped", "unknown-program"]);
  } finally {
    server.close();
  }
});

Deno.test("resultReduceCommand: --help answers without reading stdin", async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (s: string) => out.push(s), err: (s: string) => err.push(s) };
  assert.equal(await resultReduceCommand(["--help"], io), 0);
  assert.match(out.join(""), /^usage: yarp result-reduce --command SRC/);
  assert.deepEqual(err, []);
});
