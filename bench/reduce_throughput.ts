/**
 * Streams N MiB (first argument, default 1024) of each synthetic input shape
 * (further arguments, default every shape of `inputBlocks`: short, long,
 * ansi, invalid_utf8, filter_heavy) through each of `BENCH_RULES` (`head_tail`,
 * a `line_filter` with `keep` patterns, a drop-only one) in 64 KiB chunks and prints, over R runs (second argument, default 3), the
 * median and slowest-run rate in MB/s by wall time and by process CPU time
 * (user + system; on a shared machine the CPU figure is the reducer's own
 * speed), the retained state against its bound, and the peak resident set
 * size seen so far. Gate (docs/architecture.md, "Performance gates"): ≥ 250 MB/s, peak RSS ≤ 100 MiB at
 * 1 GiB.
 *
 * Run: `deno run --allow-read --allow-env bench/reduce_throughput.ts 1024 3 ansi short`
 *
 * With `--baseline=DIR` (anywhere among the arguments; DIR a copy of another
 * revision's tree, e.g. `git archive REV | tar -x -C DIR`), each round runs
 * that revision's reducer and this one over the same bytes, one after the
 * other (which goes first alternates), and prints both rates and their
 * ratio: on a shared machine a before/after pair means something only when
 * measured so (docs/rules.md, "Throughput").
 *
 * @module
 */
import process from "node:process";
import { createStreamReducer, streamMemoryBound } from "../lib/reduce/mod.ts";
import type { ReductionRule } from "../lib/rules/model.ts";
import { BENCH_RULES, inputBlocks } from "./_reduce_data.ts";

const CHUNK = 64 * 1024;
const BASELINE = "--baseline=";
const args = Deno.args.filter((a) => !a.startsWith(BASELINE));
const baselineDir = Deno.args.find((a) => a.startsWith(BASELINE))?.slice(BASELINE.length);
const mib = Number(args[0] ?? 1024);
const runs = Number(args[1] ?? 3);
const blocks = inputBlocks();
const shapes = args.length > 2 ? args.slice(2) : Object.keys(blocks);
const total = mib * 1024 * 1024;

let peakRss = Deno.memoryUsage().rss;

interface Run {
  seconds: number;
  cpuSeconds: number;
  outBytes: number;
  retained: number;
}

/**
 * One stream of `total` bytes: `block` repeated four times, sliced into
 * 64 KiB chunks at shifting offsets so chunk boundaries fall everywhere
 * inside lines.
 */
type CreateReducer = typeof createStreamReducer;

/** The baseline revision's `createStreamReducer`, or null without `--baseline`. */
async function baselineReducer(dir: string | undefined): Promise<CreateReducer | null> {
  if (dir === undefined) return null;
  const url = new URL(`file://${Deno.realPathSync(dir)}/lib/reduce/mod.ts`);
  return (await import(url.href)).createStreamReducer as CreateReducer;
}
const createBaseline = await baselineReducer(baselineDir);

function runOnce(rule: ReductionRule, block: Uint8Array, create: CreateReducer): Run {
  const source = new Uint8Array(block.length * 4);
  for (let i = 0; i < 4; i++) source.set(block, i * block.length);
  const reducer = create(rule);
  let fed = 0;
  let offset = 0;
  let retained = 0;
  let n = 0;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  while (fed < total) {
    const len = Math.min(CHUNK, total - fed);
    if (offset + len > source.length) offset = (offset + 4099) % block.length;
    reducer.push(source.subarray(offset, offset + len));
    offset += len;
    fed += len;
    if ((++n & 255) === 0) {
      retained = Math.max(retained, reducer.retainedBytes());
      peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
    }
  }
  const out = reducer.finish({ code: 1 }, { kind: "none" });
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  retained = Math.max(retained, reducer.retainedBytes());
  peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
  return { seconds, cpuSeconds, outBytes: out.bytes.length, retained };
}

/** The p-quantile of ascending `sorted` (nearest rank). */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

const rate = (seconds: number) => total / 1e6 / seconds;
const summary = (rates: number[]) => {
  const sorted = [...rates].sort((a, b) => a - b);
  return `median ${percentile(sorted, 0.5).toFixed(0)}, worst ${sorted[0].toFixed(0)} MB/s`;
};

for (const shape of shapes) {
  const block = blocks[shape];
  if (block === undefined) throw new Error(`unknown shape ${shape}; known: ${Object.keys(blocks)}`);
  for (const [name, rule] of Object.entries(BENCH_RULES)) {
    const done: Run[] = [];
    const before: Run[] = [];
    for (let r = 0; r < runs; r++) {
      if (createBaseline !== null && r % 2 === 0) before.push(runOnce(rule, block, createBaseline));
      done.push(runOnce(rule, block, createStreamReducer));
      if (createBaseline !== null && r % 2 === 1) before.push(runOnce(rule, block, createBaseline));
    }
    const last = done[done.length - 1];
    if (createBaseline !== null) {
      const cpu = (list: Run[]) => list.map((r) => rate(r.cpuSeconds));
      const ratios = done.map((r, i) => before[i].cpuSeconds / r.cpuSeconds);
      const same = before[before.length - 1].outBytes === last.outBytes
        ? ""
        : "; OUTPUT LENGTH DIFFERS";
      console.log(
        `${shape.padEnd(12)} ${name.padEnd(11)} ${mib} MiB × ${runs}: cpu baseline ${
          summary(cpu(before))
        }; now ${summary(cpu(done))}; speed-up median ${
          percentile([...ratios].sort((a, b) => a - b), 0.5).toFixed(2)
        }${same}`,
      );
      continue;
    }
    console.log(
      `${shape.padEnd(12)} ${name.padEnd(11)} ${mib} MiB × ${runs}: ` +
        `wall ${summary(done.map((r) => rate(r.seconds)))}; ` +
        `cpu ${summary(done.map((r) => rate(r.cpuSeconds)))}; ` +
        `output ${last.outBytes} B; retained ${last.retained} B ≤ bound ${
          streamMemoryBound(rule)
        } B; peak RSS ${(peakRss / 1024 / 1024).toFixed(1)} MiB`,
    );
  }
}
