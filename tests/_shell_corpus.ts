/**
 * The recorded shell-command corpora (`../shared/corpus/`, outside this
 * repository) that the parser and rewrite tests check against, and the one
 * way those tests skip when a corpus is absent.
 *
 * @module
 */
import { corpusCommands } from "../bench/_shell_robustness.ts";

/** The path of the corpus `name` (`agent-calls`, `runs`): `../shared/corpus/NAME.jsonl.gz`. */
export function corpusPath(name: string): string {
  return new URL(`../../shared/corpus/${name}.jsonl.gz`, import.meta.url).pathname;
}

/** The paths of both corpora, agent-calls first. */
export const CORPORA: readonly string[] = ["agent-calls", "runs"].map(corpusPath);

/**
 * The commands of the corpus at `path`, as `corpusCommands` reads them; when
 * it cannot be read, logs `skipped: PATH is absent` and returns undefined,
 * for the test to return early.
 */
export async function corpusOrSkip(path: string): Promise<string[] | undefined> {
  try {
    return await corpusCommands(path);
  } catch {
    console.log(`skipped: ${path} is absent`);
    return undefined;
  }
}
