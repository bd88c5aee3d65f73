/**
 * `yarp run [--rule-pack P]… [--expect-rule ID] [--pack-digest D]… -- PROG ARGS…`:
 * runs the child exactly and reduces its stdout and stderr separately when
 * exactly one reduction rule selects the real argv.
 *
 * Everything after the first `--` is the child argv, verbatim. A malformed
 * YARP argument prints one `yarp run: …` line and returns 2 without running
 * the child. Every other doubt runs the child in exact pass-through (seed
 * 000, "Rewrite and run agreement"): a pack that fails to load or verify, a
 * `--pack-digest` that differs from the pack's whole-file digest, a selection
 * other than one `reduce` rule, an `--expect-rule` that names another rule, a
 * rule over the memory bound, or a pack that changed after it was read.
 * Pass-through is silent unless `YARP_DEBUG` is set, when one line on stderr
 * says why.
 *
 * A reduced run keeps an exact copy in the archive (docs/archive.md): the
 * config file and `YARP_ARCHIVE*` are read only on this path, and an
 * invalid config or archive setting prints one `yarp run: …` line and runs
 * the child in exact pass-through. `YARP_ARCHIVE=off` reduces with markers
 * that say no exact copy was kept.
 *
 * @module
 */
import { quotedArg } from "../base/printable_text.ts";
import type { ReductionRule } from "../rules/model.ts";
import type { ConfigResult } from "../config/mod.ts";
import { isBuiltinProgram } from "../rules/builtin_programs.ts";
import {
  type CaptureOutcome,
  type CaptureSource,
  NO_ARCHIVE,
  type RawCapture,
  runPassthrough,
  runReduced,
} from "../run/runner.ts";
import { parseArgs } from "./_args.ts";
import type { TextIo } from "./io.ts";
import { firstLine } from "../base/error_message.ts";
import { callHost, type Host } from "../archive/gain.ts";

const USAGE =
  "usage: yarp run [--rule-pack P]... [--expect-rule ID] [--pack-digest D]... [--host H] -- PROG ARGS...\n";

/** The parsed YARP-owned arguments and the child argv. */
export interface RunOptions {
  readonly rulePacks: readonly string[];
  readonly expectRule: string | undefined;
  readonly packDigests: readonly string[];
  readonly argv: readonly string[];
  /** `--host`: who runs the command, recorded for `yarp gain` (else `YARP_HOST`, else `cli`). */
  readonly host?: Host;
}

const HEX_DIGEST = /^[0-9a-f]{64}$/;

/**
 * Parses the arguments after `run` with the shared parser (`_args.ts`).
 * Everything after the first `--` is the child argv, verbatim; before it only
 * the YARP options are allowed, each as `--name value` or `--name=value` (a
 * separate value may not start with `-`). Returns the options, or `{ error }`
 * with one line (no `yarp run:` prefix) for a missing `--` or command, an
 * unknown option, a stray argument, a missing value, a repeated
 * `--expect-rule`, an empty path or rule id, a malformed digest, or a digest
 * count other than the pack count, or a `--host` that names no host
 * (`lib/archive/gain.ts`). Digests are lower-cased.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseRunArgs } from "./run.ts";
 * deepEqual(parseRunArgs(["--expect-rule=git.diff", "--", "git", "diff", "--", "x"]), {
 *   rulePacks: [],
 *   expectRule: "git.diff",
 *   packDigests: [],
 *   argv: ["git", "diff", "--", "x"],
 * });
 * deepEqual(parseRunArgs(["git"]), { error: "expected '--' before the command" });
 * ```
 */
export function parseRunArgs(args: readonly string[]): RunOptions | { error: string } {
  if (!args.includes("--")) return { error: "expected '--' before the command" };
  const parsed = parseArgs(args, {
    options: ["--expect-rule", "--host"],
    repeatable: ["--rule-pack", "--pack-digest"],
  });
  if ("error" in parsed) return parsed;
  if (parsed.positionals.length > 0) {
    return { error: `unexpected argument '${quotedArg(parsed.positionals[0])}' before '--'` };
  }
  const argv = parsed.rest ?? [];
  const expectRule = parsed.values.get("--expect-rule");
  const rulePacks = parsed.lists.get("--rule-pack") ?? [];
  const packDigests = (parsed.lists.get("--pack-digest") ?? []).map((digest) =>
    digest.toLowerCase()
  );
  if (argv.length === 0) return { error: "missing command after '--'" };
  if (rulePacks.includes("")) return { error: "--rule-pack: empty path" };
  if (expectRule === "") return { error: "--expect-rule: empty rule id" };
  const badDigest = packDigests.find((digest) => !HEX_DIGEST.test(digest));
  if (badDigest !== undefined) {
    return {
      error: `--pack-digest: '${quotedArg(badDigest)}' is not a 64-digit hex SHA-256 digest`,
    };
  }
  if (packDigests.length > 0 && packDigests.length !== rulePacks.length) {
    return {
      error:
        `--pack-digest: ${packDigests.length} digests for ${rulePacks.length} --rule-pack paths`,
    };
  }
  const hostText = parsed.values.get("--host");
  const host = hostText === undefined ? undefined : callHost(hostText, undefined);
  if (host !== undefined && "error" in host) return host;
  return { rulePacks, expectRule, packDigests, argv, ...(host === undefined ? {} : host) };
}

/** What `yarp run` will do with the child: reduce with one rule, or pass through and why. */
export type RunPlan =
  | {
    readonly kind: "reduce";
    readonly rule: ReductionRule;
    /** Re-checked just before spawn; a change means pass-through. */
    readonly assertPacksUnchanged: () => Promise<void>;
    /** The config file as read for this plan; the archive settings come from it. */
    readonly config: ConfigResult;
  }
  | { readonly kind: "passthrough"; readonly reason: string };

function passthrough(reason: string): RunPlan {
  return { kind: "passthrough", reason };
}

/**
 * Decides what `yarp run` does for `options`: loads the packs (built-ins
 * first, then each `--rule-pack` in order), checks each `--pack-digest`
 * against its pack's whole-file digest, selects a rule for the real argv and
 * checks `--expect-rule` and the rule's memory bound. Any doubt gives
 * pass-through with a one-line reason. Never throws for a bad pack. Without
 * packs, a program no built-in rule names passes through before any rule is
 * loaded, with the reason the registry would give; with no `--rule-pack`
 * and no file where the config file is looked for, also before the pack
 * reader is loaded or any config file read.
 */
export async function planRun(options: RunOptions): Promise<RunPlan> {
  const program = options.argv[0];
  const unknown = program !== "" && !isBuiltinProgram(program);
  if (unknown && options.rulePacks.length === 0 && !(await configFileExists())) {
    // No pack can name the program: pass through before loading the pack reader.
    return passthrough("unsupported: unknown-program");
  }
  // The config file is read once per run: for the packs it names here, the archive settings later.
  const { loadConfig, processEnv } = await import("../config/mod.ts");
  const [rulePacks, config] = await Promise.all([
    import("./_rule_packs.ts"),
    loadConfig(processEnv),
  ]);
  const configured = options.rulePacks.length === 0
    ? await rulePacks.configuredPackPaths(config)
    : undefined;
  // An invalid config file is reported on the archive path (one line, then pass-through); here it
  // only means no configured packs.
  const noPacks = configured !== undefined &&
    ("error" in configured || configured.paths.length === 0);
  if (noPacks && unknown) {
    // No built-in rule names the program: the registry would find no candidate. Skip loading it.
    return passthrough("unsupported: unknown-program");
  }
  // Only runs with packs (configured or named) pay for loading the pack reader.
  const { registry, packs, configuredCount, errors } = noPacks
    ? await builtinRegistry()
    : await rulePacks.loadRegistry(options.rulePacks, false, config);
  if (errors.length > 0) return passthrough(`rule pack: ${firstLine(errors[0])}`);
  for (const [index, expected] of options.packDigests.entries()) {
    if (await packs[configuredCount + index].pack.fileDigestAsync() !== expected) {
      return passthrough(
        `rule pack ${options.rulePacks[index]}: digest differs from --pack-digest`,
      );
    }
  }
  const selection = registry.select(options.argv);
  if (selection.outcome === "unsupported") return passthrough(`unsupported: ${selection.reason}`);
  if (selection.outcome !== "reduce") return passthrough(`selection is ${selection.outcome}`);
  const { rule } = selection.match;
  if (options.expectRule !== undefined && rule.id !== options.expectRule) {
    return passthrough(`selected rule ${rule.id}, expected ${options.expectRule}`);
  }
  preloadCaptureModules();
  // A pack's rule is checked against the memory bound before its child starts; the built-in rules
  // are within it by construction (tests/reduce_test.ts checks every one), so their run loads the
  // budget with the reducers, once the child runs (`runReduced`).
  const { BUILTIN_PACK } = await import("../rules/registry.ts"); // loaded with the registry
  if (selection.match.packId !== BUILTIN_PACK.id) {
    const { checkMemoryBound } = await import("../reduce/budget.ts");
    const bound = checkMemoryBound(rule);
    if (!bound.ok) return passthrough(`rule ${rule.id}: ${bound.message}`);
  }
  return {
    kind: "reduce",
    rule,
    assertPacksUnchanged: async () => {
      for (const loaded of packs) await loaded.assertUnchanged();
    },
    config,
  };
}

/**
 * True when there is a file where the config file is looked for
 * (`configLocation`), so it may name packs; false when there is none or it
 * cannot be looked at (then `loadConfig` would give no packs either).
 */
async function configFileExists(): Promise<boolean> {
  const { configLocation, processEnv } = await import("../config/mod.ts");
  const location = configLocation(processEnv);
  if (location === undefined) return false;
  try {
    Deno.statSync(location.path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts loading, without waiting, what a reduced run needs before its child
 * starts beside the memory budget (the archive settings). The reducers, the
 * archive capture and `node:sqlite` load only once the child runs. A module
 * that fails to load fails again, and is reported, where it is used.
 */
function preloadCaptureModules(): void {
  for (
    const loading of [import("../archive/settings.ts"), import("../archive/command_text.ts")]
  ) loading.catch(() => {});
}

/** The registry of the built-in rules alone, with no pack files. */
async function builtinRegistry() {
  const { builtinRuleSource, createRuleRegistry } = await import("../rules/registry.ts");
  return {
    registry: createRuleRegistry([builtinRuleSource()]),
    packs: [],
    configuredCount: 0,
    errors: [],
  };
}

/** True when `YARP_DEBUG` is set, not empty and not `0`; false without permission to read it. */
function debugEnabled(): boolean {
  const descriptor = { name: "env", variable: "YARP_DEBUG" } as const;
  if (Deno.permissions.querySync(descriptor).state !== "granted") return false; // never prompt
  const value = Deno.env.get("YARP_DEBUG");
  return value !== undefined && value !== "" && value !== "0";
}

/**
 * Runs `yarp run` with the arguments after `run`; returns YARP's exit status:
 * the child's shell status (`128 + n` after signal `n`, 127/126 when it cannot
 * be spawned), or 2 for a malformed YARP argument (child not run). Argument
 * errors and `--help` go to `io`; child output goes to the real stdout and
 * stderr, exact in pass-through and reduced per stream otherwise.
 */
export async function runCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  const options = parseRunArgs(args);
  if ("error" in options) {
    io.err(`yarp run: ${options.error}\n`);
    return 2;
  }
  let plan = await planRun(options);
  if (plan.kind === "reduce") {
    try {
      await plan.assertPacksUnchanged();
    } catch (error) {
      plan = passthrough(`rule pack changed: ${firstLine(error)}`);
    }
  }
  if (plan.kind === "reduce") {
    const capture = await prepareCapture(options, plan.rule.id, plan.config);
    if ("error" in capture) {
      io.err(`yarp run: ${capture.error} (output not reduced)\n`);
      return await runPassthrough(options.argv);
    }
    let outcome: CaptureOutcome | undefined;
    const watched = (kept: RawCapture): RawCapture => ({
      write: (stream, chunk) => kept.write(stream, chunk),
      commit: async (exit) => (outcome = await kept.commit(exit)),
      restore: (stream, write) => kept.restore(stream, write),
      shown: (chars) => kept.shown(chars),
      close: () => kept.close(),
    });
    const status = await runReduced(
      options.argv,
      plan.rule,
      undefined,
      typeof capture === "function" ? () => capture().then(watched) : watched(capture),
      plan.config.ok ? plan.config.config.budgets : undefined,
    );
    if (outcome?.kind === "unarchived" && debugEnabled()) {
      io.err(`yarp run: not archived: ${outcome.reason}\n`);
    }
    return status;
  }
  if (debugEnabled()) io.err(`yarp run: pass-through: ${plan.reason}\n`);
  return await runPassthrough(options.argv);
}

/**
 * How a reduced run of `options.argv` under rule `ruleId` keeps its exact copy:
 * {@link NO_ARCHIVE} when `YARP_ARCHIVE=off`, else a function that opens an
 * archive spool (the runner calls it once the child is spawned). An invalid
 * `config` (as the plan read it), archive variable or `YARP_HOST` gives `{ error }` (one
 * line), before any child runs. Loads the archive modules only here, never
 * on pass-through; the run's time and working directory are taken now.
 */
async function prepareCapture(
  options: RunOptions,
  ruleId: string,
  config: ConfigResult,
): Promise<CaptureSource | { error: string }> {
  if (!config.ok) return { error: config.error };
  const { processEnv } = await import("../config/mod.ts");
  const host = callHost(options.host, processEnv("YARP_HOST"));
  if ("error" in host) return host;
  const argv = options.argv;
  const [{ archiveSettings }, { commandText }] = await Promise.all([
    import("../archive/settings.ts"),
    import("../archive/command_text.ts"),
  ]);
  const settings = archiveSettings(processEnv, config.config);
  if ("error" in settings) return { error: settings.error };
  if (!settings.enabled) return NO_ARCHIVE;
  let cwd = "";
  try {
    cwd = Deno.cwd();
  } catch {
    // a deleted working directory: record it as unknown
  }
  const facts = {
    createdMs: Date.now(),
    cwd,
    command: commandText(argv),
    argv,
    ruleId,
    host: host.host,
  };
  return async () => {
    // node:sqlite loads beside the capture's modules, not after them.
    const [{ ArchiveCapture }] = await Promise.all([
      import("../archive/capture.ts"),
      import("node:sqlite"),
    ]);
    return new ArchiveCapture(settings, facts);
  };
}
