/**
 * Compiled-pack lookup cost (docs/architecture.md, "Performance gates": a 1,000-rule external pack,
 * warm open + verify header/index + match, p95 ≤ 1 ms). Packs are generated
 * in memory; the file case reads a temporary file (warm page cache).
 *
 * Run: deno bench --allow-read --allow-write --allow-env bench/compiled_pack_bench.ts
 */
import { openCompiledPack } from "../lib/rules/compiled_pack.ts";
import { openCompiledPackFile, writeCompiledPackFile } from "../lib/rules/pack_file.ts";
import { packBytes } from "./_packs.ts";

const small = packBytes(1_000);
const large = packBytes(10_000);
const dir = Deno.makeTempDirSync({ prefix: "yarp-pack-bench-" });
const smallPath = `${dir}/small.yrp`;
await writeCompiledPackFile(smallPath, small);
const warm = openCompiledPack(small);
warm.candidates("tool-7");

Deno.bench(
  "1,000 rules: read file + open + match one bucket (10 records)",
  { group: "1k" },
  async () => {
    const loaded = await openCompiledPackFile(smallPath);
    loaded.pack.candidates("tool-7");
  },
);

Deno.bench(
  "1,000 rules: open bytes (verify header/index) + match",
  { group: "1k", baseline: true },
  () => {
    openCompiledPack(small).candidates("tool-7");
  },
);

Deno.bench("1,000 rules: match on an open pack (cached bucket)", { group: "1k" }, () => {
  warm.candidates("tool-7");
});

Deno.bench("10,000 rules: open bytes + match the 2-rule bucket", { group: "10k" }, () => {
  openCompiledPack(large).candidates("solo");
});

Deno.bench("10,000 rules: open + verifyAll", { group: "10k" }, () => {
  openCompiledPack(large).verifyAll();
});
