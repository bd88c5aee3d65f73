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
import { denoRunArgs, runtimeEnv } from "./_sandbox.generated.ts";

/** The binary in use: the argv that starts it and how `/yarp doctor` names it. */
export interface YarpBinary {
  /** Program and leading arguments; YARP's own arguments follow. */
  readonly argv: readonly string[];
  /** Variables set for the binary (Deno's own switches), added to the caller's environment. */
  readonly env: Readonly<Record<string, string>>;
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
 * The `deno` arguments and environment that start the single-file build
 * `bundle` inside YARP's one permission sandbox (`lib/base/sandbox.json`,
 * read through `lib/base/sandbox.ts`, the same source `bin/yarp` uses).
 */
export function bundleInvocation(
  bundle: string,
  env: (name: string) => string | undefined,
): { args: string[]; env: Record<string, string> } {
  return {
    args: denoRunArgs(env, [], { kind: "artefact", entry: bundle }),
    env: runtimeEnv(env),
  };
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
 * });
 * deepEqual(found, { argv: ["/usr/bin/yarp"], env: {}, description: "yarp on PATH: /usr/bin/yarp" });
 * ```
 */
export function locateYarp(probes: BinaryProbes): YarpBinary | { error: string } {
  const configured = probes.env("YARP_PI_BINARY");
  if (configured !== undefined && configured !== "") {
    return probes.isFile(configured)
      ? { argv: [configured], env: {}, description: `configured (YARP_PI_BINARY): ${configured}` }
      : { error: `YARP_PI_BINARY=${configured} is not an executable file` };
  }
  const onPath = probes.which("yarp");
  if (onPath !== undefined) {
    return { argv: [onPath], env: {}, description: `yarp on PATH: ${onPath}` };
  }
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
  const invocation = bundleInvocation(bundle, probes.env);
  return {
    argv: [deno, ...invocation.args],
    env: invocation.env,
    description: `${bundle} run by ${npmDeno === undefined ? "deno on PATH" : "npm deno"} ${deno}`,
  };
}

/** The binary's argv as bash words, to start a wrapper command line. */
export function invocationWords(binary: YarpBinary): string {
  const assignments = Object.keys(binary.env).sort().map((name) =>
    `${name}=${shellWord(binary.env[name])}`
  );
  return [...assignments, ...binary.argv.map(shellWord)].join(" ");
}
