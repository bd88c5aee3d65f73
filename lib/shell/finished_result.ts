/**
 * Reduces one finished shell result with the one parser and the result
 * planner (docs/architecture.md, "Runtime flow"): parse, plan, check stage diagnostics,
 * obtain an exact copy, then reduce under the plan's status policy. Shared
 * by `yarp result-reduce` and the corpus analysis, so both measure and ship
 * the same decision.
 *
 * @module
 */
import type { RuleRegistry } from "../rules/registry.ts";
import type { SuccessBudgets } from "../rules/model.ts";
import type { ShellSourceParser } from "./parser.ts";
import {
  effectiveRule,
  hasExactStage,
  hasStageDiagnostics,
  mayHoldExactForm,
  planResult,
  type ResultPlan,
} from "./plan.ts";
import { Evidence, formFlags, hostNoticeSpans, NOTICE_WINDOW_BYTES } from "../reduce/evidence.ts";
import { capOutput, DEFAULT_OUTPUT_CAP, type OutputCapPolicy } from "../reduce/output_cap.ts";
import { largerThanPage, PageTally } from "../reduce/marker.ts";
import type { Recovery } from "../reduce/types.ts";

/** What `result-reduce` decided, without any command or output text. */
export interface ResultReduceReport {
  readonly changed: boolean;
  /** The plan's rule id (sorted first of the merged ids), when a plan exists. */
  readonly rule: string | null;
  readonly archiveId: string | null;
  /** Stable reason codes, e.g. `["reduced", "status:complete"]` or `["parse:expansion"]`. */
  readonly reasons: readonly string[];
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}

/** How `reduceFinishedResult` obtains an exact copy of the input (injected I/O). */
export interface ExactCopy {
  /** Returns the archive id that holds the exact input, or a reason code when none does. */
  obtain(): Promise<{ id: string } | { reason: string }>;
}

/**
 * Parse refusals whose source is read again with opaque words
 * (`parseOpaque`): a glob or an expansion leaves the command's shape known,
 * and a here-document is only a command's stdin.
 */
const OPAQUE_REASONS: ReadonlySet<string> = new Set(["glob", "expansion", "redirect-unsupported"]);

/**
 * Planner reasons after which the global output cap may cut a result: no
 * rule reduces it and no stage is known to be exact. Guards, file reads
 * (`transform-without-input`), output-changing assignments and wrapper
 * options, stage diagnostics and other parse rejections keep the input exact.
 */
const CAP_REASONS: ReadonlySet<string> = new Set([
  "unknown-program",
  "no-rule-matched",
  "ambiguous",
  "mixed-reducers",
  "no-typed-output",
  "setup-form",
  "merged-stderr",
]);

/** Options of {@link reduceFinishedResult}. */
export interface FinishedResultOptions {
  /** The global output cap's policy, or null to switch it off; default {@link DEFAULT_OUTPUT_CAP}. */
  readonly cap?: OutputCapPolicy | null;
  /** The configured success budgets of the typed kinds (config `budgets:`); default built-in. */
  readonly budgets?: SuccessBudgets;
}

const LF = 10;

/**
 * Lower-case ASCII strings one of which every host notice form contains (a
 * necessary condition of evidence's `HostNotice` pattern, which matches ASCII
 * letters case-insensitively and nothing else case-insensitively).
 */
const NOTICE_ANCHORS = [
  "truncated",
  "stripped due to length",
  "persisted-output>",
  "[showing ",
  "b limit)",
  "[yarp: ",
  "output too large",
];

const decoder = new TextDecoder();

/**
 * True when every host truncation notice of `input` reaches `output`: the
 * text of each notice that may sit anywhere in a line (`hostNoticeSpans`:
 * `....stripped due to length....` at the end of an 8 KB line, `... [N
 * characters truncated] ...` in its middle) occurs in `output`, and every
 * other notice line (evidence `HostNotice`: `[Showing lines …]`, `[yarp: …`)
 * is a line of `output`. An input with none of {@link NOTICE_ANCHORS}
 * anywhere holds no notice: one native decode and lower-casing decide it,
 * and only otherwise are its lines classified. `toLowerCase` never turns
 * an ASCII letter into anything but its lower case, and ASCII bytes decode
 * to themselves whatever surrounds them, so the test never misses a notice
 * that the per-line window would find.
 */
export function keepsHostNotices(input: Uint8Array, output: Uint8Array): boolean {
  const lower = decoder.decode(input).toLowerCase();
  if (!NOTICE_ANCHORS.some((anchor) => lower.includes(anchor))) return true;
  let text: string | undefined;
  let lines: Set<string> | undefined;
  for (let at = 0; at < input.length;) {
    const lf = input.indexOf(LF, at);
    const end = lf === -1 ? input.length : lf;
    // A line within the notice window holds a notice only if its window does: the span
    // search (a decode of the line) runs on those and on longer lines alone.
    const window = formFlags(input, at, end) & Evidence.HostNotice;
    const spans = window !== 0 || end - at > NOTICE_WINDOW_BYTES
      ? hostNoticeSpans(input, at, end)
      : [];
    for (let s = 0; s < spans.length; s += 2) {
      text ??= decoder.decode(output);
      if (!text.includes(decoder.decode(input.subarray(spans[s], spans[s + 1])))) return false;
    }
    if (spans.length === 0 && window !== 0) {
      lines ??= new Set(decoder.decode(output).split("\n"));
      if (!lines.has(decoder.decode(input.subarray(at, end)))) return false;
    }
    at = end + 1;
  }
  return true;
}

/**
 * Plans and reduces one finished result (see the module contract) with a
 * ready parser and registry; archiving is injected through `copy`, which is
 * only called when a plan exists or the global cap may apply. Returns the
 * bytes to print (the input itself unless changed) and the report. Never
 * throws.
 *
 * A result no rule reduces (a planner reason in {@link CAP_REASONS}, no
 * exact stage: `hasExactStage`) larger than the cap's threshold is cut by
 * the global output cap (`capOutput`) once an exact copy exists; reasons
 * `["capped", <planner reason>]`. So is a source refused for a glob or an
 * expansion whose opaque-word model (`parseOpaque`) holds no stage that may
 * be exact (`mayHoldExactForm`); reasons `["capped", "parse:glob"]`. A
 * typed reduction that would drop a host's truncation notice falls back to
 * the cap, which keeps every notice.
 */
export async function reduceFinishedResult(
  source: string,
  input: Uint8Array,
  exitCode: number | undefined,
  parser: ShellSourceParser,
  registry: RuleRegistry,
  copy: ExactCopy,
  options: FinishedResultOptions = {},
): Promise<{ output: Uint8Array; report: ResultReduceReport }> {
  const cap = options.cap === undefined ? DEFAULT_OUTPUT_CAP : options.cap;
  const pass = (
    reasons: string[],
    rule: string | null = null,
    archiveId: string | null = null,
  ) => ({
    output: input,
    report: {
      changed: false,
      rule,
      archiveId,
      reasons,
      bytesBefore: input.length,
      bytesAfter: input.length,
    },
  });
  /** The marker's recovery for the archived copy `id` of the input. */
  const recoveryOf = (id: string): Recovery => {
    const size = new PageTally();
    size.add(input);
    return { kind: "archived", id, paged: largerThanPage([size]) };
  };
  let copied: Promise<{ id: string } | { reason: string }> | undefined;
  /** The exact copy, obtained at most once. */
  const obtain = (): Promise<{ id: string } | { reason: string }> =>
    copied ??= copy.obtain().catch(() => ({ reason: "archive-failed" }));
  /** The global output cap over the whole input, after `reason` found no rule. */
  const capped = async (reason: string, ruleId: string | null = null) => {
    if (cap === null || input.length <= cap.thresholdBytes) return pass([reason], ruleId);
    const exact = await obtain();
    if ("reason" in exact) return pass([reason, exact.reason], ruleId);
    const result = capOutput(input, cap, recoveryOf(exact.id));
    if (!result.changed) return pass([reason, "no-savings"], ruleId, exact.id);
    return {
      output: result.bytes,
      report: {
        changed: true,
        rule: ruleId,
        archiveId: exact.id,
        reasons: ["capped", reason],
        bytesBefore: input.length,
        bytesAfter: result.bytes.length,
      },
    };
  };
  /** Reduces under `plan`; `extra` reason codes follow `reduced` and the status. */
  const reduceWith = async (plan: ResultPlan, extra: readonly string[]) => {
    const ruleId = plan.rule.id;
    if (input.length === 0) return pass(["empty-input"], ruleId);
    if (hasStageDiagnostics(plan, new TextDecoder().decode(input))) {
      return pass(["stage-diagnostics"], ruleId);
    }
    const exact = await obtain();
    if ("reason" in exact) return pass([exact.reason], ruleId);
    const { createStreamReducer, sourceTerms } = await import("../reduce/mod.ts");
    const terms = plan.argv === undefined ? undefined : sourceTerms(plan.argv);
    const reducer = createStreamReducer(effectiveRule(plan), terms, options.budgets);
    reducer.push(input);
    const reduced = reducer.finish({ code: exitCode ?? 1 }, recoveryOf(exact.id));
    if (!reduced.changed || reduced.bytes.length >= input.length) {
      return pass(["no-savings"], ruleId, exact.id);
    }
    if (!keepsHostNotices(input, reduced.bytes)) return capped("host-notice", ruleId);
    return {
      output: reduced.bytes,
      report: {
        changed: true,
        rule: ruleId,
        archiveId: exact.id,
        reasons: ["reduced", `status:${plan.statusConfidence}`, ...extra],
        bytesBefore: input.length,
        bytesAfter: reduced.bytes.length,
      },
    };
  };
  const parsed = parser.parse(source);
  if (!parsed.ok) {
    const reason = `parse:${parsed.reason}`;
    if (!OPAQUE_REASONS.has(parsed.reason)) return pass([reason]);
    const opaque = parser.parseOpaque(source);
    if (!opaque.ok) return pass([reason]);
    const planned = planResult(opaque.program, registry);
    if (planned.ok) return await reduceWith(planned.plan, ["opaque-words"]);
    if (cap === null || input.length <= cap.thresholdBytes) return pass([reason]);
    return mayHoldExactForm(opaque.program, registry) ? pass([reason]) : capped(reason);
  }
  const planned = planResult(parsed.program, registry);
  if (!planned.ok) {
    if (CAP_REASONS.has(planned.reason) && !hasExactStage(parsed.program, registry)) {
      return capped(planned.reason);
    }
    return pass([planned.reason], planned.rule ?? null);
  }
  return await reduceWith(planned.plan, []);
}
