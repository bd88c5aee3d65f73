/**
 * Loads the rule registry a command works with: the built-in tables first,
 * then each `--rule-pack` file in the order given. A pack that cannot be read
 * or verified never participates; its one-line error is returned so the
 * caller can report it (rules commands) or pass through quietly (run).
 *
 * @module
 */
import { type LoadedPackFile, openCompiledPackFile } from "../rules/pack_file.ts";
import { builtinRuleSource, createRuleRegistry, type RuleRegistry } from "../rules/registry.ts";
import { errorMessage } from "../base/error_message.ts";

/** The registry plus what happened to each requested pack. */
export interface LoadedRegistry {
  readonly registry: RuleRegistry;
  /** Packs that opened and verified, in the order given. */
  readonly packs: readonly LoadedPackFile[];
  /** One line per pack that could not be opened or verified. */
  readonly errors: readonly string[];
}

/** Opens every pack path and builds the registry; never throws for a bad pack. */
export async function loadRegistry(packPaths: readonly string[]): Promise<LoadedRegistry> {
  const packs: LoadedPackFile[] = [];
  const errors: string[] = [];
  for (const path of packPaths) {
    try {
      packs.push(await openCompiledPackFile(path));
    } catch (error) {
      errors.push(errorMessage(error));
    }
  }
  const registry = createRuleRegistry([builtinRuleSource(), ...packs.map((p) => p.pack)]);
  return { registry, packs, errors };
}
