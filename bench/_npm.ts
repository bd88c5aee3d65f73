/**
 * Pinned npm packages for benchmarks and tests (tokenjuice, Pi), installed
 * once per machine with npm as a subprocess, so no Deno network permission
 * is needed.
 *
 * @module
 */
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Installs `name@version` from the npm registry (scripts disabled) into
 * `$TMPDIR/yarp-npm/<name>@<version>` unless it is already there, and returns
 * the package's directory. Installs into a fresh directory and renames it
 * into place, so concurrent runs never see a half-written install. Throws with
 * npm's last output lines when npm fails.
 */
export async function installNpmPackage(name: string, version: string): Promise<string> {
  const root = join(tmpdir(), "yarp-npm");
  const installDir = join(root, `${name.replace("/", "+")}@${version}`);
  const packageDir = join(installDir, "node_modules", ...name.split("/"));
  if (await installedVersion(packageDir) === version) return packageDir;
  await Deno.mkdir(root, { recursive: true });
  const staging = await Deno.makeTempDir({ dir: root, prefix: "staging-" });
  try {
    const npm = await new Deno.Command("npm", {
      args: [
        "install",
        "--prefix",
        staging,
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        `${name}@${version}`,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!npm.success) {
      const log = new TextDecoder().decode(npm.stderr).trim().split("\n").slice(-5).join("\n");
      throw new Error(`npm install ${name}@${version} exited with ${npm.code}:\n${log}`);
    }
    if (await installedVersion(packageDir) !== version) {
      await Deno.remove(installDir, { recursive: true }).catch(() => {});
      await Deno.rename(staging, installDir).catch(async (error) => {
        if (await installedVersion(packageDir) !== version) throw error;
      });
    }
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
  if (await installedVersion(packageDir) !== version) {
    throw new Error(`npm installed ${name} but not version ${version} in ${installDir}`);
  }
  return packageDir;
}

/** The `version` field of the package.json in `packageDir`, or null when unreadable. */
async function installedVersion(packageDir: string): Promise<string | null> {
  try {
    const manifest = JSON.parse(await Deno.readTextFile(join(packageDir, "package.json")));
    return typeof manifest.version === "string" ? manifest.version : null;
  } catch {
    return null;
  }
}

/** True when `npm ping` reaches the registry (tests skip only when it does not). */
export async function npmRegistryReachable(): Promise<boolean> {
  const ping = await new Deno.Command("npm", { args: ["ping"], stdout: "null", stderr: "null" })
    .output();
  return ping.success;
}
