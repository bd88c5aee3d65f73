/**
 * How to start this same YARP again from a host's shell: the words a hook
 * entry (`yarp setup`) and a hook's wrapper (`yarp hook`) begin with. Found
 * from the running program, never from `PATH`, so the host runs exactly the
 * YARP that installed it:
 * - a compiled `yarp` (the runtime is not `deno`): its own path;
 * - the sources (`main.ts`) with the launcher `bin/yarp` beside them: the
 *   launcher;
 * - the single-file build run by Deno: Deno with the sandbox's flags and
 *   the file, after the sandbox's variables for Deno itself.
 * Anything else (a module loaded over a URL) has no invocation.
 *
 * @module
 */
import { shellQuote } from "../shell/rewrite_decision.ts";
import { denoRunArgs, runtimeEnv } from "../base/sandbox.ts";
import { processEnv } from "../config/env.ts";

/**
 * The shell words that start this YARP (each quoted for bash), or undefined
 * when it cannot be started again from a path.
 */
export function selfInvocation(): string | undefined {
  const exec = Deno.execPath();
  const name = exec.slice(exec.lastIndexOf("/") + 1);
  if (name !== "deno" && name !== "deno.exe") return shellQuote(exec);
  let main: string;
  try {
    const url = new URL(Deno.mainModule);
    if (url.protocol !== "file:") return undefined;
    main = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  const dir = main.slice(0, main.lastIndexOf("/"));
  if (main.endsWith("/main.ts")) {
    const launcher = `${dir}/bin/yarp`;
    return isFile(launcher) ? shellQuote(launcher) : undefined;
  }
  if (!main.endsWith(".js")) return undefined;
  const env = runtimeEnv(processEnv);
  const assignments = Object.keys(env).sort().map((key) => `${key}=${shellQuote(env[key])}`);
  const argv = [exec, ...denoRunArgs(processEnv, [], { kind: "artefact", entry: main })];
  return [...assignments, ...argv.map(shellQuote)].join(" ");
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
