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
import { baseEnv, npmInstall, ROOT } from "./_pi_e2e.ts";
import type { Fixture, Step } from "./_hosts_e2e.ts";

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
  yarp: boolean,
  script: readonly Step[],
): Promise<OpencodeRun> {
  const scratch = join(fx.scratch, name);
  const env = opencodeEnv(scratch);
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
  if (yarp) await setupOpencode(env);
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
  };
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
