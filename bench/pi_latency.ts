/**
 * What the YARP extension adds to a bash call inside a real Pi (0.73.1):
 * the time from `tool_call` (stamped before YARP's handler) to
 * `tool_result` (stamped after it), with and without the extension, for a
 * reduced simple command (`git log`, rewritten to `yarp run`), a reduced
 * pipeline (`grep … | head -500`, `yarp result-reduce`) and an unknown
 * command (`seq 1 5`). Sessions with and without YARP alternate; prints
 * median and p95 per case and the added median.
 *
 * Run: deno run -A bench/pi_latency.ts [REPS]
 */
import { join } from "node:path";
import { FIXTURES, makeProject, ModelServer, pi073, runPi, type Step } from "../tests/_pi_e2e.ts";

const reps = Number(Deno.args[0] ?? 10);
const CASES = {
  "reduced simple (git log)": "git log",
  "reduced pipeline (grep -rn needle . | head -500)": "grep -rn needle . | head -500",
  "unknown (seq 1 5)": "seq 1 5",
};

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const scratch = await Deno.makeTempDir({ prefix: "yarp-pi-latency-" });
const project = join(scratch, "project");
await makeProject(project, 300);
const server = await ModelServer.start(scratch);
const pi = await pi073();
const samples: Record<string, { yarp: number[]; plain: number[] }> = {};
try {
  for (const [label, command] of Object.entries(CASES)) {
    samples[label] = { yarp: [], plain: [] };
    const script: Step[] = [
      ...Array.from(
        { length: reps },
        () => ({ tool_calls: [{ name: "bash", arguments: { command } }] }),
      ),
      { text: "done" },
    ];
    for (const withYarp of [true, false, true, false]) {
      const log = join(scratch, `timing-${crypto.randomUUID()}.jsonl`);
      await runPi({
        pi,
        server,
        cwd: project,
        script,
        scratch: join(scratch, withYarp ? "yarp" : "plain"),
        yarp: withYarp,
        before: [join(FIXTURES, "timing_start.ts")],
        extensions: [join(FIXTURES, "timing_end.ts")],
        env: { PI_TIMING_LOG: log },
      });
      const starts = new Map<string, number>();
      for (const line of (await Deno.readTextFile(log)).split("\n").filter((l) => l)) {
        const { role, id, ms } = JSON.parse(line);
        if (role === "start") starts.set(id, ms);
        else if (starts.has(id)) {
          samples[label][withYarp ? "yarp" : "plain"].push(ms - starts.get(id)!);
        }
      }
    }
  }
} finally {
  await server.stop();
  await Deno.remove(scratch, { recursive: true });
}
console.log("case | with YARP median / p95 ms | without median / p95 ms | added median ms | n");
for (const [label, { yarp, plain }] of Object.entries(samples)) {
  yarp.sort((a, b) => a - b);
  plain.sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(0);
  console.log(
    `${label} | ${f(quantile(yarp, 0.5))} / ${f(quantile(yarp, 0.95))} | ${
      f(quantile(plain, 0.5))
    } / ${f(quantile(plain, 0.95))} | ${
      f(quantile(yarp, 0.5) - quantile(plain, 0.5))
    } | ${yarp.length}+${plain.length}`,
  );
}
