/**
 * The program a corpus report files a result under (docs/corpus.md,
 * "Pass-through census"): a short public name, never command text.
 *
 * For an accepted program it is the first stage that is not setup (`cd`,
 * `set`, `true`, `:`, `export`, a venv activate script, a bare assignment), seen
 * through the reviewed wrappers and front ends of `stage_forms.ts`
 * (`timeout 60 mvn test` is `mvn`, `bash -c 'cargo test'` is `cargo`). For a
 * rejected source it is the first word after leading `NAME=value`
 * assignments, read lexically. Either way only the base name is kept, and
 * only when it looks like a program name (a letter or digit, then at most 31
 * of `A-Za-z0-9._+-`); anything else is `(other)`, so paths, quoted text and
 * scripts with odd names never reach a report.
 *
 * @module
 */
import type { ShellProgram } from "./model.ts";
import { frontEndOperand, isActivateScript, peelWrappers } from "./stage_forms.ts";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,31}$/;
const SETUP = new Set(["cd", "set", "true", ":", "export"]);

/** `word`'s base name when it looks like a program name, else `(other)`. */
export function publicProgramName(word: string): string {
  const base = word.slice(word.lastIndexOf("/") + 1);
  return NAME.test(base) ? base : "(other)";
}

function firstProgram(program: ShellProgram): string | undefined {
  for (const list of program.lists) {
    for (const pipeline of list.pipelines) {
      for (const stage of pipeline.stages) {
        if (stage.nested !== undefined) {
          const found = firstProgram(stage.nested);
          if (found !== undefined) return found;
          continue;
        }
        const words = stage.words.map((word) => word.text);
        if (words.length === 0 || SETUP.has(words[0]) || isActivateScript(words)) continue;
        const peeled = peelWrappers(words);
        const argv = typeof peeled === "string" ? words : peeled.argv;
        return (frontEndOperand(argv) ?? argv)[0];
      }
    }
  }
  return undefined;
}

/** The report name of an accepted program (see the module contract); `(setup)` when all setup. */
export function programNameOf(program: ShellProgram): string {
  const found = firstProgram(program);
  return found === undefined ? "(setup)" : publicProgramName(found);
}

const LEADING_ASSIGNMENT = /^\s*(?:[A-Za-z_][A-Za-z0-9_]*=[^\s;&|]*\s+)*/;

/** The report name of a source the parser rejected: its first word, read lexically. */
export function lexicalProgramName(source: string): string {
  const rest = source.replace(LEADING_ASSIGNMENT, "");
  const match = /^[^\s;&|()<>'"`$]+/.exec(rest);
  return match === null ? "(other)" : publicProgramName(match[0]);
}
