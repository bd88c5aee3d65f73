/**
 * What the YARP extension adds to a bash call inside a real Pi (0.73.1),
 * and where the time goes, for a reduced simple command (`git log`,
 * rewritten to `yarp run`; new on each call, and repeated), a reduced pipeline (`grep … | head -500`,
 * `yarp result-reduce`, served once the extension knows the rules) and an unknown command (`seq 1 5`). Sessions with
 * and without YARP alternate (the floor is Pi without the extension, in the
 * same run); probes loaded before and after the extension stamp each call:
 *
 * - rewrite phase: `tool_call` through YARP's handler (the extension and,
 *   unless skipped, the `yarp rewrite --json` process);
 * - run phase: the command itself as Pi runs it (with YARP, `yarp run`'s
 *   own cost is the difference to the floor);
 * - result phase: `tool_result` through YARP's handler (`yarp
 *   result-reduce`, when asked).
 *
 * Between sessions the same `yarp rewrite --json` and `yarp result-reduce`
 * processes run alone from Deno, so the extension's own share is the phase
 * minus its process, and an empty `deno eval 0` gives the machine's
 * process-start floor in the same rounds (a loaded machine slows every
 * start). Prints medians and p95 per case and phase.
 *
 * With `--installed`, YARP is the default install path instead of the
 * checkout's `bin/yarp` on PATH: the package `npm pack` makes, installed
 * with npm as docs/pi.md says, no yarp on PATH, so the extension runs the
 * package's own build with its npm Deno (loaded with `-e` from the
 * installed directory, between the probes); sessions with the checkout's
 * `bin/yarp` on PATH run in the same rounds, for comparison.
 *
 * Run: deno run -A bench/pi_latency.ts [REPS] [--installed]
 */
import { join } from "node:path";
import {
  baseEnv,
  FIXTURES,
  installedPiPackage,
  installPiPackage,
  makeProject,
  ModelServer,
  packPiPackage,
  pi073,
  ROOT,
  runPi,
  sh,
  type Step,
} from "../tests/_pi_e2e.ts";

const installed = Deno.args.includes("--installed");
const reps = Number(Deno.args.find((arg) => /^\d+$/.test(arg)) ?? 10);
/**
 * Each case's command for call `i` of a session. The extension remembers a
 * rewrite decision by source, so the reduced simple command is measured both
 * new on every call (`git log -n N`, N ≥ the 300 commits, so the same output)
 * and repeated.
 */
const CASES: Record<string, (i: number) => string> = {
  "reduced simple, a new source each call (git log -n N)": (i) => `git log -n ${1000 + i}`,
  "reduced simple, repeated (git log)": () => "git log",
  "reduced pipeline (grep -rn needle . | head -500)": () => "grep -rn needle . | head -500",
  "unknown (seq 1 5)": () => "seq 1 5",
};
const PHASES = ["total", "rewrite", "run", "result"] as const;
/** The machine's process-start floor in the same rounds: how loaded it was (quiet: about 31 ms). */
const START_FLOOR = "deno eval 0 (the start floor)";
type Phase = typeof PHASES[number];
type Samples = Record<Phase, number[]>;

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const empty = (): Samples => ({ total: [], rewrite: [], run: [], result: [] });

/** Reads the probes' log into per-call phase durations. */
async function phases(log: string, into: Samples): Promise<void> {
  const stamps = new Map<string, Record<string, number>>();
  for (const line of (await Deno.readTextFile(log)).split("\n").filter((l) => l)) {
    const { role, id, ms } = JSON.parse(line);
    stamps.set(id, { ...stamps.get(id), [role]: ms });
  }
  for (const s of stamps.values()) {
    if (s["call-start"] === undefined || s["result-end"] === undefined) continue;
    into.total.push(s["result-end"] - s["call-start"]);
    into.rewrite.push(s["call-end"] - s["call-start"]);
    into.run.push(s["result-start"] - s["call-end"]);
    into.result.push(s["result-end"] - s["result-start"]);
  }
}

/** Milliseconds of one `PROGRAM ARGS` process (default `bin/yarp`) started from Deno, stdin given. */
async function processMs(
  cwd: string,
  scratch: string,
  args: string[],
  stdin: Uint8Array,
  program = join(ROOT, "bin/yarp"),
): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command(program, {
    args,
    cwd,
    env: baseEnv(scratch),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(stdin).catch(() => {});
  await writer.close().catch(() => {});
  await child.output();
  return performance.now() - started;
}

const scratch = await Deno.makeTempDir({ prefix: "yarp-pi-latency-" });
const project = join(scratch, "project");
await makeProject(project, 300);
const server = await ModelServer.start(scratch);
const pi = await pi073();
/** The extension to load and the PATH of the sessions with YARP. */
const CHECKOUT = join(ROOT, "hooks/pi/index.ts");
let extension = CHECKOUT;
let yarpEnv: Record<string, string> = {};
if (installed) {
  const packageScratch = join(scratch, "package");
  await Deno.mkdir(packageScratch);
  await installPiPackage(pi, await packPiPackage(packageScratch), packageScratch);
  extension = join(installedPiPackage(pi, packageScratch), "index.ts");
  const path = (Deno.env.get("PATH") ?? "").split(":").filter((dir) => dir !== join(ROOT, "bin"));
  yarpEnv = { PATH: path.join(":") };
}
const results: Record<
  string,
  { yarp: Samples; plain: Samples; checkout: Samples; alone: Record<string, number[]> }
> = {};
/** One session per entry, in this order, twice: YARP as chosen, none, and (installed) bin/yarp. */
const ROUNDS = installed ? ["yarp", "plain", "checkout"] as const : ["yarp", "plain"] as const;
try {
  for (const [label, commandOf] of Object.entries(CASES)) {
    const command = commandOf(0);
    const output = new TextEncoder().encode(await sh(project, `${command} 2>&1 || true`));
    const alone: Record<string, number[]> = {
      "yarp rewrite": [],
      "yarp result-reduce": [],
      [START_FLOOR]: [],
    };
    const result = { yarp: empty(), plain: empty(), checkout: empty(), alone };
    results[label] = result;
    const script: Step[] = [
      ...Array.from(
        { length: reps },
        (_, i) => ({ tool_calls: [{ name: "bash", arguments: { command: commandOf(i) } }] }),
      ),
      { text: "done" },
    ];
    for (const variant of [...ROUNDS, ...ROUNDS]) {
      const log = join(scratch, `timing-${crypto.randomUUID()}.jsonl`);
      const loaded = variant === "yarp" ? [extension] : variant === "checkout" ? [CHECKOUT] : [];
      await runPi({
        pi,
        server,
        cwd: project,
        script,
        scratch: join(scratch, variant),
        yarp: false,
        before: [join(FIXTURES, "timing_start.ts")],
        extensions: [...loaded, join(FIXTURES, "timing_end.ts")],
        env: { PI_TIMING_LOG: log, ...(variant === "yarp" ? yarpEnv : {}) },
      });
      await phases(log, result[variant]);
      if (variant !== "yarp") continue;
      for (let i = 0; i < reps / 2; i++) {
        const state = join(scratch, "yarp");
        const none = new Uint8Array();
        result.alone["yarp rewrite"].push(
          await processMs(project, state, ["rewrite", "--json", "--", command], none),
        );
        result.alone["yarp result-reduce"].push(
          await processMs(project, state, ["result-reduce", "--command", command], output),
        );
        result.alone[START_FLOOR].push(
          await processMs(project, state, ["eval", "0"], none, Deno.execPath()),
        );
      }
    }
  }
} finally {
  await server.stop();
  await Deno.remove(scratch, { recursive: true });
}

const f = (n: number) => n.toFixed(0);
const mp = (xs: number[]) => `${f(quantile(xs, 0.5))} / ${f(quantile(xs, 0.95))}`;
console.log(
  `Pi 0.73.1, ${reps} calls per session, 2 sessions with and 2 without YARP per case; ms median / p95`,
);
console.log(
  installed
    ? "YARP: the installed package (its split build run by its npm Deno), no yarp on PATH"
    : "YARP: the checkout's bin/yarp on PATH",
);
console.log(`load average at the end: ${(await Deno.readTextFile("/proc/loadavg")).trim()}`);
for (const [label, { yarp, plain, checkout, alone }] of Object.entries(results)) {
  console.log(`\n${label} (n = ${yarp.total.length} with, ${plain.total.length} without)`);
  if (checkout.total.length > 0) {
    console.log(
      `total with the checkout's bin/yarp on PATH, same rounds | ${mp(checkout.total)} | ${
        f(quantile(checkout.total, 0.5) - quantile(plain.total, 0.5))
      } added`,
    );
  }
  console.log("phase | with YARP | floor (no extension) | added median");
  for (const phase of PHASES) {
    console.log(
      `${phase} | ${mp(yarp[phase])} | ${mp(plain[phase])} | ${
        f(quantile(yarp[phase], 0.5) - quantile(plain[phase], 0.5))
      }`,
    );
  }
  for (const [name, xs] of Object.entries(alone)) {
    console.log(`process alone: ${name} | ${mp(xs)}`);
  }
}
