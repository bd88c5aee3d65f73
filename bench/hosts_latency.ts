/**
 * What YARP adds inside the real hosts, and what the model receives with and
 * without it (issues 27 and 29): Claude Code 2.1.328, Codex 0.169.0 (direct
 * and code tool modes), Gemini CLI 0.61.0 (`--yolo`) and opencode 1.18.33.
 * Same scripted model server and isolated homes as the e2e tests
 * (tests/hosts_e2e_test.ts, tests/gemini_e2e_test.ts,
 * tests/_opencode_e2e.ts); YARP is installed with `yarp setup HOST --user`.
 *
 * - Characters: the scenario script (tests/_hosts_e2e.ts, `COMMANDS`) once
 *   per target with and once without YARP; the characters of each tool
 *   result the model received.
 * - Time: REPS sessions of one `git log --stat` call (in a 300-commit
 *   repository) per target, with and without YARP, interleaved (the order
 *   alternates each round), timing the whole host process. The added time
 *   per call is each pair's difference; median and p95 of both sessions and
 *   of the differences are printed, with the load average before and after.
 * - YARP's own part of one call (Gemini CLI and opencode): what YARP adds
 *   to one `git log --stat` call, run outside the host as the host runs it
 *   (Gemini's hook and wrapper processes; opencode's request to the
 *   plugin's result server), REPS rounds interleaved with the bare command;
 *   far less noisy than the difference of two whole sessions on a shared
 *   machine.
 * - Floor: `deno eval 1` once per round, timed the same way, in the same
 *   run: the cost of one Deno start on the machine at that moment.
 *
 * Run: deno run -A bench/hosts_latency.ts [--parts-only] [REPS] [TARGET...]
 * (REPS default 20, 0 for the characters alone; targets default all of
 * claude-code codex-direct codex-code gemini opencode; `--parts-only`
 * measures YARP's own part alone)
 */
import {
  claudeCode,
  codex,
  COMMANDS,
  type Fixture,
  gemini,
  hostEnv,
  ROOT,
  SCRIPT,
  session,
  type Step,
  type Target,
  withFixture,
} from "../tests/_hosts_e2e.ts";
import { opencode, opencodeEnv, opencodeSession } from "../tests/_opencode_e2e.ts";
import { join } from "node:path";
import { startLineServer } from "../hooks/pi/src/yarp_process.ts";

/** What a benchmark reads from one host session. */
interface Session {
  readonly code: number;
  readonly stderr: string;
  readonly ms: number;
  /** The tool results' texts as the model received them, in order. */
  readonly results: readonly string[];
}

/** One host (and tool mode) under measurement. */
interface BenchTarget {
  readonly name: string;
  run(fx: Fixture, name: string, yarp: boolean, script: readonly Step[]): Promise<Session>;
  /**
   * YARP's own processes in one `git log --stat` call, outside the host:
   * prepares once, then each call of the returned function times one call
   * without and one with them (in `order`) and returns both, in ms.
   */
  part?(fx: Fixture): Promise<(order: readonly boolean[]) => Promise<Pair>>;
}

/** One timed pair: without and with YARP, ms. */
interface Pair {
  readonly without: number;
  readonly with: number;
  /** Of `with`: the time of the host's hook process, where there is one outside the command. */
  readonly hook?: number;
}

/** A host YARP joins through its hooks (tests/_hosts_e2e.ts). */
function hooked(target: Target): BenchTarget {
  return {
    name: target.name,
    run: async (fx, name, yarp, script) => {
      const run = await session(target, fx, name, yarp, script);
      return { ...run, results: run.results.map((result) => result.text) };
    },
  };
}

/** Each target by name; a host is installed only when its target is asked for. */
const TARGETS: Record<string, () => Promise<BenchTarget>> = {
  "claude-code": async () =>
    hooked({ host: await claudeCode(), mode: "direct", name: "claude-code" }),
  "codex-direct": async () => hooked({ host: await codex(), mode: "direct", name: "codex-direct" }),
  "codex-code": async () => hooked({ host: await codex(), mode: "code", name: "codex-code" }),
  gemini: async () => {
    const target: Target = { host: await gemini(), mode: "direct", name: "gemini" };
    return { ...hooked(target), part: (fx) => geminiPart(target, fx) };
  },
  opencode: async () => {
    const install = await opencode();
    return {
      name: "opencode",
      run: (fx, name, yarp, script) =>
        opencodeSession(install, fx, name, yarp ? "setup" : "none", script),
      part: opencodePart,
    };
  },
};

const decoder = new TextDecoder();

/** Runs `command` and returns its wall time in ms and stdout; throws when it fails. */
async function timed(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string },
): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  const child = new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  const ms = performance.now() - started;
  if (!out.success) throw new Error(`${command} ${args.join(" ")}: ${decoder.decode(out.stderr)}`);
  return { ms, stdout: decoder.decode(out.stdout) };
}

/**
 * Gemini: without YARP the host runs `bash -c "git log --stat"`; with it, the
 * `BeforeTool` hook first (started, as Gemini starts it, by a process named
 * `gemini` with `--yolo`, which the hook's permission proof looks for), then
 * the wrapper the hook answered, through `bash -c`.
 */
async function geminiPart(target: Target, fx: Fixture) {
  const dir = join(fx.scratch, "part-gemini");
  const env = hostEnv({
    host: target.host,
    server: fx.server,
    cwd: fx.project,
    script: [],
    scratch: dir,
  });
  await Deno.mkdir(join(env.HOME, ".gemini"), { recursive: true });
  await Deno.mkdir(env.TMPDIR, { recursive: true });
  const event = join(dir, "event.json");
  await Deno.writeTextFile(
    event,
    JSON.stringify({
      hook_event_name: "BeforeTool",
      tool_name: "run_shell_command",
      tool_input: { command: "git log --stat" },
      cwd: fx.project,
    }),
  );
  const host = join(dir, "gemini");
  await Deno.writeTextFile(
    host,
    `#!/bin/sh\n"${ROOT}/bin/yarp" hook gemini < "${event}"\nexit $?\n`,
  );
  await Deno.chmod(host, 0o755);
  const options = { cwd: fx.project, env };
  return async (order: readonly boolean[]): Promise<Pair> => {
    const times: Record<string, number> = {};
    let hookMs = 0;
    for (const yarp of order) {
      if (!yarp) {
        times.without = (await timed("bash", ["-c", "git log --stat"], options)).ms;
        continue;
      }
      const hook = await timed(host, ["--yolo"], options);
      const wrapper = JSON.parse(hook.stdout).hookSpecificOutput?.tool_input?.command;
      if (typeof wrapper !== "string") throw new Error(`the hook did not wrap: ${hook.stdout}`);
      hookMs = hook.ms;
      times.with = hook.ms + (await timed("bash", ["-c", wrapper], options)).ms;
    }
    return { without: times.without, with: times.with, hook: hookMs };
  };
}

/**
 * opencode: without YARP the plugin is not there; with it, the plugin's
 * request to its instance's `yarp result-reduce --serve` with the whole
 * output (the server started, and its first answer waited for, before the
 * rounds: an instance's first call pays one process start, every later call
 * only this).
 */
async function opencodePart(fx: Fixture) {
  const dir = join(fx.scratch, "part-opencode");
  const env = opencodeEnv(dir);
  await Deno.mkdir(env.TMPDIR, { recursive: true });
  const output = (await timed("bash", ["-c", "git log --stat"], { cwd: fx.project, env })).stdout;
  const server = startLineServer(
    [join(ROOT, "bin/yarp"), "result-reduce", "--serve", "--host", "opencode"],
    { cwd: fx.project, env },
  );
  const request = JSON.stringify({
    command: "git log --stat",
    input: output,
    exit_code: 0,
    cwd: fx.project,
  });
  await server.request(request, 60_000);
  return async (): Promise<Pair> => {
    const started = performance.now();
    const reply = await server.request(request, 20_000);
    const ms = performance.now() - started;
    if (!reply?.includes("yarp read ")) throw new Error(`not reduced: ${reply}`);
    return { without: 0, with: ms };
  };
}

const partsOnly = Deno.args.includes("--parts-only");
const words = Deno.args.filter((arg) => arg !== "--parts-only");
const reps = Number(words[0] ?? 20);
const names = words.length > 1 ? words.slice(1) : Object.keys(TARGETS);
for (const name of names) {
  if (!(name in TARGETS)) {
    throw new Error(`unknown target '${name}' (known: ${Object.keys(TARGETS).join(", ")})`);
  }
}
if (!Number.isInteger(reps) || reps < 0) throw new Error(`REPS must be a whole number: ${reps}`);

const ONE_CALL: Step[] = [{ command: "git log --stat" }, { text: "done" }];

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const ms = (n: number) => `${Math.round(n).toLocaleString("en-US")} ms`;
const spread = (values: number[]) => `${ms(quantile(values, 0.5))} / ${ms(quantile(values, 0.95))}`;
const load = () => Deno.loadavg().map((n) => n.toFixed(2)).join(" ");

function check(target: BenchTarget, run: Session, what: string): void {
  if (run.code !== 0) throw new Error(`${target.name} ${what}: exit ${run.code}: ${run.stderr}`);
}

/** Wall time of one `deno eval 1`: a Deno start, the floor under every `yarp` process. */
async function denoStart(): Promise<number> {
  const started = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "1"],
    stdout: "null",
    stderr: "null",
  }).output();
  if (!out.success) throw new Error(`deno eval 1: exit ${out.code}`);
  return performance.now() - started;
}

function header(): void {
  console.log(
    "| target | without: median / p95 | with YARP: median / p95 | added per call: median / p95 | of which the hook process | `deno eval 1`: median / p95 | load average before → after |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
}

/**
 * REPS rounds of `pair` (without and with YARP, the order alternating each
 * round) and one `deno eval 1` after each; prints one table row.
 */
async function row(name: string, pair: (order: readonly boolean[]) => Promise<Pair>) {
  const before = load();
  const without: number[] = [], withYarp: number[] = [], added: number[] = [];
  const floor: number[] = [], hook: number[] = [];
  for (let round = 0; round < reps; round++) {
    const times = await pair(round % 2 === 0 ? [false, true] : [true, false]);
    without.push(times.without);
    withYarp.push(times.with);
    added.push(times.with - times.without);
    if (times.hook !== undefined) hook.push(times.hook);
    floor.push(await denoStart());
  }
  console.log(
    `| ${name} | ${spread(without)} | ${spread(withYarp)} | ${spread(added)} | ${
      hook.length === 0 ? "—" : spread(hook)
    } | ${spread(floor)} | ${before} → ${load()} |`,
  );
}

await withFixture(async (fx) => {
  const all: BenchTarget[] = [];
  for (const name of names) all.push(await TARGETS[name]());
  if (!partsOnly) await sessions(fx, all);
  const parts = all.filter((target) => target.part !== undefined);
  if (reps === 0 || parts.length === 0) return;
  console.log(
    `\n## YARP's own processes in one call, outside the host, n = ${reps}, interleaved\n`,
  );
  header();
  for (const target of parts) await row(target.name, await target.part!(fx));
});

/** The characters table, then the whole sessions' times. */
async function sessions(fx: Fixture, all: BenchTarget[]): Promise<void> {
  console.log("## Characters the model received, per call (without → with YARP)\n");
  console.log(`| command | ${all.map((t) => t.name).join(" | ")} |`);
  console.log(`| --- | ${all.map(() => "---").join(" | ")} |`);
  const chars: string[][] = COMMANDS.map(() => []);
  const totals: string[] = [];
  for (const target of all) {
    const plain = await target.run(fx, `${target.name}-chars-plain`, false, SCRIPT);
    const yarp = await target.run(fx, `${target.name}-chars-yarp`, true, SCRIPT);
    check(target, plain, "chars without YARP");
    check(target, yarp, "chars with YARP");
    let before = 0, after = 0;
    COMMANDS.forEach((_, i) => {
      const a = plain.results[i], b = yarp.results[i];
      before += a?.length ?? 0;
      after += b?.length ?? 0;
      const count = (text: string | undefined) =>
        text === undefined ? "none" : text.length.toLocaleString("en-US");
      chars[i].push(`${count(a)} → ${count(b)}`);
    });
    totals.push(`${before.toLocaleString("en-US")} → ${after.toLocaleString("en-US")}`);
  }
  COMMANDS.forEach((command, i) =>
    console.log(`| \`${command.replaceAll("|", "\\|")}\` | ${chars[i].join(" | ")} |`)
  );
  console.log(`| total | ${totals.join(" | ")} |\n`);

  if (reps === 0) return;
  console.log(`## Time per session of one call, n = ${reps} each, interleaved\n`);
  header();
  for (const target of all) {
    await row(target.name, async (order) => {
      const times: Record<string, number> = {};
      for (const yarp of order) {
        const name = `${target.name}-t-${crypto.randomUUID()}-${yarp ? "yarp" : "plain"}`;
        const run = await target.run(fx, name, yarp, ONE_CALL);
        check(target, run, name);
        times[String(yarp)] = run.ms;
        await Deno.remove(join(fx.scratch, name), { recursive: true });
      }
      return { without: times["false"], with: times["true"] };
    });
  }
}
