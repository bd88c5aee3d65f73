/**
 * The result planner (docs/architecture.md, "Output contracts", "Transform rules",
 * "Streams and status"): decides, from an accepted {@link ShellProgram} and a
 * rule registry, whether every visible output of a finished shell result has
 * one reducer type, and under which status confidence it may be reduced.
 *
 * Contract: `planResult` is pure and deterministic (the same program and
 * registry always give the same answer) and never throws. It either returns
 * a {@link ResultPlan} or one pass-through reason code (never command text).
 *
 * Output states. Every simple command produces one {@link OutputState} per
 * stream: a reduction rule gives `typed`; a reviewed setup command (`cd
 * DIR`, `true`, `:`, `set` with `-e`/`-u`/`-o pipefail|errexit|nounset`)
 * gives `empty` (`pushd`/`popd` print the stack, `cd -` the directory: not
 * setup); a guard gives `exact`; an unknown program,
 * ambiguous selection or unreviewed form gives `unknown`. States combine
 * conservatively ({@link combineStates}): empty is neutral, two typed states of
 * one reducer family (same family key and identical reducer spec) merge their
 * policies (larger limits, stricter savings gate), anything else is
 * `conflict`; exact, unknown and conflict anywhere in a visible path stop
 * reduction.
 *
 * Reducer family. This build's reducer kinds are `head_tail` and
 * `line_filter`; the planner's `search_summary`, `list_summary`,
 * `test_summary` are modelled as the family key `<first segment of the rule
 * id>:<reducer kind>` (`search:line_filter`, `tests:line_filter`, …), and
 * two rules merge only when their reducer specs are also identical.
 *
 * Streams. Each stage's stdout and stderr are routed through its
 * redirections in order (`2>&1`, `1>&2`, `N>/dev/null`, `&>/dev/null`):
 * stdout of a non-final stage feeds the next stage, stderr of every stage
 * and stdout of the final stage are visible. `|&` passes through
 * (`merged-stderr`) until merged stderr is reviewed.
 *
 * Transforms. A `transform` rule (kind `line_preserving`) carries the state
 * on its stdin to its stdout; its own stderr carries only its diagnostics
 * (recorded in `transformPrograms`, so a caller can fail open on them). A
 * transform stage must read its stdin: it may not be the first stage
 * (`transform-without-input`) and may not name input file operands
 * (`transform-file-operand`); option values of the reviewed programs (`head
 * -n 5`, `sort -k 2`, `uniq -f 1`) are not operands, and `tee`'s operands
 * are output files (its stdout stays a copy of its stdin). Options outside
 * the reviewed value table count as flags; byte-changing flags are the
 * rules' guards, which win before the planner sees the stage.
 *
 * Status confidence. `complete` when every visible pipeline's status is
 * exposed: one command, an `&&` chain, and a multi-stage pipeline only when
 * `set -o pipefail` provably ran before it (unconditionally earlier, or in
 * the same `&&` chain). `;`, newlines and plain pipelines give
 * `final-stage-only` (a `;` after only `set`, `true` or `:` does not weaken
 * anything); any `||` gives `conditional`. Both use the failure
 * policy ({@link effectiveRule}).
 *
 * Exact stages ({@link hasExactStage}, for the global output cap). What
 * the rule matcher can say is said by guard rules: the `exact/*` guards
 * name the programs whose output is exact by nature (sed, awk, jq, digests,
 * wc, diff, curl, watch, `yarp`, …) and the family guards the exact forms
 * of known programs (`--json`, `-o json`, `--follow`, `--format`, …).
 * Code keeps three decisions the matcher cannot express: a program given
 * by path is looked up by its last path segment (rules never match a
 * path); argument forms such as `--json` mark any program exact, even one
 * no rule names (guards always name their program); and `cat`, `head`,
 * `tail` anywhere in a pipeline keep it exact, because their rules are
 * transforms that a guard would stop.
 *
 * Known misses: `cd DIR` found through `CDPATH` prints the directory,
 * which then counts as typed output; `set -e` does not raise confidence; a producer reading a
 * pipe keeps its own type; transform diagnostics are not ranked, the caller
 * fails open on them instead.
 *
 * @module
 */
import type { OutputPolicy, ReducerSpec, ReductionRule, Rule } from "../rules/model.ts";
import { ruleProgramName } from "../rules/program_alias.ts";
import type { RuleRegistry } from "../rules/registry.ts";
import type { Assignment, Pipeline, ShellProgram, SimpleCommand } from "./model.ts";
import { selectOverOpaqueWords } from "./opaque_select.ts";
import {
  assignmentEffect,
  frontEndOperand,
  isActivateScript,
  peelWrappers,
  shellScriptOperand,
  type StageFormReason,
} from "./stage_forms.ts";

/** How much of the real result status the finished exit code proves. */
export type StatusConfidence = "complete" | "final-stage-only" | "conditional";

/** A typed visible output: the merged rule and its family key. */
export interface TypedOutput {
  /** `<first rule-id segment>:<reducer kind>`, e.g. `search:line_filter`. */
  readonly family: string;
  /** The merged rule: the first rule's id and reducer, merged policies. */
  readonly rule: ReductionRule;
  /** Every contributing rule id, sorted, without duplicates. */
  readonly ruleIds: readonly string[];
  /** The literal argv of the one stage whose rule was selected; absent when several stages contribute. */
  readonly argv?: readonly string[];
}

/** The output state of one stream or path (docs/architecture.md, "Output contracts"). */
export type OutputState =
  | { readonly kind: "empty" }
  | { readonly kind: "typed"; readonly typed: TypedOutput }
  | { readonly kind: "exact"; readonly reason: PlanReason; readonly rule?: string }
  | { readonly kind: "unknown"; readonly reason: PlanReason; readonly rule?: string }
  | { readonly kind: "conflict" };

/** Why a result passes through; stable codes, never command text. */
export type PlanReason =
  | "guarded"
  | "ambiguous"
  | "unknown-program"
  | "no-rule-matched"
  | "no-program"
  | "invalid-pack"
  | "setup-form"
  | "transform-without-input"
  | "transform-file-operand"
  | "merged-stderr"
  | "mixed-reducers"
  | "no-typed-output"
  | "opaque-word"
  | "stdin-document"
  | StageFormReason;

/** A plan for reducing one finished result. */
export interface ResultPlan {
  /** The merged rule for every visible output. */
  readonly rule: ReductionRule;
  /** The reducer family key (see the module contract). */
  readonly family: string;
  /** Every contributing reduction rule id, sorted. */
  readonly ruleIds: readonly string[];
  /**
   * The literal argv (wrappers peeled) of the one stage whose rule was
   * selected, when every visible output comes from that stage (`grep … |
   * head`: the grep); absent when several stages contribute. Read for a
   * search's source terms.
   */
  readonly argv?: readonly string[];
  readonly statusConfidence: StatusConfidence;
  /** Programs of accepted transform stages, sorted, without duplicates. */
  readonly transformPrograms: readonly string[];
  /** Setup programs that may print shell diagnostics, sorted, without duplicates. */
  readonly setupPrograms: readonly string[];
  /** True when setup commands may print diagnostics: the caller fails open on them. */
  readonly failOpenSetupDiagnostics: boolean;
}

/** The planner's answer: a plan, or a pass-through reason (and the rule behind it). */
export type PlanOutcome =
  | { readonly ok: true; readonly plan: ResultPlan }
  | { readonly ok: false; readonly reason: PlanReason; readonly rule?: string };

const EMPTY: OutputState = { kind: "empty" };
const CONFLICT: OutputState = { kind: "conflict" };

/** The family key of a reduction rule: first id segment and reducer kind. */
export function reducerFamily(rule: ReductionRule): string {
  const slash = rule.id.indexOf("/");
  return `${slash === -1 ? rule.id : rule.id.slice(0, slash)}:${rule.reducer.kind}`;
}

function mergePolicy(left: OutputPolicy, right: OutputPolicy): OutputPolicy {
  return {
    headLines: Math.max(left.headLines, right.headLines),
    tailLines: Math.max(left.tailLines, right.tailLines),
    maxLineBytes: Math.max(left.maxLineBytes, right.maxLineBytes),
    maxOutputBytes: Math.max(left.maxOutputBytes, right.maxOutputBytes),
    minSavingsBytes: Math.max(left.minSavingsBytes, right.minSavingsBytes),
  };
}

function sameReducer(left: ReducerSpec, right: ReducerSpec): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/** True when both argvs are given and hold the same words. */
function sameArgv(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return a !== undefined && b !== undefined && a.length === b.length &&
    a.every((word, index) => word === b[index]);
}

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Combines two output states conservatively (see the module contract).
 * Commutative in its outcome kind; the merged rule keeps the id and reducer
 * of the rule whose id sorts first, so the result is deterministic.
 */
export function combineStates(left: OutputState, right: OutputState): OutputState {
  if (left.kind === "empty") return right;
  if (right.kind === "empty") return left;
  if (left.kind === "exact" || left.kind === "unknown" || left.kind === "conflict") return left;
  if (right.kind === "exact" || right.kind === "unknown" || right.kind === "conflict") return right;
  const a = left.typed;
  const b = right.typed;
  if (a.family !== b.family || !sameReducer(a.rule.reducer, b.rule.reducer)) return CONFLICT;
  const first = a.rule.id <= b.rule.id ? a.rule : b.rule;
  const typed: TypedOutput = {
    family: a.family,
    rule: {
      ...first,
      success: mergePolicy(a.rule.success, b.rule.success),
      failure: mergePolicy(a.rule.failure, b.rule.failure),
    },
    ruleIds: sortedUnique([...a.ruleIds, ...b.ruleIds]),
  };
  // One stage's stdout and stderr, or the same command twice, keep its argv.
  return { kind: "typed", typed: sameArgv(a.argv, b.argv) ? { ...typed, argv: a.argv } : typed };
}

/** Programs that only set up the shell; they print nothing but diagnostics. */
const SETUP_PROGRAMS: ReadonlySet<string> = new Set(["cd", "true", ":", "set"]);

/**
 * Setup programs that cannot fail with a diagnostic (reviewed `set` forms
 * included); `export` and `(assignment)` stand for literal `export
 * NAME=value` and `NAME=value` statements.
 */
const SILENT_SETUP: ReadonlySet<string> = new Set(["true", ":", "set", "export", "(assignment)"]);

const SET_LONG_OPTIONS: ReadonlySet<string> = new Set(["pipefail", "errexit", "nounset"]);

/** Whether `set ARGS` is a reviewed form, and whether it turns pipefail on. */
function readSet(args: readonly string[]): { ok: boolean; pipefail: boolean } {
  let pipefail = false;
  if (args.length === 0) return { ok: false, pipefail }; // `set` alone prints variables
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (!/^-[euo]+$/.test(arg)) return { ok: false, pipefail };
    const letters = arg.slice(1);
    const o = letters.indexOf("o");
    if (o === -1) continue;
    if (o !== letters.length - 1) return { ok: false, pipefail };
    const value = args[++index];
    if (value === undefined || !SET_LONG_OPTIONS.has(value)) return { ok: false, pipefail };
    if (value === "pipefail") pipefail = true;
  }
  return { ok: true, pipefail };
}

/** Reviewed options that take a separate value, per built-in transform program. */
const VALUED_OPTIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["head", new Set(["-n", "--lines", "-c", "--bytes"])],
  ["tail", new Set(["-n", "--lines", "-c", "--bytes", "-s", "--sleep-interval", "--pid"])],
  [
    "sort",
    new Set([
      "-k",
      "--key",
      "-t",
      "--field-separator",
      "-S",
      "--buffer-size",
      "-T",
      "--temporary-directory",
      "--parallel",
      "--batch-size",
      "-o",
      "--output",
      "--random-source",
      "--files0-from",
      "--compress-program",
      "--sort",
    ]),
  ],
  ["uniq", new Set(["-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"])],
  ["cat", new Set()],
  ["tee", new Set(["--output-error"])],
]);

/** Programs whose operands are output files, not input. */
const OUTPUT_OPERANDS: ReadonlySet<string> = new Set(["tee"]);

/** True when a transform stage names an input operand other than `-` (stdin). */
function hasInputOperand(words: readonly string[]): boolean {
  const program = words[0];
  if (OUTPUT_OPERANDS.has(program)) return false;
  const valued = VALUED_OPTIONS.get(program) ?? new Set<string>();
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index];
    if (word === "--") return index + 1 < words.length;
    if (word === "-") continue;
    if (!word.startsWith("-")) return true;
    if (word.startsWith("--")) {
      if (!word.includes("=") && valued.has(word)) index += 1;
      continue;
    }
    // A short bundle: a valued letter takes the rest of the word, else the next word.
    for (let at = 1; at < word.length; at += 1) {
      if (valued.has(`-${word[at]}`)) {
        if (at === word.length - 1) index += 1;
        break;
      }
    }
  }
  return false;
}

type StageKind =
  | { readonly kind: "state"; readonly state: OutputState }
  | { readonly kind: "transform"; readonly program: string }
  | { readonly kind: "setup"; readonly program: string; readonly pipefail: boolean };

const unknown = (reason: PlanReason): StageKind => ({
  kind: "state",
  state: { kind: "unknown", reason },
});

/** True when every assignment is reviewed as setup (see `assignmentEffect`). */
function assignmentsReviewed(
  assignments: readonly (Pick<Assignment, "name" | "value"> & { opaque?: true })[] | undefined,
): boolean {
  return (assignments ?? []).every((assignment) =>
    assignmentEffect(...named(assignment)) === "setup"
  );
}

/** An assignment's name and, unless it is opaque, its value, as `assignmentEffect` reads them. */
function named(
  { name, value, opaque }: Pick<Assignment, "name" | "value"> & { opaque?: true },
): [string, string | undefined] {
  return [name, opaque ? undefined : value];
}

/**
 * Classifies one simple command: reviewed assignment statements, `export`
 * and activate scripts are setup; assignments before a command are
 * reviewed by name; reviewed wrappers are peeled; the command is then
 * selected from its own words, and when the registry knows no rule for it,
 * from a front end's operand (`python -m pytest`, `uv run pytest`).
 */
function classify(command: SimpleCommand, registry: RuleRegistry): StageKind {
  const words = command.words.map((word) => word.text);
  if (!assignmentsReviewed(command.assignments)) return unknown("assignment-output");
  if (command.stdinDocument) return unknown("stdin-document");
  if ((command.assignments ?? []).some((assignment) => assignment.substitutes)) {
    return unknown("opaque-word");
  }
  if (command.words.some((word) => word.opaque)) return classifyOpaque(command, registry);
  if (words.length === 0) return { kind: "setup", program: "(assignment)", pipefail: false };
  if (words[0] === "export" && command.assignments !== undefined) {
    return { kind: "setup", program: "export", pipefail: false };
  }
  if (isActivateScript(words)) return { kind: "setup", program: words[1], pipefail: false };
  const peeled = peelWrappers(words);
  if (typeof peeled === "string") return unknown(peeled);
  if (!assignmentsReviewed(peeled.assignments)) return unknown("assignment-output");
  const argv = peeled.argv;
  const program = argv[0];
  if (SETUP_PROGRAMS.has(program)) {
    if (argv !== words) return unknown("setup-form"); // `timeout 5 cd x`: unreviewed
    return classifySetup(argv);
  }
  const kind = select(argv, registry);
  if (kind.kind !== "state" || kind.state.kind !== "unknown") return kind;
  const reason = kind.state.reason;
  if (reason !== "unknown-program" && reason !== "no-rule-matched") return kind;
  const operand = frontEndOperand(argv);
  return operand === undefined ? kind : select(operand, registry);
}

/**
 * Classifies a simple command with opaque words (a program parsed by
 * `parseOpaque`): `cd` with one opaque operand is setup, as `cd DIR` is (a
 * `cd: …` diagnostic fails open; a `-` or a `CDPATH` hit prints the
 * directory, the same known miss as for a literal operand); any other
 * command is typed only when {@link selectOverOpaqueWords} shows that every
 * expansion selects one reduction rule. A wrapper, front end, nested shell
 * or other setup program with an opaque word is `opaque-word`.
 */
function classifyOpaque(command: SimpleCommand, registry: RuleRegistry): StageKind {
  const words = command.words;
  const literal = words.map((word) => word.text);
  if (words.some((word) => word.substitutes)) return unknown("opaque-word");
  if (words[0].text === "cd" && !words[0].opaque && words.length === 2) {
    return { kind: "setup", program: "cd", pipefail: false };
  }
  const peeled = peelWrappers(literal);
  const wrapped = typeof peeled === "string" || peeled.argv.length !== literal.length;
  if (
    wrapped || SETUP_PROGRAMS.has(literal[0]) || frontEndOperand(literal) !== undefined ||
    shellScriptOperand(literal) !== undefined || isActivateScript(literal)
  ) return unknown("opaque-word");
  const rule = selectOverOpaqueWords(words, registry);
  if (rule === undefined) return unknown("opaque-word");
  return {
    kind: "state",
    state: { kind: "typed", typed: { family: reducerFamily(rule), rule, ruleIds: [rule.id] } },
  };
}

function classifySetup(argv: readonly string[]): StageKind {
  const program = argv[0];
  {
    if (program === "set") {
      const set = readSet(argv.slice(1));
      if (!set.ok) return { kind: "state", state: { kind: "unknown", reason: "setup-form" } };
      return { kind: "setup", program, pipefail: set.pipefail };
    }
    if (program === "cd" && (argv.length !== 2 || argv[1] === "-" || argv[1].startsWith("-"))) {
      // `cd -` prints the directory; options and extra operands are unreviewed.
      return { kind: "state", state: { kind: "unknown", reason: "setup-form" } };
    }
    return { kind: "setup", program, pipefail: false };
  }
}

function select(argv: readonly string[], registry: RuleRegistry): StageKind {
  const program = argv[0];
  const selection = registry.select(argv);
  switch (selection.outcome) {
    case "reduce": {
      const rule = selection.match.rule;
      return {
        kind: "state",
        state: {
          kind: "typed",
          typed: { family: reducerFamily(rule), rule, ruleIds: [rule.id], argv },
        },
      };
    }
    case "transform":
      return { kind: "transform", program };
    case "guarded":
      return {
        kind: "state",
        state: { kind: "exact", reason: "guarded", rule: selection.guards[0].rule.id },
      };
    case "ambiguous":
      return { kind: "state", state: { kind: "unknown", reason: "ambiguous" } };
    case "unsupported":
      return { kind: "state", state: { kind: "unknown", reason: selection.reason } };
    case "invalid-pack":
      return { kind: "state", state: { kind: "unknown", reason: "invalid-pack" } };
  }
}

type Target = "pipe" | "visible" | "null";

/** Where the stage's stdout and stderr end up after its redirections. */
function route(command: SimpleCommand, last: boolean): { out: Target; err: Target } {
  let fd1: Target = last ? "visible" : "pipe";
  let fd2: Target = "visible";
  for (const redirect of command.redirects) {
    if (redirect.kind === "null") {
      if (redirect.fd === 1 || redirect.fd === "both") fd1 = "null";
      if (redirect.fd === 2 || redirect.fd === "both") fd2 = "null";
    } else {
      const source: Target = redirect.from === 1 ? fd1 : fd2;
      if (redirect.fd === 1) fd1 = source;
      else fd2 = source;
    }
  }
  return { out: fd1, err: fd2 };
}

interface PipelineFacts {
  readonly visible: OutputState;
  readonly stages: number;
  readonly setup?: { readonly program: string; readonly pipefail: boolean };
  /** The weakest confidence of a nested shell program among the stages. */
  readonly nested?: StatusConfidence;
}

interface Collect {
  readonly transforms: Set<string>;
  readonly setups: Set<string>;
}

function planPipeline(
  pipeline: Pipeline,
  registry: RuleRegistry,
  collect: Collect,
): PipelineFacts | { reason: PlanReason; rule?: string } {
  if (pipeline.mergeStderr) return { reason: "merged-stderr" };
  let visible: OutputState = EMPTY;
  let pipe: OutputState | undefined;
  const stages = pipeline.stages;
  let setup: PipelineFacts["setup"];
  let nested: StatusConfidence | undefined;
  for (let index = 0; index < stages.length; index += 1) {
    const command = stages[index];
    const last = index === stages.length - 1;
    let kind: StageKind;
    if (command.nested !== undefined) {
      // `bash -c 'LITERAL'`: its outputs are the literal program's visible outputs.
      const inner = planProgram(command.nested, registry, collect);
      if ("reason" in inner) return inner;
      // `su: Authentication failure`: a switch-user runner's own diagnostics fail open.
      const runner = command.words[0].text.slice(command.words[0].text.lastIndexOf("/") + 1);
      if (runner === "su" || runner === "runuser") collect.setups.add(runner);
      nested = weakest(nested ?? "complete", inner.confidence);
      kind = { kind: "state", state: inner.visible };
    } else kind = classify(command, registry);
    let out: OutputState;
    let err: OutputState = EMPTY;
    switch (kind.kind) {
      case "state":
        out = kind.state;
        err = kind.state;
        break;
      case "setup":
        if (stages.length > 1) return { reason: "setup-form" };
        if (!SILENT_SETUP.has(kind.program)) collect.setups.add(kind.program);
        setup = { program: kind.program, pipefail: kind.pipefail };
        out = EMPTY;
        break;
      case "transform": {
        if (pipe === undefined) return { reason: "transform-without-input" };
        if (hasInputOperand(command.words.map((word) => word.text))) {
          return { reason: "transform-file-operand" };
        }
        collect.transforms.add(kind.program);
        out = pipe;
        break;
      }
    }
    const routes = route(command, last);
    let next: OutputState = EMPTY;
    for (const [state, target] of [[out, routes.out], [err, routes.err]] as const) {
      if (target === "visible") visible = combineStates(visible, state);
      else if (target === "pipe") next = combineStates(next, state);
    }
    pipe = next;
  }
  return nested === undefined
    ? { visible, stages: stages.length, setup }
    : { visible, stages: stages.length, setup, nested };
}

/** The weaker of two confidences: `conditional` < `final-stage-only` < `complete`. */
function weakest(left: StatusConfidence, right: StatusConfidence): StatusConfidence {
  if (left === "conditional" || right === "conditional") return "conditional";
  if (left === "final-stage-only" || right === "final-stage-only") return "final-stage-only";
  return "complete";
}

/**
 * Plans the finished result of `program` with `registry` (see the module
 * contract). Pure, deterministic, never throws.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planResult } from "./plan.ts";
 * import { builtinRuleSource, createRuleRegistry } from "../rules/registry.ts";
 * const registry = createRuleRegistry([builtinRuleSource()]);
 * const word = (text: string) => ({ text, start: 0, end: 0 });
 * const stage = (...argv: string[]) => ({ words: argv.map(word), redirects: [], start: 0, end: 0 });
 * const program = {
 *   lists: [{ pipelines: [{ stages: [stage("cargo", "test")], mergeStderr: false }], connectors: [] }],
 * };
 * const outcome = planResult(program, registry);
 * assert.ok(outcome.ok && outcome.plan.statusConfidence === "complete");
 * ```
 */
export function planResult(program: ShellProgram, registry: RuleRegistry): PlanOutcome {
  try {
    return planUnsafe(program, registry);
  } catch {
    return { ok: false, reason: "invalid-pack" };
  }
}

function planUnsafe(program: ShellProgram, registry: RuleRegistry): PlanOutcome {
  const collect: Collect = { transforms: new Set(), setups: new Set() };
  const planned = planProgram(program, registry, collect);
  if ("reason" in planned) return { ok: false, ...planned };
  const { visible, confidence } = planned;
  if (visible.kind !== "typed") return { ok: false, reason: "no-typed-output" };
  const setupPrograms = sortedUnique(collect.setups);
  const argv = visible.typed.argv;
  return {
    ok: true,
    plan: {
      rule: visible.typed.rule,
      family: visible.typed.family,
      ruleIds: visible.typed.ruleIds,
      ...(argv === undefined ? {} : { argv }),
      statusConfidence: confidence,
      transformPrograms: sortedUnique(collect.transforms),
      setupPrograms,
      failOpenSetupDiagnostics: setupPrograms.length > 0,
    },
  };
}

/** The visible state and status confidence of a whole program, or the reason it passes. */
function planProgram(
  program: ShellProgram,
  registry: RuleRegistry,
  collect: Collect,
):
  | { visible: OutputState; confidence: StatusConfidence }
  | { reason: PlanReason; rule?: string } {
  let visible: OutputState = EMPTY;
  let confidence: StatusConfidence = "complete";
  const weaken = (to: StatusConfidence) => {
    if (to === "conditional" || confidence === "complete") confidence = to;
  };
  // A newline starts a new list exactly as `;` does.
  const steps: { pipeline: Pipeline; connector: "sequence" | "and" | "or" }[] = [];
  for (const list of program.lists) {
    list.pipelines.forEach((pipeline, index) =>
      steps.push({ pipeline, connector: index === 0 ? "sequence" : list.connectors[index - 1] })
    );
  }
  let pipefailEver = false; // an unconditional `set -o pipefail` ran before
  let pipefailInChain = false; // set earlier in the current `&&` chain
  let silentSoFar = true; // every earlier pipeline was `set`, `true` or `:`
  for (const [index, { pipeline, connector }] of steps.entries()) {
    if (index > 0) {
      if (connector === "or") weaken("conditional");
      else if (connector === "sequence" && !silentSoFar) weaken("final-stage-only");
    }
    if (connector !== "and") pipefailInChain = false;
    const facts = planPipeline(pipeline, registry, collect);
    if ("reason" in facts) return facts;
    if (facts.stages > 1 && !(pipefailEver || pipefailInChain)) weaken("final-stage-only");
    if (facts.nested !== undefined && facts.nested !== "complete") weaken(facts.nested);
    if (facts.setup?.pipefail) {
      if (connector === "sequence") pipefailEver = true;
      else pipefailInChain = true;
    }
    silentSoFar &&= facts.setup !== undefined && SILENT_SETUP.has(facts.setup.program);
    visible = combineStates(visible, facts.visible);
    if (visible.kind === "exact" || visible.kind === "unknown") {
      return visible.rule === undefined
        ? { reason: visible.reason }
        : { reason: visible.reason, rule: visible.rule };
    }
    if (visible.kind === "conflict") return { reason: "mixed-reducers" };
  }
  return { visible, confidence };
}

/**
 * The rule to reduce with under the plan's status confidence: the plan's
 * rule when `complete`, else the same rule with its failure policy also used
 * on success (docs/architecture.md, "Streams and status": `FinalStageOnly` and `Conditional` use the larger
 * failure policy).
 */
export function effectiveRule(plan: ResultPlan): ReductionRule {
  if (plan.statusConfidence === "complete") return plan.rule;
  return { ...plan.rule, success: plan.rule.failure };
}

/**
 * True when `text` holds a line that a setup or transform program of `plan`
 * printed as a diagnostic (`cd: …`, `bash: cd: …`, `bash: line 1: cd: …`,
 * `tee: …`). Callers preserve the exact result when it does (fail open).
 * Reads at most the first 256 bytes of each line.
 */
export function hasStageDiagnostics(plan: ResultPlan, text: string): boolean {
  const programs = [...plan.setupPrograms, ...plan.transformPrograms];
  if (programs.length === 0) return false;
  for (const line of text.split("\n")) {
    const head = line.slice(0, 256);
    for (const program of programs) {
      if (head.startsWith(`${program}: `) || head.includes(`: ${program}: `)) return true;
    }
  }
  return false;
}

/**
 * Argument forms that ask any program for exact, structured or streaming output. Guard rules
 * name their program, so they cannot speak for a program no rule knows (`terraform show
 * -json`, `./tool --format json`); this pattern keeps the global cap off those too.
 */
const EXACT_WORD =
  /^(?:--?json(?:=.*)?|--porcelain(?:=.*)?|-z|--null|--null-data|--zero|-0|--print0|-print0|-printf|--format(?:=.*)?|--pretty(?:=.*)?|--template(?:=.*)?|--output(?:=.*)?|-o(?:json|yaml|wide|name|jsonpath.*|go-template.*|custom-columns.*)|-ojson|--reporter(?:=.*)?|--follow|--watch(?:All)?|--count|--digest|--raw|--jq(?:=.*)?|--quiet-json)$/;

/**
 * Names of structured output formats: given as an option's value (`shellcheck -f json1`,
 * `tool -F xml`, `tool -tjson`), they ask any program for exact output.
 */
const FORMAT_NAME = /^(?:json\w*|ndjson|jsonl|ya?ml|xml|csv|tsv|sarif|checkstyle|junit)$/i;

/** True when `word` is a short option glued to a format name (`-fjson`) or `prev` is an option. */
function formatValue(prev: string, word: string): boolean {
  const glued = /^-[A-Za-z]=?(.+)$/.exec(word);
  if (glued !== null && FORMAT_NAME.test(glued[1])) return true;
  return prev.startsWith("-") && FORMAT_NAME.test(word);
}

/**
 * File readers whose rules are line-preserving transforms, not guards (a guard would stop them
 * carrying a typed result through a pipeline): anywhere in a pipeline no rule reduces, they
 * read a file or bound the output themselves (`cmd | tail -100`), so the cap leaves it exact.
 */
const READ_PROGRAMS: ReadonlySet<string> = new Set(["cat", "head", "tail"]);

/** True when `argv` runs a file reader (see above) or an argument asks for exact output. */
function exactWords(argv: readonly string[]): boolean {
  const program = argv[0] ?? "";
  if (READ_PROGRAMS.has(program.slice(program.lastIndexOf("/") + 1))) return true;
  for (let index = 1; index < argv.length; index += 1) {
    const word = argv[index];
    if (EXACT_WORD.test(word) || formatValue(argv[index - 1], word)) return true;
    // `-o json`, `--output yaml`, `-f json` in their separate-value form
    if ((word === "-o" || word === "--output" || word === "--format") && index + 1 < argv.length) {
      return true;
    }
  }
  return false;
}

/**
 * Programs that run a command given in their arguments, elsewhere or as
 * another user (`ssh host cat f`, `xargs cat`, `docker exec c cat f`,
 * `su -c 'cat f'`): their output is that command's, which no planner reads.
 */
const COMMAND_RUNNERS: ReadonlySet<string> = new Set([
  "ssh",
  "su",
  "runuser",
  "xargs",
  "parallel",
  "docker",
  "podman",
  "kubectl",
  "chroot",
  "nsenter",
  "setsid",
  "flock",
]);

/** Splits a runner's argument text into the words a remote or nested shell may run. */
const COMMAND_TOKEN = /[^\s;&|()<>'"`]+/g;

/**
 * True when `argv` is a {@link COMMAND_RUNNERS} program and some word of its
 * arguments names a program whose output is exact whatever its arguments
 * ({@link isExactProgram}: `cat`, `sed`, `jq`, `echo`, …): the run may be an
 * exact form, so the cap leaves it alone.
 */
function runsKnownProgram(argv: readonly string[], registry: RuleRegistry): boolean {
  const program = argv[0] ?? "";
  if (!COMMAND_RUNNERS.has(program.slice(program.lastIndexOf("/") + 1))) return false;
  for (const word of argv.slice(1)) {
    for (const [token] of word.matchAll(COMMAND_TOKEN)) {
      if (isExactProgram(token.slice(token.lastIndexOf("/") + 1), registry)) return true;
    }
  }
  return false;
}

/**
 * True when `name` reads files or bounds a view (`cat`, `head`, `tail`, a
 * transform rule's program) or a guard selects it whatever its arguments
 * (the `exact/*` guards: `sed`, `jq`, `echo`, digests, …).
 */
function isExactProgram(name: string, registry: RuleRegistry): boolean {
  return READ_PROGRAMS.has(name) ||
    someRuleFiled(name, registry, (rule) =>
      rule.action === "transform" ||
      (rule.action === "passthrough" && rule.match.argvPrefix.length === 0 &&
        rule.match.argvContainsAll.length === 0));
}

/** True when some rule of the registry filed under `name`'s rule program name passes `test`. */
function someRuleFiled(
  name: string,
  registry: RuleRegistry,
  test: (rule: Rule) => boolean,
): boolean {
  const program = ruleProgramName(name);
  return registry.sources.some((source) => source.candidates(program).some(test));
}

/**
 * True when the registry guards `argv` with its program named by its last path segment: rules
 * never match a program given by path (`/usr/bin/sha256sum`, `./node_modules/.bin/jq`), yet
 * the path runs the same exact program for the cap.
 */
function guardedByName(argv: readonly string[], registry: RuleRegistry): boolean {
  const program = argv[0] ?? "";
  const slash = program.lastIndexOf("/");
  if (slash === -1 || slash === program.length - 1) return false;
  return registry.select([program.slice(slash + 1), ...argv.slice(1)]).outcome === "guarded";
}

/**
 * True when some stage of `program` (nested shells included) is an exact
 * form the global output cap must not cut: a guard (the `exact/*` guards
 * name the programs whose output is exact by nature: file reads, digests,
 * counts, queries, watch modes, `yarp`), also for a program named by its
 * path, a transform reading a file (`cat FILE`, `head FILE`), an
 * output-changing assignment or wrapper option, an argument that asks
 * any program for structured, NUL-delimited, counted or streaming output
 * ({@link EXACT_WORD}), or a command runner (`ssh`, `xargs`, `docker`, …)
 * whose arguments name a program exact whatever its arguments
 * (`ssh host cat f`). Pure; never throws (a failing pack counts as exact).
 */
export function hasExactStage(program: ShellProgram, registry: RuleRegistry): boolean {
  try {
    for (const list of program.lists) {
      for (const pipeline of list.pipelines) {
        for (const [index, stage] of pipeline.stages.entries()) {
          if (stage.nested !== undefined) {
            if (hasExactStage(stage.nested, registry)) return true;
            continue;
          }
          if (stageIsExact(stage, index, registry)) return true;
        }
      }
    }
    return false;
  } catch {
    return true;
  }
}

/** {@link hasExactStage} of one literal stage, `index` its place in the pipeline; may throw. */
function stageIsExact(stage: SimpleCommand, index: number, registry: RuleRegistry): boolean {
  const words = stage.words.map((word) => word.text);
  const peeled = peelWrappers(words);
  const argv = typeof peeled === "string" ? words : peeled.argv;
  if (exactWords(argv) || exactWords(frontEndOperand(argv) ?? [])) return true;
  if (runsKnownProgram(argv, registry)) return true;
  if (guardedByName(argv, registry)) return true;
  const kind = classify(stage, registry);
  if (kind.kind === "transform" && index === 0) return true;
  if (kind.kind !== "state") return false;
  const state = kind.state;
  if (state.kind === "exact") return true;
  return state.kind === "unknown" &&
    (state.reason === "assignment-output" || state.reason === "wrapper-option" ||
      state.reason === "invalid-pack");
}

/**
 * {@link hasExactStage} for a program parsed with opaque words
 * (`parseOpaque`): true unless every stage is known not to be an exact
 * form. A stage without opaque words is judged as `hasExactStage` judges
 * it, except that a shell running a literal script (`bash -c '…'`, not
 * parsed here) counts as exact. A stage with an opaque word, whose text is
 * unknown, counts as exact when its program is opaque, a wrapper or a front
 * end, when an assignment before it changes output, when a literal word asks
 * for exact output or the program reads files (`cat`, `head`, `tail`), or
 * when any guard or transform rule is filed under its program: only a
 * program no such rule names, given file names or values, is left to the
 * cap. Pure; never throws (a failing pack counts as exact).
 */
export function mayHoldExactForm(program: ShellProgram, registry: RuleRegistry): boolean {
  try {
    for (const list of program.lists) {
      for (const pipeline of list.pipelines) {
        for (const [index, stage] of pipeline.stages.entries()) {
          const argv = stage.words.map((word) => word.text);
          if (shellScriptOperand(argv) !== undefined) return true;
          if (stage.stdinDocument && !STDIN_INTERPRETERS.test(argv[0] ?? "")) return true;
          if (!stage.words.some((word) => word.opaque)) {
            if (stageIsExact(stage, index, registry)) return true;
            continue;
          }
          if (opaqueStageMayBeExact(stage, argv, registry)) return true;
        }
      }
    }
    return false;
  } catch {
    return true;
  }
}

/**
 * Interpreters whose here-document is a script (`python3 - <<'EOF'`): their
 * output is the script's, as for `python3 script.py`, which no rule knows.
 * A here-document fed to anything else (`cat`, a shell, a database client,
 * `ssh`) may be an exact view.
 */
const STDIN_INTERPRETERS = /^(python(3(\.\d{1,2})?)?|node|ruby|perl)$/;

/** The opaque-word half of {@link mayHoldExactForm} for one stage; may throw. */
function opaqueStageMayBeExact(
  stage: SimpleCommand,
  argv: readonly string[],
  registry: RuleRegistry,
): boolean {
  if (stage.words[0].opaque) return true;
  const peeled = peelWrappers(argv);
  if (typeof peeled === "string" || peeled.argv.length !== argv.length) return true;
  if (frontEndOperand(argv) !== undefined || exactWords(argv)) return true;
  if (runsKnownProgram(argv, registry)) return true;
  if (
    (stage.assignments ?? []).some((assignment) =>
      assignmentEffect(...named(assignment)) === "output"
    )
  ) {
    return true;
  }
  const path = argv[0];
  return someRuleFiled(
    path.slice(path.lastIndexOf("/") + 1),
    registry,
    (rule) => rule.action !== "reduce",
  );
}
