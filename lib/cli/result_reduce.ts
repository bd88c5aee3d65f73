/**
 * `yarp result-reduce --command SRC [--exit-code N] [--archive-id ID]
 * [--rule-pack P]… [--json] < TEXT`: reduces a finished shell result that a
 * host (the Pi extension) already ran (docs/architecture.md, "Runtime flow", "CLI
 * contract").
 *
 * Contract:
 * - The source is parsed with the one shell parser and planned with
 *   `planResult` over the same registry `rewrite` uses (built-ins, then the
 *   given packs), so a simple command selects exactly the rule `rewrite`
 *   selects. Any parse rejection or planner veto prints the input exactly.
 * - The text is one stream (the host's visible result interleaves stdout
 *   and stderr) and is reduced by the plan's rule under its status policy
 *   (`effectiveRule`): success only for `complete` confidence and exit 0;
 *   an unknown exit code uses the failure policy.
 * - Nothing is reduced without an exact copy: the input is archived first
 *   (the `archive put` path), or `--archive-id` names a call the host
 *   already stored, which counts only when it holds exactly this input
 *   (same length, digest and bytes; a prefix only when unambiguous); any
 *   other id is ignored and the input archived here. `YARP_ARCHIVE=off` or
 *   a failed commit print the input exactly. The marker names the id.
 * - The reduced text is printed only when both savings gates pass (the
 *   rule's `min_savings_bytes`, applied by the reducer, and a smaller
 *   result); otherwise the input exactly. A plan with setup or transform
 *   programs whose diagnostics appear in the text (`cd: …`, `tee: …`)
 *   fails open and prints the input exactly.
 * - A result no rule reduces goes through the global output cap
 *   (docs/shell.md, "Global output cap"): `--output-cap BYTES` sets its
 *   threshold, `--output-cap off` switches it off, else the config file's
 *   `output_cap`, else the built-in policy.
 * - `--json` prints only `{"changed","rule","archive_id","reasons",
 *   "bytes_before","bytes_after"}`, never command or output text.
 * - Exit 0 in every case except a malformed argument: then the error is one
 *   line on stderr, the input (unless stdin is a terminal) is copied to
 *   stdout exactly as it streams in, and the exit is 2, so a host that pipes
 *   its result through YARP never loses it.
 * - `--exit-code` takes any integer (`-1`, `3221225794` from Windows
 *   hosts): 0 is success, anything else failure. An integer beyond ±2^53 is
 *   a failure whose code is not kept (archived as unknown).
 *
 * Known misses: the input is held in memory (a host's visible result is
 * bounded); transform diagnostics fail open instead of being ranked.
 *
 * @module
 */
import { parseArgs } from "./_args.ts";
import { readAllBytes, type TextIo, writeToReader } from "./io.ts";
import type { RuleRegistry } from "../rules/registry.ts";
import { DEFAULT_OUTPUT_CAP, type OutputCapPolicy } from "../reduce/output_cap.ts";
import {
  type ExactCopy,
  reduceFinishedResult,
  type ResultReduceReport,
} from "../shell/finished_result.ts";

const USAGE =
  "usage: yarp result-reduce --command SRC [--exit-code N] [--archive-id ID] [--rule-pack P]... [--output-cap off|BYTES] [--json] < TEXT\n";

/** Parsed `result-reduce` arguments. */
export interface ResultReduceArgs {
  readonly command: string;
  /** Any integer (0 is success), or undefined when the host does not know it. */
  readonly exitCode: number | undefined;
  readonly archiveId: string | undefined;
  readonly rulePacks: readonly string[];
  readonly json: boolean;
  /** `--output-cap off|BYTES`: the cap's threshold, `off`, or undefined for the config's. */
  readonly outputCap?: number | "off";
}

/**
 * Parses the arguments after `result-reduce` with the shared parser
 * (`_args.ts`); one error line when malformed: no positionals and no `--`,
 * `--command` required and not empty, `--exit-code` an integer (a negative
 * one may follow as its own word: `--exit-code -1`), no empty
 * `--rule-pack` path.
 */
export function parseResultReduceArgs(
  args: readonly string[],
): ResultReduceArgs | { error: string } {
  const parsed = parseArgs(joinNegativeExitCode(args), {
    flags: ["--json"],
    options: ["--command", "--exit-code", "--archive-id", "--output-cap"],
    repeatable: ["--rule-pack"],
  });
  if ("error" in parsed) return parsed;
  const stray = parsed.positionals[0] ?? (parsed.rest === undefined ? undefined : "--");
  if (stray !== undefined) return { error: `unexpected argument '${stray}'` };
  const codeText = parsed.values.get("--exit-code");
  if (codeText !== undefined && !/^-?\d+$/.test(codeText)) {
    return { error: `--exit-code: expected an integer, got '${codeText}'` };
  }
  const rulePacks = parsed.lists.get("--rule-pack") ?? [];
  if (rulePacks.includes("")) return { error: "--rule-pack: missing path" };
  const command = parsed.values.get("--command");
  if (command === undefined || command === "") return { error: "--command: required" };
  const capText = parsed.values.get("--output-cap");
  if (capText !== undefined && capText !== "off" && !/^[1-9]\d{0,9}$/.test(capText)) {
    return { error: `--output-cap: expected 'off' or a positive byte count, got '${capText}'` };
  }
  const cap = capText === undefined
    ? {}
    : { outputCap: capText === "off" ? "off" : Number(capText) } as const;
  return {
    ...cap,
    command,
    exitCode: codeText === undefined ? undefined : exitStatus(codeText),
    archiveId: parsed.values.get("--archive-id"),
    rulePacks,
    json: parsed.flags.has("--json"),
  };
}

/**
 * `args` with `--exit-code N` for a negative integer N written as
 * `--exit-code=N`, because the shared parser never takes a word starting
 * with `-` as a value. Words after `--` are left alone.
 */
function joinNegativeExitCode(args: readonly string[]): readonly string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (arg === "--") return [...joined, ...args.slice(index)];
    const next = args[index + 1];
    if (arg === "--exit-code" && next !== undefined && /^-\d+$/.test(next)) {
      joined.push(`--exit-code=${next}`);
      index += 1;
    } else joined.push(arg);
  }
  return joined;
}

/** The status an integer `--exit-code` names: itself (`-0` is 0), or undefined (a failure of unknown code) beyond ±2^53. */
function exitStatus(text: string): number | undefined {
  const code = Number(text);
  if (!Number.isSafeInteger(code)) return undefined;
  return code === 0 ? 0 : code;
}

/**
 * Copies standard input to standard output byte for byte as it arrives
 * (bounded memory), unless stdin is a terminal (nothing was piped, and
 * reading would wait for a person). Stops quietly when the reader of
 * stdout has gone or stdin cannot be read.
 */
async function copyInputThrough(): Promise<void> {
  try {
    if (Deno.stdin.isTerminal()) return;
    for await (const chunk of Deno.stdin.readable) {
      if (!writeToReader(Deno.stdout, chunk)) return;
    }
  } catch {
    // stdin closed or unreadable: there is no input left to hand back.
  }
}

/** An exact copy from the archive: `archive put` of `input`, or the named existing call. */
function archiveCopy(args: ResultReduceArgs, input: Uint8Array): ExactCopy {
  return {
    async obtain() {
      const [{ archiveLocation, putFinishedResult }, { openArchive }] = await Promise.all([
        import("./_archive.ts"),
        import("../archive/store.ts"),
      ]);
      const settings = await archiveLocation();
      if ("error" in settings) {
        return {
          reason: settings.error.startsWith("the archive is off")
            ? "archive-off"
            : "archive-unavailable",
        };
      }
      // --archive-id counts only when that call holds exactly this input; else archive it here.
      const { isCallIdPrefix } = await import("../archive/ids.ts");
      if (args.archiveId !== undefined && isCallIdPrefix(args.archiveId)) {
        try {
          const { findStoredResult } = await import("../archive/read.ts");
          const db = await openArchive(settings.path, "read");
          try {
            const stored = await findStoredResult(db, args.archiveId, input);
            if (stored !== undefined) return { id: stored.id };
          } finally {
            db.close();
          }
        } catch {
          // no readable archive: try to archive the input below
        }
      }
      let db;
      try {
        db = await openArchive(settings.path, "write");
      } catch {
        return { reason: "archive-unavailable" };
      }
      try {
        let cwd = "";
        try {
          cwd = Deno.cwd();
        } catch {
          // unknown working directory
        }
        const stored = await putFinishedResult(db, settings, input, {
          createdMs: Date.now(),
          cwd,
          command: args.command,
          exitCode: args.exitCode ?? null,
        });
        return "error" in stored ? { reason: "archive-failed" } : stored;
      } finally {
        db.close();
      }
    },
  };
}

/**
 * Starts loading, without waiting, the modules a reduced result needs after
 * the parse (the archive step and the reducer), so that their files are
 * read while the parser starts instead of one after another. A module that
 * fails to load fails again, and is reported, where it is used.
 */
function preloadResultModules(): void {
  for (
    const loading of [
      import("./_archive.ts"),
      import("../archive/store.ts"),
      import("../archive/commit.ts"),
      import("../archive/retention.ts"),
      import("../reduce/mod.ts"),
    ]
  ) loading.catch(() => {});
}

async function loadRegistry(
  rulePacks: readonly string[],
): Promise<RuleRegistry | undefined> {
  const loaded = await (await import("./_rule_packs.ts")).loadRegistry(rulePacks);
  return loaded.errors.length > 0 ? undefined : loaded.registry;
}

/**
 * The global output cap's policy: `--output-cap`, else the config file's
 * `output_cap` (a config that does not load leaves the built-in policy; the
 * archive step reports it), else the built-in policy; null when off.
 */
async function capPolicy(options: ResultReduceArgs): Promise<OutputCapPolicy | null> {
  let setting: number | "off" | undefined = options.outputCap;
  if (setting === undefined) {
    const { loadConfig, processEnv } = await import("../config/mod.ts");
    const loaded = await loadConfig(processEnv);
    const cap = loaded.ok ? loaded.config.outputCap : undefined;
    if (cap?.enabled === false) setting = "off";
    else setting = cap?.thresholdBytes;
  }
  if (setting === "off") return null;
  return setting === undefined
    ? DEFAULT_OUTPUT_CAP
    : { ...DEFAULT_OUTPUT_CAP, thresholdBytes: setting };
}

/** Runs `yarp result-reduce`; returns 0, or 2 for a malformed argument (after copying the input through). */
export async function resultReduceCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  const options = parseResultReduceArgs(args);
  if ("error" in options) {
    io.err(`yarp result-reduce: ${options.error}\n`);
    await copyInputThrough();
    return 2;
  }
  const { loadShellTreeParser } = await import("../shell/parser.ts");
  // Parsed as soon as the parser is up, while stdin and the registry may still be loading; the
  // parser keeps the model of its last source, so reduceFinishedResult's parse of it is free.
  const parserPromise = loadShellTreeParser().then((
    parser,
  ) => (parser.parse(options.command), parser));
  preloadResultModules();
  const [input, registry] = await Promise.all([
    readAllBytes(Deno.stdin),
    loadRegistry(options.rulePacks),
  ]);
  let output = input;
  let report: ResultReduceReport = {
    changed: false,
    rule: null,
    archiveId: null,
    reasons: ["invalid-pack"],
    bytesBefore: input.length,
    bytesAfter: input.length,
  };
  if (registry !== undefined) {
    ({ output, report } = await reduceFinishedResult(
      options.command,
      input,
      options.exitCode,
      await parserPromise,
      registry,
      archiveCopy(options, input),
      { cap: await capPolicy(options) },
    ));
  }
  if (options.json) {
    io.out(
      JSON.stringify({
        changed: report.changed,
        rule: report.rule,
        archive_id: report.archiveId,
        reasons: report.reasons,
        bytes_before: report.bytesBefore,
        bytes_after: report.bytesAfter,
      }) + "\n",
    );
    return 0;
  }
  writeToReader(Deno.stdout, output);
  return 0;
}
