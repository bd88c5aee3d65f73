/**
 * The recorded shell-command corpora (`$YARP_CORPUS_DIR/agent-calls.jsonl.gz`
 * and `runs.jsonl.gz`, outside this repository and never copied into it; see
 * docs/corpus.md) that the parser and rewrite tests check against, and the
 * one way such a test is registered: ignored, with the reason in its name,
 * when its corpus is absent.
 *
 * @module
 */
import { CORPUS_DIR_VARIABLE, corpusCommands, corpusPath } from "../bench/_shell_robustness.ts";
import { onlyWhere } from "./_process.ts";

/** The corpora the tests know, agent-calls first. */
export const CORPUS_NAMES: readonly string[] = ["agent-calls", "runs"];

/** The paths of the corpora that are present (none when `YARP_CORPUS_DIR` is unset). */
export const CORPORA: readonly string[] = CORPUS_NAMES.map((name) => corpusPath(name))
  .filter((path) => path !== undefined);

/** The commands of the corpus at `path`, as `corpusCommands` reads them; rejects when unreadable. */
export function corpusOrSkip(path: string): Promise<string[] | undefined> {
  return corpusCommands(path);
}

/**
 * Registers the test `title` over the commands of the corpus `name`:
 * `fn` gets them when `$YARP_CORPUS_DIR/NAME.jsonl.gz` exists, else the test
 * is ignored and its name says which variable would run it.
 */
export function corpusTest(
  name: string,
  title: string,
  fn: (commands: string[]) => void | Promise<void>,
): void {
  const path = corpusPath(name);
  const why = `set ${CORPUS_DIR_VARIABLE} to a directory holding ${name}.jsonl.gz`;
  Deno.test({
    ...onlyWhere(path !== undefined, title, why),
    fn: async () => await fn(await corpusCommands(path!)),
  });
}
