/**
 * Output sizes of successful typed results over a corpus replayed through
 * the production engine (the figure `yarp corpus analyze` does not print):
 * of the results with exit 0 whose rule reduces with a typed kind and whose
 * visible text is over 2 KB, how many changed and the median and p95
 * bytes shown after (an unchanged result counts at its own size), per
 * typed kind (`diff`, `log`, `search`, …) and over all. Prints aggregates only, never record text.
 *
 * Usage: deno run --allow-read --allow-env bench/corpus_typed_sizes.ts CORPUS.jsonl.gz…
 *   [--success-bytes N]   (the success budget of every typed kind, as config `budgets:`)
 */
import { createEngine } from "../lib/corpus/engine.ts";
import { readJsonlLines } from "../lib/corpus/jsonl.ts";
import { parseRecordLine } from "../lib/corpus/record.ts";
import { TYPED_REDUCER_KINDS } from "../lib/rules/model.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import { successBytesArg } from "./_success_bytes.ts";

const registry = createRuleRegistry([builtinRuleSource()]);
/** The typed kind of every rule that reduces with one. */
const typedRules = new Map<string, string>();
for (const { rule } of registry.rules()) {
  if (rule.action !== "reduce") continue;
  if ((TYPED_REDUCER_KINDS as readonly string[]).includes(rule.reducer.kind)) {
    typedRules.set(rule.id, rule.reducer.kind);
  }
}
const { budgets, rest: files } = successBytesArg(Deno.args);
const engine = createEngine(await loadShellParser(), registry, { budgets });

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0
    ? 0
    : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

for (const path of files) {
  const sizes = new Map<string, number[]>();
  const changed = new Map<string, number>();
  for await (const line of readJsonlLines(path)) {
    const record = parseRecordLine(line.text);
    if ("error" in record || record.priorReduction !== null || record.exitCode !== 0) continue;
    const outcome = await engine(record);
    if (outcome.rule === null || outcome.guarded || outcome.before.length <= 2048) continue;
    const kind = typedRules.get(outcome.rule);
    if (kind === undefined) continue;
    for (const family of [kind, "(all)"]) {
      const list = sizes.get(family) ?? [];
      list.push(outcome.reduced ? outcome.after.length : outcome.before.length);
      sizes.set(family, list);
      if (outcome.reduced) changed.set(family, (changed.get(family) ?? 0) + 1);
    }
  }
  console.log(`${path}: successful typed results over 2 KB, per kind`);
  for (const [family, list] of [...sizes].sort()) {
    list.sort((a, b) => a - b);
    console.log(
      `  ${family.padEnd(9)} ${String(list.length).padStart(5)} results, ${
        String(changed.get(family) ?? 0).padStart(5)
      } changed, median ${quantile(list, 0.5)} B, p95 ${quantile(list, 0.95)} B`,
    );
  }
}
