/**
 * A sampled robustness run of the shell parser and planner (the full run is
 * `bench/shell_robustness.ts`): 400 corpus commands when the development
 * corpus is present (read at test time, never copied) and 1,500 generated
 * commands, with zero crashes and a printed report of outcome counts.
 */
import assert from "node:assert/strict";
import {
  corpusCommands,
  corpusPath,
  formatReport,
  generatedSources,
  robustnessRun,
} from "../bench/_shell_robustness.ts";

Deno.test("robustness: sampled corpus commands never crash the parser or planner", async (t) => {
  const path = corpusPath();
  if (path === undefined) {
    console.log("skipped: ../shared/corpus/runs.jsonl.gz is absent");
    return;
  }
  const commands = await corpusCommands(path);
  const step = Math.max(1, Math.floor(commands.length / 400));
  const report = await robustnessRun(commands.filter((_, index) => index % step === 0));
  console.log(formatReport("corpus sample", report));
  assert.equal(report.crashes, 0);
  await t.step("some corpus commands are planned", () => {
    assert.ok(Object.keys(report.outcomes).some((key) => key.startsWith("accept:")));
  });
});

Deno.test("robustness: generated commands never crash the parser or planner", async () => {
  const report = await robustnessRun(generatedSources(1_500, 7));
  console.log(formatReport("generated sample", report));
  assert.equal(report.crashes, 0);
  assert.equal(report.sources, 1_500);
});
