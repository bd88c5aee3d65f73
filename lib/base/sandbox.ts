/**
 * The permission sandbox YARP runs in, read from its one copy,
 * `lib/base/sandbox.json`, which `bin/yarp` (in bash), the build and install
 * scripts, the README's `deno run` line and the Pi package all use. Pure:
 * reads nothing but its arguments and the bundled JSON.
 *
 * The JSON's fields, all lists of strings:
 * - `deno`: the Deno version YARP is built and tested with.
 * - `flags`: permission and output flags every `deno run` of YARP gets.
 *   `--ignore-env` makes every variable outside `env` read as unset, so a
 *   library that looks one up (npm:yaml reads `LOG_TOKENS`) neither fails
 *   nor sees the caller's value.
 * - `sourceFlags`: added when running the sources (`main.ts`): resolve npm
 *   packages from the Deno cache only, never the registry.
 * - `artefactFlags`: added when running the single file `dist/yarp.js`,
 *   which needs no config: the caller's `deno.json` must not apply.
 * - `env`: the variables YARP may read, as `--allow-env=A,B,…`.
 * - `runtimeEnv`: `NAME=VALUE` pairs a launcher sets for Deno itself when
 *   the caller has not set NAME (no update check: it would open a socket);
 *   YARP deletes NAME at start when it holds exactly VALUE, so the child
 *   gets the caller's environment unchanged.
 * - `stateDir`: candidates `VAR/suffix`, in order; the first whose VAR is
 *   an absolute path gives the state directory `$VAR/suffix` (the XDG base
 *   directory spec says to ignore a relative one).
 * - `writeParentOf`: variables naming a file YARP writes; its directory is
 *   writable.
 * - `writeOptions`: `SUBCOMMAND WORD OPTION [SHORT]`: that command writes
 *   the file named by OPTION (`OPTION=FILE`, `OPTION FILE` or `SHORT FILE`
 *   before any `--`), through a temporary file beside it, so its directory
 *   is writable.
 *
 * - `writeAnywhere`: subcommands that get `--allow-write` without a scope:
 *   `setup` edits a host's settings file, wherever the host keeps it and
 *   wherever a symbolic link to it points; it writes only that file, a
 *   backup and a temporary file beside it (lib/cli/setup.ts).
 *
 * `--allow-write` lists the state directory, then each `writeParentOf`
 * directory, then each `writeOptions` directory, and is left out when the
 * list is empty (nothing is writable).
 *
 * @module
 */
import data from "./sandbox.json" with { type: "json" };

/** The parsed `sandbox.json` (see the module doc for each field). */
export interface Sandbox {
  readonly deno: string;
  readonly flags: readonly string[];
  readonly sourceFlags: readonly string[];
  readonly artefactFlags: readonly string[];
  readonly env: readonly string[];
  readonly runtimeEnv: readonly string[];
  readonly stateDir: readonly string[];
  readonly writeParentOf: readonly string[];
  readonly writeAnywhere: readonly string[];
  readonly writeOptions: readonly string[];
}

/** YARP's sandbox, from `lib/base/sandbox.json`. */
export const SANDBOX: Sandbox = data;

/** Reads one environment variable: its value, or undefined when unset. */
export type VariableReader = (name: string) => string | undefined;

/**
 * The state directory: `$XDG_STATE_HOME/yarp` when XDG_STATE_HOME is an
 * absolute path, else `$HOME/.local/state/yarp` when HOME is, else
 * undefined (trailing slashes of the variable are dropped).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { stateDirectory } from "./sandbox.ts";
 * const env = { XDG_STATE_HOME: "rel", HOME: "/h/" } as Record<string, string>;
 * equal(stateDirectory((name) => env[name]), "/h/.local/state/yarp");
 * ```
 */
export function stateDirectory(
  env: VariableReader,
  sandbox: Sandbox = SANDBOX,
): string | undefined {
  for (const candidate of sandbox.stateDir) {
    const slash = candidate.indexOf("/");
    const value = env(candidate.slice(0, slash));
    if (value !== undefined && value.startsWith("/")) {
      return `${value.length > 1 ? value.replace(/\/+$/, "") : ""}${candidate.slice(slash)}`;
    }
  }
  return undefined;
}

/**
 * What `dirname -- PATH` prints: the directory part without trailing
 * slashes, `/` for the root and `.` for a bare name.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { dirOf } from "./sandbox.ts";
 * equal(dirOf("a/b//c/"), "a/b");
 * equal(dirOf("file"), ".");
 * ```
 */
export function dirOf(path: string): string {
  const trimmed = path.replace(/(?<=.)\/+$/, "");
  const slash = trimmed.lastIndexOf("/");
  if (slash < 0) return ".";
  const dir = trimmed.slice(0, slash).replace(/\/+$/, "");
  return dir === "" ? "/" : dir;
}

/**
 * The directories YARP may write for the command line `args` (YARP's own
 * arguments), in the order the module doc gives; may be empty.
 */
export function writePaths(
  env: VariableReader,
  args: readonly string[],
  sandbox: Sandbox = SANDBOX,
): string[] {
  const paths: string[] = [];
  const state = stateDirectory(env, sandbox);
  if (state !== undefined) paths.push(state);
  for (const name of sandbox.writeParentOf) {
    const value = env(name);
    if (value !== undefined && value !== "") paths.push(dirOf(value));
  }
  for (const spec of sandbox.writeOptions) {
    const [first, second, option, short = option] = spec.split(" ");
    if (args[0] !== first || args[1] !== second) continue;
    let previous = "";
    for (const arg of args) {
      if (arg === "--") break;
      if (arg.startsWith(`${option}=`)) paths.push(dirOf(arg.slice(option.length + 1)));
      if (previous === option || previous === short) paths.push(dirOf(arg));
      previous = arg;
    }
  }
  return paths;
}

/**
 * The permission flags of one YARP process: `flags`, `--allow-env=…` and,
 * when something is writable, `--allow-write=…` (see {@link writePaths}),
 * or `--allow-write` alone for a `writeAnywhere` subcommand.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { permissionFlags } from "./sandbox.ts";
 * const flags = permissionFlags(() => undefined, ["doctor"]);
 * ok(flags.includes("--no-prompt") && !flags.some((f) => f.startsWith("--allow-write")));
 * ```
 */
export function permissionFlags(
  env: VariableReader,
  args: readonly string[],
  sandbox: Sandbox = SANDBOX,
): string[] {
  const flags = [...sandbox.flags, `--allow-env=${sandbox.env.join(",")}`];
  if (args[0] !== undefined && sandbox.writeAnywhere.includes(args[0])) {
    return [...flags, "--allow-write"];
  }
  const writable = writePaths(env, args, sandbox);
  if (writable.length > 0) flags.push(`--allow-write=${writable.join(",")}`);
  return flags;
}

/**
 * The whole `deno` argument list that runs YARP with `args`: `entry` is
 * `main.ts` of a source tree (`source`, with its `deno.json` as `config`)
 * or `dist/yarp.js` / its URL (`artefact`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { denoRunArgs } from "./sandbox.ts";
 * const argv = denoRunArgs(() => undefined, ["--version"], { kind: "artefact", entry: "yarp.js" });
 * equal(argv.slice(-2).join(" "), "yarp.js --version");
 * ```
 */
export function denoRunArgs(
  env: VariableReader,
  args: readonly string[],
  target: { kind: "source"; entry: string; config: string } | { kind: "artefact"; entry: string },
  sandbox: Sandbox = SANDBOX,
): string[] {
  const extra = target.kind === "source"
    ? [`--config=${target.config}`, ...sandbox.sourceFlags]
    : sandbox.artefactFlags;
  return ["run", ...permissionFlags(env, args, sandbox), ...extra, target.entry, ...args];
}

/**
 * The variables a launcher sets for Deno itself: each `runtimeEnv` pair
 * whose name the caller's environment does not have.
 */
export function runtimeEnv(
  env: VariableReader,
  sandbox: Sandbox = SANDBOX,
): Record<string, string> {
  const set: Record<string, string> = {};
  for (const pair of sandbox.runtimeEnv) {
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq);
    if (env(name) === undefined) set[name] = pair.slice(eq + 1);
  }
  return set;
}
