/** The YARP release version; the Pi extension must report the same one. */
export const YARP_VERSION = "0.1.0";

/**
 * The build digest of the sources a single-file build was made from:
 * scripts/build.ts replaces this `"source"` with {@link sourceDigest}'s
 * value; running from source, `yarp --version --build` computes it from the
 * files themselves, so a build and its sources print the same digest.
 */
export const YARP_BUILD: string = "source";

/** The files a build is made of, relative to the checkout: these, and every file under `lib/`. */
const TOP_FILES = ["main.ts", "deno.json", "deno.lock"];

/**
 * The first 16 hex digits of the SHA-256 over every build input under
 * `root` (`main.ts`, `deno.json`, `deno.lock` and each file under `lib/`),
 * taken in sorted path order as `path NUL size NUL bytes`. Rejects when a
 * file cannot be read.
 */
export async function sourceDigest(root: string): Promise<string> {
  // Synchronous reads: about 130 small files, each async read a round trip through the event loop.
  const paths = [...TOP_FILES];
  const walk = (dir: string): void => {
    for (const entry of Deno.readDirSync(`${root}/${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.isFile) paths.push(path);
    }
  };
  walk("lib");
  paths.sort();
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const path of paths) {
    const bytes = Deno.readFileSync(`${root}/${path}`);
    parts.push(encoder.encode(`${path}\0${bytes.length}\0`), bytes);
  }
  const whole = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", whole));
  return digest.toHex().slice(0, 16);
}

/**
 * This program's build digest: the stamped {@link YARP_BUILD} in a build,
 * else the digest of the checkout `lib/cli/` sits in.
 */
export function buildDigest(): Promise<string> {
  return YARP_BUILD !== "source"
    ? Promise.resolve(YARP_BUILD)
    : sourceDigest(new URL("../..", import.meta.url).pathname.replace(/\/$/, ""));
}
