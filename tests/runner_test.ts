/**
 * The child runner in-process (`lib/run/runner.ts`): stream separation,
 * status, spawn failures and write failures, with captured output sinks.
 */
import assert from "node:assert/strict";
import type { ReductionRule } from "../lib/rules/model.ts";
import { type ByteSink, runPassthrough, runReduced, type RunStreams } from "../lib/run/runner.ts";

const decoder = new TextDecoder();

function capture(): ByteSink & { readonly text: string } {
  const chunks: string[] = [];
  return {
    write: (bytes) => void chunks.push(decoder.decode(bytes)),
    get text() {
      return chunks.join("");
    },
  };
}

function failing(error: Error): ByteSink {
  return {
    write: () => {
      throw error;
    },
  };
}

const RULE: ReductionRule = {
  id: "test.runner",
  action: "reduce",
  match: { programs: ["sh"], argvPrefix: [], argvContainsAll: [] },
  reducer: { kind: "head_tail" },
  success: {
    headLines: 2,
    tailLines: 1,
    maxLineBytes: 256,
    maxOutputBytes: 1024,
    minSavingsBytes: 0,
  },
  failure: {
    headLines: 4,
    tailLines: 2,
    maxLineBytes: 256,
    maxOutputBytes: 2048,
    minSavingsBytes: 0,
  },
};

/** sh printing `out i` and `err i` for i in 1..count, then exiting with `code`. */
function numbered(count: number, code: number): string[] {
  return [
    "sh",
    "-c",
    `i=1; while [ $i -le ${count} ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done; exit ${code}`,
  ];
}

const kept = (text: string, prefix: string) => text.split("\n").filter((l) => l.startsWith(prefix));

Deno.test("runReduced renders each stream on its own sink under the real status", async () => {
  for (const [code, keptCount] of [[0, 3], [5, 6]]) {
    const stdout = capture(), stderr = capture();
    const status = await runReduced(numbered(300, code), RULE, { stdout, stderr });
    assert.equal(status, code);
    assert.equal(kept(stdout.text, "out ").length, keptCount);
    assert.equal(kept(stderr.text, "err ").length, keptCount);
    assert.equal(kept(stdout.text, "err ").length, 0);
    assert.equal(kept(stderr.text, "out ").length, 0);
  }
});

Deno.test("runReduced reports death by signal as 128 + n and renders the failure policy", async () => {
  const stdout = capture(), stderr = capture();
  const argv = ["sh", "-c", "seq 1 100; kill -KILL $$"];
  assert.equal(await runReduced(argv, RULE, { stdout, stderr }), 137);
  assert.deepEqual(kept(stdout.text, "").filter((l) => /^\d+$/.test(l)), [
    "1",
    "2",
    "3",
    "4",
    "99",
    "100",
  ]);
});

Deno.test("short output stays exact", async () => {
  const stdout = capture(), stderr = capture();
  assert.equal(
    await runReduced(["sh", "-c", "printf 'a\\nb'; printf e >&2"], RULE, { stdout, stderr }),
    0,
  );
  assert.equal(stdout.text, "a\nb");
  assert.equal(stderr.text, "e");
});

Deno.test("a broken stdout is silent and never changes the status", async () => {
  const stderr = capture();
  const streams: RunStreams = {
    stdout: failing(new Deno.errors.BrokenPipe("Broken pipe")),
    stderr,
  };
  assert.equal(await runReduced(numbered(300, 9), RULE, streams), 9);
  assert.equal(kept(stderr.text, "yarp: stdout").length, 0);
  assert.equal(kept(stderr.text, "err ").length, 6);
});

Deno.test("any other stdout write error is reported in one line on stderr", async () => {
  const stderr = capture();
  const error = new Error("No space left on device (os error 28)\nsecond line");
  assert.equal(await runReduced(numbered(300, 0), RULE, { stdout: failing(error), stderr }), 0);
  assert.deepEqual(kept(stderr.text, "yarp: "), [
    "yarp: stdout: write failed: No space left on device (os error 28)",
  ]);
});

Deno.test("a failing stderr does not stop stdout or change the status", async () => {
  const stdout = capture();
  const streams = { stdout, stderr: failing(new Error("EIO")) };
  assert.equal(await runReduced(numbered(300, 2), RULE, streams), 2);
  assert.equal(kept(stdout.text, "out ").length, 6);
});

Deno.test("spawn failures print the shell's line and return 127 or 126", async () => {
  for (
    const run of [runPassthrough, (argv: string[], s: RunStreams) => runReduced(argv, RULE, s)]
  ) {
    const stdout = capture(), stderr = capture();
    assert.equal(await run(["yarp-no-such-program-xyz"], { stdout, stderr }), 127);
    assert.equal(stderr.text, "yarp: yarp-no-such-program-xyz: command not found\n");
    assert.equal(stdout.text, "");
  }
  const stderr = capture();
  assert.equal(await runPassthrough(["/"], { stdout: capture(), stderr }), 126);
  assert.equal(stderr.text, "yarp: /: Is a directory\n");
});

Deno.test("runPassthrough returns exact exit codes and signal statuses", async () => {
  const streams = { stdout: capture(), stderr: capture() };
  const table: [string, number][] = [["exit 0", 0], ["exit 1", 1], ["exit 255", 255], [
    "kill -TERM $$",
    143,
  ], ["kill -KILL $$", 137]];
  for (const [script, status] of table) {
    assert.equal(await runPassthrough(["sh", "-c", script], streams), status, script);
  }
});

Deno.test("reduced output does not depend on how the child's writes are chunked", async () => {
  const render = async (script: string) => {
    const stdout = capture(), stderr = capture();
    assert.equal(await runReduced(["sh", "-c", script], RULE, { stdout, stderr }), 0);
    return stdout.text;
  };
  const oneWrite = await render("seq 1 300");
  assert.match(oneWrite, /^1\n2\n\[yarp: [^\n]+\]\n300\n$/);
  assert.equal(await render("for i in $(seq 1 300); do echo $i; done"), oneWrite);
  assert.equal(
    await render("seq 1 300 | while read -r l; do printf %s \"$l\"; printf '\\n'; done"),
    oneWrite,
  );
});
