/**
 * The YARP Pi extension's entry point, loaded by Pi under Node: builds the
 * real I/O edge (process spawning, the file checks, binary discovery) and
 * hands it to {@link registerYarp}. Everything it does is in `src/`.
 *
 * @module
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { lstat, open, realpath, stat } from "node:fs/promises";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BinaryProbes, yarpChoices } from "./src/binary.ts";
import { type ExtensionDeps, type PiApi, registerYarp } from "./src/extension.ts";
import type { ProjectPackProbe } from "./src/project_pack.ts";
import { runProcess, startLineServer } from "./src/yarp_process.ts";

const PACKAGE_DIR = dirname(fileURLToPath(import.meta.url));

/** Largest Pi full-output file the extension reads (bytes). */
const MAX_FULL_OUTPUT = 64 * 1024 * 1024;

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

/** The extension's version from its package.json. */
function packageVersion(): string {
  const manifest = readJson(join(PACKAGE_DIR, "package.json")) as { version?: unknown } | undefined;
  return typeof manifest?.version === "string" ? manifest.version : "unknown";
}

/** A regular file (symlinks followed) that is executable, or for `.js` and `.ts` one at all. */
function executable(path: string): boolean {
  try {
    const info = statSync(path);
    return info.isFile() && (/\.[jt]s$/.test(path) || (info.mode & 0o111) !== 0);
  } catch {
    return false;
  }
}

const probes: BinaryProbes = {
  env: (name) => process.env[name],
  which: (name) => {
    for (const dir of (process.env.PATH ?? "").split(":")) {
      if (dir === "") continue;
      const path = join(dir, name);
      if (executable(path)) return path;
    }
    return undefined;
  },
  isFile: executable,
  npmDeno,
  realpath: (path) => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  },
  packageDir: PACKAGE_DIR,
};

/**
 * The Deno executable of the package's npm `deno` dependency: the copy its
 * postinstall script puts beside it, else the platform package's own
 * (`@deno/linux-x64-glibc`, …; npm may skip install scripts). Never the
 * package's `bin.cjs`, a node script that starts Deno as its child (a
 * second process start on every call).
 */
function npmDeno(): string | undefined {
  const exe = process.platform === "win32" ? "deno.exe" : "deno";
  try {
    const require = createRequire(join(PACKAGE_DIR, "package.json"));
    const dir = dirname(require.resolve("deno/package.json"));
    if (executable(join(dir, exe))) return join(dir, exe);
    const libc = process.platform === "linux" ? "-glibc" : "";
    const platform = `@deno/${
      process.platform === "win32" ? "win32" : process.platform
    }-${process.arch}${libc}`;
    const own = join(
      dirname(createRequire(join(dir, "package.json")).resolve(`${platform}/package.json`)),
      exe,
    );
    return executable(own) ? own : undefined;
  } catch {
    return undefined;
  }
}

/** Reads Pi's `$TMPDIR/pi-bash-*.log` whole, only when its text ends with what Pi showed. */
async function readFullOutput(path: string, visible: string): Promise<string | undefined> {
  try {
    if (!/^pi-bash-[0-9a-f]+\.log$/.test(basename(path))) return undefined;
    if (await realpath(dirname(path)) !== await realpath(tmpdir())) return undefined;
    const info = await lstat(path);
    if (!info.isFile() || info.size > MAX_FULL_OUTPUT) return undefined;
    const handle = await open(path, "r");
    try {
      const text = (await handle.readFile()).toString("utf8");
      return text.trimEnd().endsWith(visible.trimEnd()) ? text : undefined;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** `MTIME_MS:SIZE` as `yarp rewrite --lead-words` stamps a file (whole milliseconds), or null. */
async function fileStamp(path: string): Promise<string | null> {
  try {
    const info = await stat(path, { bigint: true });
    return `${info.mtimeNs / 1_000_000n}:${info.size}`;
  } catch {
    return null;
  }
}

const packProbe: ProjectPackProbe = {
  realpath: async (path) => {
    try {
      return await realpath(path);
    } catch {
      return undefined;
    }
  },
  isRegularFile: async (path) => {
    try {
      return (await lstat(path)).isFile();
    } catch {
      return false;
    }
  },
  sha256: async (path) => {
    try {
      const handle = await open(path, "r");
      try {
        return createHash("sha256").update(await handle.readFile()).digest("hex");
      } finally {
        await handle.close();
      }
    } catch {
      return undefined;
    }
  },
};

/** The real I/O edge. */
export function realDeps(): ExtensionDeps {
  return {
    version: packageVersion(),
    locate: () => yarpChoices(probes),
    run: (binary, args, options) =>
      runProcess([...binary.argv, ...args], { ...options, env: binary.env }),
    readFullOutput,
    projectPack: packProbe,
    fileStamp,
    serve: (binary, args, options) =>
      startLineServer([...binary.argv, ...args], { ...options, env: binary.env }),
    stderr: (line) => process.stderr.write(`${line}\n`),
  };
}

/** Pi calls this once per session with its extension API. */
export default function yarpExtension(pi: PiApi): void {
  try {
    registerYarp(pi, realDeps());
  } catch (error) {
    process.stderr.write(`YARP extension not loaded: ${String(error)}\n`);
  }
}
