/**
 * Loads the rule registry a command works with, in the layers of docs/architecture.md,
 * "Rules and packs": the built-in tables, then the packs named in the config
 * file's `rules.packs`, then each `--rule-pack` file in the order given (the
 * Pi extension passes a trusted project pack last, as a `--rule-pack`). A
 * duplicate pack or rule id disables the later external pack as a whole,
 * never a built-in (`createRuleRegistry`). A pack that cannot be read or
 * verified, or a config file that is invalid, never participates; its
 * one-line error is returned so the caller can report it (rules commands)
 * or pass through quietly (run, rewrite, result-reduce).
 *
 * Known miss: `yarp rewrite` carries digests for `--rule-pack` packs only;
 * a config pack changed between rewrite and run is caught by run's
 * `--expect-rule` check, not by a digest.
 *
 * @module
 */
import type { LoadedPackFile } from "../rules/pack_file.ts";
import type { RuleRegistry } from "../rules/registry.ts";
import type { ConfigResult } from "../config/config.ts";
import { errorMessage } from "../base/error_message.ts";

/** The registry plus what happened to each requested pack. */
export interface LoadedRegistry {
  readonly registry: RuleRegistry;
  /** Packs that opened and verified: the config file's first, then `--rule-pack`, in order. */
  readonly packs: readonly LoadedPackFile[];
  /** How many of `packs` (and of the paths) came from the config file's `rules.packs`. */
  readonly configuredCount: number;
  /** One line per pack that could not be opened or verified, or for an invalid config file. */
  readonly errors: readonly string[];
}

/**
 * The config file's `rules.packs` (layer 2), each already absolute (a
 * relative entry is resolved against the config file's directory), or one
 * error line for an invalid config. No config file means no packs. Never
 * throws; parses YAML only when a config file exists. `loaded` is the
 * config already read in this call, if any (it is then not read again).
 */
export async function configuredPackPaths(
  loaded?: ConfigResult,
): Promise<{ paths: string[] } | { error: string }> {
  if (loaded === undefined) {
    const { loadConfig, processEnv } = await import("../config/mod.ts");
    loaded = await loadConfig(processEnv);
  }
  if (!loaded.ok) return { error: loaded.error };
  const file = loaded.config.file ?? "";
  const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : ".";
  return {
    paths: loaded.config.rules.packs.map((path) => path.startsWith("/") ? path : `${dir}/${path}`),
  };
}

/**
 * Opens the configured packs, then every `packPaths` entry, and builds the
 * registry; never throws for a bad pack. With no pack at all, the pack
 * reader is never loaded. An invalid config file is one of `errors` unless
 * `reportConfig` is false (`yarp run` reports it on its archive path).
 * `config` is the config already read in this call, if any.
 */
export async function loadRegistry(
  packPaths: readonly string[],
  reportConfig = true,
  config?: ConfigResult,
): Promise<LoadedRegistry> {
  // Both at once: two module loads in parallel instead of one after the other.
  const [{ builtinRuleSource, createRuleRegistry }, configured] = await Promise.all([
    import("../rules/registry.ts"),
    configuredPackPaths(config),
  ]);
  const errors: string[] = [];
  if ("error" in configured && reportConfig) errors.push(configured.error);
  const configuredPaths = "error" in configured ? [] : configured.paths;
  const paths = [...configuredPaths, ...packPaths];
  const packs: LoadedPackFile[] = [];
  let configuredCount = 0;
  if (paths.length > 0) {
    const { openCompiledPackFile } = await import("../rules/pack_file.ts");
    for (const [index, path] of paths.entries()) {
      try {
        packs.push(await openCompiledPackFile(path));
        if (index < configuredPaths.length) configuredCount++;
      } catch (error) {
        errors.push(errorMessage(error));
      }
    }
  }
  const registry = createRuleRegistry([builtinRuleSource(), ...packs.map((p) => p.pack)]);
  return { registry, packs, configuredCount, errors };
}

/** One file a registry is read from, stamped before it was read. */
export interface RuleInput {
  readonly path: string;
  /** `MTIME_MS:SIZE` (integer milliseconds, symlinks followed), or null when missing. */
  readonly stamp: string | null;
}

/** `MTIME_MS:SIZE` of `path` (symlinks followed), or null when it cannot be read. */
async function fileStamp(path: string): Promise<string | null> {
  try {
    const info = await Deno.stat(path);
    return `${info.mtime?.getTime() ?? 0}:${info.size}`;
  } catch {
    return null;
  }
}

/**
 * The files a registry for `packPaths` is read from, each stamped before it
 * is read: the config file's path (when one is located, even if missing),
 * the packs it names, then `packPaths`; and the config as read after its
 * stamp. A caller that keeps what it loaded asks
 * {@link ruleInputsUnchanged} before using it again.
 */
export async function ruleInputs(
  packPaths: readonly string[],
): Promise<{ readonly inputs: readonly RuleInput[]; readonly config: ConfigResult }> {
  const { configLocation, loadConfig, processEnv } = await import("../config/mod.ts");
  const stamped = (path: string) => fileStamp(path).then((stamp) => ({ path, stamp }));
  const location = configLocation(processEnv);
  const inputs = location === undefined ? [] : [await stamped(location.path)];
  const config = await loadConfig(processEnv);
  const configured = await configuredPackPaths(config);
  const paths = [...("paths" in configured ? configured.paths : []), ...packPaths];
  inputs.push(...await Promise.all(paths.map(stamped)));
  return { inputs, config };
}

/** Whether every one of `inputs` still has its stamp (a file changed, appeared or went: false). */
export async function ruleInputsUnchanged(inputs: readonly RuleInput[]): Promise<boolean> {
  const stamps = await Promise.all(inputs.map((input) => fileStamp(input.path)));
  return stamps.every((stamp, index) => stamp === inputs[index].stamp);
}
