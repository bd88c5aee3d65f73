/**
 * What one YARP process costs on each path the Pi extension can take
 * (docs/pi.md, "Which binary"): the checkout's sources (`bin/yarp`), the
 * Pi package's split build `dist/pi/yarp.js` and the single file
 * `dist/yarp.js`, each run by the npm Deno's executable (`hooks/pi`'s
 * dependency) and by the `deno` on PATH, the single file through npm's node
 * shim `bin.cjs` (what `npx deno` or the package's `.bin/deno` without its
 * postinstall runs), and a compiled `dist/yarp` when the build made one.
 * Paths are interleaved within each round; prints wall-clock median and p95
 * per command and path, with the load average before and after.
 *
 * Needs `deno task build` and `npm install --prefix hooks/pi` first.
 * Run: deno run -A bench/pi_binary_paths.ts [ROUNDS]
 */
import { join } from "node:path";
import { denoInvocation } from "../hooks/pi/src/binary.ts";
import { makeProject, ROOT } from "../tests/_pi_e2e.ts";

const rounds = Number(Deno.args[0] ?? 20);
const env = (name: string) => Deno.env.get(name);
const npmDenoDir = join(ROOT, "hooks/pi/node_modules/deno");
const npmDeno = join(npmDenoDir, "deno");
const pathDeno = Deno.execPath();

const build = (entry: string) => denoInvocation({ kind: "artefact", entry }, env).args;
const PATHS: Record<string, string[]> = {
  "sources (bin/yarp)": [join(ROOT, "bin/yarp")],
  "split build, npm deno": [npmDeno, ...build(join(ROOT, "dist/pi/yarp.js"))],
  "split build, deno on PATH": [pathDeno, ...build(join(ROOT, "dist/pi/yarp.js"))],
  "single file, npm deno": [npmDeno, ...build(join(ROOT, "dist/yarp.js"))],
  "single file, npm node shim": [
    "node",
    join(npmDenoDir, "bin.cjs"),
    ...build(join(ROOT, "dist/yarp.js")),
  ],
};
if (await Deno.stat(join(ROOT, "dist/yarp")).catch(() => null)) {
  PATHS["compiled dist/yarp"] = [join(ROOT, "dist/yarp")];
}

const scratch = await Deno.makeTempDir({ prefix: "yarp-binary-paths-" });
const project = join(scratch, "project");
await makeProject(project, 300);
const COMMANDS: Record<string, string[]> = {
  "--version --build": ["--version", "--build"],
  "rewrite --json -- 'git log'": ["rewrite", "--json", "--", "git log"],
  "run --expect-rule git/log -- git log": ["run", "--expect-rule", "git/log", "--", "git", "log"],
};

async function once(argv: string[]): Promise<number> {
  const started = performance.now();
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: project,
    env: { XDG_STATE_HOME: join(scratch, "state"), DENO_NO_UPDATE_CHECK: "yarp-launcher" },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`${argv.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return performance.now() - started;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const load = async () =>
  (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
console.log(`load average before: ${await load()}; ${rounds} rounds, paths interleaved`);
try {
  for (const [label, args] of Object.entries(COMMANDS)) {
    const samples: Record<string, number[]> = {};
    for (const argv of Object.values(PATHS)) await once([...argv, ...args]); // warm caches
    for (let round = 0; round < rounds; round++) {
      for (const [path, argv] of Object.entries(PATHS)) {
        (samples[path] ??= []).push(await once([...argv, ...args]));
      }
    }
    console.log(`\n${label}: ms median / p95`);
    for (const [path, values] of Object.entries(samples)) {
      console.log(
        `  ${path.padEnd(28)} ${quantile(values, 0.5).toFixed(0).padStart(5)} / ${
          quantile(values, 0.95).toFixed(0)
        }`,
      );
    }
  }
} finally {
  await Deno.remove(scratch, { recursive: true });
}
console.log(`\nload average after: ${await load()}`);
