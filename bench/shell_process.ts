/**
 * Whole-process start-up of `yarp rewrite` and `yarp result-reduce`
 * against the gates of docs/architecture.md, "Performance gates" (rewrite p95 ≤ 85 ms and ≤ the empty run's p95 +
 * 45 ms; result-reduce of 40 KiB archiving p95 ≤ 140 ms, with --archive-id
 * ≤ 120 ms): N runs each, in turn, of an empty `deno run` (the floor),
 * `bin/yarp rewrite -- SRC` from source, `bin/yarp result-reduce` on a
 * 40 KiB result (archiving it, and with `--archive-id` of a call a host
 * already stored; archive in a temporary directory), and the
 * `dist/yarp.js` bundle run with the launcher's flags; then
 * parser initialisation measured on its own, in-process. Prints median and
 * p95 wall time per case. Build the bundle first (`deno task build`); a
 * missing bundle is skipped. With `--baseline DIR` (a checkout of another
 * revision) its `bin/yarp` runs the same three commands in the same rounds,
 * on the same archive, and the median and p95 differences are printed.
 *
 * Usage: deno run --allow-read --allow-write --allow-run --allow-env
 *   bench/shell_process.ts [N] [SRC] [--baseline DIR]
 */
import { join } from "node:path";
import { loadShellParser } from "../lib/shell/mod.ts";

const ROOT = join(import.meta.dirname!, "..");
const baselineAt = Deno.args.indexOf("--baseline");
const BASELINE = baselineAt < 0 ? undefined : Deno.args[baselineAt + 1];
const positional = baselineAt < 0
  ? Deno.args
  : Deno.args.filter((_, index) => index !== baselineAt && index !== baselineAt + 1);
const RUNS = Number(positional[0] ?? 30);
const SOURCE = positional[1] ?? "git log --stat";

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
  /** Bytes written to the child's stdin (none: stdin is closed). */
  readonly input?: Uint8Array;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** Runs `command` in the repository with the bench archive, `input` on its stdin (or none). */
async function runWith(
  command: string,
  args: readonly string[],
  input: Uint8Array | undefined,
  stdout: "null" | "piped",
): Promise<Deno.CommandOutput> {
  const child = new Deno.Command(command, {
    args: [...args],
    cwd: ROOT,
    env: { YARP_ARCHIVE_PATH: ARCHIVE },
    stdin: input === undefined ? "null" : "piped",
    stdout,
    stderr: "piped",
  }).spawn();
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(input);
    await writer.close();
  }
  return await child.output();
}

async function timeOnce(entry: Case): Promise<number> {
  const { command, args, input } = entry;
  const start = performance.now();
  const { code, stderr } = await runWith(command, args, input, "null");
  const elapsed = performance.now() - start;
  if (code !== 0) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
  }
  return elapsed;
}

const empty = await Deno.makeTempFile({ suffix: ".js" });
const stateDir = await Deno.makeTempDir({ prefix: "yarp_shell_process_" });
const ARCHIVE = join(stateDir, "archive.sqlite3");
/** A finished `git log --stat`-like result of about 40 KiB for result-reduce. */
const RESULT = new TextEncoder().encode(
  Array.from(
    { length: 600 },
    (_, i) => `commit ${i.toString(16).padStart(40, "0")}\n src/file${i}.ts | ${i % 40} ++--`,
  ).join("\n") + "\n",
);
const put = await runWith(
  join(ROOT, "bin/yarp"),
  ["archive", "put", "--command", SOURCE, "--exit-code", "0", "--json"],
  RESULT,
  "piped",
);
const HOST_ID: string = JSON.parse(new TextDecoder().decode(put.stdout)).id;
const cases: Case[] = [
  { name: "empty deno run (floor)", command: Deno.execPath(), args: ["run", empty], samples: [] },
  {
    name: `bin/yarp rewrite -- '${SOURCE}'`,
    command: join(ROOT, "bin/yarp"),
    args: ["rewrite", "--", SOURCE],
    samples: [],
  },
  {
    name: `bin/yarp result-reduce --command '${SOURCE}' (archives the input)`,
    command: join(ROOT, "bin/yarp"),
    args: ["result-reduce", "--command", SOURCE, "--exit-code", "0"],
    samples: [],
    input: RESULT,
  },
  {
    name: `bin/yarp result-reduce --command '${SOURCE}' --archive-id (host archived it)`,
    command: join(ROOT, "bin/yarp"),
    args: ["result-reduce", "--command", SOURCE, "--exit-code", "0", "--archive-id", HOST_ID],
    samples: [],
    input: RESULT,
  },
];
const yarpCases = cases.slice(1);
if (BASELINE !== undefined) {
  for (const entry of yarpCases) {
    cases.push({
      ...entry,
      name: `baseline ${entry.name}`,
      command: join(BASELINE, "bin/yarp"),
      samples: [],
    });
  }
}
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

for (const entry of cases) await timeOnce(entry); // warm caches
for (let run = 0; run < RUNS; run += 1) {
  for (const entry of cases) entry.samples.push(await timeOnce(entry));
}
await Deno.remove(empty);
await Deno.remove(stateDir, { recursive: true });

const p95s: number[] = [];
for (const entry of cases) {
  const sorted = [...entry.samples].sort((a, b) => a - b);
  p95s.push(quantile(sorted, 0.95));
  console.log(
    `${entry.name}: median ${quantile(sorted, 0.5).toFixed(1)} ms, p95 ${
      quantile(sorted, 0.95).toFixed(1)
    } ms (n=${RUNS})`,
  );
}
// The gates, in the order of `cases`: the floor (empty `deno run`), rewrite, result-reduce
// archiving, result-reduce with --archive-id.
const [floor, rewrite, archiving, archived] = p95s;
const gate = (name: string, p95: number, limit: number) =>
  console.log(
    `gate ${name}: p95 ${p95.toFixed(1)} ms ≤ ${limit.toFixed(1)} ms: ${
      p95 <= limit ? "met" : "NOT met"
    }`,
  );
gate("rewrite", rewrite, 85);
gate("rewrite over empty deno run + 45", rewrite, floor + 45);
gate("result-reduce archiving 40 KiB", archiving, 140);
gate("result-reduce --archive-id", archived, 120);
if (BASELINE !== undefined) {
  for (const [index, entry] of yarpCases.entries()) {
    const base = cases.find((other) => other.name === `baseline ${entry.name}`)!;
    const ours = [...entry.samples].sort((a, b) => a - b);
    const theirs = [...base.samples].sort((a, b) => a - b);
    const delta = (q: number) => (quantile(ours, q) - quantile(theirs, q)).toFixed(1);
    console.log(
      `vs baseline ${index + 1} (${entry.name}): median ${delta(0.5)} ms, p95 ${delta(0.95)} ms`,
    );
  }
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
