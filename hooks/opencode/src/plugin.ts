/**
 * The opencode plugin's wiring (docs/hosts.md, "opencode"), with every side
 * effect injected ({@link PluginDeps}) so tests drive it with a fake
 * opencode and a fake YARP. Only `tool.execute.after` is used: the command
 * the model asked for runs exactly as written (opencode checks its
 * permission rules on the text it runs, so a wrapper would change which
 * rule matches), and the finished `bash` result is handed to `yarp
 * result-reduce --host opencode`, whose reply replaces `output.output` only
 * when it changed, is shorter and names an archived copy (the Pi
 * extension's {@link decideReducedResult}). One `yarp result-reduce --serve
 * --host opencode` per plugin instance answers, so a result costs no
 * process start; after it fails once, each result starts its own process. `output.metadata` (exit code,
 * opencode's own copy of the output) and `output.title` stay.
 *
 * A result opencode cut (`metadata.truncated`, over 2000 lines or 50 KB)
 * shows a notice and the output's tail; opencode keeps the whole output in
 * the file `metadata.outputPath`, which is reduced instead, but only when
 * it ends with the tail opencode showed (else the result is left alone).
 *
 * Left alone: results under {@link MIN_REDUCE_CHARS}, calls of YARP itself (`yarp read ID` must stay exact),
 * commands starting `YARP=off`, and anything when `YARP_OPENCODE=off`.
 * Never throws into opencode: every failure leaves the result as it was.
 *
 * @module
 */
import { decideReducedResult, isYarpCommand, type ProcessOutcome } from "../../pi/src/decisions.ts";
import { MIN_REDUCE_CHARS, RESULT_TIMEOUT_MS } from "../../pi/src/extension.ts";
import {
  type LineServer,
  reduceOnServer,
  type ResultServerSlot,
} from "../../pi/src/yarp_process.ts";

export { MIN_REDUCE_CHARS };

/** The host name every reduction is recorded under, for `yarp gain --host opencode`. */
export const OPENCODE_HOST = ["--host", "opencode"] as const;

/** Everything outside the plugin's own logic. */
export interface PluginDeps {
  /** The argv that starts YARP (its own arguments follow), or why there is none. */
  readonly yarp: () => readonly string[] | { error: string };
  /** Runs argv with `stdin`, bounded by `timeoutMs`; never rejects. */
  readonly run: (
    argv: readonly string[],
    options: { stdin: string; timeoutMs: number; cwd?: string },
  ) => Promise<ProcessOutcome>;
  /**
   * Starts `argv` as a long-lived `yarp result-reduce --serve`; without it
   * every result starts `yarp result-reduce`.
   */
  readonly serve?: (argv: readonly string[], options: { cwd?: string }) => LineServer;
  /** Reads an environment variable. */
  readonly env: (name: string) => string | undefined;
  /** The whole text of opencode's full-output file, only when it ends with `tail`; else undefined. */
  readonly readFullOutput: (path: string, tail: string) => Promise<string | undefined>;
  /** Writes one line to stderr. */
  readonly stderr: (line: string) => void;
}

/** The slice of `tool.execute.after`'s input the plugin reads. */
export interface AfterInput {
  readonly tool?: unknown;
  readonly args?: unknown;
}

/** The slice of `tool.execute.after`'s output the plugin reads and may change. */
export interface AfterOutput {
  title?: unknown;
  output?: unknown;
  metadata?: unknown;
}

/** Why a result was left as it was, or that it was reduced. */
export type AfterReason =
  | "reduced"
  | "other-tool"
  | "off"
  | "opted-out"
  | "yarp-command"
  | "small"
  | "full-output-unavailable"
  | "no-exit-code"
  | "no-binary"
  | "error"
  | string;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Handles one `tool.execute.after` event: may set `output.output` to YARP's
 * reduced result; returns the reason code. Never throws. `slot` holds the
 * instance's result server across calls.
 */
export async function afterBash(
  input: AfterInput,
  output: AfterOutput,
  deps: PluginDeps,
  cwd: string | undefined,
  slot: ResultServerSlot = {},
): Promise<AfterReason> {
  try {
    if (input.tool !== "bash" || !isRecord(input.args)) return "other-tool";
    const command = input.args.command;
    const text = output.output;
    if (typeof command !== "string" || typeof text !== "string") return "other-tool";
    if (deps.env("YARP_OPENCODE") === "off") return "off";
    if (/^\s*YARP=off(?:\s|$)/.test(command)) return "opted-out";
    if (isYarpCommand(command)) return "yarp-command";
    if (text.length < MIN_REDUCE_CHARS) return "small";
    const metadata = isRecord(output.metadata) ? output.metadata : {};
    const exit = metadata.exit;
    if (typeof exit !== "number" || !Number.isInteger(exit)) return "no-exit-code";
    let whole = text;
    if (metadata.truncated === true) {
      const path = metadata.outputPath;
      const tail = typeof path === "string" ? truncatedTail(text, path) : undefined;
      const full = tail === undefined ? undefined : await deps.readFullOutput(path as string, tail);
      if (full === undefined) return "full-output-unavailable";
      whole = full;
    } else if (metadata.truncated !== false) return "full-output-unavailable";
    const yarp = deps.yarp();
    if ("error" in yarp) return "no-binary";
    const serve = deps.serve;
    const served = serve === undefined ? undefined : await reduceOnServer(
      slot,
      () => serve([...yarp, "result-reduce", "--serve", ...OPENCODE_HOST], { cwd }),
      { command, input: whole, exit_code: exit, ...(cwd === undefined ? {} : { cwd }) },
      RESULT_TIMEOUT_MS,
    );
    const outcome = served ?? await deps.run(
      [
        ...yarp,
        "result-reduce",
        "--command",
        command,
        "--exit-code",
        String(exit),
        ...OPENCODE_HOST,
      ],
      { stdin: whole, timeoutMs: RESULT_TIMEOUT_MS, cwd },
    );
    const decision = decideReducedResult(whole, outcome);
    if (decision.replace && decision.text.length >= text.length) return "not-smaller";
    if (!decision.replace) return decision.reason;
    output.output = decision.text;
    return "reduced";
  } catch {
    return "error";
  }
}

/**
 * The output's tail in a result opencode cut: what follows its notice
 * `…output truncated…\n\nFull output saved to: PATH\n\n`, or undefined
 * when the text does not have that shape for `path`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { truncatedTail } from "./plugin.ts";
 * const text = "...output truncated...\n\nFull output saved to: /t/out\n\n9\n10\n";
 * equal(truncatedTail(text, "/t/out"), "9\n10\n");
 * equal(truncatedTail("9\n10\n", "/t/out"), undefined);
 * ```
 */
export function truncatedTail(text: string, path: string): string | undefined {
  const notice = `Full output saved to: ${path}\n\n`;
  const at = text.indexOf(notice);
  if (!text.startsWith("...output truncated...") || at < 0 || at > 200) return undefined;
  return text.slice(at + notice.length);
}

/**
 * The plugin's hooks for opencode: `tool.execute.after` reduces finished
 * `bash` results; with `YARP_DEBUG` set each decision's code goes to stderr.
 */
export function yarpHooks(deps: PluginDeps, cwd: string | undefined) {
  const slot: ResultServerSlot = {};
  return {
    "tool.execute.after": async (input: AfterInput, output: AfterOutput): Promise<void> => {
      const reason = await afterBash(input, output, deps, cwd, slot);
      if ((deps.env("YARP_DEBUG") ?? "") !== "") deps.stderr(`yarp opencode: ${reason}`);
    },
  };
}
