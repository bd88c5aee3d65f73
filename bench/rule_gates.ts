/**
 * The rule-lookup performance gates of docs/architecture.md, measured as percentiles
 * (Deno.bench reports p75/p99 only):
 *
 * - built-in lookup: `select` over the real built-in registry (gate p95 ≤ 1 µs);
 * - a 1,000-rule external pack: warm read + open + verify header/index +
 *   match (gate p95 ≤ 1 ms), and the first open of the process;
 * - a 10,000-rule pack selecting from one small bucket.
 *
 * Sub-microsecond work is timed in batches (the batch mean is one sample).
 * Run: deno run --allow-read --allow-write bench/rule_gates.ts
 */
import {
  openCompiledPackFile,
  openCompiledPackFileSync,
  writeCompiledPackFile,
} from "../lib/rules/pack_file.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { packBytes } from "./_packs.ts";

interface Figures {
  readonly median: number;
  readonly p95: number;
}

/** Median and p95 of `samples` timings of `batch` calls each, in microseconds per call. */
async function measure(
  samples: number,
  batch: number,
  work: () => unknown,
): Promise<Figures> {
  for (let i = 0; i < Math.min(samples, 200) * batch; i++) await work(); // warm up the JIT
  const times: number[] = [];
  for (let s = 0; s < samples; s++) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) await work();
    times.push(((performance.now() - start) * 1000) / batch);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(samples / 2)], p95: times[Math.floor(samples * 0.95)] };
}

const ARGVS = [
  ["git", "status"],
  ["git", "-C", "repo", "--no-pager", "diff", "--stat"],
  ["git", "status", "--porcelain"],
  ["cargo", "+nightly", "test", "--workspace"],
  ["npm", "run", "test"],
  ["rg", "-n", "TODO", "src"],
  ["unknown-tool", "x"],
];

const rows: [string, Figures, string][] = [];
const builtin = createRuleRegistry([builtinRuleSource()]);
let next = 0;
rows.push([
  `built-in select (${ARGVS.length} argv shapes, rotating)`,
  await measure(5_000, 100, () => builtin.select(ARGVS[next++ % ARGVS.length])),
  "p95 ≤ 1 µs",
]);

const dir = Deno.makeTempDirSync({ prefix: "yarp-rule-gates-" });
const smallPath = `${dir}/1k.yrp`;
await writeCompiledPackFile(smallPath, packBytes(1_000));
const firstStart = performance.now();
(await openCompiledPackFile(smallPath)).pack.candidates("tool-7");
const first = (performance.now() - firstStart) * 1000;
rows.push([
  "1,000-rule pack: first read + open + match",
  { median: first, p95: first },
  "(one sample)",
]);
rows.push([
  "1,000-rule pack: warm read + open + verify + match",
  await measure(2_000, 1, async () => {
    const loaded = await openCompiledPackFile(smallPath);
    createRuleRegistry([builtinRuleSource(), loaded.pack]).select(["tool-7", "run", "task-7"]);
  }),
  "p95 ≤ 1,000 µs",
]);
const largePath = `${dir}/10k.yrp`;
await writeCompiledPackFile(largePath, packBytes(10_000));
const large = createRuleRegistry([builtinRuleSource(), openCompiledPackFileSync(largePath).pack]);
rows.push([
  "10,000-rule registry: select from a 2-rule bucket (warm)",
  await measure(5_000, 100, () => large.select(["solo", "run", "task-1", "--verbose"])),
  "",
]);
Deno.removeSync(dir, { recursive: true });

const pad = (text: string, width: number) => text.padEnd(width);
console.log(`${pad("case", 58)}  ${pad("median µs", 10)}  ${pad("p95 µs", 10)}  gate`);
for (const [name, { median, p95 }, gate] of rows) {
  console.log(
    `${pad(name, 58)}  ${pad(median.toFixed(3), 10)}  ${pad(p95.toFixed(3), 10)}  ${gate}`,
  );
}
