/**
 * Whole-process start-up of `yarp rewrite` (DESIGN.md, "Performance gates":
 * the parsing commands must finish within p95 ≤ 60 ms): N runs each, in
 * turn, of an empty `deno run` (the floor), `bin/yarp rewrite -- SRC` from
 * source, and the `dist/yarp.js` bundle run with the launcher's flags; then
 * parser initialisation measured on its own, in-process. Prints median and
 * p95 wall time per case. Build the bundle first (`deno task build`); a
 * missing bundle is skipped.
 *
 * Usage: deno run --allow-read --allow-write --allow-run --allow-env
 *   bench/shell_process.ts [N] [SRC]
 */
import { join } from "node:path";
import { loadShellParser } from "../lib/shell/mod.ts";

const ROOT = join(import.meta.dirname!, "..");
const RUNS = Number(Deno.args[0] ?? 30);
const SOURCE = Deno.args[1] ?? "git log --stat";

/** The bundle's `deno run` flags, as bin/yarp passes them to main.ts. */
const BUNDLE_FLAGS = [
  "run",
  "--quiet",
  "--no-prompt",
  "--allow-run",
  "--allow-read",
  "--allow-env",
  "--unstable-raw-imports",
];

interface Case {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly samples: number[];
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

async function timeOnce(command: string, args: readonly string[]): Promise<number> {
  const start = performance.now();
  const { code, stderr } = await new Deno.Command(command, {
    args: [...args],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  const elapsed = performance.now() - start;
  if (code !== 0) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
  }
  return elapsed;
}

const empty = await Deno.makeTempFile({ suffix: ".js" });
const cases: Case[] = [
  { name: "empty deno run (floor)", command: Deno.execPath(), args: ["run", empty], samples: [] },
  {
    name: `bin/yarp rewrite -- '${SOURCE}'`,
    command: join(ROOT, "bin/yarp"),
    args: ["rewrite", "--", SOURCE],
    samples: [],
  },
];
const bundle = join(ROOT, "dist/yarp.js");
try {
  await Deno.stat(bundle);
  cases.push({
    name: `deno run … dist/yarp.js rewrite -- '${SOURCE}'`,
    command: Deno.execPath(),
    args: [...BUNDLE_FLAGS, bundle, "rewrite", "--", SOURCE],
    samples: [],
  });
} catch {
  console.log("dist/yarp.js missing: run `deno task build` to time the bundle");
}

for (const entry of cases) await timeOnce(entry.command, entry.args); // warm caches
for (let run = 0; run < RUNS; run += 1) {
  for (const entry of cases) entry.samples.push(await timeOnce(entry.command, entry.args));
}
await Deno.remove(empty);

for (const entry of cases) {
  const sorted = [...entry.samples].sort((a, b) => a - b);
  console.log(
    `${entry.name}: median ${quantile(sorted, 0.5).toFixed(1)} ms, p95 ${
      quantile(sorted, 0.95).toFixed(1)
    } ms (n=${RUNS})`,
  );
}

const initStart = performance.now();
const parser = await loadShellParser();
const initEnd = performance.now();
parser.parse(SOURCE);
const firstEnd = performance.now();
console.log(
  `in-process: parser initialisation ${(initEnd - initStart).toFixed(1)} ms, first parse ${
    (firstEnd - initEnd).toFixed(1)
  } ms`,
);
