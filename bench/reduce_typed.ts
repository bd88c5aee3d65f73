/**
 * Throughput, retained state and peak RSS of every typed reducer kind over
 * a synthetic stream of its family's shape, interleaved with `head_tail`
 * over the same bytes as the floor of the same run.
 *
 * Usage: deno run --allow-read --allow-env --allow-run bench/reduce_typed.ts [MIB] [ROUNDS] [KIND…]
 * (defaults 256 MiB per kind and stream, 3 rounds, every kind; 1024 for the issue's
 * 1 GiB figure). Without kinds, each kind runs in a process of its own (a
 * YARP process reduces one command's streams), so each peak RSS is that
 * kind's whole process. Gates: each kind ≥ 200 MB/s (median of the rounds,
 * by the process's CPU time, which on a shared machine is the reducer's own
 * speed; wall-time rates are printed beside it), state ≤ 4 MiB per stream,
 * peak RSS of the process ≤ 100 MiB. Exit 1 when a gate fails. The search
 * kind runs with the source terms of `grep -rn 'compute\|absent_term' src`:
 * one of them never occurs, so every row is searched for it (the slowest
 * case of evidence class 3).
 *
 * With `--baseline=DIR` (anywhere among the arguments; DIR a copy of another
 * revision's tree, e.g. `git archive REV | tar -x -C DIR`), each round runs
 * that revision's reducer and this one over the same bytes, one after the
 * other (which goes first alternates), in place of the `head_tail` floor,
 * and the row gives both CPU rates (median / slowest round) and the median
 * speed-up: a before/after pair measured so on a shared machine.
 */
import process from "node:process";
import {
  createStreamReducer,
  type SourceTerms,
  sourceTerms,
  streamMemoryBound,
} from "../lib/reduce/mod.ts";
import {
  type OutputPolicy,
  type ReducerSpec,
  type ReductionRule,
  TYPED_REDUCER_KINDS,
  type TypedReducerKind,
} from "../lib/rules/model.ts";

const MIB = 1024 * 1024;
const BASELINE = "--baseline=";
const args = Deno.args.filter((a) => !a.startsWith(BASELINE));
const baselineArg = Deno.args.find((a) => a.startsWith(BASELINE));
const sizeMiB = Number(args[0] ?? 256);
const rounds = Number(args[1] ?? 3);
const CHUNK = 64 * 1024;
const kinds = args.slice(2).map((k) => {
  if (!(TYPED_REDUCER_KINDS as readonly string[]).includes(k)) {
    throw new Error(`unknown kind ${k}`);
  }
  return k as TypedReducerKind;
});

if (kinds.length === 0) {
  // One process per kind: print each one's table row and RSS line.
  console.log(`typed reducers, ${sizeMiB} MiB per stream, ${rounds} rounds, 64 KiB chunks`);
  let status = 0;
  for (const kind of TYPED_REDUCER_KINDS) {
    const child = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-env",
        new URL(import.meta.url).pathname,
        String(sizeMiB),
        String(rounds),
        kind,
        ...(baselineArg === undefined ? [] : [baselineArg]),
      ],
      stderr: "inherit",
    }).output();
    const lines = new TextDecoder().decode(child.stdout).trimEnd().split("\n");
    if (kind === TYPED_REDUCER_KINDS[0]) console.log(lines[1]);
    console.log(`${lines[2]}; ${lines[3]}`);
    if (!child.success) status = 1;
  }
  Deno.exit(status);
}

const POLICY: OutputPolicy = {
  headLines: 200,
  tailLines: 1000,
  maxLineBytes: 4096,
  maxOutputBytes: 65536,
  minSavingsBytes: 256,
};

function rule(reducer: ReducerSpec): ReductionRule {
  return {
    id: `bench/${reducer.kind}`,
    action: "reduce",
    match: { programs: ["bench"], argvPrefix: [], argvContainsAll: [] },
    reducer,
    success: POLICY,
    failure: POLICY,
  };
}

/** One 64 KiB block of lines of the family's shape (varied numbers, a few diagnostics). */
function block(kind: TypedReducerKind): Uint8Array {
  const line = (i: number): string => {
    switch (kind) {
      case "search":
        return `src/module_${i % 97}/file_${
          i % 13
        }.ts:${i}:  const value${i} = compute(${i}); // TODO`;
      case "diff":
        return i % 50 === 0
          ? `diff --git a/src/f${i}.ts b/src/f${i}.ts`
          : i % 10 === 0
          ? `@@ -${i},7 +${i},8 @@ export function f${i}() {`
          : `${i % 3 === 0 ? "+" : i % 3 === 1 ? "-" : " "}  return value${i} + ${i};`;
      case "status":
        return i % 2 === 0 ? `\tmodified:   src/dir_${i % 31}/file_${i}.ts` : `?? build/out_${i}.o`;
      case "test":
        return i % 500 === 0
          ? `  ✕ case ${i} fails (3 ms)`
          : i % 3 === 0
          ? `test suite::case_${i} ... ok`
          : `  ✓ handles input ${i} correctly (${i % 9} ms)`;
      case "build":
        return i % 400 === 0
          ? `src/unit_${i}.c:${i}:5: warning: unused variable 'tmp${i}' [-Wunused-variable]`
          : `[${i}/480000] Building CXX object src/CMakeFiles/core.dir/unit_${i}.cc.o`;
      case "install":
        return i % 300 === 0
          ? `npm warn deprecated pkg${i}@1.0.${i}: no longer supported`
          : `npm http fetch GET 200 https://registry.example/pkg${i}/-/pkg${i}-1.0.${i}.tgz ${
            i % 90
          }ms`;
      case "log":
        return `${
          (i * 2654435761 >>> 0).toString(16).padStart(8, "0")
        } Subject of commit number ${i}`;
      case "list":
        return `./src/dir_${i % 53}/sub_${i % 7}/file_${i}.${["ts", "md", "json", "c"][i % 4]}`;
    }
  };
  const out = new Uint8Array(CHUNK);
  let at = 0;
  for (let i = 1;; i++) {
    const bytes = new TextEncoder().encode(line(i) + "\n");
    if (at + bytes.length > CHUNK) break;
    out.set(bytes, at);
    at += bytes.length;
  }
  return out.subarray(0, at);
}

/** The search kind's source terms (see the module doc). */
const SEARCH_TERMS = sourceTerms(["grep", "-rn", "compute\\|absent_term", "src"]);

type CreateReducer = typeof createStreamReducer;

/** The baseline revision's `createStreamReducer`, or null without `--baseline`. */
async function baselineReducer(arg: string | undefined): Promise<CreateReducer | null> {
  if (arg === undefined) return null;
  const dir = Deno.realPathSync(arg.slice(BASELINE.length));
  return (await import(new URL(`file://${dir}/lib/reduce/mod.ts`).href))
    .createStreamReducer as CreateReducer;
}
const createBaseline = await baselineReducer(baselineArg);

/** Seconds to reduce `blocks` copies of `data` under `r`, and the peak retained state. */
function run(
  r: ReductionRule,
  data: Uint8Array,
  blocks: number,
  terms?: SourceTerms,
  create: CreateReducer = createStreamReducer,
): { seconds: number; cpuSeconds: number; state: number } {
  const reducer = create(r, terms);
  let state = 0;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  for (let b = 0; b < blocks; b++) {
    reducer.push(data);
    if ((b & 255) === 0) state = Math.max(state, reducer.retainedBytes());
  }
  reducer.finish({ code: 0 }, { kind: "archived", id: "bench" });
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  state = Math.max(state, reducer.retainedBytes());
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, state };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

let failed = false;
let peakRss = Deno.memoryUsage().rss;
console.log(`typed reducers, ${sizeMiB} MiB per stream, ${rounds} rounds, 64 KiB chunks`);
console.log(
  createBaseline !== null
    ? "kind      baseline and now, CPU time"
    : "kind      cpu MB/s median  min  wall median  min  head_tail cpu  ratio  state KiB  bound KiB",
);
for (const kind of kinds) {
  const data = block(kind);
  const blocks = Math.ceil(sizeMiB * MIB / data.length);
  const bytes = blocks * data.length;
  const wall: number[] = [];
  const cpu: number[] = [];
  const floor: number[] = [];
  let state = 0;
  const typedRule = rule({ kind });
  const terms = kind === "search" ? SEARCH_TERMS : undefined;
  if (createBaseline !== null) {
    const before: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const base = () =>
        before.push(bytes / run(typedRule, data, blocks, terms, createBaseline).cpuSeconds / 1e6);
      if (i % 2 === 0) base();
      cpu.push(bytes / run(typedRule, data, blocks, terms).cpuSeconds / 1e6);
      if (i % 2 === 1) base();
    }
    const ratios = cpu.map((c, i) => c / before[i]);
    const f = (n: number) => n.toFixed(0);
    console.log(
      `${kind.padEnd(9)} cpu MB/s baseline ${f(median(before))} / ${f(Math.min(...before))}, now ${
        f(median(cpu))
      } / ${f(Math.min(...cpu))}; speed-up median ${median(ratios).toFixed(2)}`,
    );
    continue;
  }
  for (let i = 0; i < rounds; i++) {
    const t = run(typedRule, data, blocks, terms);
    wall.push(bytes / t.seconds / 1e6);
    cpu.push(bytes / t.cpuSeconds / 1e6);
    state = Math.max(state, t.state);
    peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
    floor.push(bytes / run(rule({ kind: "head_tail" }), data, blocks).cpuSeconds / 1e6);
    peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
  }
  const mbps = median(cpu);
  const bound = streamMemoryBound(typedRule);
  const ok = mbps >= 200 && state <= 4 * MIB && state <= bound;
  if (!ok) failed = true;
  const f = (n: number, w: number) => n.toFixed(0).padStart(w);
  console.log(
    `${kind.padEnd(9)} ${f(mbps, 15)} ${f(Math.min(...cpu), 4)} ${f(median(wall), 12)} ${
      f(Math.min(...wall), 4)
    } ${f(median(floor), 14)} ${(mbps / median(floor)).toFixed(2).padStart(6)} ${
      f(state / 1024, 10)
    } ${f(bound / 1024, 10)}${ok ? "" : "  FAIL"}`,
  );
}
console.log(`peak RSS ${(peakRss / MIB).toFixed(1)} MiB (gate 100 MiB)`);
if (peakRss > 100 * MIB) failed = true;
Deno.exit(failed ? 1 : 0);
