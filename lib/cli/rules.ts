/**
 * `yarp rules …`: the pack lifecycle and its diagnostics.
 *
 * - `check DIR` validates a source pack (schema, paths, limits, overlaps).
 * - `compile DIR --output F.yrp` does all of `check`, encodes the pack,
 *   re-opens and fully verifies the bytes, then writes them atomically (0600).
 * - `verify F.yrp` fully verifies a compiled pack and prints its digests.
 * - `list [--rule-pack F]…` prints every loaded rule.
 * - `explain [--rule-pack F]… [--json] -- PROG ARGS…` says which rule an argv
 *   selects, which guard won, or why it passes through. It runs nothing.
 *
 * Every failure is one line per problem on stderr and a non-zero exit; nothing
 * is written when validation fails.
 *
 * @module
 */
import { quotedArg } from "../base/printable_text.ts";
import { encodeCompiledPack, openCompiledPack } from "../rules/compiled_pack.ts";
import { formatDiagnostic } from "../rules/diagnostics.ts";
import type {
  OutputPolicy,
  ReductionRule,
  Rule,
  RuleMatcher,
  SuccessBudgets,
  TypedReducerKind,
} from "../rules/model.ts";
import { SUCCESS_LINE_BYTES, successBudget, textShowsFailure } from "../reduce/mod.ts";
import { DEFAULT_OUTPUT_CAP } from "../reduce/output_cap.ts";
import { openCompiledPackFile, writeCompiledPackFile } from "../rules/pack_file.ts";
import type { RuleRef, Selection } from "../rules/registry.ts";
import { loadSourcePack } from "../rules/source_pack.ts";
import { packProblems } from "../reduce/pack_problems.ts";
import { type ArgSpec, operands, parseArgs, type ParsedArgs } from "./_args.ts";
import { loadRegistry } from "./_rule_packs.ts";
import type { TextIo } from "./io.ts";

const SUBCOMMANDS: Record<string, (args: string[], io: TextIo) => Promise<number>> = {
  check: checkCommand,
  compile: compileCommand,
  verify: verifyCommand,
  list: listCommand,
  explain: explainCommand,
};

/** Dispatches `yarp rules SUBCOMMAND`; returns the exit status. */
export async function rulesCommand(args: string[], io: TextIo): Promise<number> {
  const [name, ...rest] = args;
  const run = name === undefined ? undefined : SUBCOMMANDS[name];
  if (run === undefined) {
    io.err(
      `yarp rules: expected one of ${Object.keys(SUBCOMMANDS).join(", ")}` +
        (name === undefined ? "\n" : `, got '${quotedArg(name)}'\n`),
    );
    return 2;
  }
  return await run(rest, io);
}

/** Parses options strictly; prints one line and returns undefined on bad arguments. */
function parse(command: string, args: string[], spec: ArgSpec, io: TextIo): ParsedArgs | undefined {
  const parsed = parseArgs(args, spec);
  if (!("error" in parsed)) return parsed;
  io.err(`yarp rules ${command}: ${parsed.error}\n`);
  return undefined;
}

/** The one operand (a positional, or the word after `--`), or undefined after one error line. */
function onePositional(
  command: string,
  parsed: ParsedArgs,
  what: string,
  io: TextIo,
): string | undefined {
  const words = operands(parsed);
  if (words.length !== 1) {
    io.err(`yarp rules ${command}: expected exactly one ${what} argument\n`);
    return undefined;
  }
  return words[0];
}

/** Validates a source pack; prints diagnostics and overlaps; 0 only when valid. */
async function validatedPack(command: string, dir: string, io: TextIo) {
  let loaded;
  try {
    loaded = await loadSourcePack(dir);
  } catch (error) {
    io.err(`yarp rules ${command}: ${dir}: ${(error as Error).message}\n`);
    return undefined;
  }
  if (!loaded.ok) {
    for (const diagnostic of loaded.diagnostics) io.err(formatDiagnostic(diagnostic) + "\n");
    return undefined;
  }
  for (const warning of loaded.warnings) io.err(`warning: ${formatDiagnostic(warning)}\n`);
  const problems = packProblems(loaded.pack.rules);
  for (const problem of problems) io.err(`${dir}: ${problem.message} [${problem.code}]\n`);
  return problems.length > 0 ? undefined : loaded.pack;
}

async function checkCommand(args: string[], io: TextIo): Promise<number> {
  const parsed = parse("check", args, {}, io);
  const dir = parsed && onePositional("check", parsed, "DIR", io);
  if (dir === undefined) return 2;
  const pack = await validatedPack("check", dir, io);
  if (pack === undefined) return 1;
  io.out(
    `${dir}: pack ${pack.id}: ${pack.rules.length} rules valid; source digest ${pack.sourceDigest}\n`,
  );
  return 0;
}

async function compileCommand(args: string[], io: TextIo): Promise<number> {
  const parsed = parse(
    "compile",
    args,
    { options: ["--output"], aliases: { "-o": "--output" } },
    io,
  );
  const dir = parsed && onePositional("compile", parsed, "DIR", io);
  if (dir === undefined) return 2;
  const output = parsed!.values.get("--output");
  if (output === undefined || output === "") {
    io.err("yarp rules compile: --output FILE.yrp is required\n");
    return 2;
  }
  const pack = await validatedPack("compile", dir, io);
  if (pack === undefined) return 1;
  try {
    const bytes = encodeCompiledPack(pack);
    const summary = openCompiledPack(bytes, { label: output }).verifyAll();
    await writeCompiledPackFile(output, bytes);
    io.out(
      `${output}: pack ${summary.packId}: ${summary.ruleCount} rules, ${bytes.length} bytes; ` +
        `digest ${summary.fileDigest}\n`,
    );
    return 0;
  } catch (error) {
    io.err(`yarp rules compile: ${(error as Error).message}\n`);
    return 1;
  }
}

async function verifyCommand(args: string[], io: TextIo): Promise<number> {
  const parsed = parse("verify", args, {}, io);
  const path = parsed && onePositional("verify", parsed, "FILE.yrp", io);
  if (path === undefined) return 2;
  try {
    const summary = (await openCompiledPackFile(path)).pack.verifyAll();
    io.out(
      `${path}: ok: pack ${summary.packId}, ${summary.ruleCount} rules, ` +
        `${summary.programCount} programs\nsource digest ${summary.sourceDigest}\n` +
        `file digest ${summary.fileDigest}\n`,
    );
    return 0;
  } catch (error) {
    io.err(`${(error as Error).message}\n`);
    return 1;
  }
}

function packPaths(parsed: ParsedArgs): readonly string[] {
  return parsed.lists.get("--rule-pack") ?? [];
}

function describeMatcher(match: RuleMatcher): string {
  const parts = [`program ${match.programs.join("|")}`];
  if (match.argvPrefix.length > 0) parts.push(`argv_prefix [${match.argvPrefix.join(" ")}]`);
  if (match.argvContainsAll.length > 0) {
    parts.push(`argv_contains_all [${match.argvContainsAll.join(" ")}]`);
  }
  return parts.join(", ");
}

function describePolicy(policy: OutputPolicy): string {
  return `head ${policy.headLines}, tail ${policy.tailLines}, line ${policy.maxLineBytes} B, ` +
    `output ${policy.maxOutputBytes} B, min savings ${policy.minSavingsBytes} B`;
}

/** What limits really apply to a result: the config's success budgets and output cap. */
interface Applied {
  readonly budgets?: SuccessBudgets;
  /** The global output cap's threshold, or null when the config switches it off. */
  readonly capBytes: number | null;
}

/** The `success:` and `failure:` lines of a typed rule: the limits its engine applies. */
function describeTyped(rule: ReductionRule, kind: TypedReducerKind, applied: Applied): string[] {
  const { success, failure } = rule;
  const budget = Math.min(successBudget(applied.budgets, kind), success.maxOutputBytes);
  const exact = (policy: OutputPolicy) =>
    `at most ${policy.maxOutputBytes} B shown; a result that size or smaller stays exact when ` +
    `reducing would save under ${policy.minSavingsBytes} B`;
  const when = textShowsFailure(kind)
    ? "a non-zero exit, or a failure line in the text"
    : "a non-zero exit";
  return [
    `success: notices, summaries and diagnostics first (lines cut at ${success.maxLineBytes} B), ` +
    `then at most ${budget} B of summary and examples (lines cut at ` +
    `${Math.min(SUCCESS_LINE_BYTES, success.maxLineBytes)} B; config budgets.success_bytes); ` +
    exact(success),
    `failure (${when}): everything ranked up to ${failure.maxOutputBytes} B, ` +
    `lines cut at ${failure.maxLineBytes} B; ${exact(failure)}`,
  ];
}

/** The `output cap:` line: whether `yarp result-reduce`'s global cap can cut this result. */
function describeCap(outcome: Selection["outcome"], applied: Applied): string {
  const over = applied.capBytes === null ? "" : ` over ${applied.capBytes} B`;
  if (outcome === "reduce") {
    return "output cap: none for the rule's own result; yarp result-reduce caps it instead" +
      `${over} when stderr is merged into it (2>&1) or the reduction would drop a host's ` +
      "truncation notice";
  }
  if (outcome === "guarded") return "output cap: none (a guarded result stays exact)";
  if (applied.capBytes === null) return "output cap: off (config output_cap.enabled)";
  return `output cap: yarp result-reduce (host hooks) cuts a result over ${applied.capBytes} B ` +
    "to its head, tail and evidence; yarp run passes it through exactly";
}

function describeAction(rule: Rule): string {
  switch (rule.action) {
    case "reduce":
      return `reduce (${rule.reducer.kind})`;
    case "transform":
      return `transform (${rule.transform})`;
    case "passthrough":
      return "passthrough";
  }
}

async function listCommand(args: string[], io: TextIo): Promise<number> {
  const parsed = parse("list", args, { repeatable: ["--rule-pack"] }, io);
  if (parsed === undefined) return 2;
  const extra = operands(parsed);
  if (extra.length > 0) {
    io.err(`yarp rules list: unexpected argument '${quotedArg(extra[0])}'\n`);
    return 2;
  }
  const loaded = await loadRegistry(packPaths(parsed));
  for (const error of loaded.errors) io.err(`${error}\n`);
  for (const disabled of loaded.registry.disabled) io.err(`${disabled.message}\n`);
  for (const { packId, rule } of loaded.registry.rules()) {
    io.out(`${packId}\t${rule.id}\t${describeAction(rule)}\t${describeMatcher(rule.match)}\n`);
  }
  return loaded.errors.length > 0 || loaded.registry.disabled.length > 0 ? 1 : 0;
}

function refJson(ref: RuleRef) {
  return { pack: ref.packId, rule: ref.rule.id, action: ref.rule.action };
}

/** The stable JSON shape of `rules explain --json` (version 1). */
function selectionJson(
  selection: Selection,
  errors: readonly string[],
  disabled: string[],
  applied: Applied,
) {
  const base = {
    version: 1,
    outcome: selection.outcome,
    pack_errors: errors,
    disabled_packs: disabled,
  };
  switch (selection.outcome) {
    case "reduce": {
      const rule = selection.match.rule;
      return {
        ...base,
        ...refJson(selection.match),
        reducer: rule.reducer.kind,
        success: rule.success,
        failure: rule.failure,
        // The typed kinds' optional evidence stops at this budget on success (null: not typed).
        success_budget_bytes:
          rule.reducer.kind === "head_tail" || rule.reducer.kind === "line_filter"
            ? null
            : Math.min(
              successBudget(applied.budgets, rule.reducer.kind),
              rule.success.maxOutputBytes,
            ),
        output_cap_bytes: applied.capBytes,
      };
    }
    case "transform":
      return { ...base, ...refJson(selection.match) };
    case "guarded":
      return {
        ...base,
        guards: selection.guards.map(refJson),
        shadowed: selection.shadowed.map(refJson),
      };
    case "ambiguous":
      return { ...base, matches: selection.matches.map(refJson) };
    case "unsupported":
      return { ...base, reason: selection.reason };
    case "invalid-pack":
      return { ...base, pack: selection.packId, reason: selection.message };
  }
}

function selectionText(selection: Selection, argv: readonly string[], applied: Applied): string {
  const ids = (refs: readonly RuleRef[]) =>
    refs.map((r) => `${r.rule.id} (pack ${r.packId})`).join(", ");
  switch (selection.outcome) {
    case "reduce": {
      const rule = selection.match.rule;
      const kind = rule.reducer.kind;
      return [
        `rule: ${rule.id} (pack ${selection.match.packId})`,
        `action: ${describeAction(rule)}`,
        `matched: ${describeMatcher(rule.match)}`,
        ...(kind === "head_tail" || kind === "line_filter"
          ? [`success: ${describePolicy(rule.success)}`, `failure: ${describePolicy(rule.failure)}`]
          : describeTyped(rule, kind, applied)),
        describeCap(selection.outcome, applied),
      ].join("\n");
    }
    case "transform":
      return `rule: ${selection.match.rule.id} (pack ${selection.match.packId})\n` +
        `action: ${describeAction(selection.match.rule)}\n` +
        "pass-through: a transform rule only applies to finished pipeline results";
    case "guarded":
      return `pass-through: guard ${ids(selection.guards)} wins` +
        (selection.shadowed.length > 0 ? ` over ${ids(selection.shadowed)}` : "") +
        `\n${describeCap(selection.outcome, applied)}`;
    case "ambiguous":
      return `pass-through: ambiguous: ${ids(selection.matches)} all match\n` +
        describeCap(selection.outcome, applied);
    case "unsupported":
      return (selection.reason === "unknown-program"
        ? `pass-through: no rule for program '${quotedArg(argv[0])}'`
        : selection.reason === "no-program"
        ? "pass-through: no rule can match a program given by path or an empty argv"
        : `pass-through: no rule for '${quotedArg(argv[0])}' matches these arguments`) +
        `\n${describeCap(selection.outcome, applied)}`;
    case "invalid-pack":
      return `pass-through: pack ${selection.packId} is invalid: ${selection.message}`;
  }
}

/**
 * The config's budgets and output cap, as `yarp run` and `yarp
 * result-reduce` read them; a config that does not load is reported in one
 * line and leaves the built-in limits.
 */
async function appliedLimits(io: TextIo): Promise<Applied> {
  const { loadConfig, processEnv } = await import("../config/mod.ts");
  const loaded = await loadConfig(processEnv);
  if (!loaded.ok) {
    io.err(`yarp rules explain: ${loaded.error} (built-in limits shown)\n`);
    return { capBytes: DEFAULT_OUTPUT_CAP.thresholdBytes };
  }
  const cap = loaded.config.outputCap;
  return {
    budgets: loaded.config.budgets,
    capBytes: cap?.enabled === false
      ? null
      : cap?.thresholdBytes ?? DEFAULT_OUTPUT_CAP.thresholdBytes,
  };
}

async function explainCommand(args: string[], io: TextIo): Promise<number> {
  const parsed = parse("explain", args, { flags: ["--json"], repeatable: ["--rule-pack"] }, io);
  if (parsed === undefined) return 2;
  const argv = parsed.rest;
  if (argv === undefined || argv.length === 0) {
    io.err("yarp rules explain: expected '-- PROG ARGS...'\n");
    return 2;
  }
  if (parsed.positionals.length > 0) {
    io.err(
      `yarp rules explain: unexpected argument '${quotedArg(parsed.positionals[0])}' before '--'\n`,
    );
    return 2;
  }
  const loaded = await loadRegistry(packPaths(parsed));
  const selection = loaded.registry.select(argv);
  const disabled = loaded.registry.disabled.map((d) => d.message);
  const applied = await appliedLimits(io);
  if (parsed.flags.has("--json")) {
    io.out(JSON.stringify(selectionJson(selection, loaded.errors, disabled, applied)) + "\n");
  } else {
    for (const line of [...loaded.errors, ...disabled]) io.err(`${line}\n`);
    io.out(selectionText(selection, argv, applied) + "\n");
  }
  return 0;
}
