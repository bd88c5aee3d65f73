/**
 * A sampled robustness run of the shell parser and planner (the full run is
 * `bench/shell_robustness.ts`, which prints the outcome counts): 400
 * commands of the recorded corpus when `YARP_CORPUS_DIR` names it (read at
 * test time, never copied; docs/corpus.md) and 1,500 generated commands,
 * with zero crashes.
 */
import assert from "node:assert/strict";
import { formatReport, generatedSources, robustnessRun } from "../bench/_shell_robustness.ts";
import { corpusTest } from "./_shell_corpus.ts";

corpusTest(
  "runs",
  "robustness: sampled corpus commands never crash the parser or planner",
  async (commands) => {
    const step = Math.max(1, Math.floor(commands.length / 400));
    const report = await robustnessRun(commands.filter((_, index) => index % step === 0));
    assert.equal(report.crashes, 0, formatReport("corpus sample", report));
    assert.ok(
      Object.keys(report.outcomes).some((key) => key.startsWith("accept:")),
      "some corpus commands are planned",
    );
  },
);

Deno.test("robustness: generated commands never crash the parser or planner", async () => {
  const report = await robustnessRun(generatedSources(1_500, 7));
  assert.equal(report.crashes, 0, formatReport("generated sample", report));
  assert.equal(report.sources, 1_500);
});
