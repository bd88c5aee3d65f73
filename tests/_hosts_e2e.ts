/**
 * Helpers for the Claude Code, Codex and Gemini CLI end-to-end tests (docs/hosts.md): installs the pinned hosts from npm once into the
 * test cache (`.cache/pi-e2e/`, shared with the Pi tests), starts the
 * scripted model server (Anthropic Messages, OpenAI Responses and Gemini
 * APIs on 127.0.0.1) and runs one host session in print/exec mode in an isolated
 * home and config directory, returning what the model received (the
 * server's request log) and what the host reported.
 *
 * @module
 */
import { join } from "node:path";
import assert from "node:assert/strict";
import { baseEnv, makeProject, ModelServer, npmInstall, ROOT } from "./_pi_e2e.ts";

export { ModelServer, ROOT };

/** The Deno cache YARP's launcher reads its packages from. */
const DENO_DIR: string = JSON.parse(
  new TextDecoder().decode(
    (await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
      .output()).stdout,
  ),
).denoDir;

/** The fake model server for both APIs. */
export const HOSTS_SERVER = join(ROOT, "tests/fixtures/hosts/fake_model_server.mjs");

/** A pinned host release. */
export interface HostInstall {
  readonly host: "claude-code" | "codex" | "gemini";
  readonly label: string;
  /** The host's executable. */
  readonly bin: string;
}

/** Claude Code 2.1.328 (its postinstall links the native binary; nothing is fetched at run time). */
export async function claudeCode(): Promise<HostInstall> {
  const dir = await npmInstall(
    "claude-code-2.1.328",
    ["@anthropic-ai/claude-code@2.1.328"],
    "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
  );
  return {
    host: "claude-code",
    label: "Claude Code 2.1.328",
    bin: join(dir, "node_modules/@anthropic-ai/claude-code-linux-x64/claude"),
  };
}

/** Codex CLI 0.169.0 (a static musl binary from its platform package). */
export async function codex(): Promise<HostInstall> {
  const dir = await npmInstall(
    "codex-0.169.0",
    ["@openai/codex@0.169.0"],
    "node_modules/.bin/codex",
  );
  return { host: "codex", label: "Codex 0.169.0", bin: join(dir, "node_modules/.bin/codex") };
}

/** Gemini CLI 0.61.0 (a Node bundle; runs on the system Node 20). */
export async function gemini(): Promise<HostInstall> {
  const dir = await npmInstall(
    "gemini-cli-0.61.0",
    ["@google/gemini-cli@0.61.0"],
    "node_modules/.bin/gemini",
  );
  return { host: "gemini", label: "Gemini CLI 0.61.0", bin: join(dir, "node_modules/.bin/gemini") };
}

/** One scripted model step: one shell command, or the final text. */
export type Step = { readonly command: string } | { readonly text: string };

/** Permission rules, in each host's own terms. */
export interface Permissions {
  /** Claude Code `permissions` (allow/ask/deny rule strings). */
  readonly claude?: { allow?: string[]; ask?: string[]; deny?: string[] };
  /** Codex execpolicy source (`$CODEX_HOME/rules/default.rules`). */
  readonly codexRules?: string;
  /** Gemini CLI policy source (`~/.gemini/policies/e2e.toml`). */
  readonly geminiPolicy?: string;
}

/** Options for one host session. */
export interface HostRunOptions {
  readonly host: HostInstall;
  readonly server: ModelServer;
  readonly cwd: string;
  readonly script: readonly Step[];
  /** Scratch directory: home, config dir, state dir, TMPDIR (created). */
  readonly scratch: string;
  readonly permissions?: Permissions;
  /** Codex: `code` uses a code-mode model (the shell tool is called from JavaScript). */
  readonly mode?: "direct" | "code";
  /** Runs before the host, once the config files exist (e.g. `yarp setup` into this home). */
  readonly setup?: (env: Record<string, string>) => Promise<void>;
  readonly env?: Record<string, string>;
}

/** One tool result as the model received it. */
export interface ToolResult {
  /** The text the model got. */
  readonly text: string;
  /** Claude Code: the tool_result's `is_error`; Codex: undefined. */
  readonly isError?: boolean;
}

/** What one host session produced. */
export interface HostRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** The tool results the model received, in order (from the last request). */
  readonly results: ToolResult[];
  /** Claude Code: `permission_denials` of the JSON result (commands); Codex: []. */
  readonly denied: string[];
  /** Every request the server received (its URL), to check nothing else was asked for. */
  readonly urls: string[];
}

function claudeSettings(options: HostRunOptions): string {
  return JSON.stringify(
    { permissions: options.permissions?.claude ?? { allow: ["Bash"] } },
    null,
    2,
  );
}

function codexConfig(port: number, mode: "direct" | "code"): string {
  return `model = "${mode === "code" ? "gpt-6-astra" : "gpt-5.5"}"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:${port}/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
in_app_updates = false
`;
}

/** The environment of one session: yarp on PATH, private home, config and state. */
export function hostEnv(options: HostRunOptions): Record<string, string> {
  const s = options.scratch;
  // npm would ask the registry whether it is out of date: not in a test. YARP's packages stay in
  // the real Deno cache (the private HOME would hide it).
  const common = {
    ...baseEnv(s),
    HOME: join(s, "home"),
    DENO_DIR: DENO_DIR,
    NPM_CONFIG_UPDATE_NOTIFIER: "false",
  };
  if (options.host.host === "claude-code") {
    return {
      ...common,
      CLAUDE_CONFIG_DIR: join(s, "claude"),
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${options.server.port}`,
      ANTHROPIC_API_KEY: "sk-ant-fake-key",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      ...options.env,
    };
  }
  if (options.host.host === "gemini") {
    return {
      ...common,
      GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${options.server.port}`,
      GEMINI_API_KEY: "fake-gemini-key",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      ...options.env,
    };
  }
  return { ...common, CODEX_HOME: join(s, "codex"), FAKE_OPENAI_API_KEY: "x", ...options.env };
}

/** Gemini CLI's user settings: API-key auth (the base URL comes from the environment), no telemetry or update check. */
function geminiSettings(): string {
  return JSON.stringify(
    {
      security: { auth: { selectedType: "gemini-api-key" } },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    },
    null,
    2,
  );
}

/** Writes the host's config files into the scratch directory. */
async function configure(options: HostRunOptions): Promise<void> {
  const s = options.scratch;
  for (const dir of ["home", "tmp", "state", "claude", "codex/rules"]) {
    await Deno.mkdir(join(s, dir), { recursive: true });
  }
  // Codex runs commands in a login shell, which sets PATH anew from /etc/profile: the home's
  // profile puts yarp back on it, as an installed yarp would be.
  await Deno.writeTextFile(
    join(s, "home/.profile"),
    `export PATH="${join(ROOT, "bin")}:$PATH"\n`,
  );
  if (options.host.host === "claude-code") {
    await Deno.writeTextFile(join(s, "claude/settings.json"), claudeSettings(options));
  } else if (options.host.host === "gemini") {
    await Deno.mkdir(join(s, "home/.gemini/policies"), { recursive: true });
    await Deno.writeTextFile(join(s, "home/.gemini/settings.json"), geminiSettings());
    await Deno.writeTextFile(
      join(s, "home/.gemini/policies/e2e.toml"),
      options.permissions?.geminiPolicy ?? "",
    );
  } else {
    await Deno.writeTextFile(
      join(s, "codex/config.toml"),
      codexConfig(options.server.port, options.mode ?? "direct"),
    );
    await Deno.writeTextFile(
      join(s, "codex/rules/default.rules"),
      options.permissions?.codexRules ?? "",
    );
  }
}

/** Runs one host session against the scripted server; see {@link HostRun}. */
export async function runHost(options: HostRunOptions): Promise<HostRun> {
  await configure(options);
  const env = hostEnv(options);
  await options.setup?.(env);
  await Deno.writeTextFile(options.server.scriptPath, JSON.stringify(options.script));
  await Deno.writeTextFile(options.server.logPath, "");
  const args = options.host.host === "claude-code"
    ? ["-p", "Run the e2e command.", "--output-format", "json"]
    : options.host.host === "gemini"
    // An explicit model: without one Gemini CLI first asks a router model to classify the prompt.
    ? ["-p", "Run the e2e command.", "-m", "gemini-2.5-flash", "--yolo", "--output-format", "json"]
    : [
      "exec",
      "--dangerously-bypass-approvals-and-sandbox",
      "--skip-git-repo-check",
      "--dangerously-bypass-hook-trust",
      "--json",
      "Run the e2e command.",
    ];
  const started = performance.now();
  const out = await new Deno.Command(options.host.bin, {
    args,
    cwd: options.cwd,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = performance.now() - started;
  const decoder = new TextDecoder();
  const stdout = decoder.decode(out.stdout);
  const lines = (await Deno.readTextFile(options.server.logPath)).split("\n").filter((l) => l);
  const requests = lines.map((line) => JSON.parse(line));
  const last = requests.at(-1)?.body;
  const dump = Deno.env.get("YARP_HOSTS_E2E_DUMP");
  if (dump !== undefined) {
    // For looking at what a host sent: the last request of each session.
    await Deno.mkdir(dump, { recursive: true });
    const name = options.scratch.split("/").at(-1);
    await Deno.writeTextFile(join(dump, `${name}.json`), JSON.stringify({ stdout, last }, null, 1));
  }
  return {
    code: out.code,
    stdout,
    stderr: decoder.decode(out.stderr),
    ms,
    results: options.host.host === "claude-code"
      ? claudeResults(last)
      : options.host.host === "gemini"
      ? geminiResults(last)
      : codexResults(last),
    denied: options.host.host === "claude-code" ? claudeDenials(stdout) : [],
    urls: requests.map((r) => r.url),
  };
}

interface Block {
  type?: string;
  text?: string;
  content?: unknown;
  is_error?: boolean;
  output?: unknown;
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((p: Block) => p.text ?? "").join("")
    : "";

function claudeResults(request: { messages?: { content?: unknown }[] } | undefined): ToolResult[] {
  const results: ToolResult[] = [];
  for (const message of request?.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Block[]) {
      if (block.type === "tool_result") {
        results.push({ text: textOf(block.content), isError: block.is_error === true });
      }
    }
  }
  return results;
}

function codexResults(request: { input?: Block[] } | undefined): ToolResult[] {
  return (request?.input ?? []).filter((item) =>
    item.type === "function_call_output" || item.type === "custom_tool_call_output"
  ).map((item) => ({ text: textOf(item.output) }));
}

interface GeminiContent {
  parts?: { functionResponse?: { response?: { output?: unknown; error?: unknown } } }[];
}

/** Gemini: each function response's `output`, or its `error` text marked as an error. */
function geminiResults(request: { contents?: GeminiContent[] } | undefined): ToolResult[] {
  const results: ToolResult[] = [];
  for (const content of request?.contents ?? []) {
    for (const part of content.parts ?? []) {
      const response = part.functionResponse?.response;
      if (response === undefined) continue;
      results.push(
        typeof response.output === "string"
          ? { text: response.output, isError: false }
          : { text: JSON.stringify(response), isError: true },
      );
    }
  }
  return results;
}

function claudeDenials(stdout: string): string[] {
  try {
    const result = JSON.parse(stdout) as {
      permission_denials?: { tool_input?: { command?: string } }[];
    };
    return (result.permission_denials ?? []).map((d) => d.tool_input?.command ?? "");
  } catch {
    return [];
  }
}

/** Codex direct mode: the exit code and output inside `function_call_output` text. */
export function codexDirect(text: string): { exitCode: number | undefined; output: string } {
  const code = /^Process exited with code (-?\d+)$/m.exec(text);
  const at = text.indexOf("\nOutput:\n");
  return {
    exitCode: code === null ? undefined : Number(code[1]),
    output: at < 0 ? text : text.slice(at + "\nOutput:\n".length),
  };
}

/**
 * Codex code mode: the exit code and output the scripted model's JavaScript
 * printed (`exit_code: N` on its own line, then the output); undefined when
 * the script failed (the call threw).
 */
export function codexCode(
  text: string,
): { exitCode: number | undefined; output: string } | undefined {
  if (!text.startsWith("Script completed")) return undefined;
  const code = /^exit_code: (-?\d+)\n/m.exec(text);
  if (code === null) return undefined;
  return { exitCode: Number(code[1]), output: text.slice(code.index + code[0].length) };
}

/** The commands, in order; the model's last step is a text. */
export const COMMANDS = [
  "git log --stat",
  "yarp read {{marker_id}}",
  "npm test --prefix nt",
  "grep -rn needle . | head -500",
  "cat src/f7.txt",
  "pytest -q",
  "cargo test",
] as const;
/** The scenario script: every command, then a final text. */
export const SCRIPT: Step[] = [...COMMANDS.map((command) => ({ command })), { text: "done" }];
/** Where each scenario's result is in a session's results. */
export const INDEX = { LOG: 0, READ: 1, NPM: 2, GREP: 3, CAT: 4, ASK: 5, DENY: 6 } as const;

/**
 * An ask rule and a deny rule for commands YARP would otherwise wrap (`yarp rewrite` wraps both);
 * they name programs no other scenario uses, since the Codex hook wraps nothing whose program a
 * rule names.
 */
export const PERMISSIONS: Permissions = {
  claude: { allow: ["Bash"], ask: ["Bash(pytest:*)"], deny: ["Bash(cargo test:*)"] },
  codexRules: [
    'prefix_rule(pattern=["pytest"], decision="prompt")',
    'prefix_rule(pattern=["cargo", "test"], decision="forbidden")',
    "",
  ].join("\n"),
  geminiPolicy: [
    "[[rule]]",
    'toolName = "run_shell_command"',
    'commandPrefix = "pytest"',
    'decision = "ask_user"',
    "priority = 500",
    "",
    "[[rule]]",
    'toolName = "run_shell_command"',
    'commandPrefix = "cargo test"',
    'decision = "deny"',
    "priority = 500",
    "",
  ].join("\n"),
};

/** A host and tool mode under test. */
export interface Target {
  readonly host: HostInstall;
  readonly mode: "direct" | "code";
  readonly name: string;
}

/** The three targets: Claude Code, Codex with direct tools, Codex in code mode. */
export async function targets(): Promise<Target[]> {
  const [claude, cx] = [await claudeCode(), await codex()];
  return [
    { host: claude, mode: "direct", name: "claude-code" },
    { host: cx, mode: "direct", name: "codex-direct" },
    { host: cx, mode: "code", name: "codex-code" },
  ];
}

/** What one tool result told the model: its exit status (when it says) and its output text. */
export function seen(
  target: Target,
  run: HostRun,
  index: number,
): { exitCode: number | undefined; output: string; refused: boolean } {
  const result = run.results[index];
  assert.ok(result !== undefined, `${target.name}: no result ${index} in ${run.stderr}`);
  if (target.host.host === "claude-code") {
    const code = /^Exit code (\d+)\n/.exec(result.text);
    const refused = result.isError === true && code === null;
    return {
      exitCode: code !== null ? Number(code[1]) : result.isError ? undefined : 0,
      output: code !== null ? result.text.slice(code[0].length) : result.text,
      refused,
    };
  }
  if (target.mode === "code") {
    const parsed = codexCode(result.text);
    return parsed === undefined
      ? { exitCode: undefined, output: result.text, refused: true }
      : { ...parsed, refused: false };
  }
  const direct = codexDirect(result.text);
  return { ...direct, refused: direct.exitCode === undefined };
}

/** The session's scratch directory and a fresh project for it. */
export interface Fixture {
  readonly scratch: string;
  readonly project: string;
  readonly server: ModelServer;
}

/** A project (300 commits) and a model server in a new scratch directory; the caller removes both. */
export async function makeFixture(): Promise<Fixture> {
  const scratch = await Deno.makeTempDir({ prefix: "yarp-hosts-e2e-" });
  const project = join(scratch, "project");
  await makeProject(project, 300);
  const server = await ModelServer.start(scratch, HOSTS_SERVER);
  return { scratch, project, server };
}

/** Runs `body` with {@link makeFixture}'s fixture; removes it afterwards. */
export async function withFixture(body: (fx: Fixture) => Promise<void>): Promise<void> {
  const fx = await makeFixture();
  try {
    await body(fx);
  } finally {
    await fx.server.stop();
    await Deno.remove(fx.scratch, { recursive: true });
  }
}

/** `yarp setup HOST --user` into the session's home and config directory (YARP's hooks). */
export async function setupYarp(target: Target, env: Record<string, string>): Promise<void> {
  const out = await new Deno.Command(join(ROOT, "bin/yarp"), {
    args: ["setup", target.host.host, "--user"],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`yarp setup ${target.host.host}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** One session of `script` on `target`, with or without YARP. */
export function session(
  target: Target,
  fx: Fixture,
  name: string,
  yarp: boolean,
  script: readonly Step[] = SCRIPT,
): Promise<HostRun> {
  return runHost({
    host: target.host,
    mode: target.mode,
    server: fx.server,
    cwd: fx.project,
    script,
    scratch: join(fx.scratch, name),
    permissions: PERMISSIONS,
    ...(yarp ? { setup: (env: Record<string, string>) => setupYarp(target, env) } : {}),
  });
}
