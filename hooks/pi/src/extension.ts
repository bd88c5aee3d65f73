/**
 * The extension's wiring: Pi events in, YARP processes out, with every side
 * effect injected ({@link ExtensionDeps}) so tests drive it with a fake Pi
 * and a fake YARP. It never throws into Pi: a throwing `tool_call` handler
 * would block the tool, so every handler catches everything and leaves the
 * command or result exactly as it was.
 *
 * Flow (docs/pi.md, "What it does"):
 * - session start: ask the reference copy (the checkout's sources, or the
 *   package's own build) for `yarp --version --build`; its version must be
 *   the extension's (a mismatch disables rewriting and reduction and is said
 *   once); then use the fastest way to start YARP that reports the same
 *   version and build, so a stale copy is never used. When the reference
 *   itself is the fastest, `yarp --version` alone is asked.
 * - `tool_call` (`bash`, or `exec_command` with `cmd`): remember the
 *   original command by tool-call id; skip sources that certainly are not
 *   one simple command (`certainlyCompound`: YARP never wraps them), and
 *   those whose plain first word names no rule program (`lead_words.ts`:
 *   asked once of `yarp rewrite --lead-words` in the background, asked again
 *   when a file it came from changed); else ask `yarp rewrite --json` (2 s),
 *   or reuse its answer for the same source while those files are unchanged,
 *   and apply YARP's wrapper only when YARP says to wrap (with a project
 *   pack, only when the wrapper carries the digest the extension trusted).
 * - `tool_result`: a wrapped call was reduced by `yarp run` and is left
 *   alone; a `yarp …` call of the model's is left alone; else `yarp
 *   result-reduce` reads the full output (Pi's full-output file when Pi
 *   truncated): one `yarp result-reduce --serve` per session once the rule
 *   knowledge is there, else a process of its own; its reply replaces the
 *   text only when it changed and names an archived copy. `isError`, `details` and Pi's status notice stay.
 * - `rewrite` and `result-reduce` get `--host pi`, so every reduction made
 *   in Pi (the wrapper's `yarp run --host pi` too) is recorded under host
 *   `pi`; `/yarp`'s characters saved are `yarp gain --json --host pi
 *   --since <session start>`, the same code as `yarp gain`.
 *
 * @module
 */
import { joinReducedResult, splitBashResult } from "./bash_result.ts";
import {
  decideReducedResult,
  type GainFigures,
  isYarpCommand,
  markerArchiveId,
  type PassReason,
  PI_HOST,
  type ProcessOutcome,
  readGainJson,
  readRewriteJson,
  readVersionReply,
  type RewriteDecision,
  shellCall,
  withInvocation,
  type WrapperPack,
} from "./decisions.ts";
import { certainlyCompound } from "./shell_words.ts";
import {
  certainlyNotRewritten,
  inputsUnchanged,
  type LeadWords,
  readLeadWordsReply,
} from "./lead_words.ts";
import { invocationWords, type YarpBinary, type YarpChoices } from "./binary.ts";
import {
  EMPTY_STATS,
  recordEvent,
  renderReport,
  type SessionEvent,
  type SessionStats,
} from "./session_stats.ts";
import { type PackTrust, projectPackArgs, type ProjectPackProbe } from "./project_pack.ts";
import {
  type LineServer,
  reduceOnServer,
  type ResultServerSlot,
  type ServedResult,
} from "./yarp_process.ts";

/** The slice of Pi's extension context the extension reads. */
export interface PiContext {
  readonly cwd?: string;
  readonly hasUI?: boolean;
  readonly ui?: { notify?: (message: string, level?: "info" | "warning" | "error") => void };
  readonly isProjectTrusted?: () => boolean;
}

type Handler = (event: never, ctx: PiContext) => unknown;

/** The slice of Pi's `ExtensionAPI` the extension uses. */
export interface PiApi {
  on(event: string, handler: Handler): void;
  registerCommand(
    name: string,
    options: { description: string; handler: (args: string, ctx: PiContext) => unknown },
  ): void;
}

/** Everything outside the extension's own logic. */
export interface ExtensionDeps {
  /** The extension's own version (package.json). */
  readonly version: string;
  /** Lists the ways to start YARP once per session. */
  readonly locate: () => YarpChoices | { error: string };
  /** Runs the binary with YARP's arguments. */
  readonly run: (
    binary: YarpBinary,
    args: readonly string[],
    options: { stdin?: string; timeoutMs: number; cwd?: string },
  ) => Promise<ProcessOutcome>;
  /** The whole output in Pi's full-output file, only when it is Pi's and ends with `visible`. */
  readonly readFullOutput: (path: string, visible: string) => Promise<string | undefined>;
  /** File checks for the project pack. */
  readonly projectPack: ProjectPackProbe;
  /**
   * A file's `MTIME_MS:SIZE` (integer milliseconds, symlinks followed), null
   * when missing: the lead-word cache's freshness check. Without it every
   * simple command is asked of `yarp rewrite`.
   */
  readonly fileStamp?: (path: string) => Promise<string | null>;
  /**
   * Starts `yarp rewrite --serve` or `yarp result-reduce --serve` (a
   * {@link LineServer}) for a session's rule knowledge; without it every new
   * source starts `yarp rewrite` and every result `yarp result-reduce`.
   */
  readonly serve?: (
    binary: YarpBinary,
    args: readonly string[],
    options: { cwd?: string },
  ) => LineServer;
  /** Writes one line to stderr (used when there is no UI). */
  readonly stderr: (line: string) => void;
}

/** Timeouts in milliseconds. */
export const REWRITE_TIMEOUT_MS = 2000;
export const VERSION_TIMEOUT_MS = 2000;
export const RESULT_TIMEOUT_MS = 5000;

/**
 * Results shorter than this (and not truncated by Pi) are left alone without
 * asking YARP: a recovery marker alone is about 100 characters, so no
 * reduction of them can pass YARP's savings gates, and each saved process
 * start is 60–100 ms of the bash call.
 */
export const MIN_REDUCE_CHARS = 512;

/**
 * Rewrite decisions remembered per session and pack list, and the longest
 * source remembered: an agent runs the same `git status` or `npm test`
 * again (a quarter of the simple commands of the development agent corpus
 * that reach `yarp rewrite` repeat one of the same session), and a repeat
 * then starts no process. Bounded so a long session stays small.
 */
export const MAX_REMEMBERED_DECISIONS = 1000;
export const MAX_REMEMBERED_SOURCE = 4096;

/**
 * What YARP's rules are known to say for one working directory and pack
 * list: the lead words once `yarp rewrite --lead-words` answered, the
 * rewrite decisions YARP gave since, by source, and the servers that answer
 * new sources and reduce results without a process start. The servers read
 * the rules and config once, so they go with the knowledge when a rule file
 * changes.
 */
interface RuleKnowledge {
  words?: LeadWords;
  readonly decisions: Map<string, RewriteDecision>;
  /** `yarp rewrite --serve` for new sources, until it fails once. */
  server?: LineServer;
  /** `yarp result-reduce --serve`, started for the first result that needs it. */
  readonly results: ResultServerSlot;
}

interface Readiness {
  readonly binary: YarpBinary | undefined;
  /** What the binary in use (or the reference) printed for `--version --build`. */
  readonly binaryVersion: string | undefined;
  readonly disabledReason: string | undefined;
  /** Faster copies passed over, and why (for `/yarp doctor`). */
  readonly passedOver: readonly string[];
}

/** Registers the YARP handlers and the `/yarp` command on `pi`. */
export function registerYarp(pi: PiApi, deps: ExtensionDeps): void {
  let stats: SessionStats = EMPTY_STATS;
  /** When this session started (ISO time), for `yarp gain --since`. */
  let startedAt = new Date().toISOString();
  let off = false;
  let ready: Promise<Readiness> | undefined;
  let noticeShown = false;
  let packTrust: PackTrust = { state: "none", detail: "not looked for yet" };
  const originals = new Map<string, string>();
  const wrapped = new Set<string>();
  const trustRecords = new Map<string, string | null>();
  /** What YARP's rules are known to say, per working directory and `--rule-pack` list. */
  const knowledge = new Map<string, RuleKnowledge>();

  const record = (event: SessionEvent) => {
    stats = recordEvent(stats, event);
  };
  const say = (ctx: PiContext, message: string, level: "info" | "warning" | "error") => {
    if (ctx.hasUI === true && typeof ctx.ui?.notify === "function") ctx.ui.notify(message, level);
    else deps.stderr(message);
  };

  const identify = async (binary: YarpBinary, ctx: PiContext, build = true) => {
    const outcome = await deps.run(binary, build ? ["--version", "--build"] : ["--version"], {
      timeoutMs: VERSION_TIMEOUT_MS,
      cwd: ctx.cwd,
    });
    return { outcome, identity: readVersionReply(outcome) };
  };
  /** A binary that timed out once is not asked again this session, so a hang costs one timeout. */
  let hung: string | undefined;
  const noteTimeout = (ctx: PiContext, outcome: ProcessOutcome, what: string) => {
    if (outcome.kind !== "timeout" || hung !== undefined) return;
    hung = `'yarp ${what}' timed out`;
    say(ctx, `YARP disabled for this session: ${hung}`, "warning");
  };
  const prepare = (ctx: PiContext): Promise<Readiness> => {
    ready ??= (async (): Promise<Readiness> => {
      const located = deps.locate();
      if ("error" in located) {
        return {
          binary: undefined,
          binaryVersion: undefined,
          disabledReason: located.error,
          passedOver: [],
        };
      }
      const { candidates, reference } = located;
      const same = (candidate: YarpBinary) =>
        candidate === reference ||
        JSON.stringify(candidate.argv) === JSON.stringify(reference.argv);
      // The reference first in line is used as it is: no other copy to compare, so no build
      // digest to ask for (from source it is computed from the files, the one costly part).
      const ref = await identify(reference, ctx, !same(candidates[0]));
      const failed = (binary: YarpBinary, outcome: ProcessOutcome): Readiness => ({
        binary,
        binaryVersion: undefined,
        disabledReason: `'yarp --version --build' failed (${
          outcome.kind === "exit" ? `exit ${outcome.code}` : outcome.kind
        }): ${binary.description}`,
        passedOver: [],
      });
      if (ref.identity === undefined) return failed(reference, ref.outcome);
      const wanted = ref.identity;
      const passedOver: string[] = [];
      for (const candidate of candidates) {
        const got = same(candidate) ? ref : await identify(candidate, ctx);
        if (got.identity === undefined) {
          if (candidates.length === 1) return failed(candidate, got.outcome);
          passedOver.push(`${candidate.description}: no answer`);
          continue;
        }
        const line = describeIdentity(got.identity);
        if (got.identity.version !== deps.version) {
          if (candidates.length > 1) {
            passedOver.push(`${candidate.description}: yarp ${line}`);
            continue;
          }
          return {
            binary: candidate,
            binaryVersion: line,
            disabledReason:
              `version mismatch: extension ${deps.version}, binary ${got.identity.version}`,
            passedOver,
          };
        }
        if (got.identity.build !== wanted.build) {
          passedOver.push(`${candidate.description}: stale, yarp ${line}`);
          continue;
        }
        return { binary: candidate, binaryVersion: line, disabledReason: undefined, passedOver };
      }
      return {
        binary: undefined,
        binaryVersion: describeIdentity(wanted),
        disabledReason: wanted.version !== deps.version
          ? `version mismatch: extension ${deps.version}, binary ${wanted.version}`
          : `no copy reports the current build ${wanted.build ?? "(none)"}`,
        passedOver,
      };
    })();
    return ready.then((state) => {
      if (state.disabledReason !== undefined && !noticeShown) {
        noticeShown = true;
        say(ctx, `YARP disabled for this session: ${state.disabledReason}`, "warning");
        record({ kind: "error", code: "disabled", detail: state.disabledReason });
      }
      return state;
    });
  };

  /** The `--rule-pack` arguments for a trusted project pack (and the pack), else none. */
  const packArgs = async (
    state: Readiness,
    ctx: PiContext,
  ): Promise<{ args: string[]; pack?: WrapperPack }> => {
    if (state.binary === undefined || ctx.cwd === undefined) return { args: [] };
    const piTrust = typeof ctx.isProjectTrusted === "function" ? ctx.isProjectTrusted() : undefined;
    const binary = state.binary;
    const { args, pack, trust } = await projectPackArgs(
      ctx.cwd,
      piTrust,
      deps.projectPack,
      (root) =>
        deps.run(binary, ["trust", "--status", "--json", "--", root], {
          timeoutMs: VERSION_TIMEOUT_MS,
        }),
      trustRecords,
    );
    packTrust = trust;
    return { args, pack };
  };

  /**
   * The rule knowledge for this working directory and pack list while the
   * files it came from are unchanged, else undefined. The first call starts
   * `yarp rewrite --lead-words` in the background and answers undefined, so
   * no call ever waits for it; a changed file drops the knowledge (the lead
   * words and every remembered decision) and it is asked for again.
   */
  const freshKnowledge = async (
    binary: YarpBinary,
    packs: readonly string[],
    ctx: PiContext,
  ): Promise<{ readonly entry: RuleKnowledge; readonly words: LeadWords } | undefined> => {
    const stampOf = deps.fileStamp;
    if (stampOf === undefined) return undefined;
    const key = [ctx.cwd ?? "", ...packs].join("\0");
    const entry = knowledge.get(key);
    if (entry === undefined) {
      const asked: RuleKnowledge = {
        decisions: new Map(),
        results: {},
        server: deps.serve?.(binary, ["rewrite", "--serve", ...PI_HOST, ...packs], {
          cwd: ctx.cwd,
        }),
      };
      knowledge.set(key, asked);
      deps.run(binary, ["rewrite", "--lead-words", ...packs], {
        timeoutMs: VERSION_TIMEOUT_MS,
        cwd: ctx.cwd,
      }).then((outcome) => asked.words = readLeadWordsReply(outcome), () => undefined);
      return undefined;
    }
    const words = entry.words;
    if (words === undefined) return undefined;
    if (!await inputsUnchanged(words, stampOf)) {
      entry.server?.close();
      entry.results.server?.close();
      knowledge.delete(key);
      return undefined;
    }
    return { entry, words };
  };

  /**
   * The rewrite server's answer for `source` as the one-shot process's
   * outcome, or undefined (no server, or it failed: it is closed and
   * dropped, and the caller starts `yarp rewrite` as before).
   */
  const askServer = async (
    entry: RuleKnowledge | undefined,
    source: string,
  ): Promise<ProcessOutcome | undefined> => {
    const server = entry?.server;
    if (server === undefined) return undefined;
    const line = await server.request(JSON.stringify(source), REWRITE_TIMEOUT_MS);
    if (line !== undefined) return { kind: "exit", code: 0, stdout: `${line}\n`, stderr: "" };
    server.close();
    entry!.server = undefined;
    return undefined;
  };

  /**
   * The result server's reduction of `result` as the one-shot process's
   * outcome, or undefined (no fresh rule knowledge yet, a result too long to
   * send, or the server failed: it is closed and not started again while
   * the knowledge lasts, and the caller starts `yarp result-reduce` as
   * before). The server is started by the first result that gets this far,
   * and answers it once up (a one-shot process would cost the same start).
   */
  const servedReduction = async (
    binary: YarpBinary,
    packs: readonly string[],
    ctx: PiContext,
    result: ServedResult,
  ): Promise<ProcessOutcome | undefined> => {
    const serve = deps.serve;
    if (serve === undefined) return undefined;
    const entry = (await freshKnowledge(binary, packs, ctx))?.entry;
    if (entry === undefined) return undefined;
    const start = () =>
      serve(binary, ["result-reduce", "--serve", ...PI_HOST, ...packs], { cwd: ctx.cwd });
    return await reduceOnServer(entry.results, start, result, RESULT_TIMEOUT_MS);
  };

  const usable = async (ctx: PiContext): Promise<Readiness | PassReason> => {
    if (off) return "off";
    const state = await prepare(ctx);
    return state.disabledReason === undefined && hung === undefined ? state : "disabled";
  };

  pi.on("session_start", async (_event: never, ctx: PiContext) => {
    startedAt = new Date().toISOString();
    try {
      await prepare(ctx);
    } catch (error) {
      record({ kind: "error", code: "session-start", detail: String(error) });
    }
  });

  pi.on("tool_call", async (event: never, ctx: PiContext) => {
    try {
      const { toolName, toolCallId, input } = event as {
        toolName?: unknown;
        toolCallId?: unknown;
        input?: unknown;
      };
      const call = shellCall(toolName, input);
      if (call === undefined || typeof toolCallId !== "string") return undefined;
      originals.set(toolCallId, call.command);
      const state = await usable(ctx);
      if (isYarpCommand(call.command)) {
        // `yarp read ID` from a marker must work even when YARP is not on PATH (the bundle).
        const bare = /^(\s*)yarp(?=\s|$)/.exec(call.command);
        if (bare !== null && typeof state !== "string") {
          (input as Record<string, unknown>)[call.field] = bare[1] +
            invocationWords(state.binary!) +
            call.command.slice(bare[0].length);
        }
        return record({ kind: "pass", stage: "rewrite", reason: "yarp-command" });
      }
      if (typeof state === "string") {
        return record({ kind: "pass", stage: "rewrite", reason: state });
      }
      if (certainlyCompound(call.command)) {
        return record({ kind: "pass", stage: "rewrite", reason: "compound" });
      }
      const binary = state.binary!;
      const { args: packs, pack } = await packArgs(state, ctx);
      const known = await freshKnowledge(binary, packs, ctx);
      if (known !== undefined && certainlyNotRewritten(call.command, known.words)) {
        return record({ kind: "pass", stage: "rewrite", reason: "unknown-program" });
      }
      let decision = known?.entry.decisions.get(call.command);
      if (decision === undefined) {
        const failed = (reason: PassReason, outcome: ProcessOutcome) => {
          noteTimeout(ctx, outcome, "rewrite");
          record({
            kind: "error",
            code: `rewrite-${reason}`,
            detail: describe(outcome),
          });
          return record({ kind: "pass", stage: "rewrite", reason });
        };
        const outcome = await askServer(known?.entry, call.command) ??
          await deps.run(binary, [
            "rewrite",
            "--json",
            ...PI_HOST,
            ...packs,
            "--",
            call.command,
          ], {
            timeoutMs: REWRITE_TIMEOUT_MS,
            cwd: ctx.cwd,
          });
        const reply = readRewriteJson(outcome);
        if ("reason" in reply) return failed(reply.reason, outcome);
        decision = reply.decision;
        // The wrapper must carry the digest this extension trusted: a pack changed since is refused.
        if (
          decision.rewrite && pack !== undefined &&
          !decision.command.includes(` --pack-digest ${pack.digest} `)
        ) {
          return failed("pack-changed", outcome);
        }
        if (
          known !== undefined && known.entry.decisions.size < MAX_REMEMBERED_DECISIONS &&
          call.command.length <= MAX_REMEMBERED_SOURCE
        ) {
          known.entry.decisions.set(call.command, decision);
        }
      }
      if (!decision.rewrite) {
        return record({ kind: "pass", stage: "rewrite", reason: decision.reason });
      }
      const wrapper = withInvocation(decision.command, invocationWords(binary));
      (input as Record<string, unknown>)[call.field] = wrapper;
      wrapped.add(toolCallId);
      record({ kind: "rewritten", tool: String(toolName) });
    } catch (error) {
      record({ kind: "error", code: "tool-call", detail: String(error) });
    }
    return undefined;
  });

  pi.on("tool_result", async (event: never, ctx: PiContext) => {
    try {
      const { toolName, toolCallId, input, content, isError, details } = event as {
        toolName?: unknown;
        toolCallId?: unknown;
        input?: unknown;
        content?: unknown;
        isError?: unknown;
        details?: unknown;
      };
      const id = typeof toolCallId === "string" ? toolCallId : "";
      const remembered = originals.get(id);
      originals.delete(id);
      const call = shellCall(toolName, input);
      if (call === undefined && remembered === undefined) return undefined;
      const command = remembered ?? call!.command;
      const pass = (reason: PassReason) => {
        record({ kind: "pass", stage: "result", reason });
        return undefined;
      };
      if (wrapped.delete(id)) {
        const text = textOf(content);
        const archiveId = text === undefined ? undefined : markerArchiveId(text);
        if (archiveId !== undefined) record({ kind: "reduced", archiveId });
        return pass("wrapped");
      }
      if (isYarpCommand(command)) return pass("yarp-command");
      const state = await usable(ctx);
      if (typeof state === "string") return pass(state);
      const visible = textOf(content);
      if (visible === undefined) return pass("not-text");
      const failed = isError === true;
      const parts = toolName === "bash" ? splitBashResult(visible, failed) : {
        body: visible,
        fullOutputPath: undefined,
        statusNotice: undefined,
        exitCode: undefined,
      };
      if (parts.fullOutputPath === undefined && parts.body.length < MIN_REDUCE_CHARS) {
        return pass("small");
      }
      let whole = parts.body;
      if (parts.fullOutputPath !== undefined) {
        const full = await deps.readFullOutput(parts.fullOutputPath, parts.body);
        if (full === undefined) return pass("full-output-unavailable");
        whole = full;
      }
      const { args: packs } = await packArgs(state, ctx);
      const code = parts.exitCode;
      const outcome = await servedReduction(state.binary!, packs, ctx, {
        command,
        input: whole,
        ...(code === undefined ? {} : { exit_code: code }),
        ...(ctx.cwd === undefined ? {} : { cwd: ctx.cwd }),
      }) ?? await deps.run(
        state.binary!,
        [
          "result-reduce",
          "--command",
          command,
          ...(code === undefined ? [] : ["--exit-code", String(code)]),
          ...PI_HOST,
          ...packs,
        ],
        { stdin: whole, timeoutMs: RESULT_TIMEOUT_MS, cwd: ctx.cwd },
      );
      noteTimeout(ctx, outcome, "result-reduce");
      const decision = decideReducedResult(whole, outcome);
      if (!decision.replace) {
        if (
          decision.reason === "timeout" || decision.reason === "exit-nonzero" ||
          decision.reason === "spawn-failed"
        ) {
          record({ kind: "error", code: `result-${decision.reason}`, detail: describe(outcome) });
        }
        return pass(decision.reason);
      }
      const text = joinReducedResult(decision.text, parts.statusNotice);
      if (text.length >= visible.length) return pass("not-smaller");
      record({ kind: "reduced", archiveId: decision.archiveId });
      return { content: [{ type: "text", text }], details, isError: failed };
    } catch (error) {
      record({ kind: "error", code: "tool-result", detail: String(error) });
      return undefined;
    }
  });

  pi.registerCommand("yarp", {
    description:
      "YARP: this session's report; /yarp off|on toggles reduction; /yarp doctor names the binary",
    handler: async (args: string, ctx: PiContext) => {
      try {
        const word = String(args ?? "").trim();
        if (word === "off" || word === "on") {
          off = word === "off";
          say(ctx, off ? "YARP off for this session" : "YARP on", "info");
          return;
        }
        const state = await prepare(ctx);
        if (word === "doctor") {
          say(ctx, doctorText(state, deps.version), "info");
          return;
        }
        if (word !== "") {
          say(ctx, `/yarp: unknown argument '${word}' (expected off, on or doctor)`, "warning");
          return;
        }
        let archive = "unknown (YARP is disabled)";
        let gain: GainFigures | { error: string } = { error: "not asked (YARP is disabled)" };
        if (
          state.binary !== undefined && state.disabledReason === undefined && hung === undefined
        ) {
          const binary = state.binary;
          const [location, saved] = await Promise.all([
            deps.run(binary, ["archive", "stats", "--json"], {
              timeoutMs: VERSION_TIMEOUT_MS,
              cwd: ctx.cwd,
            }),
            deps.run(binary, ["gain", "--json", ...PI_HOST, "--since", startedAt], {
              timeoutMs: RESULT_TIMEOUT_MS,
              cwd: ctx.cwd,
            }),
          ]);
          archive = archiveText(location);
          gain = gainFacts(saved);
        }
        say(
          ctx,
          renderReport(stats, {
            extensionVersion: deps.version,
            binary: state.binary?.description,
            binaryVersion: state.binaryVersion,
            disabledReason: state.disabledReason,
            off,
            projectPack: packTrust.state === "passed"
              ? `passed: ${packTrust.detail}`
              : `not passed: ${packTrust.detail}`,
            archive,
            gain,
          }),
          "info",
        );
      } catch (error) {
        record({ kind: "error", code: "command", detail: String(error) });
      }
    },
  });
}

/** The one text part of a tool result, else undefined. */
function textOf(content: unknown): string | undefined {
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const part = content[0] as { type?: unknown; text?: unknown };
  return part?.type === "text" && typeof part.text === "string" ? part.text : undefined;
}

function describe(outcome: ProcessOutcome): string {
  if (outcome.kind === "exit") {
    return `exit ${outcome.code}${outcome.stderr === "" ? "" : `: ${firstLine(outcome.stderr)}`}`;
  }
  return outcome.kind === "timeout" ? "timed out" : outcome.message;
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0].slice(0, 200);
}

/** `/yarp doctor`: which binary, its version and build, what was passed over, whether YARP is on. */
function doctorText(state: Readiness, version: string): string {
  return [
    `YARP extension ${version}`,
    `binary: ${state.binary?.description ?? "none found"}`,
    `binary version: ${state.binaryVersion ?? "unknown"}`,
    ...state.passedOver.map((line) => `passed over: ${line}`),
    `state: ${
      state.disabledReason === undefined ? "enabled" : `disabled: ${state.disabledReason}`
    }`,
  ].join("\n");
}

/** `X.Y.Z (build D)` as `yarp --version --build` says it. */
function describeIdentity(identity: { version: string; build: string | undefined }): string {
  return identity.build === undefined
    ? identity.version
    : `${identity.version} (build ${identity.build})`;
}

/** What `yarp gain --json` reported, or one line saying why it did not. */
function gainFacts(outcome: ProcessOutcome): GainFigures | { error: string } {
  if (outcome.kind !== "exit" || outcome.code !== 0) return { error: describe(outcome) };
  return readGainJson(outcome.stdout) ?? { error: "malformed reply" };
}

/** The archive location from `yarp archive stats --json`, or the first line YARP said. */
function archiveText(outcome: ProcessOutcome): string {
  if (outcome.kind !== "exit") return `unknown (${outcome.kind})`;
  try {
    const parsed = JSON.parse(outcome.stdout) as { path?: unknown };
    if (typeof parsed.path === "string") return parsed.path;
  } catch {
    // not JSON: YARP said why in one line
  }
  return firstLine(outcome.stderr || outcome.stdout) || "unknown";
}
