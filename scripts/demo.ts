/**
 * `deno task demo`: runs YARP's main job on a real command. It greps this
 * repository's own sources through `bin/yarp run` (the permission-sandboxed
 * launcher, with the embedded default archive in the user's state
 * directory), prints what an agent would see, compares its size with the raw
 * output of the same command, fetches the exact copy back with `yarp read`
 * and checks it byte for byte, and shows which rule selected the command.
 * Exits 1 when the exit code or the recovered bytes differ.
 */
import { join } from "node:path";
import { bytesEqual } from "../lib/bytes/byte_search.ts";

const ROOT = join(import.meta.dirname!, "..");
// `-I` leaves out binary files (the parser's .wasm), which grep would only name on stderr.
const COMMAND = ["grep", "-rnI", "export", "lib", "tests", "scripts"];
const yarp = join(ROOT, "bin", "yarp");
const env = { YARP_DENO: Deno.execPath() };
const decoder = new TextDecoder();

async function capture(argv: string[]): Promise<Deno.CommandOutput> {
  return await new Deno.Command(argv[0], { args: argv.slice(1), cwd: ROOT, env }).output();
}

const raw = await capture(COMMAND);
const reduced = await capture([yarp, "run", "--", ...COMMAND]);
console.log(`$ yarp run -- ${COMMAND.join(" ")}\n`);
await Deno.stdout.write(reduced.stdout);
await Deno.stderr.write(reduced.stderr);
const saved = 100 * (1 - reduced.stdout.length / Math.max(1, raw.stdout.length));
console.log(`\n--- exit code ${reduced.code} (raw command: ${raw.code})`);
console.log(
  `--- stdout: ${raw.stdout.length} bytes raw -> ${reduced.stdout.length} bytes shown ` +
    `(${saved.toFixed(1)}% saved)`,
);

let exact = true;
const id = decoder.decode(reduced.stdout).match(/exact: yarp read ([0-9a-f]+)[ \]]/)?.[1];
if (id !== undefined) {
  const recovered = await capture([yarp, "read", id]);
  exact = recovered.code === 0 && bytesEqual(recovered.stdout, raw.stdout);
  console.log(
    `--- $ yarp read ${id}: ${recovered.stdout.length} bytes, ` +
      (exact ? "identical to the raw output" : "DIFFERENT from the raw output"),
  );
}
const explained = await capture([yarp, "rules", "explain", "--", ...COMMAND]);
console.log(`--- $ yarp rules explain -- ${COMMAND.join(" ")}`);
console.log(decoder.decode(explained.stdout).trimEnd());
Deno.exit(reduced.code === raw.code && exact ? 0 : 1);
