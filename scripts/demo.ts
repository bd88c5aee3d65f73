/**
 * `deno task demo`: runs YARP's main job on a real command. It greps this
 * repository's own sources through `bin/yarp run` (the permission-sandboxed
 * launcher), prints what the agent would see, then compares its size with the
 * raw output of the same command and shows which rule selected it.
 */
import { join } from "node:path";

const ROOT = join(import.meta.dirname!, "..");
const COMMAND = ["grep", "-rn", "export", "lib", "tests", "scripts"];
const env = { YARP_DENO: Deno.execPath() };

async function capture(argv: string[]): Promise<Deno.CommandOutput> {
  return await new Deno.Command(argv[0], { args: argv.slice(1), cwd: ROOT, env }).output();
}

const yarp = join(ROOT, "bin", "yarp");
const raw = await capture(COMMAND);
const reduced = await capture([yarp, "run", "--", ...COMMAND]);
const explained = await capture([yarp, "rules", "explain", "--", ...COMMAND]);
const decoder = new TextDecoder();

console.log(`$ yarp run -- ${COMMAND.join(" ")}\n`);
await Deno.stdout.write(reduced.stdout);
await Deno.stderr.write(reduced.stderr);
console.log(`\n--- exit code ${reduced.code} (raw command: ${raw.code})`);
console.log(
  `--- stdout: ${raw.stdout.length} bytes raw -> ${reduced.stdout.length} bytes shown ` +
    `(${(100 * (1 - reduced.stdout.length / Math.max(1, raw.stdout.length))).toFixed(1)}% saved)`,
);
console.log(`--- $ yarp rules explain -- ${COMMAND.join(" ")}`);
console.log(decoder.decode(explained.stdout).trimEnd());
Deno.exit(reduced.code === raw.code ? 0 : 1);
