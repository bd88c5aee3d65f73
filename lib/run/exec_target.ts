/**
 * What to spawn so the child sees its argv exactly as written.
 *
 * Deno spawns a program by the path it resolved, and that path becomes the
 * child's argv[0] (`ls` would run as `/usr/bin/ls` and print
 * `/usr/bin/ls: cannot access …`). A shell keeps argv[0] as typed. YARP
 * therefore resolves the program on `PATH` itself, as a shell does, to report
 * a missing (127) or non-executable (126) program without spawning anything,
 * and then spawns `env -- PROG ARGS…`: `env` adds nothing to the environment
 * and `exec`s PROG with argv[0] as given, in the same process.
 *
 * Known misses: a program name containing `=` (which `env` would read as an
 * assignment), or a system without `env` on `PATH`, is spawned directly and
 * so sees the resolved path as argv[0]. Execute permission is judged from the
 * mode bits alone, not from the caller's user and groups.
 *
 * @module
 */

/** The outcome of looking a program up as a shell would. */
export type ProgramLookup =
  | { readonly kind: "found"; readonly path: string }
  | { readonly kind: "missing" }
  | { readonly kind: "not-executable"; readonly path: string }
  | { readonly kind: "directory"; readonly path: string };

/** The file facts the lookup needs; `undefined` when nothing is there. */
export type StatFile = (
  path: string,
) => { isFile: boolean; isDirectory: boolean; mode: number | null } | undefined;

/** The facts `stat` gives for `path` (following symlinks), or undefined when nothing is there. */
export function statFile(path: string): ReturnType<StatFile> {
  try {
    return Deno.statSync(path);
  } catch {
    return undefined;
  }
}

function classify(path: string, stat: StatFile): ProgramLookup {
  const info = stat(path);
  if (info === undefined) return { kind: "missing" };
  if (info.isDirectory) return { kind: "directory", path };
  const executable = info.isFile && (info.mode === null || (info.mode & 0o111) !== 0);
  return executable ? { kind: "found", path } : { kind: "not-executable", path };
}

/**
 * Looks `program` up as bash does: a name containing `/` is used as given
 * (a directory there is reported as one); otherwise each `PATH` entry is
 * tried in order (an empty entry is the current directory), directories
 * are passed over, and the first executable file wins. A non-executable
 * match is remembered and reported only if nothing executable is found.
 * Pure apart from `stat`.
 */
export function lookupProgram(
  program: string,
  searchPath: string | undefined,
  stat: StatFile = statFile,
): ProgramLookup {
  if (program === "") return { kind: "missing" };
  if (program.includes("/")) return classify(program, stat);
  let blocked: ProgramLookup | undefined;
  for (const dir of (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(":")) {
    const found = classify(dir === "" ? program : `${dir}/${program}`, stat);
    if (found.kind === "found") return found;
    if (found.kind === "not-executable") blocked ??= found;
  }
  return blocked ?? { kind: "missing" };
}

/** A program and arguments to hand to `Deno.Command`. */
export interface SpawnTarget {
  readonly program: string;
  readonly args: readonly string[];
}

/**
 * The spawn target that gives the child `argv` exactly: `env -- argv…` when
 * `envPath` names an `env` program and argv[0] holds no `=`, else argv
 * itself. `argv` must not be empty.
 */
export function spawnTarget(argv: readonly string[], envPath: string | undefined): SpawnTarget {
  const [program, ...args] = argv;
  if (envPath === undefined || program.includes("=")) return { program, args };
  return { program: envPath, args: ["--", ...argv] };
}

/** Where POSIX systems keep `env` (every `#!/usr/bin/env` script relies on it). */
const USUAL_ENV_PATH = "/usr/bin/env";

/**
 * The `env` program to trampoline through: `/usr/bin/env` when it is an
 * executable file (one `stat` rather than a walk over `PATH`; any `env` adds
 * nothing to the child), else the first on `searchPath`, else `undefined`.
 * Pure apart from `stat`.
 */
export function findEnv(
  searchPath: string | undefined,
  stat: StatFile = statFile,
): string | undefined {
  let found = classify(USUAL_ENV_PATH, stat);
  if (found.kind !== "found") found = lookupProgram("env", searchPath, stat);
  return found.kind === "found" ? found.path : undefined;
}

let envProgram: string | null | undefined;

/** {@link findEnv}, looked up once per process. */
export function envOnPath(searchPath: string | undefined): string | undefined {
  envProgram ??= findEnv(searchPath) ?? null;
  return envProgram ?? undefined;
}
