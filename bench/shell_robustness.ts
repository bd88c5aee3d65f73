/**
 * Robustness run of the shell parser and planner: every command of the
 * recorded corpus `$YARP_CORPUS_DIR/runs.jsonl.gz` (read at run time; left
 * out, saying so, when the variable is unset) and 10,000 generated commands. Prints
 * acceptance and rejection counts by reason; exits 1 on any crash.
 *
 * Usage: deno run --allow-read bench/shell_robustness.ts [--generated N] [--seed S]
 *
 * @module
 */
import {
  corpusCommands,
  corpusPath,
  formatReport,
  generatedSources,
  robustnessRun,
} from "./_shell_robustness.ts";

const args = Deno.args;
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
let crashes = 0;
const path = corpusPath();
if (path === undefined) {
  console.log("corpus: not run (set YARP_CORPUS_DIR to a directory holding runs.jsonl.gz)");
} else {
  const report = await robustnessRun(await corpusCommands(path));
  crashes += report.crashes;
  console.log(formatReport("corpus", report));
}
const generated = await robustnessRun(
  generatedSources(option("--generated", 10_000), option("--seed", 1)),
);
crashes += generated.crashes;
console.log(formatReport("generated", generated));
if (crashes > 0) Deno.exit(1);
