/**
 * What the hand-written SHA-256 (lib/bytes/sha256.ts) and
 * argument parser (lib/cli/_args.ts) save over the libraries, measured the
 * way dist/yarp.js loads code: each sample is a fresh `deno run` of one tiny
 * program, interleaved round-robin, that hashes 40 KiB or parses one
 * `result-reduce` argv, either with the hand-written module or with
 * `node:crypto` / `node:util` `parseArgs` reached through
 * `process.getBuiltinModule` (how scripts/build.ts rewrites the bundle's
 * `node:` imports). An empty program is the floor. Prints median and p95.
 *
 * Usage: nice deno run --allow-read --allow-write --allow-run bench/standins_start.ts [N]
 */
import { join } from "node:path";

const ROOT = join(import.meta.dirname!, "..");
const RUNS = Number(Deno.args[0] ?? 20);
const ARGV = '["--command","git log","--exit-code","0","--archive-id","x"]';
const PROGRAMS: Record<string, string> = {
  "empty (floor)": "",
  "hand-written sha256, 40 KiB": `import { sha256 } from "${ROOT}/lib/bytes/sha256.ts";\n` +
    "sha256(new Uint8Array(40960));",
  "node:crypto sha256, 40 KiB": 'globalThis.process.getBuiltinModule("node:crypto")' +
    '.createHash("sha256").update(new Uint8Array(40960)).digest();',
  "hand-written parseArgs": `import { parseArgs } from "${ROOT}/lib/cli/_args.ts";\n` +
    `parseArgs(${ARGV}, { options: ["--command", "--exit-code", "--archive-id"] });`,
  "node:util parseArgs": 'globalThis.process.getBuiltinModule("node:util").parseArgs({ args: ' +
    `${ARGV}, options: { command: { type: "string" }, "exit-code": { type: "string" }, ` +
    '"archive-id": { type: "string" } } });',
};

const dir = await Deno.makeTempDir({ prefix: "yarp-standins-" });
const cases = await Promise.all(
  Object.entries(PROGRAMS).map(async ([name, code], index) => {
    const path = join(dir, `p${index}.ts`);
    await Deno.writeTextFile(path, code + "\n");
    return { name, path, samples: [] as number[] };
  }),
);
const time = async (path: string) => {
  const start = performance.now();
  const { success } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--allow-read", path],
    stdout: "null",
  }).output();
  if (!success) throw new Error(`${path} failed`);
  return performance.now() - start;
};
for (const entry of cases) await time(entry.path);
for (let run = 0; run < RUNS; run += 1) {
  for (const entry of cases) entry.samples.push(await time(entry.path));
}
await Deno.remove(dir, { recursive: true });
for (const { name, samples } of cases) {
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(RUNS - 1, Math.ceil(q * RUNS) - 1)].toFixed(1);
  console.log(`${name}: median ${at(0.5)} ms, p95 ${at(0.95)} ms (n=${RUNS})`);
}
