/**
 * The YARP opencode plugin's entry point, loaded by opencode (Bun) from its
 * config's `plugin` list (`yarp setup opencode` adds it): builds the real I/O
 * edge and returns {@link yarpHooks}. Which YARP it starts:
 * `YARP_OPENCODE_BINARY` (a path), else `yarp` on `PATH`, else the `bin/yarp`
 * of the checkout the plugin sits in (`ROOT/hooks/opencode`). `npm pack`
 * bundles this file and everything it imports into the package's
 * `index.js` (`@yarp/opencode`, docs/hosts.md, "opencode").
 *
 * @module
 */
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runProcess, startLineServer } from "../pi/src/yarp_process.ts";
import { readFullOutput } from "./src/full_output.ts";
import { type PluginDeps, yarpHooks } from "./src/plugin.ts";

const PACKAGE_DIR = dirname(fileURLToPath(import.meta.url));

function executable(path: string): boolean {
  try {
    const info = statSync(path);
    return info.isFile() && (info.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The argv that starts YARP, found once. */
function locate(): readonly string[] | { error: string } {
  const named = process.env.YARP_OPENCODE_BINARY;
  if (named !== undefined && named !== "") {
    return executable(named)
      ? [named]
      : { error: `YARP_OPENCODE_BINARY: not executable: ${named}` };
  }
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && executable(join(dir, "yarp"))) return [join(dir, "yarp")];
  }
  const checkout = join(PACKAGE_DIR, "../../bin/yarp");
  return executable(checkout) ? [checkout] : { error: "no yarp on PATH" };
}

let found: readonly string[] | { error: string } | undefined;

const deps: PluginDeps = {
  yarp: () => found ??= locate(),
  run: (argv, options) => runProcess(argv, options),
  serve: (argv, options) => startLineServer(argv, options),
  env: (name) => process.env[name],
  readFullOutput: (path, tail) => readFullOutput(path, tail),
  stderr: (line) => process.stderr.write(`${line}\n`),
};

/** opencode calls this once per instance with its plugin context. */
export const YarpPlugin = (ctx: { directory?: string }) => {
  try {
    return Promise.resolve(
      yarpHooks(deps, typeof ctx?.directory === "string" ? ctx.directory : undefined),
    );
  } catch (error) {
    process.stderr.write(`YARP plugin not loaded: ${String(error)}\n`);
    return Promise.resolve({});
  }
};
