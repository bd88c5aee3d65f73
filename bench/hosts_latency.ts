/**
 * What YARP's hooks add inside the real Claude Code 2.1.328 and Codex
 * 0.169.0 (direct and code tool modes), and what the model receives with
 * and without them (issue 27). Same scripted model server and isolated
 * homes as tests/hosts_e2e_test.ts; YARP is installed with `yarp setup
 * HOST --user`.
 *
 * - Characters: the scenario script (tests/_hosts_e2e.ts, `COMMANDS`) once
 *   per target with and once without YARP; the characters of each tool
 *   result the model received.
 * - Time: REPS sessions of one `git log --stat` call (in a 300-commit
 *   repository) per target, with and without YARP, interleaved (the order
 *   alternates each round), timing the whole host process. The added time
 *   per call is each pair's difference; median and p95 of both sessions and
 *   of the differences are printed.
 *
 * Run: deno run -A bench/hosts_latency.ts [REPS] (default 20; 0 for the characters alone)
 */
import {
  COMMANDS,
  type HostRun,
  session,
  type Step,
  type Target,
  targets,
  withFixture,
} from "../tests/_hosts_e2e.ts";

const reps = Number(Deno.args[0] ?? 20);
const ONE_CALL: Step[] = [{ command: "git log --stat" }, { text: "done" }];

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const ms = (n: number) => `${Math.round(n)} ms`;

function check(target: Target, run: HostRun, what: string): void {
  if (run.code !== 0) throw new Error(`${target.name} ${what}: exit ${run.code}: ${run.stderr}`);
}

await withFixture(async (fx) => {
  const all = await targets();
  console.log("## Characters the model received, per call (without → with YARP)\n");
  console.log(`| command | ${all.map((t) => t.name).join(" | ")} |`);
  console.log(`| --- | ${all.map(() => "---").join(" | ")} |`);
  const chars: string[][] = COMMANDS.map(() => []);
  const totals: string[] = [];
  for (const target of all) {
    const plain = await session(target, fx, `${target.name}-chars-plain`, false);
    const yarp = await session(target, fx, `${target.name}-chars-yarp`, true);
    check(target, plain, "chars without YARP");
    check(target, yarp, "chars with YARP");
    let before = 0, after = 0;
    COMMANDS.forEach((_, i) => {
      const a = plain.results[i]?.text.length ?? 0, b = yarp.results[i]?.text.length ?? 0;
      before += a;
      after += b;
      chars[i].push(`${a.toLocaleString("en-US")} → ${b.toLocaleString("en-US")}`);
    });
    totals.push(`${before.toLocaleString("en-US")} → ${after.toLocaleString("en-US")}`);
  }
  COMMANDS.forEach((command, i) => console.log(`| \`${command}\` | ${chars[i].join(" | ")} |`));
  console.log(`| total | ${totals.join(" | ")} |\n`);

  if (reps === 0) return;
  console.log(`## Time per session of one call, n = ${reps} each, interleaved\n`);
  console.log(
    "| target | without: median / p95 | with YARP: median / p95 | added per call: median / p95 |",
  );
  console.log("| --- | --- | --- | --- |");
  for (const target of all) {
    const without: number[] = [], withYarp: number[] = [], added: number[] = [];
    for (let round = 0; round < reps; round++) {
      const order = round % 2 === 0 ? [false, true] : [true, false];
      const times: Record<string, number> = {};
      for (const yarp of order) {
        const name = `${target.name}-t${round}-${yarp ? "yarp" : "plain"}`;
        const run = await session(target, fx, name, yarp, ONE_CALL);
        check(target, run, name);
        times[String(yarp)] = run.ms;
        await Deno.remove(`${fx.scratch}/${name}`, { recursive: true });
      }
      without.push(times["false"]);
      withYarp.push(times["true"]);
      added.push(times["true"] - times["false"]);
    }
    console.log(
      `| ${target.name} | ${ms(quantile(without, 0.5))} / ${ms(quantile(without, 0.95))} | ${
        ms(quantile(withYarp, 0.5))
      } / ${ms(quantile(withYarp, 0.95))} | ${ms(quantile(added, 0.5))} / ${
        ms(quantile(added, 0.95))
      } |`,
    );
  }
});
