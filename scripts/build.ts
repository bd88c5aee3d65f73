/**
 * `deno task build`: writes the single-file artefact `dist/yarp.js` with
 * `deno bundle` (run it with `deno run` and the launcher's permission flags),
 * and, when `DENORT_BIN` names a denort runtime, the self-contained program
 * `dist/yarp` with `deno compile`. Exits non-zero when a step fails.
 *
 * A compiled program fixes its permissions at build time, when the user's
 * state directory is not known yet, so it gets `--allow-write` without a
 * scope; the code itself still writes only to the state directory and to an
 * explicit `--output` path. The bundle keeps the launcher's scoped flags.
 */
import { join } from "node:path";

const ROOT = join(import.meta.dirname!, "..");
// LOG_TOKENS and LOG_STREAM are npm:yaml's debug switches, read while parsing the config file.
const ENV_NAMES =
  "HOME,XDG_STATE_HOME,XDG_CONFIG_HOME,YARP_ARCHIVE,YARP_ARCHIVE_PATH,YARP_CONFIG,YARP_DEBUG,LOG_TOKENS,LOG_STREAM";

async function deno(args: string[]): Promise<boolean> {
  const { code } = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT }).spawn().status;
  return code === 0;
}

await Deno.mkdir(join(ROOT, "dist"), { recursive: true });
if (!await deno(["bundle", "--quiet", "--output", "dist/yarp.js", "main.ts"])) Deno.exit(1);
console.log("wrote dist/yarp.js");

if (Deno.env.get("DENORT_BIN")) {
  const ok = await deno([
    "compile",
    "--quiet",
    "--no-prompt",
    "--allow-run",
    "--allow-read",
    "--allow-write",
    `--allow-env=${ENV_NAMES}`,
    "--output",
    "dist/yarp",
    "main.ts",
  ]);
  if (!ok) Deno.exit(1);
  console.log("wrote dist/yarp");
} else {
  console.log(
    "skipped dist/yarp: set DENORT_BIN to a denort runtime to build the compiled program",
  );
}
