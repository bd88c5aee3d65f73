/**
 * `yarp hook claude-code|codex|gemini`: one host hook event on stdin, the answer
 * (or nothing) on stdout, exit 0 (docs/hosts.md). The pure decisions live in
 * `lib/hosts/<host>/`; this module does their I/O: reading the event, the
 * user's settings and rules files, the host's command line (`ps`), the
 * session file, the trusted project pack, and the result path's archive.
 *
 * Fails open: a malformed or unknown event, an unknown tool, a missing
 * archive, any error and any call that takes longer than its bound
 * ({@link BEFORE_BUDGET_MS}, {@link AFTER_BUDGET_MS}) print nothing and
 * exit 0, so the host goes on exactly as without YARP. Only a malformed
 * YARP argument (no host, an unknown one) is an error line and exit 2.
 * `YARP_DEBUG=1` prints the decision's reason code on stderr. `YARP_HOOK=off`
 * in the host's environment, or a command starting `YARP=off `, gets no
 * answer at all.
 *
 * @module
 */
import type { TextIo } from "./io.ts";
import { readAllBytes } from "./io.ts";
import { processEnv } from "../config/env.ts";
import {
  isYarpCommand,
  MIN_REDUCE_CHARS,
  optsOut,
  type PermissionProof,
  wrapAnswer,
} from "../hosts/hook.ts";
import type { RewriteDecision } from "../shell/rewrite_decision.ts";

const USAGE = "usage: yarp hook claude-code|codex|gemini < EVENT.json\n";

/** The hosts `yarp hook` answers. */
export const HOOK_HOSTS = ["claude-code", "codex", "gemini"] as const;
/** A host `yarp hook` answers. */
export type HookHost = typeof HOOK_HOSTS[number];

/** The longest a before-the-call answer may take; past it the command runs untouched. */
export const BEFORE_BUDGET_MS = 5_000;
/** The longest a result answer may take; past it the result stays as it is. */
export const AFTER_BUDGET_MS = 10_000;
/** The largest event YARP reads (a Claude Code event carries at most 30,000 characters of output). */
const EVENT_LIMIT = 4 * 1024 * 1024;
/** The largest whole result read from a host's file. */
const RESULT_FILE_LIMIT = 64 * 1024 * 1024;
/** How much of a Codex session file's end is searched for the call's end event. */
const TRANSCRIPT_TAIL = 16 * 1024 * 1024;

/** What one event produced: the answer to print, if any, and the reason code for YARP_DEBUG. */
export interface HookOutcome {
  readonly answer?: unknown;
  readonly reason: string;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Runs `yarp hook HOST`; returns 0 (always, once the host is known) or 2. */
export async function hookCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  if (args.length !== 1 || !(HOOK_HOSTS as readonly string[]).includes(args[0])) {
    const what = args.length === 0 ? "missing host" : `unknown host '${args.join(" ")}'`;
    io.err(`yarp hook: ${what} (expected claude-code, codex or gemini)\n`);
    return 2;
  }
  const host = args[0] as HookHost;
  let outcome: HookOutcome;
  try {
    const bytes = await readAllBytes(Deno.stdin, EVENT_LIMIT);
    if (bytes === undefined) outcome = { reason: "event-too-large" };
    else outcome = await answerHookEvent(host, decoder.decode(bytes));
  } catch {
    outcome = { reason: "error" };
  }
  if (outcome.answer !== undefined) io.out(JSON.stringify(outcome.answer) + "\n");
  if ((processEnv("YARP_DEBUG") ?? "") !== "") io.err(`yarp hook ${host}: ${outcome.reason}\n`);
  return 0;
}

/**
 * The checks every host's hook makes first: `YARP_HOOK=off`, a command
 * that opts out (`YARP=off CMD`) and the model's own `yarp …` each pass
 * with their reason; else how to start this yarp again (undefined when it
 * cannot tell).
 */
async function commandChecks(
  command: string,
): Promise<{ reason: string } | { invocation: string | undefined }> {
  if (processEnv("YARP_HOOK") === "off") return { reason: "off" };
  if (optsOut(command)) return { reason: "opted-out" };
  const { selfInvocation } = await import("./_invocation.ts");
  const invocation = selfInvocation();
  if (isYarpCommand(command, invocation)) return { reason: "yarp-command" };
  return { invocation };
}

/**
 * Gemini CLI's `BeforeTool` event: the same opt-outs and bound as the other
 * hosts, then the wrapper when a rule selects the command and Gemini's
 * policy provably decides the same for it (lib/hosts/gemini/permissions.ts).
 * Gemini's `AfterTool` cannot replace a result, so it is no event here.
 */
async function answerGeminiEvent(value: unknown): Promise<HookOutcome> {
  const { readGeminiEvent, geminiWrapAnswer } = await import("../hosts/gemini/hook.ts");
  const event = readGeminiEvent(value);
  if ("ignore" in event) return { reason: event.ignore };
  const checked = await commandChecks(event.command);
  if ("reason" in checked) return checked;
  const invocation = checked.invocation;
  if (invocation === undefined) return { reason: "no-invocation" };
  const projectDir = processEnv("GEMINI_PROJECT_DIR") ?? event.cwd;
  const work = async (): Promise<HookOutcome> => {
    const wrap = await wrapper(event.command, projectDir, invocation, "gemini");
    if ("reason" in wrap) return wrap;
    const { proveGeminiUnchanged, isGeminiProcess } = await import(
      "../hosts/gemini/permissions.ts"
    );
    const proof = proveGeminiUnchanged({
      program: wrap.argv[0],
      wrapperProgram: wrap.command.split(" ", 1)[0],
      hostArgv: await findHostArgv(isGeminiProcess),
      ...(await geminiRuleFiles(projectDir)),
    });
    if (!proof.proven) return { reason: `not-wrapped:${proof.reason}` };
    return { answer: geminiWrapAnswer(wrap.command), reason: "wrapped" };
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<HookOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ reason: "timeout" }), BEFORE_BUDGET_MS);
  });
  try {
    return await Promise.race([work().catch(() => ({ reason: "error" })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The texts of every Gemini CLI policy file (`.toml` in `~/.gemini/policies`,
 * the project's `.gemini/policies` and `/etc/gemini-cli/policies`) and
 * settings file (user, project, `/etc/gemini-cli/settings.json` or
 * `$GEMINI_CLI_SYSTEM_SETTINGS_PATH`, and its `system-defaults.json`);
 * an unreadable one counts as unreadable settings.
 */
async function geminiRuleFiles(
  projectDir: string | undefined,
): Promise<{ policyFiles: string[]; settingsFiles: string[] }> {
  const home = processEnv("HOME");
  const dirs = [
    ...(home === undefined ? [] : [`${home}/.gemini`]),
    ...(projectDir === undefined ? [] : [`${projectDir}/.gemini`]),
    "/etc/gemini-cli",
  ];
  const policyFiles = await ruleFileTexts(
    dirs.map((dir) => `${dir}/policies`),
    ".toml",
    "commandRegex (unreadable)",
  );
  const system = processEnv("GEMINI_CLI_SYSTEM_SETTINGS_PATH") || "/etc/gemini-cli/settings.json";
  const settingsPaths = [
    ...dirs.slice(0, -1).map((dir) => `${dir}/settings.json`),
    system,
    `${system.slice(0, system.lastIndexOf("/"))}/system-defaults.json`,
  ];
  const settingsFiles: string[] = [];
  for (const path of settingsPaths) {
    const text = await settingsText(path);
    if (text !== undefined) settingsFiles.push(text);
  }
  return { policyFiles, settingsFiles };
}

/**
 * The answer to one event's text (what `yarp hook HOST` prints), or none:
 * for text that is not an event YARP acts on, on any error, and once the
 * event's bound has passed. Never throws.
 */
export async function answerHookEvent(host: HookHost, text: string): Promise<HookOutcome> {
  try {
    return await answerEvent(host, text);
  } catch {
    return { reason: "error" };
  }
}

async function answerEvent(host: HookHost, text: string): Promise<HookOutcome> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { reason: "malformed-event" };
  }
  if (host === "gemini") return await answerGeminiEvent(value);
  const [claude, codex] = await Promise.all([
    import("../hosts/claude_code/hook.ts"),
    import("../hosts/codex/hook.ts"),
  ]);
  const event = host === "claude-code"
    ? claude.readClaudeEvent(value)
    : codex.readCodexEvent(value);
  if ("ignore" in event) return { reason: event.ignore };
  const checked = await commandChecks(event.command);
  if ("reason" in checked) return checked;
  const invocation = checked.invocation;
  const budget = event.kind === "before" ? BEFORE_BUDGET_MS : AFTER_BUDGET_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<HookOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ reason: "timeout" }), budget);
  });
  try {
    const work = host === "claude-code"
      ? answerClaude(event as ClaudeEvent, invocation)
      : answerCodex(event as CodexEvent, invocation);
    return await Promise.race([work.catch(() => ({ reason: "error" })), late]);
  } finally {
    clearTimeout(timer);
  }
}

type ClaudeEvent =
  | import("../hosts/claude_code/hook.ts").ClaudeBeforeCall
  | import("../hosts/claude_code/hook.ts").ClaudeAfterCall;
type CodexEvent =
  | import("../hosts/codex/hook.ts").CodexBeforeCall
  | import("../hosts/codex/hook.ts").CodexAfterCall;

async function answerClaude(
  event: ClaudeEvent,
  invocation: string | undefined,
): Promise<HookOutcome> {
  const projectDir = processEnv("CLAUDE_PROJECT_DIR") ?? event.cwd;
  if (event.kind === "before") {
    return await answerBefore(event, projectDir, invocation, "claude-code", async (wrap) => {
      const { proveClaudeAllows, isClaudeProcess } = await import(
        "../hosts/claude_code/permissions.ts"
      );
      return proveClaudeAllows({
        command: event.command,
        wrapper: wrap.command,
        permissionMode: event.permissionMode,
        files: await claudeSettingsFiles(projectDir, event.cwd),
        hostArgv: await findHostArgv(isClaudeProcess),
      });
    });
  }
  if (event.untouchable !== undefined) return { reason: event.untouchable };
  const hook = await import("../hosts/claude_code/hook.ts");
  let input = event.visible;
  if (event.persistedOutputPath !== undefined) {
    const whole = await readBoundedText(event.persistedOutputPath, RESULT_FILE_LIMIT);
    if (whole === undefined || !hook.isWholeOf(whole, event.stdout)) {
      return { reason: "persisted-output-unreadable" };
    }
    input = event.stderr === "" ? whole : `${whole}\n${event.stderr}`;
  } else if (input.length < MIN_REDUCE_CHARS) return { reason: "small" };
  const reduced = await reduce(
    event.command,
    input,
    event.exitCode,
    projectDir,
    event.cwd,
    "claude-code",
  );
  if ("reason" in reduced) return reduced;
  return { answer: hook.claudeResultAnswer(reduced.text), reason: "reduced" };
}

async function answerCodex(
  event: CodexEvent,
  invocation: string | undefined,
): Promise<HookOutcome> {
  if (event.kind === "before") {
    return await answerBefore(event, event.cwd, invocation, "codex", async (wrap) => {
      const { proveCodexUnchanged, isCodexProcess } = await import(
        "../hosts/codex/permissions.ts"
      );
      return proveCodexUnchanged({
        program: wrap.argv[0],
        wrapperProgram: wrap.command.split(" ", 1)[0],
        hostArgv: await findHostArgv(isCodexProcess),
        rulesFiles: await codexRulesFiles(event.cwd),
      });
    });
  }
  if (!event.direct) return { reason: "code-mode" };
  if (event.visible.length < MIN_REDUCE_CHARS) return { reason: "small" };
  if (event.transcriptPath === undefined) return { reason: "no-transcript" };
  const tail = await readTail(event.transcriptPath, TRANSCRIPT_TAIL);
  if (tail === undefined) return { reason: "transcript-unreadable" };
  const hook = await import("../hosts/codex/hook.ts");
  const call = hook.findEndedCall(tail.split("\n"), event.toolUseId);
  if (call === undefined || call.exitCode === null) return { reason: "no-end-event" };
  const whole = decoder.decode(hook.recordedText(call));
  const reduced = await reduce(event.command, whole, call.exitCode, event.cwd, event.cwd, "codex");
  if ("reason" in reduced) return reduced;
  const answer = hook.codexResultAnswer(call.exitCode, reduced.text);
  if (answer.reason.length >= event.visible.length) return { reason: "not-smaller" };
  return { answer, reason: "reduced" };
}

/** A wrapper YARP would run instead of a command. */
interface Wrap {
  readonly command: string;
  readonly rule: string;
  readonly argv: readonly string[];
}

/**
 * The before-the-call answer for both hosts: the wrapper when one rule
 * selects the command and `prove` holds a permission proof for it, else
 * none (the command runs untouched).
 */
async function answerBefore(
  event: { readonly command: string; readonly toolInput: Readonly<Record<string, unknown>> },
  projectDir: string | undefined,
  invocation: string | undefined,
  host: HookHost,
  prove: (wrap: Wrap) => Promise<PermissionProof>,
): Promise<HookOutcome> {
  if (invocation === undefined) return { reason: "no-invocation" };
  const wrap = await wrapper(event.command, projectDir, invocation, host);
  if ("reason" in wrap) return wrap;
  const proof = await prove(wrap);
  if (!proof.proven) return { reason: `not-wrapped:${proof.reason}` };
  return {
    answer: wrapAnswer(event.toolInput, wrap.command, wrapReason(wrap, proof)),
    reason: "wrapped",
  };
}

/** The reason a wrap answer gives the host (shown where the host shows hook reasons). */
function wrapReason(wrap: { rule: string }, proof: PermissionProof & { proven: true }): string {
  return `yarp: output reduced by rule ${wrap.rule}, exact copy archived (allowed by ${proof.by})`;
}

/**
 * The wrapper for `command` as `yarp rewrite --host HOST` decides it, with
 * the trusted project pack (if any) and this YARP's invocation in front; or
 * why none.
 */
async function wrapper(
  command: string,
  projectDir: string | undefined,
  invocation: string,
  host: HookHost,
): Promise<Wrap | { reason: string }> {
  const [{ loadShellTreeParser }, { loadRegistry }, { decideRewrite }] = await Promise.all([
    import("../shell/parser.ts"),
    import("./_rule_packs.ts"),
    import("../shell/rewrite_decision.ts"),
  ]);
  const pack = projectDir === undefined ? undefined : await trustedPack(projectDir);
  const parser = loadShellTreeParser();
  const loaded = await loadRegistry(pack === undefined ? [] : [pack.path]);
  if (loaded.errors.length > 0) return { reason: "invalid-pack" };
  const decision: RewriteDecision = decideRewrite(
    command,
    await parser,
    loaded.registry,
    pack === undefined ? [] : [pack],
    host,
  );
  if (!decision.rewrite || decision.command === undefined || decision.argv === undefined) {
    return { reason: `not-wrapped:${decision.reason}` };
  }
  // decideRewrite's wrapper starts with the word `yarp`; this YARP may not be on PATH.
  return {
    command: invocation + decision.command.slice("yarp".length),
    rule: decision.rule ?? "",
    argv: decision.argv,
  };
}

async function trustedPack(dir: string) {
  const { trustedProjectPack } = await import("./trust.ts");
  return await trustedProjectPack(dir);
}

/**
 * The result path: archive first, then typed reduction or the global cap
 * (`result-reduce`'s core, recorded for `yarp gain` under `host`), with the trusted project pack; the new text
 * only when it changed, names an archived copy and is smaller.
 */
async function reduce(
  command: string,
  input: string,
  exitCode: number | undefined,
  projectDir: string | undefined,
  cwd: string | undefined,
  host: HookHost,
): Promise<{ text: string } | { reason: string }> {
  const { reduceResult } = await import("./result_reduce.ts");
  const pack = projectDir === undefined ? undefined : await trustedPack(projectDir);
  const { output, report } = await reduceResult({
    command,
    input: encoder.encode(input),
    exitCode,
    rulePacks: pack === undefined ? [] : [pack.path],
    cwd,
    host,
  });
  if (!report.changed || report.archiveId === null) {
    return { reason: `unchanged:${report.reasons.join(",")}` };
  }
  const text = decoder.decode(output);
  return text.length < input.length ? { text } : { reason: "not-smaller" };
}

/** A file's text, or undefined when it is missing, unreadable, not a regular file or larger than `limit`. */
async function readBoundedText(path: string, limit: number): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > limit) return undefined;
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/** The last `limit` bytes of a file as text (the whole file when smaller), or undefined. */
async function readTail(path: string, limit: number): Promise<string | undefined> {
  let file: Deno.FsFile | undefined;
  try {
    file = await Deno.open(path, { read: true });
    const size = (await file.stat()).size;
    const start = Math.max(0, size - limit);
    await file.seek(start, Deno.SeekMode.Start);
    const bytes = await readAllBytes(file, limit);
    if (bytes === undefined) return undefined;
    const text = decoder.decode(bytes);
    // A tail starting mid-line drops that line.
    return start === 0 ? text : text.slice(text.indexOf("\n") + 1);
  } catch {
    return undefined;
  } finally {
    file?.close();
  }
}

/**
 * The texts of the files named `*SUFFIX` in each of `dirs`, sorted by name
 * within a directory; a missing directory is skipped, and one that cannot be
 * listed gives `unreadable` in their place, which the caller's permission
 * check reads as a rule it cannot prove harmless.
 */
async function ruleFileTexts(
  dirs: readonly string[],
  suffix: string,
  unreadable: string,
): Promise<string[]> {
  const texts: string[] = [];
  for (const dir of dirs) {
    const names: string[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) {
        if (entry.name.endsWith(suffix)) names.push(entry.name);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory)) {
        texts.push(unreadable);
      }
      continue;
    }
    for (const name of names.sort()) texts.push((await settingsText(`${dir}/${name}`)) ?? "");
  }
  return texts;
}

/** A settings file's text; undefined when it does not exist, "" (never valid) when it cannot be read. */
async function settingsText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? undefined : "";
  }
}

/** Every Claude Code settings file whose rules bear on a call (permissions.ts, module doc). */
async function claudeSettingsFiles(
  projectDir: string | undefined,
  cwd: string | undefined,
): Promise<import("../hosts/claude_code/permissions.ts").SettingsFile[]> {
  type Scope = "user" | "project" | "managed" | "nearby";
  const wanted: { path: string; scope: Scope }[] = [];
  const add = (path: string, scope: Scope) => {
    if (!wanted.some((file) => file.path === path)) wanted.push({ path, scope });
  };
  add("/etc/claude-code/managed-settings.json", "managed");
  try {
    for await (const entry of Deno.readDir("/etc/claude-code/managed-settings.d")) {
      if (entry.name.endsWith(".json")) {
        add(`/etc/claude-code/managed-settings.d/${entry.name}`, "nearby");
      }
    }
  } catch {
    // no drop-in directory
  }
  const home = processEnv("HOME");
  const configDir = processEnv("CLAUDE_CONFIG_DIR");
  if (configDir !== undefined && configDir !== "") add(`${configDir}/settings.json`, "user");
  else if (home !== undefined) add(`${home}/.claude/settings.json`, "user");
  if (projectDir !== undefined) {
    add(`${projectDir}/.claude/settings.json`, "project");
    add(`${projectDir}/.claude/settings.local.json`, "project");
  }
  if (home !== undefined) add(`${home}/.claude/settings.json`, "nearby");
  for (const dir of ancestors(cwd)) {
    add(`${dir}/.claude/settings.json`, "nearby");
    add(`${dir}/.claude/settings.local.json`, "nearby");
  }
  return await Promise.all(
    wanted.map(async ({ path, scope }) => ({ path, scope, text: await settingsText(path) })),
  );
}

/** The texts of every Codex execpolicy rules file: `$CODEX_HOME/rules/*.rules` and each `.codex/rules/` up from the working directory. */
async function codexRulesFiles(cwd: string | undefined): Promise<string[]> {
  const home = processEnv("HOME");
  const codexHome = processEnv("CODEX_HOME") || (home === undefined ? undefined : `${home}/.codex`);
  const dirs = [
    ...(codexHome === undefined ? [] : [`${codexHome}/rules`]),
    ...ancestors(cwd).map((dir) => `${dir}/.codex/rules`),
  ];
  return await ruleFileTexts(dirs, ".rules", "unreadable(");
}

/** `dir` and each directory above it, nearest first; the root is "" (paths are built as `${dir}/…`). */
function ancestors(dir: string | undefined): string[] {
  if (dir === undefined || !dir.startsWith("/")) return [];
  const list: string[] = [];
  for (let current = dir.replace(/\/+$/, ""); current !== "";) {
    list.push(current);
    current = current.slice(0, current.lastIndexOf("/"));
  }
  list.push("");
  return list;
}

/**
 * The host's argv: the nearest ancestor process `isHost` recognises, read
 * from one `ps` listing (Deno's sandbox does not let YARP read `/proc`);
 * undefined when `ps` fails or no ancestor is the host. Argument words are
 * split at blanks, which can only hide a host, never invent one.
 */
async function findHostArgv(
  isHost: (argv: readonly string[]) => boolean,
): Promise<readonly string[] | undefined> {
  const { hostArgv } = await import("../hosts/hook.ts");
  const { default: process } = await import("node:process");
  let listing: string;
  try {
    const output = await new Deno.Command("ps", {
      args: ["-ww", "-A", "-o", "pid=", "-o", "ppid=", "-o", "args="],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    if (!output.success) return undefined;
    listing = decoder.decode(output.stdout);
  } catch {
    return undefined;
  }
  const table = new Map<number, { ppid: number; argv: string[] }>();
  for (const line of listing.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (match !== null) {
      table.set(Number(match[1]), { ppid: Number(match[2]), argv: match[3].split(/\s+/) });
    }
  }
  const chain: string[][] = [];
  for (let pid = process.ppid, depth = 0; depth < 16 && pid > 1; depth++) {
    const entry = table.get(pid);
    if (entry === undefined) break;
    chain.push(entry.argv);
    pid = entry.ppid;
  }
  return hostArgv(chain, isHost);
}
