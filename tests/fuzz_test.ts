/**
 * The fuzz campaign script (scripts/fuzz.ts), kept from rotting: 2,000
 * inputs of every target run in process with zero crashes, hangs or
 * unrecovered results, each target's oracle is reached (some inputs get
 * past every check), inputs depend only on seed and index, and the command
 * line splits work over worker processes and prints the table.
 */
import assert from "node:assert/strict";
import { formatTable, fuzzTarget, mergeReports, TARGETS } from "../scripts/fuzz.ts";

for (const target of TARGETS) {
  Deno.test(`fuzz: 2,000 ${target} inputs, no crash, hang or unrecovered result`, async () => {
    const report = await fuzzTarget(target, 7, 0, 2000);
    assert.deepEqual(report.findings, []);
    assert.equal(report.crashes + report.hangs + report.unrecovered, 0);
    assert.equal(report.inputs, 2000);
    assert.ok(report.accepted > 0, `${target}: no input reached a positive result`);
    assert.ok(report.accepted < 2000 || target === "bytes", `${target}: nothing was rejected`);
  });
}

Deno.test("fuzz: inputs depend on seed and index only, so shards add up to the whole", async () => {
  const whole = await fuzzTarget("strict-json", 3, 0, 600);
  const halves = mergeReports([
    await fuzzTarget("strict-json", 3, 0, 300),
    await fuzzTarget("strict-json", 3, 300, 300),
  ]);
  assert.equal(halves.inputs, whole.inputs);
  assert.equal(halves.accepted, whole.accepted);
  assert.match(formatTable([whole]), /^target +inputs +crashes +hangs +unrecovered/);
});

Deno.test("fuzz: the command line runs shards in worker processes and prints the table", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-read",
      "--allow-run",
      "--allow-env",
      new URL("../scripts/fuzz.ts", import.meta.url).pathname,
      "--targets",
      "bytes,yrp",
      "--inputs",
      "400",
      "--workers",
      "2",
      "--seed",
      "9",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(text, /^bytes +400 +0 +0 +0 +\d+ +[\d.]+ +\d+ +[\d.]+ +9$/m);
  assert.match(text, /^yrp +400 +0 +0 +0 +\d+ +[\d.]+ +\d+ +[\d.]+ +9$/m);
});
