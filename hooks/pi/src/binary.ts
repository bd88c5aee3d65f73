/**
 * Finds the YARP binary the extension calls (pure over injected probes), in
 * this order: the path in `YARP_PI_BINARY`; `yarp` on `PATH`; else the
 * single-file build `dist/yarp.js` (in the package, or in the repository the
 * package sits in) run by the Deno the package depends on through npm, or a
 * `deno` on `PATH`, inside the same permission sandbox as `bin/yarp`.
 *
 * @module
 */
import { shellWord } from "./decisions.ts";

/** The binary in use: the argv that starts it and how `/yarp doctor` names it. */
export interface YarpBinary {
  /** Program and leading arguments; YARP's own arguments follow. */
  readonly argv: readonly string[];
  /** One line for `/yarp doctor`. */
  readonly description: string;
}

/** What discovery may look at; every probe is total (never throws). */
export interface BinaryProbes {
  /** Reads an environment variable. */
  readonly env: (name: string) => string | undefined;
  /** The absolute path of an executable `name` on `PATH`, else undefined. */
  readonly which: (name: string) => string | undefined;
  /** True when `path` is an executable regular file (or, for `.js`, a readable one). */
  readonly isFile: (path: string) => boolean;
  /** The Deno binary of the npm `deno` dependency, else undefined. */
  readonly npmDeno: () => string | undefined;
  /** The extension package's directory. */
  readonly packageDir: string;
}

/**
 * The permission sandbox of `bin/yarp`, as `deno run` flags for the bundle:
 * no network, no FFI, writes only to YARP's state directory (and the
 * directory of `YARP_ARCHIVE_PATH`), a named list of environment variables.
 */
export interface Sandbox {
  readonly runFlags: readonly string[];
  readonly envNames: readonly string[];
}

/** The state directory rule of `lib/archive/settings.ts`: `$XDG_STATE_HOME/yarp`, else `~/.local/state/yarp`. */
export function stateDirectory(env: (name: string) => string | undefined): string | undefined {
  const trim = (path: string) => path.replace(/\/+$/, "");
  const xdg = env("XDG_STATE_HOME");
  if (xdg !== undefined && xdg.startsWith("/")) return `${trim(xdg)}/yarp`;
  const home = env("HOME");
  if (home !== undefined && home.startsWith("/")) return `${trim(home)}/.local/state/yarp`;
  return undefined;
}

/** The `deno run` arguments that start `bundle` inside `sandbox`. */
export function bundleArgs(
  bundle: string,
  sandbox: Sandbox,
  env: (name: string) => string | undefined,
): string[] {
  const writes = [stateDirectory(env) ?? "/nonexistent/yarp"];
  const archivePath = env("YARP_ARCHIVE_PATH");
  if (archivePath !== undefined && archivePath.includes("/")) {
    writes.push(archivePath.slice(0, archivePath.lastIndexOf("/")) || "/");
  }
  return [
    "run",
    ...sandbox.runFlags,
    `--allow-write=${writes.join(",")}`,
    `--allow-env=${sandbox.envNames.join(",")}`,
    bundle,
  ];
}

/**
 * Finds the binary; `{ error }` names what was looked for when nothing fits.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { locateYarp } from "./binary.ts";
 * const found = locateYarp({
 *   env: () => undefined,
 *   which: (name) => name === "yarp" ? "/usr/bin/yarp" : undefined,
 *   isFile: () => false,
 *   npmDeno: () => undefined,
 *   packageDir: "/pkg",
 * }, { runFlags: [], envNames: [] });
 * deepEqual(found, { argv: ["/usr/bin/yarp"], description: "yarp on PATH: /usr/bin/yarp" });
 * ```
 */
export function locateYarp(probes: BinaryProbes, sandbox: Sandbox): YarpBinary | { error: string } {
  const configured = probes.env("YARP_PI_BINARY");
  if (configured !== undefined && configured !== "") {
    return probes.isFile(configured)
      ? { argv: [configured], description: `configured (YARP_PI_BINARY): ${configured}` }
      : { error: `YARP_PI_BINARY=${configured} is not an executable file` };
  }
  const onPath = probes.which("yarp");
  if (onPath !== undefined) return { argv: [onPath], description: `yarp on PATH: ${onPath}` };
  const dir = probes.packageDir.replace(/\/+$/, "");
  const bundles = [`${dir}/dist/yarp.js`, `${dir.replace(/\/hooks\/pi$/, "")}/dist/yarp.js`];
  const bundle = bundles.find((path) => probes.isFile(path));
  if (bundle === undefined) {
    return {
      error: `no yarp on PATH and no single-file build at ${[...new Set(bundles)].join(" or ")}`,
    };
  }
  const npmDeno = probes.npmDeno();
  const deno = npmDeno ?? probes.which("deno");
  if (deno === undefined) {
    return { error: `found ${bundle} but no Deno (npm 'deno' package or PATH)` };
  }
  return {
    argv: [deno, ...bundleArgs(bundle, sandbox, probes.env)],
    description: `${bundle} run by ${npmDeno === undefined ? "deno on PATH" : "npm deno"} ${deno}`,
  };
}

/** The binary's argv as bash words, to start a wrapper command line. */
export function invocationWords(binary: YarpBinary): string {
  return binary.argv.map(shellWord).join(" ");
}
