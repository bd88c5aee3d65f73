/**
 * `piTruncate` against Pi 0.73.1 itself: the unit tests' table and a few
 * hundred generated outputs run through Pi's real bash tool
 * (`createBashToolDefinition` with an `exec` that feeds the text as one
 * chunk, under node, the pinned package installed from npm). Ignored only
 * when the npm registry is unreachable and no cached install exists.
 *
 * It downloads third-party code, so it lives in bench/ and never runs in
 * `deno task test`: run it with `deno task oracles`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { PI_FULL_OUTPUT_PATH, piTruncate } from "./_pi_truncation.ts";
import { CASES, expected, fixedWidth, shapedOutput, smallOutput } from "./_pi_truncation_cases.ts";
import { installNpmPackage, npmRegistryReachable } from "./_npm.ts";

const PI_PACKAGE = "@mariozechner/pi-coding-agent";
const PI_VERSION = "0.73.1";

/** Pi's bash tool under node: argv[2] its module URL, argv[3] a JSON file of output texts; prints the model-visible texts as JSON. */
const ORACLE = `
import { readFileSync } from "node:fs";
const { createBashToolDefinition } = await import(process.argv[2]);
const outputs = [];
for (const text of JSON.parse(readFileSync(process.argv[3], "utf8"))) {
  const tool = createBashToolDefinition(process.cwd(), {
    operations: {
      exec: async (_command, _cwd, { onData }) => {
        onData(Buffer.from(text, "utf8"));
        return { exitCode: 0 };
      },
    },
  });
  const result = await tool.execute("oracle", { command: "oracle" }, undefined, undefined, undefined);
  outputs.push(result.content[0].text);
}
process.stdout.write(JSON.stringify(outputs));
`;

/** file URL of Pi's bash tool module, or null when npm cannot reach the registry. */
async function piBashToolUrl(): Promise<string | null> {
  try {
    const dir = await installNpmPackage(PI_PACKAGE, PI_VERSION);
    return pathToFileURL(join(dir, "dist/core/tools/bash.js")).href;
  } catch (error) {
    if (await npmRegistryReachable()) throw error;
    console.log(`skipped Pi oracle tests: npm registry unreachable (${error})`);
    return null;
  }
}

const piBashTool = await piBashToolUrl();

async function piOracle(texts: string[]): Promise<string[]> {
  const dir = await Deno.makeTempDir({ prefix: "yarp_pi_oracle_" });
  try {
    const script = join(dir, "oracle.mjs");
    const inputs = join(dir, "inputs.json");
    await Deno.writeTextFile(script, ORACLE);
    await Deno.writeTextFile(inputs, JSON.stringify(texts));
    const out = await new Deno.Command("node", {
      args: [script, piBashTool!, inputs],
      cwd: dir,
      env: { TMPDIR: dir },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const outputs: string[] = JSON.parse(new TextDecoder().decode(out.stdout));
    return outputs.map((text) =>
      text.replace(
        /Full output: [^\]\n]*\/pi-bash-[0-9a-f]{16}\.log\]$/,
        `Full output: ${PI_FULL_OUTPUT_PATH}]`,
      )
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The index and both texts of the first disagreement, or null. */
function firstMismatch(inputs: string[], pi: string[]) {
  for (let i = 0; i < inputs.length; i++) {
    const ours = piTruncate(inputs[i]);
    if (ours !== pi[i]) return { index: i, ours: ours.slice(-300), pi: pi[i].slice(-300) };
  }
  return null;
}

Deno.test({
  name: "piTruncate: every table case agrees with Pi 0.73.1's bash tool",
  ignore: piBashTool === null,
  async fn() {
    const inputs = CASES.map((c) => c.input);
    assert.equal(firstMismatch(inputs, await piOracle(inputs)), null);
  },
});

Deno.test({
  name: "piTruncate: 400 generated outputs agree with Pi 0.73.1's bash tool",
  ignore: piBashTool === null,
  async fn() {
    const inputs = [
      ...fc.sample(shapedOutput, { numRuns: 300, seed: 73 }),
      ...fc.sample(smallOutput, { numRuns: 100, seed: 73 }),
    ];
    assert.ok(inputs.some((text) => piTruncate(text).includes("(50.0KB limit)")));
    assert.ok(inputs.some((text) => /\[Showing lines \d+-\d+ of \d+\. /.test(piTruncate(text))));
    assert.ok(inputs.some((text) => piTruncate(text).includes("[Showing last ")));
    assert.equal(firstMismatch(inputs, await piOracle(inputs)), null);
  },
});

Deno.test({
  name: "piTruncate: known miss, Pi's rolling tail reports the byte limit for a line-limited cut",
  ignore: piBashTool === null,
  async fn() {
    // Over 200 KiB, so Pi trims its tail to 100 KiB inside the long line and drops it;
    // the 2,000 short lines after it then fit Pi's snapshot, which Pi labels a byte cut.
    const input = `${"L".repeat(300_000)}\n${fixedWidth(2000, 10)}`;
    const [pi] = await piOracle([input]);
    const keep = fixedWidth(2000, 10);
    assert.equal(pi, expected(keep, "Showing lines 2-2001 of 2001 (50.0KB limit)"));
    assert.equal(piTruncate(input), expected(keep, "Showing lines 2-2001 of 2001"));
  },
});
