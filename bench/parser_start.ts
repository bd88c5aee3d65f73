/**
 * Parser start gate (docs/shell.md): from the module's bytes in memory to the
 * first parse returned, in process, p95 ≤ 15 ms. Start-up happens once per
 * process, so each sample is a fresh `deno run` of this file with `--child`,
 * which times `new WebAssembly.Module`, instantiation and the first parse of
 * SRC and prints the milliseconds. Prints median and p95 over N processes
 * and the split of the median sample.
 *
 * Usage: nice deno run --allow-read --allow-run bench/parser_start.ts [N] [SRC]
 */
import { instantiateBashParser } from "../lib/shell/bash_parser.ts";
import { shellWasmBytes } from "../lib/shell/_runtime.ts";

const GATE_P95_MS = 15;

if (Deno.args[0] === "--child") {
  const bytes = await shellWasmBytes();
  const start = performance.now();
  const module = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  const compiled = performance.now();
  const parser = instantiateBashParser(module);
  const started = performance.now();
  parser.parse(Deno.args[1]);
  const parsed = performance.now();
  console.log(
    JSON.stringify([parsed - start, compiled - start, started - compiled, parsed - started]),
  );
} else {
  const runs = Number(Deno.args[0] ?? 30);
  const source = Deno.args[1] ?? "git log --stat";
  const samples: number[][] = [];
  for (let run = 0; run < runs; run += 1) {
    const { stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", import.meta.filename!, "--child", source],
      stderr: "inherit",
    }).output();
    samples.push(JSON.parse(new TextDecoder().decode(stdout)));
  }
  samples.sort((a, b) => a[0] - b[0]);
  const at = (q: number) => samples[Math.min(runs - 1, Math.ceil(q * runs) - 1)];
  const [median, compile, instantiate, first] = at(0.5);
  const p95 = at(0.95)[0];
  console.log(
    `parser start (bytes → first parse of '${source}', n=${runs}): median ${
      median.toFixed(1)
    } ms ` +
      `(compile ${compile.toFixed(1)}, instantiate ${instantiate.toFixed(1)}, first parse ` +
      `${first.toFixed(1)}), p95 ${p95.toFixed(1)} ms; gate p95 ≤ ${GATE_P95_MS} ms: ` +
      (p95 <= GATE_P95_MS ? "met" : "NOT met"),
  );
}
