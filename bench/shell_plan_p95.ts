/**
 * Parse + plan of ordinary commands with the parser warm, as percentiles
 * (docs/architecture.md, "Performance gates": p95 ≤ 0.5 ms; Deno.bench reports p75/p99 only). Each
 * sample is one command, parsed and planned against the built-in registry.
 *
 * Run: deno run --allow-read bench/shell_plan_p95.ts [samples]
 */
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser, planResult } from "../lib/shell/mod.ts";
import { ORDINARY_COMMANDS } from "./_shell_commands.ts";

const SAMPLES = Number(Deno.args[0] ?? 20_000);

const parser = await loadShellParser();
const registry = createRuleRegistry([builtinRuleSource()]);
function parseAndPlan(source: string): void {
  const parsed = parser.parse(source);
  if (parsed.ok) planResult(parsed.program, registry);
}
for (let i = 0; i < 2_000; i++) parseAndPlan(ORDINARY_COMMANDS[i % ORDINARY_COMMANDS.length]); // warm up

const times: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  const source = ORDINARY_COMMANDS[i % ORDINARY_COMMANDS.length];
  const start = performance.now();
  parseAndPlan(source);
  times.push((performance.now() - start) * 1000);
}
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))];
console.log(
  `parse + plan, ${ORDINARY_COMMANDS.length} ordinary commands, ${SAMPLES} samples: ` +
    `median ${at(0.5).toFixed(0)} µs, p95 ${at(0.95).toFixed(0)} µs, p99 ${
      at(0.99).toFixed(0)
    } µs, max ${at(1).toFixed(0)} µs (gate: p95 ≤ 500 µs)`,
);
