/**
 * Fault suite: a host piping its result through
 * `yarp result-reduce` never loses it. Any integer exit code is a status
 * (`-1`, `3221225794` from Windows hosts; non-zero is failure), and any
 * malformed argument prints the input exactly on stdout, one error line on
 * stderr, and exits non-zero.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseResultReduceArgs } from "../lib/cli/result_reduce.ts";
import { privateHome, runYarp, tempDir } from "./_process.ts";

const DIR = await tempDir("yarp_fault_rr_");
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A failed `make` run as a host shows it: 3,000 lines, one diagnostic. */
const MAKE_FAILURE = encoder.encode(
  Array.from({ length: 3000 }, (_, i) => `cc -c src/file_${i}.c -o build/file_${i}.o\n`).join("") +
    "src/file_7.c:3:1: error: expected ';' before '}' token\nmake: *** [all] Error 1\n",
);

/** Runs `bin/yarp result-reduce ARGS < input` with a private state dir; 30 s cap. */
async function resultReduce(args: string[], input: Uint8Array) {
  const out = await runYarp(["result-reduce", ...args], {
    env: { PATH: Deno.env.get("PATH") ?? "", ...privateHome(DIR) },
    input,
    inputMayBreak: true,
    timeoutMs: 30_000,
  });
  return { code: out.code, stdout: out.stdout, stderr: decoder.decode(out.stderr) };
}

for (const code of ["-1", "3221225794", "256", "-2147483648", "18446744073709551615", "007"]) {
  Deno.test(`result-reduce fault: --exit-code ${code} is a failure status and reduces`, async () => {
    for (const form of [["--exit-code", code], [`--exit-code=${code}`]]) {
      const out = await resultReduce(["--command", "make", ...form, "--json"], MAKE_FAILURE);
      assert.equal(out.stderr, "");
      assert.equal(out.code, 0);
      const report = JSON.parse(decoder.decode(out.stdout));
      assert.equal(report.changed, true, JSON.stringify(report));
      assert.equal(report.rule, "build/make");
    }
  });
}

/** Malformed argument lists and the error each names. */
const BAD_ARGS: [string[], string][] = [
  [
    ["--command", "make", "--exit-code", "garbage"],
    "--exit-code: expected an integer, got 'garbage'",
  ],
  [["--command", "make", "--exit-code", "1.5"], "--exit-code: expected an integer, got '1.5'"],
  [["--command", "make", "--exit-code="], "--exit-code: expected an integer, got ''"],
  [["--command", "make", "--exit-code"], "option '--exit-code' needs a value"],
  [["--exit-code", "1"], "--command: required"],
  [["--command", "make", "--bogus"], "unknown option '--bogus'"],
  [["--command", "make", "stray"], "unexpected argument 'stray'"],
  [["--command", "make", "--json=yes"], "option '--json' takes no value"],
  [["--command", "make", "--command", "ls"], "--command: given more than once"],
];

for (const [args, error] of BAD_ARGS) {
  Deno.test(`result-reduce fault: ${JSON.stringify(args)} prints the input exactly`, async () => {
    const out = await resultReduce(args, MAKE_FAILURE);
    assert.equal(out.stderr, `yarp result-reduce: ${error}\n`);
    assert.notEqual(out.code, 0);
    assert.deepEqual(out.stdout, MAKE_FAILURE);
  });
}

Deno.test("result-reduce fault: a malformed argument hands back 4 MiB of any bytes exactly", async () => {
  const input = new Uint8Array(4 * 1024 * 1024);
  for (let i = 0; i < input.length; i++) input[i] = (i * 2654435761) >>> 24;
  const out = await resultReduce(["--command", "make", "--exit-code", "x"], input);
  assert.equal(out.code, 2);
  assert.equal(out.stdout.length, input.length);
  assert.deepEqual(out.stdout, input);
});

Deno.test("result-reduce fault: every integer is an exit code, zero alone is success", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
      fc.boolean(),
      (code, joined) => {
        const text = code.toString();
        const form = joined ? [`--exit-code=${text}`] : ["--exit-code", text];
        const parsed = parseResultReduceArgs(["--command", "make", ...form]);
        assert.ok(!("error" in parsed) && !("serve" in parsed), JSON.stringify(parsed));
        if (code === 0n) assert.equal(parsed.exitCode, 0);
        else assert.notEqual(parsed.exitCode, 0);
        if (code >= -(2n ** 53n) + 1n && code <= 2n ** 53n - 1n) {
          assert.equal(parsed.exitCode, Number(code));
        } else assert.equal(parsed.exitCode, undefined);
      },
    ),
  );
  const negativeZero = parseResultReduceArgs(["--command", "make", "--exit-code", "-0"]);
  assert.ok(
    !("error" in negativeZero) && !("serve" in negativeZero) &&
      Object.is(negativeZero.exitCode, 0),
  );
});

Deno.test("result-reduce fault: words after -- are never joined to --exit-code", () => {
  assert.deepEqual(parseResultReduceArgs(["--command", "make", "--", "--exit-code", "-1"]), {
    error: "unexpected argument '--'",
  });
});
