/**
 * Replays the production engine over one recorded result, exactly as YARP
 * would have handled the command live:
 *
 * - **run path**: source that `yarp rewrite` would wrap (one simple command,
 *   one reduction rule) with separately recorded streams goes through the
 *   runner's reducers, stdout and stderr each on their own, as
 *   `yarp run --expect-rule ID` reduces them.
 * - **result path**: everything else goes through `yarp result-reduce`'s
 *   decision (`reduceFinishedResult`) on the visible text (the combined
 *   output, or stdout then stderr).
 *
 * Both paths are given an exact copy under a fixed archive id, so markers
 * have their real size. A record already reduced by another tool is not
 * replayed.
 *
 * @module
 */
import type { ReductionRule } from "../rules/model.ts";
import type { RuleRegistry } from "../rules/registry.ts";
import { createStreamReducer, largerThanPage, PageTally, sourceTerms } from "../reduce/mod.ts";
import { type FinishedResultOptions, reduceFinishedResult } from "../shell/finished_result.ts";
import type { ShellParser } from "../shell/mod.ts";
import { decideRewrite } from "../shell/rewrite_decision.ts";
import { type CorpusRecord, visibleBytes } from "./record.ts";

/** The archive id every replay names in its markers (8 hex digits, as stored ids are). */
export const REPLAY_ARCHIVE_ID = "0c0ffee0";

/** What the engine did with one record; no command or output text beyond the bytes. */
export interface EngineOutcome {
  readonly path: "run" | "result";
  /** The selected rule id, or null when no rule applies. */
  readonly rule: string | null;
  /** True when a guard rule selected the command (its output must stay exact). */
  readonly guarded: boolean;
  /** The engine's own claim: false means it passed the text through unchanged. */
  readonly reduced: boolean;
  /** Stable reason codes: the rewrite reason, then result-reduce's reasons on that path. */
  readonly reasons: readonly string[];
  /** The visible text without YARP. */
  readonly before: Uint8Array;
  /** The visible text with YARP. */
  readonly after: Uint8Array;
}

/** Replays one record (see the module contract); never throws for any record. */
export type Engine = (record: CorpusRecord) => Promise<EngineOutcome>;

function joinBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/**
 * An engine over a ready parser and registry. The registry's rules are
 * indexed once, so the run path reduces with the very rule `yarp run`
 * would select. `options.budgets` (the config's `budgets:`) set the typed
 * kinds' success budgets on both paths; `options.cap` the global output
 * cap of the result path (default the built-in one).
 */
export function createEngine(
  parser: ShellParser,
  registry: RuleRegistry,
  options: FinishedResultOptions = {},
): Engine {
  const budgets = options.budgets;
  const rulesById = new Map<string, ReductionRule>();
  for (const { rule } of registry.rules()) {
    if (rule.action === "reduce") rulesById.set(rule.id, rule);
  }
  return async (record) => {
    const before = visibleBytes(record);
    const decision = decideRewrite(record.command, parser, registry, []);
    const runRule = decision.rewrite ? rulesById.get(decision.rule ?? "") : undefined;
    if (runRule !== undefined && record.streams.mode === "separate") {
      const status = { code: record.exitCode ?? 1 };
      const sizes = [new PageTally(), new PageTally()];
      sizes[0].add(record.streams.stdout);
      sizes[1].add(record.streams.stderr);
      const recovery = {
        kind: "archived",
        id: REPLAY_ARCHIVE_ID,
        paged: largerThanPage(sizes),
      } as const;
      const terms = sourceTerms(decision.argv ?? []); // as `yarp run` reads them from its argv
      const reduce = (bytes: Uint8Array) => {
        const reducer = createStreamReducer(runRule, terms, budgets);
        reducer.push(bytes);
        return reducer.finish(status, recovery);
      };
      const stdout = reduce(record.streams.stdout);
      const stderr = reduce(record.streams.stderr);
      return {
        path: "run",
        rule: runRule.id,
        guarded: false,
        reduced: stdout.changed || stderr.changed,
        reasons: [decision.reason],
        before,
        after: joinBytes(stdout.bytes, stderr.bytes),
      };
    }
    const { output, report } = await reduceFinishedResult(
      record.command,
      before,
      record.exitCode ?? undefined,
      parser,
      registry,
      { obtain: () => Promise.resolve({ id: REPLAY_ARCHIVE_ID }) },
      options,
    );
    return {
      path: "result",
      rule: report.rule,
      guarded: decision.reason === "guarded" || report.reasons.includes("guarded"),
      reduced: report.changed,
      reasons: [decision.reason, ...report.reasons],
      before,
      after: output,
    };
  };
}
