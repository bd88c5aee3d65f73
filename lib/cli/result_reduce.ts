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
 * `yarp result-reduce --serve [--rule-pack P]… [--output-cap off|BYTES]
 * [--host H]` loads the parser, the rules and the config once, then reads
 * requests on stdin, one JSON object per line (`command`, `input`: the
 * visible text, optional `exit_code`, `archive_id` and `cwd`; see
 * {@link parseServedRequest}), and answers each in order with one line: the
 * object `--json` prints, plus `output`, the text to show, exactly when
 * `changed` is true. Each request is reduced as one `result-reduce` run
 * would reduce its UTF-8 bytes. A malformed request or a line over
 * {@link MAX_SERVED_REQUEST_BYTES} is one error line and exit 2; the end of
 * stdin is exit 0. The Pi extension keeps one per session and the opencode
 * plugin one per instance, so a result they reduce costs no process start.
 * The config file and packs are stamped when read (`MTIME_MS:SIZE`) and
 * read again before a request when a stamp changed, so a long-lived server
 * reduces as a one-shot run would.
 *
 * Known misses: the input is held in memory (a host's visible result is
 * bounded); transform diagnostics fail open instead of being ranked.
 *
 * @module
 */
import { quotedArg } from "../base/printable_text.ts";
import { parseArgs } from "./_args.ts";
import { isCallIdPrefix } from "../archive/ids.ts";
import type { DatabaseSync } from "node:sqlite";
import { callHost, OUTPUT_CAP_RULE } from "../archive/gain.ts";
import { countChars } from "../bytes/count_chars.ts";
import { readAllBytes, serveRequests, type TextIo, writeToReader } from "./io.ts";
import type { ShellTreeParser } from "../shell/parser.ts";
import type { ConfigResult } from "../config/config.ts";
import type { RuleInput } from "./_rule_packs.ts";
import type { RuleRegistry } from "../rules/registry.ts";
import { DEFAULT_OUTPUT_CAP } from "../reduce/output_cap.ts";
import {
  type ExactCopy,
  type FinishedResultOptions,
  reduceFinishedResult,
  type ResultReduceReport,
} from "../shell/finished_result.ts";

const USAGE =
  "usage: yarp result-reduce --command SRC [--exit-code N] [--archive-id ID] [--rule-pack P]... [--output-cap off|BYTES] [--host H] [--json] < TEXT\n" +
  "       yarp result-reduce --serve [--rule-pack P]... [--output-cap off|BYTES] [--host H]\n";

/** The longest request line `--serve` reads (a longer visible result is reduced by a one-shot run). */
export const MAX_SERVED_REQUEST_BYTES = 64 * 1024 * 1024;

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
  /** `--host`: who ran the command, recorded for `yarp gain` (else `YARP_HOST`, else `cli`). */
  readonly host?: string;
}

/** Parsed `result-reduce --serve` arguments: what every served request shares. */
export interface ResultServeArgs {
  readonly serve: true;
  readonly rulePacks: readonly string[];
  readonly outputCap?: number | "off";
  readonly host?: string;
}

/**
 * Parses the arguments after `result-reduce` with the shared parser
 * (`_args.ts`); one error line when malformed: no positionals and no `--`,
 * `--serve` with only `--rule-pack`, `--output-cap` and `--host`, else
 * `--command` required and not empty, `--exit-code` an integer (a negative
 * one may follow as its own word: `--exit-code -1`), `--archive-id` a call
 * id or prefix, no empty `--rule-pack` path, a `--host` that names no host
 * (`lib/archive/gain.ts`).
 */
export function parseResultReduceArgs(
  args: readonly string[],
): ResultReduceArgs | ResultServeArgs | { error: string } {
  const parsed = parseArgs(args, {
    flags: ["--json", "--serve"],
    options: ["--command", "--exit-code", "--archive-id", "--output-cap", "--host"],
    repeatable: ["--rule-pack"],
  });
  if ("error" in parsed) return parsed;
  const stray = parsed.positionals[0] ?? (parsed.rest === undefined ? undefined : "--");
  if (stray !== undefined) return { error: `unexpected argument '${quotedArg(stray)}'` };
  const codeText = parsed.values.get("--exit-code");
  if (codeText !== undefined && !/^-?\d+$/.test(codeText)) {
    return { error: `--exit-code: expected an integer, got '${quotedArg(codeText)}'` };
  }
  const rulePacks = parsed.lists.get("--rule-pack") ?? [];
  if (rulePacks.includes("")) return { error: "--rule-pack: missing path" };
  const capText = parsed.values.get("--output-cap");
  if (capText !== undefined && capText !== "off" && !/^[1-9]\d{0,9}$/.test(capText)) {
    return {
      error: `--output-cap: expected 'off' or a positive byte count, got '${quotedArg(capText)}'`,
    };
  }
  const archiveId = parsed.values.get("--archive-id");
  if (archiveId !== undefined && !isCallIdPrefix(archiveId)) {
    return {
      error: `--archive-id: '${quotedArg(archiveId)}' is not a call id (4 to 16 hex digits)`,
    };
  }
  const hostText = parsed.values.get("--host");
  const host = hostText === undefined ? undefined : callHost(hostText, undefined);
  if (host !== undefined && "error" in host) return host;
  const cap = capText === undefined
    ? {}
    : { outputCap: capText === "off" ? "off" : Number(capText) } as const;
  if (parsed.flags.has("--serve")) {
    if (parsed.flags.has("--json")) return { error: "--serve always answers in JSON; drop --json" };
    const perRequest = ["--command", "--exit-code", "--archive-id"].find((name) =>
      parsed.values.has(name)
    );
    if (perRequest !== undefined) {
      return { error: `${perRequest}: --serve reads it from each request` };
    }
    return { serve: true, rulePacks, ...cap, ...(host === undefined ? {} : host) };
  }
  const command = parsed.values.get("--command");
  if (command === undefined || command === "") return { error: "--command: required" };
  return {
    ...cap,
    ...(host === undefined ? {} : host),
    command,
    exitCode: codeText === undefined ? undefined : exitStatus(codeText),
    archiveId,
    rulePacks,
    json: parsed.flags.has("--json"),
  };
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

/** The archive a result-reduce wrote to, kept open to record the reduction (`yarp gain`). */
interface OpenArchive {
  db?: DatabaseSync;
  path?: string;
}

/**
 * An exact copy from the archive: `archive put` of the input, or the named
 * existing call. Leaves the archive it opened for writing, or the path of
 * the one it found the call in, in `opened` (the caller closes it).
 */
function archiveCopy(args: FinishedResult, input: Uint8Array, opened: OpenArchive): ExactCopy {
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
            if (stored !== undefined) {
              opened.path = settings.path;
              return { id: stored.id };
            }
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
      opened.db = db;
      let cwd = args.cwd ?? "";
      try {
        cwd ||= Deno.cwd();
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
    },
  };
}

/**
 * Records a changed result for `yarp gain`: `host`, the rule (or the output
 * cap), the characters of `input` (what the agent's own command showed,
 * after any limit it set itself) and of `output`. Best effort: any failure
 * is ignored, the result is already decided.
 */
async function recordGain(
  opened: OpenArchive,
  report: ResultReduceReport,
  host: string,
  input: Uint8Array,
  output: Uint8Array,
): Promise<void> {
  try {
    const { openArchive } = await import("../archive/store.ts");
    opened.db ??= opened.path === undefined ? undefined : await openArchive(opened.path, "write");
    const db = opened.db;
    if (db === undefined || report.archiveId === null) return;
    const call = db.prepare("SELECT seq FROM calls WHERE id = ?").get(report.archiveId) as
      | { seq: number }
      | undefined;
    if (call === undefined) return;
    const { recordReduction } = await import("../archive/reductions.ts");
    recordReduction(db, {
      callSeq: Number(call.seq),
      createdMs: Date.now(),
      host,
      rule: report.reasons[0] === "capped" || report.rule === null ? OUTPUT_CAP_RULE : report.rule,
      charsBefore: countChars(input),
      charsAfter: countChars(output),
    });
  } catch {
    // the figures are best effort
  }
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

/** The registry, or undefined when a pack or the config is invalid; `config` when already read. */
async function loadRegistry(
  rulePacks: readonly string[],
  config?: ConfigResult,
): Promise<RuleRegistry | undefined> {
  const loaded = await (await import("./_rule_packs.ts")).loadRegistry(rulePacks, true, config);
  return loaded.errors.length > 0 ? undefined : loaded.registry;
}

/**
 * The config's part in reducing a finished result (a config that does not
 * load leaves the built-in policies; the archive step reports it): the
 * global output cap's policy, `--output-cap`, else the config file's
 * `output_cap`, else the built-in policy (null when off); and the config's
 * success budgets. `read` is the config already read, if any.
 */
async function configuredOptions(
  outputCap: number | "off" | undefined,
  read?: ConfigResult,
): Promise<FinishedResultOptions> {
  const { loadConfig, processEnv } = await import("../config/mod.ts");
  const loaded = read ?? await loadConfig(processEnv);
  const config = loaded.ok ? loaded.config : undefined;
  let setting: number | "off" | undefined = outputCap;
  if (setting === undefined) {
    const cap = config?.outputCap;
    if (cap?.enabled === false) setting = "off";
    else setting = cap?.thresholdBytes;
  }
  const cap = setting === "off"
    ? null
    : setting === undefined
    ? DEFAULT_OUTPUT_CAP
    : { ...DEFAULT_OUTPUT_CAP, thresholdBytes: setting };
  return { cap, budgets: config?.budgets };
}

/** One finished result to reduce: what `result-reduce` reads from its arguments and stdin. */
export interface FinishedResult {
  readonly command: string;
  /** The exact visible text (a promise: read while the parser starts). */
  readonly input: Uint8Array | Promise<Uint8Array>;
  /** Any integer (0 is success), or undefined when the host does not know it. */
  readonly exitCode: number | undefined;
  readonly archiveId?: string;
  readonly rulePacks: readonly string[];
  /** `off`, a threshold, or undefined for the config file's. */
  readonly outputCap?: number | "off";
  /** The working directory archived with the call; default the process's. */
  readonly cwd?: string;
  /** Who ran the command (`lib/archive/gain.ts`'s hosts), recorded for `yarp gain`. */
  readonly host: string;
}

/** What reducing a result reads besides the result: loaded once per `--serve` process. */
interface LoadedReducer {
  readonly parser: ShellTreeParser;
  /** Undefined when a pack or the config is invalid: every input passes through. */
  readonly registry: RuleRegistry | undefined;
  readonly options: FinishedResultOptions;
}

/**
 * The result path's core, shared by `yarp result-reduce` and `yarp hook`:
 * parse and plan `result.command`, archive the exact input first, then
 * typed reduction or the global cap (see the module contract), and a
 * changed result is recorded for `yarp gain` under `result.host`. Returns
 * the bytes to show (the input itself unless changed) and the report. Never
 * throws for a bad pack or archive: they pass the input through.
 */
export async function reduceResult(
  result: FinishedResult,
): Promise<{ output: Uint8Array; report: ResultReduceReport }> {
  const { loadShellTreeParser } = await import("../shell/parser.ts");
  // Parsed as soon as the parser is up, while the registry may still be loading; the parser
  // keeps the model of its last source, so reduceFinishedResult's parse of it is free.
  const parserPromise = loadShellTreeParser().then((
    parser,
  ) => (parser.parse(result.command), parser));
  preloadResultModules();
  const [input, registry] = await Promise.all([result.input, loadRegistry(result.rulePacks)]);
  return reduceLoaded(result, input, {
    parser: await parserPromise,
    registry,
    options: registry === undefined ? {} : await configuredOptions(result.outputCap),
  });
}

/** {@link reduceResult} of `input` with the parser, rules and config already loaded. */
async function reduceLoaded(
  result: FinishedResult,
  input: Uint8Array,
  loaded: LoadedReducer,
): Promise<{ output: Uint8Array; report: ResultReduceReport }> {
  if (loaded.registry === undefined) {
    const size = input.length;
    return {
      output: input,
      report: {
        changed: false,
        rule: null,
        archiveId: null,
        reasons: ["invalid-pack"],
        bytesBefore: size,
        bytesAfter: size,
      },
    };
  }
  const opened: OpenArchive = {};
  try {
    const reduced = await reduceFinishedResult(
      result.command,
      input,
      result.exitCode,
      loaded.parser,
      loaded.registry,
      archiveCopy(result, input, opened),
      loaded.options,
    );
    if (reduced.report.changed) {
      await recordGain(opened, reduced.report, result.host, input, reduced.output);
    }
    return reduced;
  } finally {
    opened.db?.close();
  }
}

/** The `--json` object for `report`. */
function reportJson(report: ResultReduceReport): Record<string, unknown> {
  return {
    changed: report.changed,
    rule: report.rule,
    archive_id: report.archiveId,
    reasons: report.reasons,
    bytes_before: report.bytesBefore,
    bytes_after: report.bytesAfter,
  };
}

/** One `--serve` request: a finished result, its text as UTF-8 bytes once encoded. */
export interface ServedRequest {
  readonly command: string;
  readonly input: string;
  readonly exitCode: number | undefined;
  readonly archiveId?: string;
  readonly cwd?: string;
}

/**
 * Reads one `--serve` request line: a JSON object with `command` (a shell
 * source, not empty) and `input` (the visible text) as strings, and
 * optionally `exit_code` (an integer or null; beyond ±2^53 a failure whose
 * code is not kept), `archive_id` (a call id or prefix) and `cwd` (a
 * string, archived with the call). Any other field, or a bad one, is one
 * error naming it.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(parseServedRequest('{"command":"make","input":"ok\\n","exit_code":2}'), {
 *   command: "make",
 *   input: "ok\n",
 *   exitCode: 2,
 * });
 * deepEqual(parseServedRequest('{"command":"make"}'), { error: "input: expected a string" });
 * ```
 */
export function parseServedRequest(line: string): ServedRequest | { error: string } {
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch {
    return { error: "a request must be one JSON object on one line" };
  }
  if (typeof request !== "object" || request === null || Array.isArray(request)) {
    return { error: "a request must be one JSON object on one line" };
  }
  const fields = request as Record<string, unknown>;
  const known = ["command", "input", "exit_code", "archive_id", "cwd"];
  const stray = Object.keys(fields).find((key) => !known.includes(key));
  if (stray !== undefined) return { error: `${quotedArg(stray)}: not a request field` };
  const { command, input, exit_code: code, archive_id: archiveId, cwd } = fields;
  if (typeof command !== "string" || command === "") {
    return { error: "command: expected a shell source" };
  }
  if (typeof input !== "string") return { error: "input: expected a string" };
  if (code !== undefined && code !== null && !Number.isInteger(code)) {
    return { error: "exit_code: expected an integer or null" };
  }
  if (archiveId !== undefined && (typeof archiveId !== "string" || !isCallIdPrefix(archiveId))) {
    return { error: "archive_id: expected a call id (4 to 16 hex digits)" };
  }
  if (cwd !== undefined && typeof cwd !== "string") return { error: "cwd: expected a string" };
  return {
    command,
    input,
    exitCode: typeof code === "number" ? exitStatus(String(code)) : undefined,
    ...(archiveId === undefined ? {} : { archiveId }),
    ...(cwd === undefined ? {} : { cwd }),
  };
}

/** `bytes` as text (a leading BOM kept, as a one-shot run prints it), or undefined when they are not UTF-8. */
function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The parser, rules and config a `--serve` process reduces with, and the
 * files they were read from (stamped first).
 */
async function loadForServe(
  options: ResultServeArgs,
): Promise<{ readonly loaded: LoadedReducer; readonly inputs: readonly RuleInput[] }> {
  const [{ loadShellTreeParser }, { ruleInputs }] = await Promise.all([
    import("../shell/parser.ts"),
    import("./_rule_packs.ts"),
  ]);
  const { inputs, config } = await ruleInputs(options.rulePacks);
  const [parser, registry] = await Promise.all([
    loadShellTreeParser(),
    loadRegistry(options.rulePacks, config),
  ]);
  const reduceOptions = registry === undefined
    ? {}
    : await configuredOptions(options.outputCap, config);
  return { loaded: { parser, registry, options: reduceOptions }, inputs };
}

/** `--serve`: one answer line per request line, until the end of stdin (see the module doc). */
async function serve(options: ResultServeArgs, host: string, io: TextIo): Promise<number> {
  preloadResultModules();
  const { ruleInputsUnchanged } = await import("./_rule_packs.ts");
  let { loaded, inputs } = await loadForServe(options);
  const encoder = new TextEncoder();
  return await serveRequests("result-reduce", MAX_SERVED_REQUEST_BYTES, async (line) => {
    const request = parseServedRequest(line);
    if ("error" in request) return request;
    if (!await ruleInputsUnchanged(inputs)) ({ loaded, inputs } = await loadForServe(options));
    const input = encoder.encode(request.input);
    const { output, report } = await reduceLoaded(
      { ...request, input, rulePacks: options.rulePacks, outputCap: options.outputCap, host },
      input,
      loaded,
    );
    // Output that is not UTF-8 (no reducer cuts inside a character) is shown unchanged, never garbled.
    const text = report.changed ? utf8Text(output) : undefined;
    const reply = text === undefined
      ? { ...reportJson(report), changed: false }
      : { ...reportJson(report), output: text };
    return JSON.stringify(reply);
  }, io);
}

/** Runs `yarp result-reduce`; returns 0, or 2 for a malformed argument (after copying the input through). */
export async function resultReduceCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  const options = parseResultReduceArgs(args);
  const { processEnv } = await import("../config/mod.ts");
  const host = "error" in options ? options : callHost(options.host, processEnv("YARP_HOST"));
  if ("error" in host || "error" in options) {
    io.err(`yarp result-reduce: ${"error" in host ? host.error : ""}\n`);
    if (!args.includes("--serve")) await copyInputThrough();
    return 2;
  }
  if ("serve" in options) return await serve(options, host.host, io);
  const { output, report } = await reduceResult({
    ...options,
    host: host.host,
    input: readAllBytes(Deno.stdin),
  });
  if (options.json) {
    io.out(JSON.stringify(reportJson(report)) + "\n");
    return 0;
  }
  writeToReader(Deno.stdout, output);
  return 0;
}
