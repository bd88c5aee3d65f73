/**
 * Output sizes of successful typed results, per rule family, over a corpus
 * replayed through the production engine (the figure `yarp corpus
 * analyze` does not print): of the results with exit 0 whose visible text
 * is over 2 KB, how many changed and the median and p95 bytes after.
 * Prints aggregates only, never record text.
 *
 * Usage: deno run --allow-read --allow-env bench/corpus_typed_sizes.ts CORPUS.jsonl.gz…
 */
import { createEngine } from "../lib/corpus/engine.ts";
import { readJsonlLines } from "../lib/corpus/jsonl.ts";
import { parseRecordLine } from "../lib/corpus/record.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser } from "../lib/shell/mod.ts";

const engine = createEngine(await loadShellParser(), createRuleRegistry([builtinRuleSource()]));

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0
    ? 0
    : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

for (const path of Deno.args) {
  const sizes = new Map<string, number[]>();
  const large = new Map<string, number>();
  for await (const line of readJsonlLines(path)) {
    const record = parseRecordLine(line.text);
    if ("error" in record || record.priorReduction !== null || record.exitCode !== 0) continue;
    const outcome = await engine(record);
    if (outcome.rule === null || outcome.guarded || outcome.before.length <= 2048) continue;
    const family = outcome.rule.split("/")[0];
    large.set(family, (large.get(family) ?? 0) + 1);
    if (!outcome.reduced) continue;
    const list = sizes.get(family) ?? [];
    list.push(outcome.after.length);
    sizes.set(family, list);
  }
  console.log(`${path}: successful results over 2 KB, per family`);
  for (const [family, count] of [...large].sort()) {
    const list = (sizes.get(family) ?? []).sort((a, b) => a - b);
    console.log(
      `  ${family.padEnd(9)} ${String(count).padStart(5)} results, ${
        String(list.length).padStart(5)
      } changed, median ${quantile(list, 0.5)} B, p95 ${quantile(list, 0.95)} B`,
    );
  }
}
