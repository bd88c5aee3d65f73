/**
 * Helpers for the opencode end-to-end test (docs/hosts.md, "opencode"):
 * installs opencode 1.18.33 (`opencode-ai`, a native binary from its
 * platform package) and the plugin SDK opencode installs into its config
 * directory at start (`@opencode-ai/plugin`, the same version) once into the
 * test cache, then runs one `opencode run` session in an isolated home and
 * config against the scripted model server, configured as an
 * OpenAI-compatible provider (Chat Completions on 127.0.0.1). The copied SDK
 * means opencode finds nothing to install: no registry access at run time.
 *
 * @module
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { baseEnv, npmInstall, ROOT } from "./_pi_e2e.ts";
import { COMMANDS, type Fixture, INDEX, type Step } from "./_hosts_e2e.ts";

/** The pinned release. */
export const OPENCODE_VERSION = "1.18.33";

/** The opencode executable and the SDK directory to copy into each config dir. */
export interface OpencodeInstall {
  readonly bin: string;
  readonly sdk: string;
}

/** Installs (once) the pinned opencode and its plugin SDK under `.cache/pi-e2e/`. */
export async function opencode(): Promise<OpencodeInstall> {
  const dir = await npmInstall(
    `opencode-${OPENCODE_VERSION}`,
    [`opencode-ai@${OPENCODE_VERSION}`],
    "node_modules/opencode-linux-x64/bin/opencode",
  );
  const sdk = await npmInstall(
    `opencode-plugin-${OPENCODE_VERSION}`,
    [`@opencode-ai/plugin@${OPENCODE_VERSION}`],
    "node_modules/@opencode-ai/plugin/package.json",
  );
  return { bin: join(dir, "node_modules/opencode-linux-x64/bin/opencode"), sdk };
}

/** The ask and deny rules of the shared scenarios, in opencode's terms (the last match wins). */
export const OPENCODE_PERMISSION = {
  bash: { "*": "allow", "pytest*": "ask", "cargo test*": "deny" },
};

/**
 * The shared commands in opencode's order: the deny rule's command before
 * the ask rule's, since an ask ends `opencode run` (no one to ask headless).
 */
export const OPENCODE_COMMANDS = [
  ...COMMANDS.slice(0, INDEX.ASK),
  COMMANDS[INDEX.DENY],
  COMMANDS[INDEX.ASK],
] as const;
/** The script of {@link OPENCODE_COMMANDS}, then a final text (never reached: the ask ends the run). */
export const OPENCODE_SCRIPT: Step[] = [
  ...OPENCODE_COMMANDS.map((command) => ({ command })),
  { text: "done" },
];
/** Where each scenario is in {@link OPENCODE_COMMANDS}. */
export const OC = { ...INDEX, DENY: 5, ASK: 6 } as const;

/** How a session gets YARP: not at all, `yarp setup opencode --user`, or a plugin entry and environment. */
export type YarpMode =
  | "none"
  | "setup"
  | { readonly plugin: string; readonly env: Record<string, string> };

/** One tool result as the model received it. */
export interface OpencodeRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** The `tool` messages of the last request, in order. */
  readonly results: string[];
  /** Every request's URL. */
  readonly urls: string[];
  /** opencode's data directory (`opencode.db`, `tool-output/`) of the session. */
  readonly dataDir: string;
  /** The session's environment. */
  readonly env: Record<string, string>;
}

/** The session's environment: private home and XDG directories, updates and sharing off. */
export function opencodeEnv(scratch: string): Record<string, string> {
  const home = join(scratch, "home");
  return {
    ...baseEnv(scratch),
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    DENO_DIR: Deno.env.get("DENO_DIR") ?? denoDir(),
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    // The plugin says why it left a result alone (on opencode's stderr), for failure messages.
    YARP_DEBUG: "1",
    NPM_CONFIG_UPDATE_NOTIFIER: "false",
    ...pass("NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE"),
  };
}

function pass(...names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => Deno.env.get(name) === undefined ? [] : [[name, Deno.env.get(name)!]]),
  );
}

let cachedDenoDir: string | undefined;
function denoDir(): string {
  cachedDenoDir ??= JSON.parse(
    new TextDecoder().decode(
      new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" }).outputSync()
        .stdout,
    ),
  ).denoDir;
  return cachedDenoDir!;
}

/** The project's `opencode.json`: the fake provider, its model, the permission rules. */
function projectConfig(port: number): string {
  return JSON.stringify(
    {
      $schema: "https://opencode.ai/config.json",
      autoupdate: false,
      share: "disabled",
      model: "fake/fake-model",
      small_model: "fake/fake-model",
      permission: OPENCODE_PERMISSION,
      provider: {
        fake: {
          npm: "@ai-sdk/openai-compatible",
          name: "Fake",
          options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "fake-key" },
          models: { "fake-model": { name: "Fake Model" } },
        },
      },
    },
    null,
    2,
  );
}

/** `yarp setup opencode --user` into the session's config directory. */
export async function setupOpencode(env: Record<string, string>): Promise<string> {
  const out = await new Deno.Command(join(ROOT, "bin/yarp"), {
    args: ["setup", "opencode", "--user"],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.success ? out.stdout : out.stderr);
  if (!out.success) throw new Error(`yarp setup opencode: ${text}`);
  return text;
}

/** One `opencode run` session of `script` in `fx.project`, with or without YARP. */
export async function opencodeSession(
  install: OpencodeInstall,
  fx: Fixture,
  name: string,
  yarp: YarpMode,
  script: readonly Step[],
): Promise<OpencodeRun> {
  const scratch = join(fx.scratch, name);
  const env = { ...opencodeEnv(scratch), ...(typeof yarp === "object" ? yarp.env : {}) };
  const config = join(env.XDG_CONFIG_HOME, "opencode");
  for (const dir of [config, join(scratch, "tmp"), join(scratch, "state")]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  // What opencode would install into its config directory at start, already there.
  const copy = await new Deno.Command("cp", {
    args: ["-r", join(install.sdk, "node_modules"), join(install.sdk, "package.json"), config],
  }).output();
  if (!copy.success) throw new Error("copying the plugin SDK failed");
  await Deno.writeTextFile(join(fx.project, "opencode.json"), projectConfig(fx.server.port));
  if (yarp === "setup") await setupOpencode(env);
  if (typeof yarp === "object") {
    await Deno.writeTextFile(
      join(config, "opencode.json"),
      JSON.stringify({ plugin: [yarp.plugin] }, null, 2) + "\n",
    );
  }
  await Deno.writeTextFile(fx.server.scriptPath, JSON.stringify(script));
  await Deno.writeTextFile(fx.server.logPath, "");
  const started = performance.now();
  const out = await new Deno.Command(install.bin, {
    args: ["run", "Run the e2e command."],
    cwd: fx.project,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = performance.now() - started;
  await Deno.remove(join(fx.project, "opencode.json"));
  const decoder = new TextDecoder();
  const requests = (await Deno.readTextFile(fx.server.logPath)).split("\n").filter((l) => l)
    .map((line) => JSON.parse(line) as { url: string; body: ChatRequest | null });
  const last = requests.at(-1)?.body;
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
    ms,
    results: (last?.messages ?? []).filter((m) => m.role === "tool").map((m) => textOf(m.content)),
    urls: requests.map((r) => r.url),
    dataDir: join(env.XDG_DATA_HOME, "opencode"),
    env,
  };
}

/** One bash call's state as opencode stored it (its `part` row), in call order. */
export interface StoredCall {
  readonly command: string;
  readonly status: string;
  readonly output?: string;
  readonly error?: string;
  readonly metadata?: { exit?: number | null; truncated?: boolean; outputPath?: string };
}

/** The bash calls in a session's `opencode.db`, read-only, in part order. */
export function storedCalls(run: OpencodeRun): StoredCall[] {
  const db = new DatabaseSync(join(run.dataDir, "opencode.db"), { readOnly: true });
  try {
    const rows = db.prepare("SELECT data FROM part ORDER BY session_id, id").all() as {
      data: string;
    }[];
    return rows.map((row) => JSON.parse(row.data)).filter((d) =>
      d.type === "tool" && d.tool === "bash"
    )
      .map((d) => ({
        command: d.state.input.command,
        status: d.state.status,
        output: d.state.output,
        error: d.state.error,
        metadata: d.state.metadata,
      }));
  } finally {
    db.close();
  }
}

interface ChatRequest {
  messages?: { role?: string; content?: unknown }[];
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return Array.isArray(content)
    ? content.map((part: { text?: string }) => part.text ?? "").join("")
    : "";
}
