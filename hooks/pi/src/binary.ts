/**
 * The ways the extension can start YARP (pure over injected probes), fastest
 * first, and the reference copy whose build every other must match
 * (docs/pi.md, "Which binary"):
 *
 * 1. `YARP_PI_BINARY`, when set, alone (and its own reference);
 * 2. `yarp` on `PATH`;
 * 3. the sources of the YARP checkout the package sits in (`bin/yarp`, or
 *    `main.ts` run by the package's npm Deno when no `deno` is on `PATH`);
 * 4. a compiled `dist/yarp` (the package's, then the checkout's);
 * 5. the single-file build `dist/yarp.js` (the package's, then the
 *    checkout's) run by the npm Deno's own executable (never npm's node
 *    shim), then by a `deno` on `PATH`, inside the same permission sandbox
 *    as `bin/yarp`.
 *
 * The reference is the checkout's sources when the package sits in one,
 * else the package's own `dist/yarp.js`: a copy whose `yarp --version
 * --build` differs from the reference's is stale and passed over.
 *
 * @module
 */
import { shellWord } from "./decisions.ts";
import { denoRunArgs, runtimeEnv } from "./_sandbox.generated.ts";

/** One way to start YARP: the argv that starts it and how `/yarp doctor` names it. */
export interface YarpBinary {
  /** Program and leading arguments; YARP's own arguments follow. */
  readonly argv: readonly string[];
  /** Variables set for the binary (Deno's own switches), added to the caller's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** One line for `/yarp doctor`. */
  readonly description: string;
}

/** The ways to start YARP, fastest first, and the one that defines the current build. */
export interface YarpChoices {
  readonly candidates: readonly YarpBinary[];
  /** The checkout's sources or the package's own build; also one of `candidates`. */
  readonly reference: YarpBinary;
}

/** What discovery may look at; every probe is total (never throws). */
export interface BinaryProbes {
  /** Reads an environment variable. */
  readonly env: (name: string) => string | undefined;
  /** The absolute path of an executable `name` on `PATH`, else undefined. */
  readonly which: (name: string) => string | undefined;
  /** True when `path` is an executable regular file (or, for `.js` and `.ts`, a readable one). */
  readonly isFile: (path: string) => boolean;
  /** The executable of the npm `deno` dependency (not its node shim), else undefined. */
  readonly npmDeno: () => string | undefined;
  /** The path with every symbolic link resolved, else `path` itself. */
  readonly realpath: (path: string) => string;
  /** The extension package's directory. */
  readonly packageDir: string;
}

/**
 * The `deno` arguments and environment that start `entry` (a build, or a
 * checkout's `main.ts` with its `deno.json`) inside YARP's one permission
 * sandbox (`lib/base/sandbox.json`, read through `lib/base/sandbox.ts`, the
 * same source `bin/yarp` uses). A build also gets `--unstable-raw-imports`:
 * the split build imports the parser's WebAssembly file as bytes.
 */
export function denoInvocation(
  target: { kind: "source"; entry: string; config: string } | { kind: "artefact"; entry: string },
  env: (name: string) => string | undefined,
): { args: string[]; env: Record<string, string> } {
  const args = denoRunArgs(env, [], target);
  if (target.kind === "artefact") args.splice(args.length - 1, 0, "--unstable-raw-imports");
  return { args, env: runtimeEnv(env) };
}

/** The YARP checkout that holds the package (`ROOT/hooks/pi`), else undefined. */
export function checkoutRoot(probes: BinaryProbes): string | undefined {
  const dir = probes.packageDir.replace(/\/+$/, "");
  if (!dir.endsWith("/hooks/pi")) return undefined;
  const root = dir.slice(0, -"/hooks/pi".length);
  const isCheckout = probes.isFile(`${root}/main.ts`) &&
    probes.isFile(`${root}/lib/cli/version.ts`);
  return isCheckout ? root : undefined;
}

/** A binary started by its own path, described as `label: path`. */
function direct(path: string, label: string): YarpBinary {
  return { argv: [path], env: {}, description: `${label}: ${path}` };
}

/**
 * The ways to start YARP, fastest first, with the reference; `{ error }`
 * names what was looked for when there is no reference to check against.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { yarpChoices } from "./binary.ts";
 * const choices = yarpChoices({
 *   env: () => undefined,
 *   which: (name) => name === "yarp" ? "/usr/bin/yarp" : undefined,
 *   isFile: (path) => path === "/pkg/dist/yarp.js",
 *   npmDeno: () => "/pkg/node_modules/deno/deno",
 *   realpath: (path) => path,
 *   packageDir: "/pkg",
 * });
 * deepEqual("error" in choices ? [] : choices.candidates.map((c) => c.description), [
 *   "yarp on PATH: /usr/bin/yarp",
 *   "/pkg/dist/yarp.js run by npm deno /pkg/node_modules/deno/deno",
 * ]);
 * ```
 */
export function yarpChoices(probes: BinaryProbes): YarpChoices | { error: string } {
  // A configured binary is the person's choice of build: it is its own reference.
  const configured = probes.env("YARP_PI_BINARY");
  if (configured !== undefined && configured !== "") {
    const binary = direct(configured, "configured (YARP_PI_BINARY)");
    return probes.isFile(configured)
      ? { candidates: [binary], reference: binary }
      : { error: `YARP_PI_BINARY=${configured} is not an executable file` };
  }
  const dir = probes.packageDir.replace(/\/+$/, "");
  const root = checkoutRoot(probes);
  const inCheckout = (...paths: string[]) => root === undefined ? [] : paths;
  const npmDeno = probes.npmDeno();
  const pathDeno = probes.which("deno");
  const denos: [string, string][] = [];
  if (npmDeno !== undefined) denos.push([npmDeno, "npm deno"]);
  if (pathDeno !== undefined) denos.push([pathDeno, "deno on PATH"]);

  const builds = [
    `${dir}/dist/yarp.js`,
    ...inCheckout(`${root}/dist/pi/yarp.js`, `${root}/dist/yarp.js`),
  ]
    .filter((path) => probes.isFile(path));
  const buildRuns = builds.flatMap((build) =>
    denos.map(([deno, name]): YarpBinary => {
      const run = denoInvocation({ kind: "artefact", entry: build }, probes.env);
      return {
        argv: [deno, ...run.args],
        env: run.env,
        description: `${build} run by ${name} ${deno}`,
      };
    })
  );
  let reference: YarpBinary | undefined;
  if (root === undefined) {
    if (builds.length > 0) reference = buildRuns[0];
  } else if (pathDeno !== undefined && probes.isFile(`${root}/bin/yarp`)) {
    reference = direct(`${root}/bin/yarp`, "sources of the checkout");
  } else if (denos.length > 0) {
    const [deno, name] = denos[0];
    const main = `${root}/main.ts`;
    const run = denoInvocation(
      { kind: "source", entry: main, config: `${root}/deno.json` },
      probes.env,
    );
    reference = {
      argv: [deno, ...run.args],
      env: run.env,
      description: `sources of the checkout: ${main} run by ${name} ${deno}`,
    };
  }
  if (reference === undefined) {
    return {
      error: root === undefined
        ? `no build at ${dir}/dist/yarp.js, or no Deno to run it (npm 'deno' package or PATH)`
        : `no Deno to run the sources of ${root} (npm 'deno' package or PATH)`,
    };
  }

  const candidates: YarpBinary[] = [];
  const onPath = probes.which("yarp");
  if (onPath !== undefined) {
    const found = direct(onPath, "yarp on PATH");
    // The checkout's own bin/yarp on PATH is the reference itself: asked once.
    const same = reference.argv.length === 1 &&
      probes.realpath(onPath) === probes.realpath(reference.argv[0]);
    if (same) reference = found;
    candidates.push(found);
  }
  if (root !== undefined) candidates.push(reference);
  for (const compiled of [`${dir}/dist/yarp`, ...inCheckout(`${root}/dist/yarp`)]) {
    if (probes.isFile(compiled)) candidates.push(direct(compiled, "compiled"));
  }
  candidates.push(...buildRuns);
  const seen = new Set<string>();
  return {
    candidates: candidates.filter((c) => {
      const key = JSON.stringify(c.argv);
      return seen.has(key) ? false : (seen.add(key), true);
    }),
    reference,
  };
}

/** The binary's argv as bash words, to start a wrapper command line. */
export function invocationWords(binary: YarpBinary): string {
  const assignments = Object.keys(binary.env).sort().map((name) =>
    `${name}=${shellWord(binary.env[name])}`
  );
  return [...assignments, ...binary.argv.map(shellWord)].join(" ");
}
