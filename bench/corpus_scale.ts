/**
 * Whole-process scale of `yarp corpus analyze` (issue "Measure what
 * matters": bounded memory on multi-GB corpora, both cores used): writes a
 * synthetic gzip corpus of about `--mib` MiB of output (generated records:
 * grep-like listings, failing test runs, build logs, guarded inspections and
 * pipelines; nothing copied from any real corpus), then runs the launcher
 * over it with 0 and with the default workers, and prints wall time,
 * throughput, records per second and peak RSS (`/usr/bin/time -f %M`).
 *
 * Usage: `deno run -A bench/corpus_scale.ts [--mib N]` (default 1024).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { recordToLine } from "../lib/corpus/record.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const { values } = parseArgs({
  args: Deno.args,
  options: { mib: { type: "string", default: "1024" } },
  strict: true,
});
const MIB = Number(values.mib);
if (!Number.isFinite(MIB) || MIB <= 0) throw new Error("--mib: not a positive number");
const encoder = new TextEncoder();

/** Deterministic pseudo-random numbers, so every run measures the same corpus. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const next = random(42);
const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];

function lines(count: number, make: (i: number) => string): string {
  let text = "";
  for (let i = 0; i < count; i++) text += make(i) + "\n";
  return text;
}

/** One generated record: command, streams and exit status. */
function generate(index: number) {
  const kind = index % 5;
  const size = Math.floor(50 + next() * 4000);
  if (kind === 0) {
    return {
      command: "grep -rn needle src",
      exit: 0,
      stdout: lines(
        size,
        (i) => `src/mod${i % 97}/file${i}.ts:${i + 1}:  const needle${i} = ${i};`,
      ),
      stderr: "",
    };
  }
  if (kind === 1) {
    const body = lines(size, (i) => `    ✓ case ${i} passes (${i % 9} ms)`);
    const failures = lines(20, (i) => `  ${i + 1}) suite case ${i}:\n     Error: expected ${i}`);
    return { command: "npm test", exit: 1, stdout: body + `  20 failing\n` + failures, stderr: "" };
  }
  if (kind === 2) {
    return {
      command: "make -j2",
      exit: pick([0, 2]),
      stdout: lines(size, (i) => `gcc -O2 -Wall -c src/unit${i}.c -o build/unit${i}.o`),
      stderr: "src/unit7.c:12:5: error: expected ';' before 'return'\n",
    };
  }
  if (kind === 3) {
    return {
      command: "cat -n src/main.c",
      exit: 0,
      stdout: lines(size, (i) => `${String(i + 1).padStart(6)}\tint value${i} = ${i};`),
      stderr: "",
    };
  }
  return {
    command: "git log --oneline | head -500",
    exit: 0,
    stdout: lines(Math.min(size, 500), (i) => `${(i * 2654435761 >>> 0).toString(16)} commit ${i}`),
    stderr: "",
  };
}

const dir = await Deno.makeTempDir({ prefix: "yarp_corpus_scale_" });
const corpus = `${dir}/corpus.jsonl.gz`;
try {
  const file = await Deno.open(corpus, { write: true, create: true });
  const gzip = new CompressionStream("gzip");
  const piping = gzip.readable.pipeTo(file.writable);
  const writer = gzip.writable.getWriter();
  let outputBytes = 0;
  let records = 0;
  while (outputBytes < MIB * 1024 * 1024) {
    const run = generate(records);
    outputBytes += run.stdout.length + run.stderr.length;
    await writer.write(encoder.encode(
      recordToLine({
        id: `scale/${records}`,
        source: "bench",
        command: run.command,
        exitCode: run.exit,
        streams: {
          mode: "separate",
          stdout: encoder.encode(run.stdout),
          stderr: encoder.encode(run.stderr),
        },
        priorReduction: null,
      }) + "\n",
    ));
    records++;
  }
  await writer.close();
  await piping;
  const onDisk = (await Deno.stat(corpus)).size;
  console.log(
    `corpus: ${records} records, ${(outputBytes / 2 ** 20).toFixed(0)} MiB of output, ${
      (onDisk / 2 ** 20).toFixed(1)
    } MiB gzip`,
  );
  for (const workers of ["0", "default"]) {
    const args = ["-f", "%M %e", `${ROOT}bin/yarp`, "corpus", "analyze", corpus, "--json"];
    if (workers !== "default") args.push("--workers", workers);
    const started = performance.now();
    const run = await new Deno.Command("/usr/bin/time", { args, stdout: "piped", stderr: "piped" })
      .output();
    const seconds = (performance.now() - started) / 1000;
    const stderr = new TextDecoder().decode(run.stderr).trim().split("\n");
    const [peakKiB] = stderr[stderr.length - 1].split(" ").map(Number);
    const summary = JSON.parse(new TextDecoder().decode(run.stdout));
    console.log(
      `workers ${workers.padEnd(7)} ${seconds.toFixed(1)} s, ${
        (outputBytes / 2 ** 20 / seconds).toFixed(0)
      } MiB/s, ${(records / seconds).toFixed(0)} records/s, peak RSS ${
        (peakKiB / 1024).toFixed(0)
      } MiB, analysed ${summary.records}, removed ${(summary.removedShare * 100).toFixed(1)}%`,
    );
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
