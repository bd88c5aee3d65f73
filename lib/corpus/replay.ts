/**
 * One corpus line through the production engine into a tally: decode the
 * record, skip it (counted) when malformed or already reduced by another
 * tool, replay it, time the replay, take the shell syntax census and count
 * the sample. The same function runs in the main thread and in workers, so
 * a report does not depend on how the corpus was split.
 *
 * @module
 */
import type { RuleRegistry } from "../rules/registry.ts";
import type { SuccessBudgets } from "../rules/model.ts";
import { lexicalProgramName, programNameOf, type ShellParser } from "../shell/mod.ts";
import { createEngine } from "./engine.ts";
import { addSample, addSkipped, type TallyData } from "./metrics.ts";
import { parseRecordLine } from "./record.ts";

/** Counts one JSONL line into a tally; never throws for any line. */
export type LineReplay = (line: string, tally: TallyData) => Promise<void>;

/**
 * A replay over a ready parser and registry, under the configured success
 * `budgets`. Skip causes: `malformed` (not a record),
 * `prior-reduction:<by>` (already reduced), `engine-error` (the engine
 * threw: a bug, counted rather than hidden).
 */
export function createLineReplay(
  parser: ShellParser,
  registry: RuleRegistry,
  budgets?: SuccessBudgets,
): LineReplay {
  const engine = createEngine(parser, registry, { budgets });
  return async (line, tally) => {
    const record = parseRecordLine(line);
    if ("error" in record) return addSkipped(tally, "malformed");
    if (record.priorReduction !== null) {
      return addSkipped(tally, `prior-reduction:${record.priorReduction}`);
    }
    // The census parses first: the engine's own parses of the command then reuse its model.
    const census = parser.census(record.command);
    const parsed = parser.parse(record.command);
    const program = parsed.ok ? programNameOf(parsed.program) : lexicalProgramName(record.command);
    const started = performance.now();
    let outcome;
    try {
      outcome = await engine(record);
    } catch {
      return addSkipped(tally, "engine-error");
    }
    const micros = (performance.now() - started) * 1000;
    addSample(tally, {
      rule: outcome.rule,
      guarded: outcome.guarded,
      reduced: outcome.reduced,
      exitCode: record.exitCode,
      before: outcome.before,
      after: outcome.after,
      micros,
      reasons: outcome.reasons,
      census,
      program,
    });
  };
}
