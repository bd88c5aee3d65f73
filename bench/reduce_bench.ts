/**
 * `Deno.bench` for the bounded reducers: `head_tail` and two `line_filter`
 * rules (with `keep` patterns, and drop-only) over 1 MiB and 100 MiB
 * synthetic streams of short lines, long lines, ANSI colour, invalid UTF-8
 * and a high filter-match rate, pushed in 64 KiB chunks (a ~64 KiB block
 * repeated, so no input is held in memory).
 *
 * Run: `deno bench bench/reduce_bench.ts`
 *
 * @module
 */
import { createStreamReducer } from "../lib/reduce/mod.ts";
import type { ReductionRule } from "../lib/rules/model.ts";
import { BENCH_RULES, inputBlocks } from "./_reduce_data.ts";

const MIB = 1024 * 1024;

function stream(rule: ReductionRule, block: Uint8Array, bytes: number): number {
  const reducer = createStreamReducer(rule);
  for (let fed = 0; fed < bytes; fed += block.length) {
    reducer.push(block.subarray(0, Math.min(block.length, bytes - fed)));
  }
  return reducer.finish({ code: 1 }, { kind: "none" }).bytes.length;
}

for (const [shape, block] of Object.entries(inputBlocks())) {
  for (const [name, rule] of Object.entries(BENCH_RULES)) {
    for (const mib of [1, 100]) {
      Deno.bench({
        name: `${name} ${shape} ${mib} MiB`,
        group: `${shape} ${mib} MiB`,
        baseline: name === "head_tail",
        n: mib === 1 ? undefined : 5,
        warmup: mib === 1 ? undefined : 1,
        fn() {
          stream(rule, block, mib * MIB);
        },
      });
    }
  }
}
