/**
 * Process and temporary-directory scaffolding for the tests that run YARP
 * (or another program) as a whole process: one way to spawn a command with
 * an optional stdin written and closed, an optional timeout and both streams
 * collected; the path of `bin/yarp`; a private HOME and state directory; and
 * temporary directories that are removed when the test file ends or when a
 * callback returns.
 *
 * @module
 */
import { join } from "node:path";

/** The checkout's root directory, without a trailing slash. */
export const ROOT = join(import.meta.dirname!, "..");

/** The checkout's launcher, `bin/yarp`, as an absolute path. */
export const YARP = join(ROOT, "bin", "yarp");

/** How {@link spawn} starts a command; every field is optional. */
export interface SpawnOptions {
  /** The arguments after the command; none by default. */
  readonly args?: readonly string[];
  /** Variables set for the child, over the test's own environment unless `clearEnv`. */
  readonly env?: Record<string, string>;
  /** The child sees only `env`, nothing inherited (Deno's `clearEnv`). */
  readonly clearEnv?: boolean;
  /** The child's working directory; the test's own by default. */
  readonly cwd?: string;
  /**
   * Bytes (or text, as UTF-8) written to the child's stdin while its output
   * is collected; stdin is closed after them. An empty array still gives a
   * piped stdin, closed at once. Without `input` stdin is /dev/null.
   */
  readonly input?: Uint8Array | string;
  /** The child's stderr: `"piped"` (the default, collected), `"null"` or `"inherit"`. */
  readonly stderr?: "piped" | "null" | "inherit";
  /** Kill the child (SIGTERM, through an `AbortSignal.timeout`) after this many ms; no cap by default. */
  readonly timeoutMs?: number;
  /**
   * The child may exit before reading all of `input`: a failed write or close
   * of stdin is ignored. Otherwise such a failure rejects, once the child's
   * output has been collected.
   */
  readonly inputMayBreak?: boolean;
}

/**
 * Runs `command` to its end as `options` say and returns Deno's output record
 * (code, signal, success, the stdout bytes, and the stderr bytes when piped).
 * Rejects if the command cannot start, or if writing `input` fails (unless
 * `inputMayBreak`).
 */
export async function spawn(
  command: string,
  options: SpawnOptions = {},
): Promise<Deno.CommandOutput> {
  const { input } = options;
  const child = new Deno.Command(command, {
    args: options.args === undefined ? undefined : [...options.args],
    env: options.env,
    clearEnv: options.clearEnv,
    cwd: options.cwd,
    stdin: input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: options.stderr ?? "piped",
    signal: options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs),
  }).spawn();
  const feeding = input === undefined
    ? Promise.resolve(undefined)
    : feed(child.stdin, typeof input === "string" ? new TextEncoder().encode(input) : input)
      .then(() => undefined, (error: unknown) => ({ error }));
  const out = await child.output();
  const failed = await feeding;
  if (failed !== undefined && !options.inputMayBreak) throw failed.error;
  return out;
}

async function feed(stdin: WritableStream<Uint8Array>, bytes: Uint8Array): Promise<void> {
  const writer = stdin.getWriter();
  await writer.write(bytes);
  await writer.close();
}

/**
 * The variables a child started with a cleared environment still needs from
 * this machine: where Deno keeps its module cache, how TLS is verified (a
 * TLS-inspecting proxy's CA, which Deno and npm read from
 * `NODE_EXTRA_CA_CERTS`, `DENO_CERT` or `SSL_CERT_FILE`) and which proxy to
 * use. Nothing else of the test's environment reaches such a child.
 */
export const MACHINE_ENV_NAMES: readonly string[] = [
  "DENO_DIR",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "NO_PROXY",
  "no_proxy",
];

/**
 * This process's values of {@link MACHINE_ENV_NAMES} that are set, with
 * `DENO_DIR` always present: Deno's default cache (`$XDG_CACHE_HOME/deno`,
 * else `$HOME/.cache/deno`) is made explicit, so a child given another HOME
 * still finds the modules this test run cached.
 */
export function machineEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of MACHINE_ENV_NAMES) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const cacheHome = Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") ?? "/", ".cache");
  env.DENO_DIR ??= join(cacheHome, "deno");
  return env;
}

/**
 * The name and `ignore` flag of a test that can run only where `available`:
 * elsewhere it is registered as ignored (never passed), its name ending in
 * `(ignored: WHY)`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(onlyWhere(false, "needs strace", "strace is not installed"), {
 *   name: "needs strace (ignored: strace is not installed)",
 *   ignore: true,
 * });
 * ```
 */
export function onlyWhere(
  available: boolean,
  name: string,
  why: string,
): { name: string; ignore: boolean } {
  return available ? { name, ignore: false } : { name: `${name} (ignored: ${why})`, ignore: true };
}

/**
 * Whether this process may mount a tmpfs (root, mount(8) and the capability
 * to use it): tried once on a scratch directory, which is then unmounted and
 * removed. Tests that need mounts are registered with `ignore` when not.
 */
export function canMountTmpfs(): boolean {
  const dir = Deno.makeTempDirSync({ prefix: "yarp_mount_probe_" });
  try {
    const quiet = { stdout: "null", stderr: "null" } as const;
    const mount = ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir];
    if (!new Deno.Command("mount", { args: mount, ...quiet }).outputSync().success) return false;
    return new Deno.Command("umount", { args: [dir], ...quiet }).outputSync().success;
  } catch {
    return false;
  } finally {
    Deno.removeSync(dir);
  }
}

/** A finished command's exit code and its stdout and stderr decoded as UTF-8. */
export interface TextOutput {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * {@link spawn} with both streams piped and decoded; returns exactly `code`,
 * `stdout` and `stderr`, so results compare with `deepEqual`.
 */
export async function spawnText(command: string, options: SpawnOptions = {}): Promise<TextOutput> {
  const out = await spawn(command, { ...options, stderr: "piped" });
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** {@link spawn} of {@link YARP} with `args`; the other options as `spawn` takes them. */
export function runYarp(
  args: readonly string[],
  options: Omit<SpawnOptions, "args"> = {},
): Promise<Deno.CommandOutput> {
  return spawn(YARP, { ...options, args });
}

/**
 * A private home inside `dir`: `HOME` is `dir` and `XDG_STATE_HOME` is
 * `dir/state` (not created here), so a YARP run archives into the test's own
 * store.
 */
export function privateHome(dir: string): { HOME: string; XDG_STATE_HOME: string } {
  return { HOME: dir, XDG_STATE_HOME: `${dir}/state` };
}

/**
 * Makes a temporary directory named `prefix…` and removes it, recursively,
 * when the test file unloads; `beforeRemove` runs first (unmounting what was
 * mounted inside, say).
 */
export async function tempDir(prefix: string, beforeRemove?: () => void): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  globalThis.addEventListener("unload", () => {
    beforeRemove?.();
    Deno.removeSync(dir, { recursive: true });
  });
  return dir;
}

/**
 * Runs `fn` with a new temporary directory (`options` as `Deno.makeTempDir`
 * takes them) and removes that directory, recursively, once `fn` has
 * settled, whether it returned or threw; returns what `fn` returned.
 */
export async function withTempDir<T>(
  fn: (dir: string) => Promise<T>,
  options?: Deno.MakeTempOptions,
): Promise<T> {
  const dir = await Deno.makeTempDir(options);
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
