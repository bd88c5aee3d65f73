/**
 * Authors the rule fixtures under `fixtures/` (run by hand, never by tests).
 *
 * For every `reduce` rule of the built-in source pack it writes nine cases
 * (`success`, `failure`, `near-miss`, `short-exact`, `middle-line`,
 * `long-line`, `empty`, `separate-streams`, `invalid-utf8`), and for every
 * `passthrough` guard one `guard` case, to `fixtures/<rule-id>/<case>.json`.
 *
 * Inputs are made here, never copied from elsewhere: real tools (git, grep,
 * find, ls, make and cmake with gcc, cargo, pytest, npm with node --test, and
 * vitest and jest at pinned versions that `npm install` fetches from the npm
 * registry, the only step that needs the network) run over files,
 * repositories, Makefiles, crates and packages this script creates in a
 * temporary directory; tools that are not installed (go, tsc, rg, pnpm, yarn,
 * tree, and `ls --zero` of a newer coreutils) get realistic output written by
 * the generators below. Recorded
 * output is made deterministic: fixed commit dates, fixed names, the
 * temporary directory replaced by `/home/dev/demo`, and elapsed times
 * replaced by fixed values (see `Normalizer`).
 *
 * Expected outputs come from the real code: the outcome and rule from a
 * registry over the source pack loaded with `loadSourcePack("rules")`, and
 * the reduced bytes and counts from `createStreamReducer` finished with the
 * fixture's exit code and recovery `{kind: "none"}`. The script then checks
 * each case's purpose (a `success` case really changed, a `short-exact`
 * case really did not, …) and refuses to write a fixture that misses it.
 *
 * Regenerated expected outputs are a behaviour change: review the diff
 * before committing (docs/fixtures.md).
 *
 * Usage: deno run -A scripts/make_fixtures.ts [--only PREFIX]… [--check]
 *   --only PREFIX  build only fixtures whose rule id starts with PREFIX
 *   --check        write nothing; report fixtures that would change
 *   --keep-temp    keep the temporary directory and print its path
 *   --out DIR      write the fixtures under DIR instead of fixtures/ (to diff a run)
 */
import { Buffer } from "node:buffer";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatDiagnostic } from "../lib/rules/diagnostics.ts";
import { validateFixtureText } from "../lib/rules/fixture.ts";
import type { ReductionRule, Rule, RulePack } from "../lib/rules/model.ts";
import {
  createRuleRegistry,
  type RuleRegistry,
  ruleSourceFromPack,
} from "../lib/rules/registry.ts";
import { loadSourcePack } from "../lib/rules/source_pack.ts";
import { createStreamReducer } from "../lib/reduce/mod.ts";
import { isDiagnosticLine } from "../lib/corpus/facts.ts";
import {
  GUARDS_WITHOUT_SHADOW,
  isUtf8,
  MIDDLE_LINE_LOST,
  ONE_STREAM_RULES,
  REDUCE_CASES,
  textLines,
  TRANSFORM_CASES,
} from "./fixture_policy.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = join(ROOT, "fixtures");
/** What recorded output says instead of the temporary directory. */
const ALIAS = "/home/dev/demo";

/** A case name: one of {@link REDUCE_CASES}, `guard` or `transform`. */
type CaseName = typeof REDUCE_CASES[number] | "guard" | "transform";

/** One recorded command result: argv, exit code and exact stream bytes. */
interface Sample {
  readonly argv: readonly string[];
  readonly exitCode: number;
  readonly stdout: Uint8Array;
  readonly stderr: Uint8Array;
}

/** A sample filed under a rule's fixture directory and a case name. */
interface Draft {
  readonly rule: string;
  readonly name: CaseName;
  readonly sample: Sample;
}

// ---------------------------------------------------------------------------
// Bytes and text
// ---------------------------------------------------------------------------

const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** UTF-8 bytes of the concatenated parts. */
function bytes(...parts: (string | Uint8Array)[]): Uint8Array {
  const chunks = parts.map((part) => typeof part === "string" ? encoder.encode(part) : part);
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Each byte as one code unit 0–255, so regex edits keep every other byte. */
function latin1(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("latin1");
}

/** The inverse of {@link latin1}. */
function fromLatin1(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "latin1"));
}

/** `count` lines made by `line(i)` for i = 1…count, each ending in `\n`. */
function lines(count: number, line: (i: number) => string): string {
  let out = "";
  for (let i = 1; i <= count; i++) out += line(i) + "\n";
  return out;
}

/** `n` zero-padded to `width` digits. */
function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/** A small deterministic PRNG (mulberry32). */
class Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    let t = (this.#state += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [low, high]. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }
  /** One element of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}

const NOUNS = [
  "config",
  "session",
  "token",
  "cache",
  "router",
  "queue",
  "record",
  "payload",
  "schema",
  "buffer",
  "client",
  "ledger",
  "invoice",
  "account",
  "report",
  "channel",
  "cursor",
  "index",
  "manifest",
  "metric",
] as const;
const VERBS = [
  "parse",
  "load",
  "store",
  "render",
  "validate",
  "merge",
  "resolve",
  "fetch",
  "encode",
  "decode",
  "flush",
  "apply",
  "compute",
  "format",
  "collect",
] as const;

/** `word` with its first letter upper-cased. */
function capitalize(word: string): string {
  return word[0].toUpperCase() + word.slice(1);
}

/** A TypeScript-looking module of roughly `functions * 8` lines. */
function tsModule(seed: number, functions: number, todo = false): string {
  const random = new Random(seed);
  const noun = NOUNS[seed % NOUNS.length];
  const type = `${capitalize(noun)}Record`;
  let text = `import { assert } from "../util/assert.ts";\n\n`;
  text += `export interface ${type} {\n  id: string;\n  size: number;\n  tags: string[];\n}\n`;
  for (let f = 0; f < functions; f++) {
    const verb = VERBS[(seed + f) % VERBS.length];
    const name = `${verb}${capitalize(noun)}${f === 0 ? "" : f}`;
    const limit = random.int(2, 4096);
    text += `\nexport function ${name}(input: ${type}): number {\n`;
    if (todo && random.next() < 0.5) {
      text += `  // TODO: handle ${random.pick(NOUNS)} overflow above ${limit} bytes\n`;
    }
    text += `  assert(input.size <= ${limit}, "${noun} too large");\n`;
    text += `  const total = input.tags.reduce((sum, tag) => sum + tag.length, ${f});\n`;
    text += `  return total * ${random.int(2, 9)} + input.size;\n}\n`;
  }
  return text;
}

// ---------------------------------------------------------------------------
// Running real tools
// ---------------------------------------------------------------------------

/** Edits recorded output (as {@link latin1} text) to make it deterministic. */
type Normalizer = (text: string) => string;

/** Elapsed-time forms of the tools run here, replaced by fixed values. */
const TIMINGS: readonly Normalizer[] = [
  // cargo: "Finished `dev` profile [...] target(s) in 1.23s", test "finished in 0.00s"
  (t) => t.replace(/(target\(s\) in )\d+(?:\.\d+)?m?s/g, (_, a) => `${a}0.42s`),
  (t) => t.replace(/(finished in )\d+\.\d+s/g, (_, a) => `${a}0.01s`),
  // node --test: "duration_ms: 1.234", "duration_ms 12.3", "(1.234ms)"
  (t) => t.replace(/(duration_ms:? )\d+(?:\.\d+)?/g, (_, a) => `${a}1.5`),
  (t) => t.replace(/\(\d+(?:\.\d+)?ms\)/g, "(1.5ms)"),
  // npm: "added 3 packages in 2s", "up to date, audited 4 packages in 150ms"
  (t) =>
    t.replace(
      /((?:added|removed|changed|audited) \d+ packages?(?:, [^\n]*?)? in |up to date(?:, audited \d+ packages?)? in )\d+(?:\.\d+)?m?s/g,
      (_, a) => `${a}412ms`,
    ),
  // Rust test threads: "thread 'tests::x' (20834) panicked at"
  (t) => t.replace(/(thread '[^'\n]*' )\(\d+\)/g, (_, a) => `${a}(7)`),
  (t) => t.replace(/\d{4}-\d\d-\d\dT\d\d_\d\d_\d\d_\d{3}Z/g, "2024-05-01T10_00_00_000Z"),
];

/** A scratch directory and the fixed environment every tool runs with. */
class Workspace {
  readonly root: string;
  readonly env: Record<string, string>;

  constructor(root: string) {
    this.root = root;
    const real = (name: string, fallback: string) => Deno.env.get(name) ?? fallback;
    const home = real("HOME", "/root");
    this.env = {
      PATH: real("PATH", "/usr/bin:/bin"),
      HOME: join(root, ".home"),
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      TZ: "UTC",
      TERM: "dumb",
      NO_COLOR: "1",
      RUSTUP_HOME: real("RUSTUP_HOME", join(home, ".rustup")),
      CARGO_HOME: real("CARGO_HOME", join(home, ".cargo")),
      PYENV_ROOT: real("PYENV_ROOT", join(home, ".pyenv")),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: join(root, ".gitconfig"),
      CARGO_NET_OFFLINE: "true",
      CARGO_TERM_COLOR: "never",
      CARGO_TERM_PROGRESS_WHEN: "never",
      CARGO_BUILD_JOBS: "1",
      RUST_TEST_THREADS: "1",
      RUST_BACKTRACE: "0",
      PYTHONDONTWRITEBYTECODE: "1",
      PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1",
      PYTEST_ADDOPTS: "-p no:cacheprovider",
      npm_config_cache: join(root, ".npm-cache"),
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
      npm_config_audit: "false",
      NODE_OPTIONS: "",
    };
  }

  /** The absolute path of `rel`. */
  path(rel: string): string {
    return join(this.root, rel);
  }

  /** Writes a file, creating its directories. */
  async write(rel: string, content: string | Uint8Array): Promise<void> {
    const path = this.path(rel);
    await Deno.mkdir(dirname(path), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.writeFile(path, content);
  }

  /**
   * Runs `argv` in `cwd` (relative to the root) and returns the sample with
   * the root path replaced by {@link ALIAS} and the normalizers applied.
   * With `interruptAfterMs`, a program that would run on (a watch mode) gets
   * SIGINT after that long, as a user's Ctrl-C.
   */
  async run(
    argv: readonly string[],
    options: {
      cwd?: string;
      env?: Record<string, string>;
      normalize?: Normalizer[];
      interruptAfterMs?: number;
    } = {},
  ): Promise<Sample> {
    // Through sh so the program sees argv[0] as typed (make's $(MAKE), usage lines).
    const child = new Deno.Command("/bin/sh", {
      args: ["-c", 'exec "$@"', "sh", ...argv],
      cwd: this.path(options.cwd ?? "."),
      env: { ...this.env, ...options.env },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      // Its own process group, so an interrupt reaches every process, as a terminal's does.
      detached: options.interruptAfterMs !== undefined,
    }).spawn();
    const timer = options.interruptAfterMs === undefined
      ? undefined
      : setTimeout(() => Deno.kill(-child.pid, "SIGINT"), options.interruptAfterMs);
    const output = await child.output();
    clearTimeout(timer);
    const clean = (data: Uint8Array) => {
      let text = latin1(data).replaceAll(this.root, ALIAS);
      for (const normalize of [...TIMINGS, ...(options.normalize ?? [])]) text = normalize(text);
      return fromLatin1(text);
    };
    return {
      argv: [...argv],
      exitCode: output.signal === null ? output.code : 128 + signalNumber(output.signal),
      stdout: clean(output.stdout),
      stderr: clean(output.stderr),
    };
  }

  /** Runs a setup command and throws when it fails. */
  async exec(argv: readonly string[], cwd = ".", env: Record<string, string> = {}): Promise<void> {
    const sample = await this.run(argv, { cwd, env });
    if (sample.exitCode !== 0) {
      throw new Error(
        `setup failed (${sample.exitCode}): ${argv.join(" ")}\n${latin1(sample.stderr)}`,
      );
    }
  }
}

/** The number of a signal that can end a child here (0 for others). */
function signalNumber(signal: Deno.Signal): number {
  const numbers: Partial<Record<Deno.Signal, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGKILL: 9,
    SIGSEGV: 11,
    SIGPIPE: 13,
    SIGTERM: 15,
  };
  return numbers[signal] ?? 0;
}

/** A sample written by hand for a tool that is not installed here. */
function written(
  argv: readonly string[],
  exitCode: number,
  stdout: string | Uint8Array,
  stderr: string | Uint8Array = "",
): Sample {
  return { argv, exitCode, stdout: bytes(stdout), stderr: bytes(stderr) };
}

// ---------------------------------------------------------------------------
// git: repositories with fixed authors and commit dates
// ---------------------------------------------------------------------------

const AUTHORS = [
  ["Ada Lovelace", "ada@example.com"],
  ["Grace Hopper", "grace@example.com"],
  ["Alan Turing", "alan@example.com"],
] as const;
/** 2024-03-01T09:00:00Z: the first commit's date; each commit is 41 minutes later. */
const EPOCH = 1_709_283_600;

/** A repository under the workspace whose commits have fixed authors and dates. */
class GitRepo {
  readonly ws: Workspace;
  readonly dir: string;
  #tick = 0;

  private constructor(ws: Workspace, dir: string) {
    this.ws = ws;
    this.dir = dir;
  }

  /** `git init -b main` in a new directory `dir`. */
  static async create(ws: Workspace, dir: string): Promise<GitRepo> {
    await Deno.mkdir(ws.path(dir), { recursive: true });
    await ws.exec(["git", "init", "-q", "-b", "main"], dir);
    return new GitRepo(ws, dir);
  }

  /** Author, committer and dates of the next commit. */
  env(): Record<string, string> {
    const [name, email] = AUTHORS[this.#tick % AUTHORS.length];
    const date = `${EPOCH + this.#tick * 2460} +0000`;
    return {
      GIT_AUTHOR_NAME: name,
      GIT_AUTHOR_EMAIL: email,
      GIT_COMMITTER_NAME: name,
      GIT_COMMITTER_EMAIL: email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    };
  }

  /** Writes a file in the work tree. */
  write(rel: string, content: string | Uint8Array): Promise<void> {
    return this.ws.write(join(this.dir, rel), content);
  }

  /** Removes a file from the work tree. */
  remove(rel: string): Promise<void> {
    return Deno.remove(this.ws.path(join(this.dir, rel)));
  }

  /** Stages everything and commits it with `message` (bytes allowed). */
  async commit(message: string | Uint8Array): Promise<void> {
    const file = this.ws.path(`.commit-message-${this.dir.replaceAll("/", "_")}`);
    await Deno.writeFile(file, bytes(message));
    await this.ws.exec(["git", "add", "-A"], this.dir);
    await this.ws.exec(["git", "commit", "-q", "--allow-empty", "-F", file], this.dir, this.env());
    this.#tick++;
  }

  /** Runs git in the repository and records the sample. */
  git(args: readonly string[], env: Record<string, string> = {}): Promise<Sample> {
    return this.ws.run(["git", ...args], { cwd: this.dir, env: { ...this.env(), ...env } });
  }

  /** Runs a git setup command; throws when it fails. */
  async setup(args: readonly string[]): Promise<void> {
    await this.ws.exec(["git", ...args], this.dir, this.env());
  }

  /** The output of a git command as text (setup helper). */
  async text(args: readonly string[]): Promise<string> {
    const sample = await this.git(args);
    return latin1(sample.stdout).trim();
  }

  /** Deletes the loose object `sha` (to make a real read error). */
  async dropObject(sha: string): Promise<void> {
    await Deno.remove(this.ws.path(join(this.dir, ".git/objects", sha.slice(0, 2), sha.slice(2))));
  }

  /** Creates a tag and a branch with the same name at `rev` for each name. */
  async ambiguousRefs(names: readonly string[], rev: (i: number) => string): Promise<void> {
    let input = "";
    for (const [i, name] of names.entries()) {
      const sha = await this.text(["rev-parse", rev(i)]);
      input += `create refs/tags/${name} ${sha}\ncreate refs/heads/${name} ${sha}\n`;
    }
    const file = this.ws.path(`.refs-${this.dir.replaceAll("/", "_")}`);
    await Deno.writeTextFile(file, input);
    await this.ws.exec(["sh", "-c", `git update-ref --stdin < '${file}'`], this.dir);
  }
}

/** A commit message: subject plus a wrapped body of one to three lines. */
function commitMessage(random: Random): string {
  const area = random.pick(NOUNS);
  const other = random.pick(NOUNS);
  const subject = random.pick([
    `Fix ${area} parsing when the input is empty`,
    `Add ${area} validation to the ${other} loader`,
    `Refactor the ${area} store to use a ring buffer`,
    `Speed up ${area} lookup by caching the ${other} index`,
    `Document the ${area} retention policy`,
    `Handle ${area} timeouts while ${random.pick(VERBS)}ing ${other}s`,
    `Rename ${area}Id to ${other}Key in the public API`,
  ]);
  const body = [
    `The ${area} module assumed every ${other} had been validated before it`,
    `reached the store. That is not true for records replayed from the`,
    `journal, so validate them again here and count the rejects.`,
  ].slice(0, random.int(1, 3));
  return `${subject}\n\n${body.join("\n")}\n`;
}

/** A repository with `count` commits, each adding one function to one of 24 modules. */
async function historyRepo(
  ws: Workspace,
  dir: string,
  count: number,
  message: (i: number, random: Random) => string | Uint8Array = (_, r) => commitMessage(r),
  config: Record<string, string> = {},
): Promise<GitRepo> {
  const repo = await GitRepo.create(ws, dir);
  for (const [key, value] of Object.entries(config)) await repo.setup(["config", key, value]);
  const random = new Random(count * 7919 + dir.length);
  const modules = Array.from({ length: 24 }, (_, i) => tsModule(i + 1, 2));
  for (const [i, text] of modules.entries()) await repo.write(`src/mod_${pad(i + 1)}.ts`, text);
  await repo.write("README.md", "# demo\n\nA small service used to exercise YARP.\n");
  await repo.commit("Initial import\n");
  for (let i = 1; i < count; i++) {
    const index = random.int(0, modules.length - 1);
    modules[index] += `\nexport const LIMIT_${i} = ${random.int(10, 9999)};\n`;
    await repo.write(`src/mod_${pad(index + 1)}.ts`, modules[index]);
    await repo.commit(message(i, random));
  }
  return repo;
}

/** A repository with `files` committed modules of `functions` functions each. */
async function modulesRepo(
  ws: Workspace,
  dir: string,
  files: number,
  functions: number,
): Promise<GitRepo> {
  const repo = await GitRepo.create(ws, dir);
  for (let i = 1; i <= files; i++) {
    await repo.write(`src/mod_${pad(i)}.ts`, tsModule(i, functions));
  }
  await repo.write("README.md", "# demo\n");
  await repo.commit("Initial import\n");
  return repo;
}

/** Edits module `i` of a {@link modulesRepo}: changes every third return line. */
function editedModule(i: number, functions: number, extra = ""): string {
  let n = 0;
  return tsModule(i, functions).replace(/return total \* (\d)/g, (line, k) => {
    n++;
    return n % 3 === 1 ? `return total * ${Number(k) + 1}${extra}` : line;
  });
}

/** A latin-1 line (not UTF-8) with a NUL byte, as legacy data files hold. */
function legacyLine(i: number): Uint8Array {
  return bytes(
    `${pad(i, 3)};Caf`,
    new Uint8Array([0xe9]),
    ` cr`,
    new Uint8Array([0xe8]),
    "me;",
    new Uint8Array([0]),
    `;${i * 7}\n`,
  );
}

/** git/log: `git log` over generated histories (one broken, one latin-1). */
async function gitLogCases(ws: Workspace): Promise<Draft[]> {
  const rule = "git/log";
  const history = await historyRepo(ws, "git-log/history", 64);
  const broken = await historyRepo(ws, "git-log/broken", 64);
  await broken.dropObject(await broken.text(["rev-parse", "HEAD~30"]));
  const middle = await historyRepo(
    ws,
    "git-log/middle",
    64,
    (i, random) =>
      i === 32
        ? 'Revert "Check token expiry before refresh"\n\nThis reverts commit 4f1c2a9.\n\n' +
          "error: the check rejected valid tokens, so the expiry bug is open again;\n" +
          "do not deploy before #412 lands.\n"
        : commitMessage(random),
  );
  const long = await historyRepo(
    ws,
    "git-log/long",
    6,
    (i, random) =>
      i === 3
        ? "Pin the allowed origins\n\nAllowed: " +
          Array.from({ length: 120 }, (_, k) => `https://app-${k}.example.com`).join(",") + "\n"
        : commitMessage(random),
  );
  const ambiguous = await historyRepo(ws, "git-log/ambiguous", 64);
  const names = Array.from({ length: 150 }, (_, i) => `rc${i + 1}`);
  await ambiguous.ambiguousRefs(names, (i) => `HEAD~${i % 60}`);
  // A legacy repository that stores and prints latin-1 messages (no re-encoding).
  const legacy = await historyRepo(
    ws,
    "git-log/legacy",
    120,
    (i) => bytes(`Import ledger batch ${i} from Caf`, new Uint8Array([0xe9]), " Nord\n"),
    {
      "i18n.commitEncoding": "ISO-8859-1",
      "i18n.logOutputEncoding": "ISO-8859-1",
    },
  );
  return [
    { rule, name: "success", sample: await history.git(["log"]) },
    { rule, name: "failure", sample: await broken.git(["log"]) },
    { rule, name: "near-miss", sample: await history.git(["reflog", "--stat"]) },
    { rule, name: "short-exact", sample: await history.git(["log", "--oneline", "-5"]) },
    { rule, name: "middle-line", sample: await middle.git(["log"]) },
    { rule, name: "long-line", sample: await long.git(["log"]) },
    {
      rule,
      name: "empty",
      sample: await history.git(["log", "--author=nobody@example.invalid"]),
    },
    { rule, name: "separate-streams", sample: await ambiguous.git(["log", ...names]) },
    {
      rule,
      name: "invalid-utf8",
      sample: await legacy.git(["log", "--format=%h%x00%an%x00%s"]),
    },
  ];
}

/** git/diff: `git diff` over modified work trees. */
async function gitDiffCases(ws: Workspace): Promise<Draft[]> {
  const rule = "git/diff";
  const big = await modulesRepo(ws, "git-diff/big", 40, 8);
  for (let i = 1; i <= 30; i++) await big.write(`src/mod_${pad(i)}.ts`, editedModule(i, 8));
  const check = await modulesRepo(ws, "git-diff/check", 80, 6);
  for (let i = 1; i <= 75; i++) {
    const text = tsModule(i, 6).replace(/(return total \* \d+ \+ input\.size;)/g, "$1   ");
    await check.write(`src/mod_${pad(i)}.ts`, text);
  }
  const small = await modulesRepo(ws, "git-diff/small", 3, 2);
  await small.write("src/mod_02.ts", editedModule(2, 2));
  const middle = await modulesRepo(ws, "git-diff/middle", 40, 8);
  for (let i = 1; i <= 30; i++) {
    const extra = i === 15 ? ';\n  throw new Error("ledger totals out of balance")' : "";
    await middle.write(`src/mod_${pad(i)}.ts`, editedModule(i, 8, extra));
  }
  const long = await modulesRepo(ws, "git-diff/long", 2, 2);
  const json = (v: number) =>
    JSON.stringify({
      version: v,
      routes: Array.from({ length: 90 }, (_, k) => ({ path: `/api/v${v}/r${k}`, auth: k % 2 })),
    }) + "\n";
  await long.write("config/routes.json", json(1));
  await long.commit("Add routes\n");
  await long.write("config/routes.json", json(2));
  const crlf = await modulesRepo(ws, "git-diff/crlf", 40, 8);
  for (let i = 1; i <= 30; i++) await crlf.write(`src/mod_${pad(i)}.ts`, editedModule(i, 8));
  const legacy = await GitRepo.create(ws, "git-diff/legacy");
  const table = (n: number, shift: number) =>
    bytes(...Array.from({ length: 20 }, (_, k) => legacyLine(n * 100 + k + shift * (k % 2))));
  for (let n = 1; n <= 20; n++) await legacy.write(`data/batch_${pad(n)}.csv`, table(n, 0));
  await legacy.commit("Import legacy batches\n");
  for (let n = 1; n <= 20; n++) await legacy.write(`data/batch_${pad(n)}.csv`, table(n, 1));
  return [
    { rule, name: "success", sample: await big.git(["diff"]) },
    { rule, name: "failure", sample: await check.git(["diff", "--check"]) },
    { rule, name: "near-miss", sample: await big.git(["diff-index", "-p", "HEAD"]) },
    { rule, name: "short-exact", sample: await small.git(["diff"]) },
    { rule, name: "middle-line", sample: await middle.git(["diff"]) },
    { rule, name: "long-line", sample: await long.git(["diff"]) },
    { rule, name: "empty", sample: await cleanRepoRun(ws, "git-diff/clean", ["diff"]) },
    {
      rule,
      name: "separate-streams",
      sample: await crlf.git(["-c", "core.autocrlf=true", "diff"]),
    },
    { rule, name: "invalid-utf8", sample: await legacy.git(["diff", "-a"]) },
  ];
}

/** Runs `args` in a fresh clean repository with a few commits. */
async function cleanRepoRun(
  ws: Workspace,
  dir: string,
  args: readonly string[],
): Promise<Sample> {
  const repo = await historyRepo(ws, dir, 4);
  return repo.git(args);
}

/** git/show: `git show` of generated commits (one with a missing blob). */
async function gitShowCases(ws: Workspace): Promise<Draft[]> {
  const rule = "git/show";
  const big = await modulesRepo(ws, "git-show/big", 40, 8);
  for (let i = 1; i <= 30; i++) await big.write(`src/mod_${pad(i)}.ts`, editedModule(i, 8));
  await big.commit("Raise the weight of every third total\n\nMeasured on the March ledger.\n");
  const broken = await modulesRepo(ws, "git-show/broken", 40, 8);
  for (let i = 1; i <= 30; i++) await broken.write(`src/mod_${pad(i)}.ts`, editedModule(i, 8));
  await broken.commit("Raise the weight of every third total\n");
  await broken.write("src/mod_31.ts", editedModule(31, 8));
  await broken.commit("Raise the weight of mod_31\n");
  await broken.dropObject(await broken.text(["rev-parse", "HEAD:src/mod_31.ts"]));
  const refs = await historyRepo(ws, "git-show/refs", 4);
  await refs.ambiguousRefs(
    Array.from({ length: 300 }, (_, i) => `v1.${Math.floor(i / 10)}.${i % 10}`),
    () => "HEAD",
  );
  const small = await historyRepo(ws, "git-show/small", 3);
  const middle = await modulesRepo(ws, "git-show/middle", 40, 8);
  for (let i = 1; i <= 30; i++) {
    const extra = i === 15 ? ';\n  throw new Error("ledger totals out of balance")' : "";
    await middle.write(`src/mod_${pad(i)}.ts`, editedModule(i, 8, extra));
  }
  await middle.commit("Raise the weight of every third total\n");
  const long = await modulesRepo(ws, "git-show/long", 2, 2);
  await long.write(
    "public/bundle.min.js",
    Array.from({ length: 400 }, (_, k) => `function f${k}(a){return a*${k}}`).join(";") + "\n",
  );
  await long.commit("Add the minified bundle\n");
  const ambiguous = await historyRepo(ws, "git-show/ambiguous", 64);
  const names = Array.from({ length: 60 }, (_, i) => `rc${i + 1}`);
  await ambiguous.ambiguousRefs(names, (i) => `HEAD~${i}`);
  const legacy = await GitRepo.create(ws, "git-show/legacy");
  await legacy.write("README.md", "# legacy\n");
  await legacy.commit("Start\n");
  for (let n = 1; n <= 30; n++) {
    await legacy.write(
      `data/batch_${pad(n)}.csv`,
      bytes(...Array.from({ length: 20 }, (_, k) => legacyLine(n * 100 + k))),
    );
  }
  await legacy.commit("Import legacy batches\n");
  return [
    { rule, name: "success", sample: await big.git(["show"]) },
    { rule, name: "failure", sample: await broken.git(["show", "HEAD~1", "HEAD"]) },
    { rule, name: "near-miss", sample: await refs.git(["show-ref", "--tags"]) },
    { rule, name: "short-exact", sample: await small.git(["show", "--stat"]) },
    { rule, name: "middle-line", sample: await middle.git(["show"]) },
    { rule, name: "long-line", sample: await long.git(["show"]) },
    { rule, name: "empty", sample: await small.git(["show", "-s", "--format=", "HEAD"]) },
    { rule, name: "separate-streams", sample: await ambiguous.git(["show", ...names]) },
    { rule, name: "invalid-utf8", sample: await legacy.git(["show", "--text"]) },
  ];
}

/** git/status: `git status` of dirty trees, a merge conflict and a missing blob. */
async function gitStatusCases(ws: Workspace): Promise<Draft[]> {
  const rule = "git/status";
  const fill = async (repo: GitRepo) => {
    for (let i = 1; i <= 60; i++) await repo.write(`src/mod_${pad(i)}.ts`, editedModule(i, 2));
    for (let i = 61; i <= 70; i++) await repo.remove(`src/mod_${pad(i)}.ts`);
    // Past the policies' 200 + 50 lines, so success and failure really reduce.
    for (let i = 1; i <= 250; i++) await repo.write(`src/gen_${pad(i, 3)}.ts`, "export {};\n");
  };
  const big = await modulesRepo(ws, "git-status/big", 100, 2);
  await fill(big);
  const broken = await modulesRepo(ws, "git-status/broken", 100, 2);
  await fill(broken);
  await broken.setup(["add", "src/mod_07.ts", "src/mod_31.ts"]);
  await broken.dropObject(await broken.text(["rev-parse", "HEAD:src/mod_31.ts"]));
  const small = await modulesRepo(ws, "git-status/small", 5, 2);
  await small.write("src/mod_02.ts", editedModule(2, 2));
  await small.write("notes.txt", "todo\n");
  const merge = await modulesRepo(ws, "git-status/merge", 220, 1);
  await merge.setup(["checkout", "-q", "-b", "feature"]);
  for (let i = 1; i <= 220; i++) await merge.write(`src/mod_${pad(i)}.ts`, editedModule(i, 1));
  await merge.commit("Raise every weight\n");
  await merge.setup(["checkout", "-q", "main"]);
  await merge.write("src/mod_118.ts", editedModule(118, 1, " + 1"));
  await merge.commit("Offset mod_118\n");
  const merged = await merge.git(["merge", "-q", "feature"]);
  if (merged.exitCode === 0) throw new Error("git-status/merge: expected a conflict");
  for (let i = 1; i <= 60; i++) await merge.write(`src/mod_${pad(i)}.js.map`, "{}\n");
  const deep = await modulesRepo(ws, "git-status/deep", 2, 2);
  const deepPath = Array.from({ length: 12 }, (_, i) => `${"generated_".repeat(20)}${i}`)
    .join("/") + "/schema.ts";
  await deep.write(deepPath, "export const version = 1;\n");
  await deep.commit("Add generated schema\n");
  await deep.write(deepPath, "export const version = 2;\n");
  const clean = await modulesRepo(ws, "git-status/clean", 3, 2);
  const odd = await modulesRepo(ws, "git-status/odd", 100, 2);
  await fill(odd);
  await odd.setup(["update-ref", "refs/heads/HEAD", "HEAD"]);
  const legacy = await modulesRepo(ws, "git-status/legacy", 3, 2);
  // Deno paths are UTF-8 strings, so the shell makes the latin-1 names.
  await ws.exec([
    "sh",
    "-c",
    'for i in $(seq 1 300); do printf "1;2;3\\n" > "$(printf "export_Caf\\351_%03d.csv" "$i")"; done',
  ], "git-status/legacy");
  return [
    { rule, name: "success", sample: await big.git(["status"]) },
    { rule, name: "failure", sample: await broken.git(["status", "-v"]) },
    {
      rule,
      name: "near-miss",
      sample: await big.git(["ls-files", "--modified", "--others", "--exclude-standard"]),
    },
    { rule, name: "short-exact", sample: await small.git(["status"]) },
    { rule, name: "middle-line", sample: await merge.git(["status"]) },
    { rule, name: "long-line", sample: await deep.git(["status"]) },
    { rule, name: "empty", sample: await clean.git(["status", "--short"]) },
    { rule, name: "separate-streams", sample: await odd.git(["status"]) },
    {
      rule,
      name: "invalid-utf8",
      sample: await legacy.git(["-c", "core.quotePath=false", "status"]),
    },
  ];
}

// ---------------------------------------------------------------------------
// A project tree for grep, rg, find, ls and cat
// ---------------------------------------------------------------------------

const AREAS = ["auth", "billing", "catalog", "orders", "reports", "search", "shipping", "users"];

/** The project tree's text files: `src/<area>/<noun>_<n>.ts`, docs and a README. */
function projectFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const [a, area] of AREAS.entries()) {
    for (let n = 1; n <= 10; n++) {
      let text = tsModule(a * 100 + n, 4, true);
      if (area === "shipping" && n === 3) {
        text = text.replace(
          "export function",
          "// TODO(security): the refund path skips the signature check; fix before release\n" +
            "export function",
        );
      }
      files.set(`src/${area}/${NOUNS[(a + n) % NOUNS.length]}_${pad(n)}.ts`, text);
    }
  }
  files.set(
    "README.md",
    "# demo\n\nTODO: describe the deployment.\nRun `make` to build.\nTODO: list the owners.\n",
  );
  for (let n = 1; n <= 6; n++) files.set(`docs/guide_${n}.md`, `# Guide ${n}\n\nTODO: write.\n`);
  files.set(
    "public/bundle.min.js",
    `/*! demo version 2.4.1 */` +
      Array.from({ length: 220 }, (_, k) => `function f${k}(a){return a*${k}}`).join(";") +
      `;var version="2.4.1";\n`,
  );
  return [...files.entries()].sort(([a], [b]) => a < b ? -1 : 1).reduce(
    (sorted, [k, v]) => sorted.set(k, v),
    new Map<string, string>(),
  );
}

/** A binary asset that happens to contain `TODO`. */
function binaryAsset(n: number): Uint8Array {
  return bytes(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, n]), `TODO asset ${n}\n`);
}

/** Legacy records: latin-1 text with NUL bytes, 200 lines mentioning TODO. */
function legacyRecords(): Uint8Array {
  return bytes(
    ...Array.from(
      { length: 200 },
      (_, i) => bytes(`${pad(i + 1, 3)} TODO caf`, new Uint8Array([0xe9, 0]), ` r${i}\n`),
    ),
  );
}

/**
 * Writes the project tree at `dir`: a git repository whose first commit holds the text files;
 * the binary assets, the icons, the latin-1 records and an empty directory are left untracked.
 */
async function projectRepo(ws: Workspace, dir: string): Promise<GitRepo> {
  const repo = await GitRepo.create(ws, dir);
  for (const [path, text] of projectFiles()) await repo.write(path, text);
  await repo.commit("Import the project\n");
  for (let n = 1; n <= 150; n++) await repo.write(`assets/img_${pad(n, 3)}.png`, binaryAsset(n));
  for (let n = 1; n <= 400; n++) await repo.write(`assets/icons/icon_${pad(n, 3)}.svg`, "<svg/>\n");
  await repo.write("data/legacy.dat", legacyRecords());
  await Deno.mkdir(ws.path(join(dir, "empty")), { recursive: true });
  return repo;
}

/** Writes the project tree (a git repository) at `dir` and returns its text files. */
async function projectTree(ws: Workspace, dir: string): Promise<Map<string, string>> {
  await projectRepo(ws, dir);
  return projectFiles();
}

/** Lines of `text` containing `needle`, as `[lineNumber, line]`. */
function matches(text: string, needle: string): [number, string][] {
  return text.split("\n").flatMap((line, i) => line.includes(needle) ? [[i + 1, line]] : []) as [
    number,
    string,
  ][];
}

/** What `rg -n NEEDLE` prints for these files (written by hand: rg is not installed here). */
function rgOutput(files: Map<string, string>, needle: string, paths = true): string {
  let out = "";
  for (const [path, text] of files) {
    for (const [n, line] of matches(text, needle)) {
      out += `${paths ? `${path}:` : ""}${n}:${line}\n`;
    }
  }
  return out;
}

/** search/grep: GNU grep over the project tree. */
async function grepCases(ws: Workspace): Promise<Draft[]> {
  const rule = "search/grep";
  await projectTree(ws, "grep");
  const run = (argv: string[]) => ws.run(argv, { cwd: "grep" });
  // File operands as a shell glob expands them (sorted): `grep -r` would print in the file
  // system's directory order, which differs between machines.
  const src = [...projectFiles().keys()].filter((path) => path.startsWith("src/"));
  const assets = Array.from({ length: 150 }, (_, n) => `assets/img_${pad(n + 1, 3)}.png`);
  return [
    { rule, name: "success", sample: await run(["grep", "-n", "--color=always", "TODO", ...src]) },
    { rule, name: "failure", sample: await run(["grep", "-n", "TODO", ...src, "missing.txt"]) },
    // zgrep: a sibling tool (grep over compressed or plain files) with grep's output.
    { rule, name: "near-miss", sample: await run(["zgrep", "-n", "TODO", ...src]) },
    { rule, name: "short-exact", sample: await run(["grep", "-n", "TODO", "README.md"]) },
    { rule, name: "middle-line", sample: await run(["grep", "-n", "TODO", ...src]) },
    {
      rule,
      name: "long-line",
      sample: await run(["grep", "-n", "version", "public/bundle.min.js"]),
    },
    { rule, name: "empty", sample: await run(["grep", "-rn", "NO_SUCH_MARKER", "src"]) },
    {
      rule,
      name: "separate-streams",
      sample: await run(["grep", "-n", "TODO", ...src, ...assets]),
    },
    {
      rule,
      name: "invalid-utf8",
      sample: await run(["grep", "-a", "-n", "TODO", "data/legacy.dat"]),
    },
  ];
}

/** NUL-terminated records of two lines each, every one mentioning TODO. */
function nulRecords(): Uint8Array {
  return bytes(...Array.from({ length: 300 }, (_, i) => `record ${i}\nTODO: check ${i}\0`));
}

/** The grep guards and `cat`: exact forms over the project tree. */
async function grepGuardCases(ws: Workspace): Promise<Draft[]> {
  await projectTree(ws, "grep-guards");
  await ws.write(
    "grep-guards/data/records.txt",
    nulRecords(),
  );
  const run = (argv: string[]) => ws.run(argv, { cwd: "grep-guards" });
  const src = [...projectFiles().keys()].filter((path) => path.startsWith("src/"));
  return [
    {
      rule: "search/guard-grep-count",
      name: "guard",
      sample: await run(["grep", "-rc", "TODO", "src"]),
    },
    {
      rule: "search/guard-grep-null-data",
      name: "guard",
      sample: await run(["grep", "-z", "TODO", "data/records.txt"]),
    },
    {
      rule: "search/guard-grep-null-long",
      name: "guard",
      sample: await run(["grep", "-rn", "--null", "TODO", "src"]),
    },
    {
      rule: "search/guard-grep-null",
      name: "guard",
      sample: await run(["grep", "-rnZ", "TODO", "src"]),
    },
    {
      rule: "search/guard-grep-count-long",
      name: "guard",
      // File operands as a shell glob expands them (sorted), not `-r`'s directory order.
      sample: await run(["grep", "--count", "TODO", ...src]),
    },
    {
      rule: "search/guard-grep-null-data-long",
      name: "guard",
      sample: await run(["grep", "--null-data", "TODO", "data/records.txt"]),
    },
  ];
}

/**
 * The project tree for `git grep`, committed whole (the binary assets and the latin-1 records
 * too), with `git gr` as an alias of `git grep -n`.
 */
async function gitGrepRepo(ws: Workspace, dir: string): Promise<GitRepo> {
  const repo = await projectRepo(ws, dir);
  await repo.commit("Add the assets and the legacy records\n");
  await repo.setup(["config", "alias.gr", "grep -n"]);
  return repo;
}

/**
 * A repository of two commits of the project's sources whose objects are partly deleted: the
 * blobs of `src/orders` and `src/reports`, and the second commit's `src/users` tree. One grep
 * thread (`grep.threads`), so the errors and the output before a fatal read are in a fixed order.
 */
async function brokenGrepRepo(ws: Workspace, dir: string): Promise<GitRepo> {
  const repo = await GitRepo.create(ws, dir);
  await repo.setup(["config", "grep.threads", "1"]);
  const files = [...projectFiles()].filter(([path]) => path.startsWith("src/"));
  for (const [path, text] of files) await repo.write(path, text);
  await repo.commit("Import the sources\n");
  const [usersPath, usersText] = files.filter(([path]) => path.startsWith("src/users/"))[0];
  await repo.write(usersPath, usersText + "\n// TODO: drop the v1 user export\n");
  await repo.commit("Mark the v1 user export for removal\n");
  const lost = files.filter(([path]) => /^src\/(?:orders|reports)\//.test(path));
  for (const [path] of lost) await repo.dropObject(await repo.text(["rev-parse", `HEAD:${path}`]));
  await repo.dropObject(await repo.text(["rev-parse", "HEAD:src/users"]));
  return repo;
}

/** search/git-grep: `git grep` over the committed project tree and a repository with lost objects. */
async function gitGrepCases(ws: Workspace): Promise<Draft[]> {
  const rule = "search/git-grep";
  const repo = await gitGrepRepo(ws, "git-grep/project");
  const broken = await brokenGrepRepo(ws, "git-grep/broken");
  return [
    { rule, name: "success", sample: await repo.git(["grep", "-n", "--color=always", "TODO"]) },
    // The second commit's `src/users` tree is lost: the first commit's matches, the second's up
    // to `src/users`, then a fatal read (exit 128).
    { rule, name: "failure", sample: await broken.git(["grep", "-n", "TODO", "HEAD~1", "HEAD"]) },
    // `git gr`: an alias of `git grep -n`, so the subcommand is not `grep`.
    { rule, name: "near-miss", sample: await repo.git(["gr", "TODO"]) },
    {
      rule,
      name: "short-exact",
      sample: await repo.git(["grep", "-n", "TODO", "--", "README.md"]),
    },
    { rule, name: "middle-line", sample: await repo.git(["grep", "-n", "TODO", "--", "src"]) },
    {
      rule,
      name: "long-line",
      sample: await repo.git(["grep", "-n", "version", "--", "public/bundle.min.js"]),
    },
    { rule, name: "empty", sample: await repo.git(["grep", "-n", "NO_SUCH_MARKER"]) },
    // Matches on stdout, an error for each lost blob on stderr (exit 0: some files matched).
    { rule, name: "separate-streams", sample: await broken.git(["grep", "-n", "TODO", "HEAD~1"]) },
    {
      rule,
      name: "invalid-utf8",
      sample: await repo.git(["grep", "-a", "-n", "TODO", "--", "data/legacy.dat"]),
    },
  ];
}

/** The git grep guards: per-file counts (`-c`, `--count`); `-z` and `--null` are git's guards. */
async function gitGrepGuardCases(ws: Workspace): Promise<Draft[]> {
  const repo = await gitGrepRepo(ws, "git-grep-guards");
  return [
    {
      rule: "search/guard-git-grep-count",
      name: "guard",
      sample: await repo.git(["grep", "-Ic", "TODO"]),
    },
    {
      rule: "search/guard-git-grep-count-long",
      name: "guard",
      sample: await repo.git(["grep", "--count", "TODO", "--", "src"]),
    },
  ];
}

/**
 * pipeline/*: the line-preserving transforms and their guards, run with GNU
 * coreutils over a generated log. Written by hand where the real command
 * cannot run here: `tee` (its stdout is its stdin, which the script does
 * not feed) and `tail -f`/`-F`/`--follow` (they never exit), each recording
 * the log's bytes as the stdout the command would print.
 */
async function pipelineCases(ws: Workspace): Promise<Draft[]> {
  const lines: string[] = [];
  for (let i = 0; i < 120; i++) {
    const level = i % 7 === 0 ? "WARN" : "INFO";
    lines.push(`2024-05-0${1 + (i % 9)}\t${level}\tworker-${i % 5} handled request ${i % 40}`);
    if (i % 25 === 24) lines.push("");
  }
  const log = lines.join("\n") + "\n";
  await ws.write("pipeline/app.log", log);
  await ws.write("pipeline/sorted.log", [...lines].sort().join("\n") + "\n");
  await ws.write("pipeline/list0", "app.log\0");
  const run = (argv: string[]) => ws.run(argv, { cwd: "pipeline" });
  const byHand = (argv: string[]): Sample => ({
    argv,
    exitCode: 0,
    stdout: bytes(log),
    stderr: new Uint8Array(),
  });
  const drafts: Draft[] = [
    { rule: "pipeline/cat", name: "transform", sample: await run(["cat", "app.log"]) },
    {
      rule: "pipeline/head",
      name: "transform",
      sample: await run(["head", "-n", "60", "app.log"]),
    },
    {
      rule: "pipeline/tail",
      name: "transform",
      sample: await run(["tail", "-n", "60", "app.log"]),
    },
    { rule: "pipeline/sort", name: "transform", sample: await run(["sort", "app.log"]) },
    { rule: "pipeline/uniq", name: "transform", sample: await run(["uniq", "sorted.log"]) },
    { rule: "pipeline/tee", name: "transform", sample: byHand(["tee", "copy.log"]) },
    {
      rule: "pipeline/guard-tail-follow",
      name: "guard",
      sample: byHand(["tail", "-f", "app.log"]),
    },
    {
      rule: "pipeline/guard-tail-follow-name",
      name: "guard",
      sample: byHand(["tail", "-F", "app.log"]),
    },
    {
      rule: "pipeline/guard-tail-follow-long",
      name: "guard",
      sample: byHand(["tail", "--follow=name", "app.log"]),
    },
  ];
  const guards: [string, string[]][] = [
    ["cat-number", ["cat", "-n", "app.log"]],
    ["cat-number-long", ["cat", "--number", "app.log"]],
    ["cat-number-nonblank", ["cat", "-b", "app.log"]],
    ["cat-number-nonblank-long", ["cat", "--number-nonblank", "app.log"]],
    ["cat-show-all", ["cat", "-A", "app.log"]],
    ["cat-show-all-long", ["cat", "--show-all", "app.log"]],
    ["cat-show-nonprinting", ["cat", "-v", "app.log"]],
    ["cat-show-nonprinting-long", ["cat", "--show-nonprinting", "app.log"]],
    ["cat-show-ends", ["cat", "-E", "app.log"]],
    ["cat-show-ends-long", ["cat", "--show-ends", "app.log"]],
    ["cat-show-tabs", ["cat", "-T", "app.log"]],
    ["cat-show-tabs-long", ["cat", "--show-tabs", "app.log"]],
    ["cat-ends-nonprinting", ["cat", "-e", "app.log"]],
    ["cat-tabs-nonprinting", ["cat", "-t", "app.log"]],
    ["cat-squeeze-blank", ["cat", "-s", "app.log"]],
    ["cat-squeeze-blank-long", ["cat", "--squeeze-blank", "app.log"]],
    ["head-tail-bytes", ["head", "-c", "4000", "app.log"]],
    ["head-tail-bytes-long", ["tail", "--bytes=4000", "app.log"]],
    ["zero-terminated", ["sort", "-z", "app.log"]],
    ["zero-terminated-long", ["head", "--zero-terminated", "app.log"]],
    ["sort-output", ["sort", "-o", "/dev/stdout", "app.log"]],
    ["sort-output-long", ["sort", "--output=/dev/stdout", "app.log"]],
    ["sort-compress-program", ["sort", "--compress-program=gzip", "app.log"]],
    ["sort-files0-from", ["sort", "--files0-from=list0"]],
    ["sort-debug", ["sort", "--debug", "app.log"]],
    ["uniq-count", ["uniq", "-c", "sorted.log"]],
    ["uniq-count-long", ["uniq", "--count", "sorted.log"]],
    ["uniq-group", ["uniq", "--group", "sorted.log"]],
  ];
  for (const [name, argv] of guards) {
    drafts.push({ rule: `pipeline/guard-${name}`, name: "guard", sample: await run(argv) });
  }
  return drafts;
}

/** search/rg: rg output written from the project tree (rg is not installed). */
function rgCases(): Promise<Draft[]> {
  const rule = "search/rg";
  const files = projectFiles();
  const src = new Map([...files].filter(([path]) => path.startsWith("src/")));
  const readme = files.get("README.md")!;
  const bundle = files.get("public/bundle.min.js")!;
  const missing = "rg: missing.txt: No such file or directory (os error 2)\n";
  const links = lines(
    150,
    (i) => `rg: src/links/dead_${pad(i, 3)}.ts: No such file or directory (os error 2)`,
  );
  const legacy = latin1(legacyRecords()).split("\n").slice(0, -1).map((line, i) =>
    `${i + 1}:${line}\n`
  ).join("");
  return Promise.resolve([
    { rule, name: "success", sample: written(["rg", "-n", "TODO"], 0, rgOutput(files, "TODO")) },
    {
      rule,
      name: "failure",
      sample: written(
        ["rg", "-n", "TODO", "src", "missing.txt"],
        2,
        rgOutput(src, "TODO"),
        missing,
      ),
    },
    { rule, name: "near-miss", sample: written(["ag", "TODO", "src"], 0, rgOutput(src, "TODO")) },
    {
      rule,
      name: "short-exact",
      sample: written(
        ["rg", "-n", "TODO", "README.md"],
        0,
        rgOutput(new Map([["README.md", readme]]), "TODO", false),
      ),
    },
    {
      rule,
      name: "middle-line",
      sample: written(["rg", "-n", "TODO", "src"], 0, rgOutput(src, "TODO")),
    },
    {
      rule,
      name: "long-line",
      sample: written(
        ["rg", "-n", "version", "public/bundle.min.js"],
        0,
        rgOutput(new Map([["b", bundle]]), "version", false),
      ),
    },
    { rule, name: "empty", sample: written(["rg", "-n", "NO_SUCH_MARKER"], 1, "") },
    {
      rule,
      name: "separate-streams",
      sample: written(["rg", "-n", "-L", "TODO", "src"], 2, rgOutput(src, "TODO"), links),
    },
    {
      rule,
      name: "invalid-utf8",
      sample: {
        ...written(["rg", "-a", "-n", "TODO", "data/legacy.dat"], 0, ""),
        stdout: fromLatin1(legacy),
      },
    },
  ]);
}

/** The rg guards: count, JSON, NUL-separated and NUL-data forms, written by hand. */
function rgGuardCases(): Promise<Draft[]> {
  const files = projectFiles();
  const counts = [...files].flatMap(([path, text]) => {
    const n = matches(text, "TODO").length;
    return n > 0 ? [`${path}:${n}\n`] : [];
  }).join("");
  let json = "";
  let total = 0;
  let searched = 0;
  let withMatch = 0;
  for (const [path, text] of files) {
    if (!path.startsWith("src/billing/")) continue;
    searched++;
    const found = matches(text, "TODO");
    if (found.length === 0) continue;
    withMatch++;
    const offsets = [0];
    for (const line of text.split("\n")) offsets.push(offsets.at(-1)! + line.length + 1);
    json += JSON.stringify({ type: "begin", data: { path: { text: path } } }) + "\n";
    for (const [n, line] of found) {
      const start = line.indexOf("TODO");
      json += JSON.stringify({
        type: "match",
        data: {
          path: { text: path },
          lines: { text: line + "\n" },
          line_number: n,
          absolute_offset: offsets[n - 1],
          submatches: [{ match: { text: "TODO" }, start, end: start + 4 }],
        },
      }) + "\n";
    }
    total += found.length;
    json += JSON.stringify({
      type: "end",
      data: {
        path: { text: path },
        binary_offset: null,
        stats: {
          elapsed: { secs: 0, nanos: 41200, human: "0.000041s" },
          searches: 1,
          searches_with_match: 1,
          bytes_searched: text.length,
          bytes_printed: 0,
          matched_lines: found.length,
          matches: found.length,
        },
      },
    }) + "\n";
  }
  json += JSON.stringify({
    data: {
      elapsed_total: { human: "0.004518s", nanos: 4518000, secs: 0 },
      stats: {
        bytes_printed: 0,
        bytes_searched: 0,
        elapsed: { human: "0.000000s", nanos: 0, secs: 0 },
        matched_lines: total,
        matches: total,
        searches: searched,
        searches_with_match: withMatch,
      },
    },
    type: "summary",
  }) + "\n";
  return Promise.resolve([
    {
      rule: "search/guard-rg-count-long",
      name: "guard",
      sample: written(["rg", "--count", "TODO"], 0, counts),
    },
    {
      rule: "search/guard-rg-count",
      name: "guard",
      sample: written(["rg", "-c", "TODO"], 0, counts),
    },
    {
      rule: "search/guard-rg-json",
      name: "guard",
      sample: written(["rg", "--json", "TODO", "src/billing"], 0, json),
    },
    {
      rule: "search/guard-rg-null-long",
      name: "guard",
      sample: written(
        ["rg", "--null", "-n", "TODO"],
        0,
        rgOutput(files, "TODO").replace(/^([^:\n]+):/gm, "$1\0"),
      ),
    },
    {
      rule: "search/guard-rg-null",
      name: "guard",
      sample: written(
        ["rg", "-0", "-n", "TODO"],
        0,
        rgOutput(files, "TODO").replace(/^([^:\n]+):/gm, "$1\0"),
      ),
    },
    {
      rule: "search/guard-rg-null-data",
      name: "guard",
      // One file operand and no tty: no path, no line numbers; every record matches and keeps
      // its NUL terminator.
      sample: written(["rg", "--null-data", "TODO", "data/records.txt"], 0, nulRecords()),
    },
  ]);
}

/** list/ls: GNU ls over the project tree. */
async function lsCases(ws: Workspace): Promise<Draft[]> {
  const rule = "list/ls";
  await projectTree(ws, "ls");
  await ws.exec([
    "sh",
    "-c",
    'mkdir legacy && cd legacy && for i in $(seq 1 200); do : > "$(printf "rapport_caf\\351_%03d.txt" "$i")"; done',
  ], "ls");
  const run = (argv: string[]) => ws.run(argv, { cwd: "ls" });
  const missing = Array.from({ length: 60 }, (_, i) => `build/out_${pad(i + 1)}.o`);
  return [
    { rule, name: "success", sample: await run(["ls", "assets/icons"]) },
    { rule, name: "failure", sample: await run(["ls", "assets/icons", "missing-dir"]) },
    { rule, name: "near-miss", sample: await run(["dir", "assets/icons"]) },
    { rule, name: "short-exact", sample: await run(["ls", "docs"]) },
    { rule, name: "middle-line", sample: await run(["ls", "-R", "src", "assets"]) },
    { rule, name: "long-line", sample: await run(["ls", "-m", "-w", "0", "assets/icons"]) },
    { rule, name: "empty", sample: await run(["ls", "empty"]) },
    { rule, name: "separate-streams", sample: await run(["ls", "-1", "assets/icons", ...missing]) },
    { rule, name: "invalid-utf8", sample: await run(["ls", "-1", "legacy"]) },
  ];
}

/**
 * The ls guard: `ls --zero` (GNU coreutils 9.3 and later; older here) ends each entry with NUL
 * instead of a newline and lists one entry per line, so it is written from real `ls -1`.
 */
async function lsGuardCases(ws: Workspace): Promise<Draft[]> {
  await projectTree(ws, "ls-guard");
  const listed = await ws.run(["ls", "-1", "assets/icons"], { cwd: "ls-guard" });
  if (listed.exitCode !== 0) throw new Error("ls-guard: ls -1 failed");
  return [{
    rule: "list/guard-ls-zero",
    name: "guard",
    sample: written(
      ["ls", "--zero", "assets/icons"],
      0,
      listed.stdout.map((byte) => byte === 0x0a ? 0 : byte),
    ),
  }];
}

/** list/find: GNU find over the project tree, a deep path and symlink loops. */
async function findCases(ws: Workspace): Promise<Draft[]> {
  const rule = "list/find";
  await projectTree(ws, "find");
  const deep = Array.from({ length: 12 }, (_, i) => `${"generated_".repeat(20)}${i}`).join("/");
  await ws.write(`find/deep/${deep}/schema.ts`, "export {};\n");
  await ws.exec([
    "sh",
    "-c",
    'mkdir legacy && cd legacy && for i in $(seq 1 200); do : > "$(printf "rapport_caf\\351_%03d.txt" "$i")"; done',
  ], "find");
  await ws.exec([
    "sh",
    "-c",
    "mkdir loops && cd loops && for i in $(seq 1 150); do mkdir d$i && ln -s .. d$i/up; done",
  ], "find");
  const run = (argv: string[]) => ws.run(argv, { cwd: "find" });
  return [
    { rule, name: "success", sample: await run(["find", "src", "assets"]) },
    { rule, name: "failure", sample: await run(["find", "src", "assets", "missing-dir"]) },
    { rule, name: "near-miss", sample: await run(["/usr/bin/find", "src", "assets"]) },
    { rule, name: "short-exact", sample: await run(["find", "docs", "-name", "*.md"]) },
    { rule, name: "middle-line", sample: await run(["find", "src", "assets", "-type", "f"]) },
    { rule, name: "long-line", sample: await run(["find", "deep"]) },
    { rule, name: "empty", sample: await run(["find", ".", "-name", "*.nomatch"]) },
    { rule, name: "separate-streams", sample: await run(["find", "-L", "loops"]) },
    { rule, name: "invalid-utf8", sample: await run(["find", "legacy", "-type", "f"]) },
  ];
}

/** The find guards: -exec, -execdir, -print0, -delete, -printf and -fprint0. */
async function findGuardCases(ws: Workspace): Promise<Draft[]> {
  await projectTree(ws, "find-guards");
  for (let n = 1; n <= 120; n++) await ws.write(`find-guards/tmp/cache_${pad(n, 3)}.tmp`, "x\n");
  const run = (argv: string[]) => ws.run(argv, { cwd: "find-guards" });
  return [
    {
      rule: "list/guard-find-exec",
      name: "guard",
      sample: await run(["find", "src", "-name", "*.ts", "-exec", "grep", "-n", "TODO", "{}", "+"]),
    },
    {
      rule: "list/guard-find-execdir",
      name: "guard",
      sample: await run(["find", "src", "-name", "*.ts", "-execdir", "wc", "-l", "{}", "+"]),
    },
    {
      rule: "list/guard-find-print0",
      name: "guard",
      sample: await run(["find", "src", "assets", "-print0"]),
    },
    {
      rule: "list/guard-find-delete",
      name: "guard",
      sample: await run(["find", "tmp", "-name", "*.tmp", "-print", "-delete"]),
    },
    {
      rule: "list/guard-find-printf",
      name: "guard",
      // Regular files only: directory sizes depend on the file system.
      sample: await run(["find", "src", "assets", "-type", "f", "-printf", "%s\t%p\n"]),
    },
    {
      rule: "list/guard-find-fprint0",
      name: "guard",
      sample: await run(["find", "src", "assets", "-fprint0", "/dev/stdout"]),
    },
  ];
}

// --- tree (written by hand: tree is not installed here) ----------------------

/**
 * A directory as tree sees it: each entry's name (as {@link latin1} text, so any bytes survive)
 * → its own entries, `"file"`, or `"denied"` for a directory tree cannot open.
 */
type TreeEntries = Map<string, TreeEntries | "file" | "denied">;

/**
 * The entries of a directory list: file paths relative to the listed directory, with a final
 * `/` for a directory whose entries are not listed (an empty one) and a final `/!` for one that
 * cannot be opened.
 */
function treeEntries(paths: readonly string[]): TreeEntries {
  const root: TreeEntries = new Map();
  for (const path of paths) {
    const denied = path.endsWith("/!");
    const parts = (denied ? path.slice(0, -2) : path).split("/");
    const leaf = path.endsWith("/") ? parts.splice(-2, 2)[0] : parts.pop()!;
    let dir = root;
    for (const part of parts) {
      const next = dir.get(part);
      if (next instanceof Map) dir = next;
      else dir.set(part, dir = new Map());
    }
    if (!dir.has(leaf)) {
      dir.set(leaf, denied ? "denied" : path.endsWith("/") ? new Map() : "file");
    }
  }
  return root;
}

/** The entries of directory `name` in `entries` (throws when it is not one). */
function treeSubdir(entries: TreeEntries, name: string): TreeEntries {
  const entry = entries.get(name);
  if (!(entry instanceof Map)) throw new Error(`tree: ${name} is not a directory`);
  return entry;
}

/** Entry names in byte order: strcoll in the C.UTF-8 locale, as the script runs every tool. */
function treeNames(entries: TreeEntries): string[] {
  return [...entries.keys()].sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
}

/** tree's line drawing in a UTF-8 locale, as {@link latin1} text. */
const TREE_BRANCH = latin1(bytes("├── "));
const TREE_LAST = latin1(bytes("└── "));
const TREE_PIPE = latin1(bytes("│   "));

/**
 * What tree 2.1 prints in a UTF-8 locale for its arguments `roots` (each with its entries, or
 * `undefined` for a path that does not exist), as {@link latin1} text, with its exit code:
 * entries sorted by name, the line drawing, `-f` full paths, `  [error opening dir]` after a
 * path it cannot open (exit code 2), and the report, which since tree 2.1 counts the listed
 * directories too. Names are printed as they are (`-N`); without `-N` tree would escape bytes
 * that are not printable in the locale.
 */
function treeListing(
  roots: readonly (readonly [string, TreeEntries | undefined])[],
  options: { fullPath?: boolean } = {},
): { text: string; exitCode: number } {
  let text = "";
  let dirs = 0;
  let files = 0;
  let errors = 0;
  const walk = (entries: TreeEntries, indent: string, path: string) => {
    const names = treeNames(entries);
    for (const [i, name] of names.entries()) {
      const entry = entries.get(name)!;
      const last = i === names.length - 1;
      text += indent + (last ? TREE_LAST : TREE_BRANCH) +
        (options.fullPath ? `${path}/${name}` : name);
      if (entry === "file") {
        files++;
        text += "\n";
        continue;
      }
      dirs++;
      if (entry === "denied") {
        errors++;
        text += "  [error opening dir]\n";
        continue;
      }
      text += "\n";
      walk(entry, indent + (last ? "    " : TREE_PIPE), `${path}/${name}`);
    }
  };
  for (const [name, entries] of roots) {
    if (entries === undefined) {
      errors++;
      text += `${name}  [error opening dir]\n`;
      continue;
    }
    dirs++;
    text += `${name}\n`;
    walk(entries, "", name);
  }
  text += `\n${dirs} director${dirs === 1 ? "y" : "ies"}, ${files} file${files === 1 ? "" : "s"}\n`;
  return { text, exitCode: errors > 0 ? 2 : 0 };
}

/** The counts of the report of a listing of `entries` (the listed directory included). */
function treeCounts(entries: TreeEntries): { dirs: number; files: number } {
  let dirs = 1;
  let files = 0;
  for (const entry of entries.values()) {
    if (entry === "file") files++;
    else if (entry === "denied") dirs++;
    else {
      const sub = treeCounts(entry);
      dirs += sub.dirs;
      files += sub.files;
    }
  }
  return { dirs, files };
}

/** What `tree -J NAME` (2.1) prints: one entry per line, two spaces more per level. */
function treeJson(name: string, entries: TreeEntries): string {
  const lines = ["[", `  {"type":"directory","name":"${name}","contents":[`];
  const walk = (dir: TreeEntries, depth: number) => {
    const names = treeNames(dir);
    for (const [i, entry] of names.entries()) {
      const comma = i < names.length - 1 ? "," : "";
      const indent = "  ".repeat(depth + 1);
      const value = dir.get(entry)!;
      if (value instanceof Map) {
        lines.push(`${indent}{"type":"directory","name":"${entry}","contents":[`);
        walk(value, depth + 1);
        lines.push(`${indent}]}${comma}`);
      } else {
        lines.push(`${indent}{"type":"file","name":"${entry}"}${comma}`);
      }
    }
  };
  walk(entries, 1);
  const { dirs, files } = treeCounts(entries);
  lines.push("  ]}", ",", `  {"type":"report","directories":${dirs},"files":${files}}`, "]");
  return lines.join("\n") + "\n";
}

/** What `tree -X NAME` (2.1) prints: one element per line, two spaces more per level. */
function treeXml(name: string, entries: TreeEntries): string {
  const lines = ['<?xml version="1.0"?>', "<tree>", `  <directory name="${name}">`];
  const walk = (dir: TreeEntries, depth: number) => {
    const indent = "  ".repeat(depth + 1);
    for (const entry of treeNames(dir)) {
      const value = dir.get(entry)!;
      if (value instanceof Map) {
        lines.push(`${indent}<directory name="${entry}">`);
        walk(value, depth + 1);
        lines.push(`${indent}</directory>`);
      } else {
        lines.push(`${indent}<file name="${entry}"></file>`);
      }
    }
  };
  walk(entries, 1);
  const { dirs, files } = treeCounts(entries);
  lines.push(
    "  </directory>",
    "  <report>",
    `    <directories>${dirs}</directories>`,
    `    <files>${files}</files>`,
    "  </report>",
    "</tree>",
  );
  return lines.join("\n") + "\n";
}

/**
 * What `tree -H BASE NAME` (2.1) prints: an HTML page whose body is the listing with each name a
 * link under BASE, then the report and tree's version footer.
 */
function treeHtml(base: string, name: string, entries: TreeEntries): string {
  const { text } = treeListing([[name, entries]], { fullPath: true });
  const lines = text.split("\n");
  const report = lines.at(-2)!;
  const body = lines.slice(0, -3).map((line) => {
    const path = line.replace(/^[│├└─\s]*/u, "");
    const drawing = line.slice(0, line.length - path.length);
    const label = path.split("/").at(-1);
    return `\t${drawing}<a class="NORM" href="${base}/${path}">${label}</a><br>`;
  });
  return [
    "<!DOCTYPE html>",
    "<html>",
    "<head>",
    ' <meta http-equiv="Content-Type" content="text/html; charset=UTF-8">',
    ' <meta name="Author" content="Made by \'tree\'">',
    ' <meta name="GENERATOR" content="tree v2.1.1 © 1996 - 2023 by Steve Baker, Thomas Moore, ' +
    'Francesc Rocher, Florian Sesser, Kyosuke Tokoro">',
    " <title>Directory Tree</title>",
    ' <style type="text/css">',
    "  BODY { font-family : monospace, sans-serif;  color: black;}",
    "  P { font-family : monospace, sans-serif; color: black; margin:0px; padding: 0px;}",
    "  A:visited { text-decoration : none; margin : 0px; padding : 0px;}",
    "  A:link    { text-decoration : none; margin : 0px; padding : 0px;}",
    "  A:hover   { text-decoration: underline; background-color : yellow; margin : 0px; padding : 0px;}",
    "  A:active  { margin : 0px; padding : 0px;}",
    "  .VERSION { font-size: small; font-family : arial, sans-serif; }",
    "  .NORM  { color: black;  }",
    " </style>",
    "</head>",
    "<body>",
    "\t<h1>Directory Tree</h1><p>",
    ...body,
    "\t</p>",
    "\t<p>",
    "",
    report,
    "\t<br><br>",
    "\t</p>",
    "\t<hr>",
    '\t<p class="VERSION">',
    "\t\t tree v2.1.1 © 1996 - 2023 by Steve Baker and Thomas Moore <br>",
    "\t\t HTML output hacked and copyleft © 1998 by Francesc Rocher <br>",
    "\t\t JSON output hacked and copyleft © 2014 by Florian Sesser <br>",
    "\t\t Charsets / OS/2 support © 2001 by Kyosuke Tokoro",
    "\t</p>",
    "</body>",
    "</html>",
  ].join("\n") + "\n";
}

/**
 * The directory list of the project tree that ls, find and grep run over ({@link projectRepo}),
 * plus the deep path of the find cases and the latin-1 file names of the ls and find cases.
 */
function treeProjectEntries(): TreeEntries {
  const deep = Array.from({ length: 12 }, (_, i) => `${"generated_".repeat(20)}${i}`).join("/");
  return treeEntries([
    ...projectFiles().keys(),
    ...Array.from({ length: 150 }, (_, n) => `assets/img_${pad(n + 1, 3)}.png`),
    ...Array.from({ length: 400 }, (_, n) => `assets/icons/icon_${pad(n + 1, 3)}.svg`),
    "data/legacy.dat",
    "empty/",
    `deep/${deep}/schema.ts`,
    ...Array.from({ length: 200 }, (_, n) => `legacy/rapport_caf\xe9_${pad(n + 1, 3)}.txt`),
  ]);
}

/**
 * list/tree, written by hand in tree 2.1's format from the project's directory list
 * ({@link treeListing}): tree is not installed here. tree writes its listing and its
 * `[error opening dir]` notes to stdout; only usage errors, which end it before any listing,
 * go to stderr, so its `separate-streams` case has an empty stderr.
 */
function treeCases(): Promise<Draft[]> {
  const rule = "list/tree";
  const project = treeProjectEntries();
  const dir = (name: string) => treeSubdir(project, name);
  // The middle-line case: a vendored icon set tree cannot open, listed in the middle.
  const unreadable = treeEntries([
    ...Array.from({ length: 400 }, (_, n) => `icons/icon_${pad(n + 1, 3)}.svg`),
    "icons/vendor/!",
    ...Array.from({ length: 150 }, (_, n) => `img_${pad(n + 1, 3)}.png`),
  ]);
  const sample = (
    argv: readonly string[],
    roots: readonly (readonly [string, TreeEntries | undefined])[],
    options: { fullPath?: boolean } = {},
  ) => {
    const { text, exitCode } = treeListing(roots, options);
    return written(argv, exitCode, fromLatin1(text));
  };
  return Promise.resolve([
    { rule, name: "success", sample: sample(["tree", "assets"], [["assets", dir("assets")]]) },
    {
      rule,
      name: "failure",
      sample: sample(["tree", "src", "assets", "missing-dir"], [
        ["src", dir("src")],
        ["assets", dir("assets")],
        ["missing-dir", undefined],
      ]),
    },
    { rule, name: "near-miss", sample: sample(["/usr/bin/tree", "src"], [["src", dir("src")]]) },
    { rule, name: "short-exact", sample: sample(["tree", "docs"], [["docs", dir("docs")]]) },
    {
      rule,
      name: "middle-line",
      sample: sample(["tree", "assets", "src"], [["assets", unreadable], ["src", dir("src")]]),
    },
    {
      rule,
      name: "long-line",
      sample: sample(["tree", "-f", "deep"], [["deep", dir("deep")]], { fullPath: true }),
    },
    // `-o FILE` writes the listing to FILE and nothing to stdout.
    { rule, name: "empty", sample: written(["tree", "-o", "reports/tree.txt", "src"], 0, "") },
    {
      rule,
      name: "separate-streams",
      sample: sample(["tree", "src", "assets"], [["src", dir("src")], ["assets", dir("assets")]]),
    },
    {
      rule,
      name: "invalid-utf8",
      sample: sample(["tree", "-N", "legacy"], [["legacy", dir("legacy")]]),
    },
  ]);
}

/** The tree guards: `tree -J` (JSON) and `tree -X` (XML) of the sources, written by hand. */
function treeGuardCases(): Promise<Draft[]> {
  const src = treeSubdir(treeProjectEntries(), "src");
  return Promise.resolve([
    {
      rule: "list/guard-tree-json",
      name: "guard",
      sample: written(["tree", "-J", "src"], 0, treeJson("src", src)),
    },
    {
      rule: "list/guard-tree-xml",
      name: "guard",
      sample: written(["tree", "-X", "src"], 0, treeXml("src", src)),
    },
    {
      rule: "list/guard-tree-html",
      name: "guard",
      sample: written(["tree", "-H", ".", "src"], 0, treeHtml(".", "src", src)),
    },
  ]);
}

/** The git guards: --binary, -z, --null, REV:PATH, --porcelain, --raw and --patch-with-raw. */
async function gitGuardCases(ws: Workspace): Promise<Draft[]> {
  const repo = await modulesRepo(ws, "git-guards", 100, 2);
  for (let n = 1; n <= 12; n++) {
    await repo.write(
      `assets/logo_${n}.png`,
      bytes(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, n]), "x".repeat(300 * n)),
    );
  }
  await repo.write("src/schema.ts", tsModule(7, 40));
  await repo.commit("Add logos and the schema\n");
  const history = await historyRepo(ws, "git-guards-history", 40);
  for (let i = 1; i <= 60; i++) await repo.write(`src/mod_${pad(i)}.ts`, editedModule(i, 2));
  for (let i = 1; i <= 80; i++) await repo.write(`src/gen_${pad(i, 3)}.ts`, "export {};\n");
  for (let n = 1; n <= 12; n++) {
    await repo.write(
      `assets/logo_${n}.png`,
      bytes(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, n, 1]), "y".repeat(290 * n)),
    );
  }
  return [
    { rule: "git/guard-binary-patch", name: "guard", sample: await repo.git(["diff", "--binary"]) },
    { rule: "git/guard-nul", name: "guard", sample: await repo.git(["status", "-z"]) },
    { rule: "git/guard-null-data", name: "guard", sample: await repo.git(["status", "--null"]) },
    {
      rule: "git/guard-porcelain",
      name: "guard",
      sample: await repo.git(["status", "--porcelain"]),
    },
    { rule: "git/guard-raw", name: "guard", sample: await history.git(["log", "--raw"]) },
    {
      rule: "git/guard-patch-with-raw",
      name: "guard",
      sample: await repo.git(["diff", "--patch-with-raw", "--", "src"]),
    },
    {
      rule: "git/guard-object-path",
      name: "guard",
      sample: await repo.git(["show", "HEAD:src/schema.ts"]),
    },
  ];
}

// ---------------------------------------------------------------------------
// make (recursive Makefiles compiling C with gcc) and ninja
// ---------------------------------------------------------------------------

/** How a generated C file misbehaves. */
type CFlaw = "none" | "warning" | "error";

/** A small C translation unit; `warning` adds unused variables, `error` an undeclared name. */
function cSource(area: string, n: number, flaw: CFlaw): string {
  const name = `${area}_${NOUNS[n % NOUNS.length]}_${n}`;
  let body = `  unsigned int sum = ${n}u;\n`;
  if (flaw === "warning") body += `  int unused_${n} = ${n * 3};\n  char scratch_${n}[16];\n`;
  body +=
    `  for (const char *p = s; *p != '\\0'; p++) {\n    sum = sum * 31u + (unsigned char)*p;\n  }\n`;
  if (flaw === "error") body += `  sum += ${NOUNS[(n + 3) % NOUNS.length]}_limit;\n`;
  return `#include <stddef.h>\n\n/* ${name}: checksum of a ${area} key. */\n` +
    `unsigned int ${name}(const char *s) {\n${body}  return sum;\n}\n`;
}

/** Writes a recursive C project: `areas` subdirectories with `files` sources each. */
async function cProject(
  ws: Workspace,
  dir: string,
  areas: number,
  files: number,
  options: {
    flaw?: (area: number, file: number) => CFlaw;
    note?: (area: number) => string | undefined;
    cflags?: string;
  } = {},
): Promise<string[]> {
  const names = Array.from(
    { length: areas },
    (_, a) => `${AREAS[a % AREAS.length]}${a < 8 ? "" : a}`,
  );
  // One job at a time, so ninja prints the steps in a fixed order.
  const ninja: string[] = [
    "pool serial",
    "  depth = 1",
    "",
    "rule cc",
    "  command = cc -Wall -O2 -c $in -o $out",
    "  pool = serial",
    "",
  ];
  for (const [a, area] of names.entries()) {
    const objects: string[] = [];
    for (let n = 1; n <= files; n++) {
      await ws.write(
        `${dir}/src/${area}/${area}_${pad(n)}.c`,
        cSource(area, n, options.flaw?.(a, n) ?? "none"),
      );
      objects.push(`../../build/${area}/${area}_${pad(n)}.o`);
      ninja.push(`build build/${area}/${area}_${pad(n)}.o: cc src/${area}/${area}_${pad(n)}.c`);
    }
    const note = options.note?.(a);
    await ws.write(
      `${dir}/src/${area}/Makefile`,
      `CFLAGS ?= -Wall -O2\nOBJS := ${objects.join(" ")}\n\nall: $(OBJS)\n` +
        (note === undefined ? "" : `\t@echo "${note}"\n`) +
        `\n../../build/${area}/%.o: %.c\n\t@mkdir -p ../../build/${area}\n` +
        `\t$(CC) $(CFLAGS) -c -o $@ $<\n`,
    );
  }
  await ws.write(
    `${dir}/Makefile`,
    `SUBDIRS := ${names.join(" ")}\nCFLAGS := ${options.cflags ?? "-Wall -O2"}\nexport CFLAGS\n\n` +
      `.PHONY: all banner $(SUBDIRS)\n\nall: $(SUBDIRS)\n\tar rcs build/libdemo.a build/*/*.o\n\n` +
      `$(SUBDIRS):\n\t$(MAKE) -C src/$@\n\nbanner:\n\t@cat legacy/banner.txt\n`,
  );
  await ws.write(`${dir}/build.ninja`, ninja.join("\n") + "\n");
  return names;
}

/** build/make: recursive GNU make compiling C with gcc; ninja for the near miss. */
async function makeCases(ws: Workspace): Promise<Draft[]> {
  const rule = "build/make";
  const run = (dir: string, argv: string[]) => ws.run(argv, { cwd: dir });
  await cProject(ws, "make/ok", 10, 12);
  await cProject(ws, "make/broken", 10, 12, {
    flaw: (a, n) => a === 3 && n % 4 === 2 ? "error" : "none",
  });
  await cProject(ws, "make/ninja", 10, 12);
  await cProject(ws, "make/tiny", 1, 2);
  await cProject(ws, "make/middle", 40, 1, {
    note: (a) => a === 21 ? "warning: generated tables are stale; run 'make regen'" : undefined,
  });
  await cProject(ws, "make/long", 1, 2, {
    cflags: "-Wall -O2 " +
      Array.from({ length: 150 }, (_, i) => `-DFEATURE_${NOUNS[i % 20].toUpperCase()}_${i}=1`).join(
        " ",
      ),
  });
  await cProject(ws, "make/warnings", 10, 12, {
    flaw: (a) => a < 5 ? "warning" : "none",
  });
  await cProject(ws, "make/legacy", 1, 1);
  await ws.write("make/legacy/legacy/banner.txt", legacyRecords());
  return [
    { rule, name: "success", sample: await run("make/ok", ["make"]) },
    { rule, name: "failure", sample: await run("make/broken", ["make", "-k"]) },
    { rule, name: "near-miss", sample: await run("make/ninja", ["ninja"]) },
    { rule, name: "short-exact", sample: await run("make/tiny", ["make"]) },
    { rule, name: "middle-line", sample: await run("make/middle", ["make"]) },
    { rule, name: "long-line", sample: await run("make/long", ["make"]) },
    { rule, name: "empty", sample: await run("make/tiny", ["make", "-s"]) },
    { rule, name: "separate-streams", sample: await run("make/warnings", ["make"]) },
    { rule, name: "invalid-utf8", sample: await run("make/legacy", ["make", "banner"]) },
  ];
}

/** `make -p` prints dates, inode numbers and file times; fixed values replace them. */
const MAKE_DATABASE: Normalizer[] = [
  (t) =>
    t.replace(
      /^(# (?:Make data base, printed on|Finished Make data base on) ).*$/gm,
      (_, a) => `${a}Wed May  1 10:00:00 2024`,
    ),
  (t) => t.replace(/\(device \d+, inode \d+\)/g, "(device 2049, inode 131073)"),
  (t) => t.replace(/^(# {2}Last modified ).*$/gm, (_, a) => `${a}2024-05-01 10:00:00.000000000`),
];

/** The make guards: dry run (-n and its three long names) and database (-p, --print-data-base). */
async function makeGuardCases(ws: Workspace): Promise<Draft[]> {
  await cProject(ws, "make-guards", 10, 12);
  await ws.exec(["make", "-s"], "make-guards");
  return [
    {
      rule: "build/make-guard-dry-run",
      name: "guard",
      sample: await ws.run(["make", "-B", "-n"], { cwd: "make-guards" }),
    },
    {
      rule: "build/make-guard-print-db",
      name: "guard",
      sample: await ws.run(["make", "-p", "-q", "banner"], {
        cwd: "make-guards",
        normalize: MAKE_DATABASE,
      }),
    },
    {
      rule: "build/make-guard-dry-run-long",
      name: "guard",
      sample: await ws.run(["make", "--dry-run", "--always-make"], { cwd: "make-guards" }),
    },
    {
      rule: "build/make-guard-just-print",
      name: "guard",
      sample: await ws.run(["make", "--just-print", "-B"], { cwd: "make-guards" }),
    },
    {
      rule: "build/make-guard-recon",
      name: "guard",
      sample: await ws.run(["make", "--recon", "-B", "all"], { cwd: "make-guards" }),
    },
    {
      rule: "build/make-guard-print-data-base",
      name: "guard",
      sample: await ws.run(["make", "--print-data-base", "--question", "banner"], {
        cwd: "make-guards",
        normalize: MAKE_DATABASE,
      }),
    },
  ];
}

/**
 * Writes a CMake project at `dir` and configures it (`cmake -S . -B build`, Unix Makefiles): one
 * static library per area with `files` C sources each ({@link cSource}), a `note` echoed after an
 * area's library is linked, extra `defines` on every compile command, and a `banner` target that
 * prints `legacy/banner.txt`.
 */
async function cmakeProject(
  ws: Workspace,
  dir: string,
  areas: number,
  files: number,
  options: {
    flaw?: (area: number, file: number) => CFlaw;
    note?: (area: number) => string | undefined;
    defines?: readonly string[];
    configure?: boolean;
  } = {},
): Promise<void> {
  let lists = "cmake_minimum_required(VERSION 3.20)\nproject(demo C)\n\n" +
    "add_compile_options(-Wall -O2)\n";
  if (options.defines !== undefined) {
    lists += `add_compile_definitions(${options.defines.join(" ")})\n`;
  }
  for (let a = 0; a < areas; a++) {
    const area = `${AREAS[a % AREAS.length]}${a < 8 ? "" : a}`;
    const sources: string[] = [];
    for (let n = 1; n <= files; n++) {
      const path = `src/${area}/${area}_${pad(n)}.c`;
      await ws.write(`${dir}/${path}`, cSource(area, n, options.flaw?.(a, n) ?? "none"));
      sources.push(path);
    }
    lists += `\nadd_library(${area} STATIC\n  ${sources.join("\n  ")}\n)\n`;
    const note = options.note?.(a);
    if (note !== undefined) {
      lists += `add_custom_command(TARGET ${area} POST_BUILD\n` +
        `  COMMAND \${CMAKE_COMMAND} -E echo "${note}"\n  VERBATIM\n)\n`;
    }
  }
  lists += "\nadd_custom_target(banner\n  COMMAND cat \${CMAKE_SOURCE_DIR}/legacy/banner.txt\n" +
    "  VERBATIM\n)\n";
  await ws.write(`${dir}/CMakeLists.txt`, lists);
  await ws.write(`${dir}/legacy/banner.txt`, legacyRecords());
  if (options.configure ?? true) await ws.exec(["cmake", "-S", ".", "-B", "build"], dir);
}

/** build/cmake-build: `cmake --build` of generated C projects (Unix Makefiles, gcc, one job). */
async function cmakeBuildCases(ws: Workspace): Promise<Draft[]> {
  const rule = "build/cmake-build";
  const run = (dir: string, argv: string[]) => ws.run(argv, { cwd: `cmake/${dir}` });
  await cmakeProject(ws, "cmake/ok", 10, 12);
  await cmakeProject(ws, "cmake/broken", 10, 12, {
    flaw: (a, n) => a === 3 && n % 4 === 2 ? "error" : "none",
  });
  await cmakeProject(ws, "cmake/fresh", 10, 12, { configure: false });
  await cmakeProject(ws, "cmake/tiny", 1, 2);
  await cmakeProject(ws, "cmake/middle", 40, 1, {
    note: (a) =>
      a === 21
        ? "warning: generated tables are stale; run 'cmake --build build --target regen'"
        : undefined,
  });
  await cmakeProject(ws, "cmake/long", 1, 2, {
    defines: Array.from(
      { length: 150 },
      (_, i) => `FEATURE_${NOUNS[i % 20].toUpperCase()}_${i}=1`,
    ),
  });
  await cmakeProject(ws, "cmake/warnings", 10, 12, { flaw: (a) => a < 5 ? "warning" : "none" });
  return [
    { rule, name: "success", sample: await run("ok", ["cmake", "--build", "build"]) },
    { rule, name: "failure", sample: await run("broken", ["cmake", "--build", "build"]) },
    // Configuring, not building: `-S` and `-B` instead of `--build`.
    { rule, name: "near-miss", sample: await run("fresh", ["cmake", "-S", ".", "-B", "build"]) },
    { rule, name: "short-exact", sample: await run("tiny", ["cmake", "--build", "build"]) },
    { rule, name: "middle-line", sample: await run("middle", ["cmake", "--build", "build"]) },
    {
      rule,
      name: "long-line",
      sample: await run("long", ["cmake", "--build", "build", "--verbose"]),
    },
    {
      rule,
      name: "empty",
      sample: await run("tiny", ["cmake", "--build", "build", "--target", "clean"]),
    },
    {
      rule,
      name: "separate-streams",
      sample: await run("warnings", ["cmake", "--build", "build"]),
    },
    {
      rule,
      name: "invalid-utf8",
      sample: await run("tiny", ["cmake", "--build", "build", "--target", "banner"]),
    },
  ];
}

// ---------------------------------------------------------------------------
// cargo (workspaces of path crates; nothing is downloaded)
// ---------------------------------------------------------------------------

/** What a generated crate's source contains. */
interface CrateOptions {
  /** Library crates the app depends on (`l001`…). */
  readonly libs?: number;
  /** The lib crate (by number) that gets one unused-variable warning. */
  readonly warnIn?: number;
  /** Unused-variable warnings in the app. */
  readonly warnings?: number;
  /** Mismatched-type errors in the app. */
  readonly errors?: number;
  /** A deprecated function with a note this long, called once. */
  readonly deprecatedNote?: number;
  /** A proc-macro crate whose expansion prints this many lines to stdout and stderr. */
  readonly codegen?: number;
  /** `#[test]` functions in the app's library part. */
  readonly tests?: number;
  /** Test numbers that fail with assert_eq. */
  readonly failing?: readonly number[];
  /** A failing test comparing strings this long. */
  readonly longAssert?: number;
  /** A test that prints latin-1 records with NUL bytes (seen with --nocapture). */
  readonly rawOutput?: boolean;
}

const CARGO_PACKAGE = (name: string) =>
  `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n`;

/** Writes a cargo workspace at `dir`: `app` plus path crates; nothing to download. */
async function cargoProject(ws: Workspace, dir: string, options: CrateOptions): Promise<void> {
  const libs = options.libs ?? 0;
  const members = ["app", ...Array.from({ length: libs }, (_, i) => `libs/l${pad(i + 1, 3)}`)];
  let deps = "";
  for (let i = 1; i <= libs; i++) {
    const name = `l${pad(i, 3)}`;
    deps += `${name} = { path = "../libs/${name}" }\n`;
    const unused = options.warnIn === i ? "    let retries = 3;\n" : "";
    // A chain (each crate needs the one before): cargo's order among independent crates varies.
    const before = i > 1
      ? `l${pad(i - 1, 3)} = { path = "../l${pad(i - 1, 3)}" }\n`
      : options.codegen !== undefined
      ? `codegen = { path = "../../codegen" }\n`
      : "";
    await ws.write(
      `${dir}/libs/${name}/Cargo.toml`,
      `${CARGO_PACKAGE(name)}\n[dependencies]\n${before}`,
    );
    const noun = NOUNS[i % NOUNS.length];
    const body = `${unused}    key.len() + ${i}\n`;
    await ws.write(
      `${dir}/libs/${name}/src/lib.rs`,
      `/// Weight of a ${noun} key.\npub fn weight(key: &str) -> usize {\n${body}}\n`,
    );
  }
  if (options.codegen !== undefined) {
    members.push("codegen");
    deps += `codegen = { path = "../codegen" }\n`;
    await ws.write(
      `${dir}/codegen/Cargo.toml`,
      `${CARGO_PACKAGE("codegen")}\n[lib]\nproc-macro = true\n`,
    );
    await ws.write(
      `${dir}/codegen/src/lib.rs`,
      `use proc_macro::TokenStream;\n\n/// Generates the lookup tables and reports what it generated.\n` +
        `#[proc_macro]\npub fn tables(_input: TokenStream) -> TokenStream {\n` +
        `    for i in 0..${options.codegen} {\n` +
        `        println!("codegen: table {i:03} -> src/generated/table_{i:03}.rs ({} entries)", i * 17 % 256);\n` +
        `        if i % 2 == 0 {\n            eprintln!("codegen: note: table {i:03} has no explicit size; using 256");\n        }\n    }\n` +
        `    "pub fn tables() -> usize { ${options.codegen} }".parse().unwrap()\n}\n`,
    );
  }
  await ws.write(
    `${dir}/Cargo.toml`,
    `[workspace]\nmembers = [${members.map((m) => `"${m}"`).join(", ")}]\nresolver = "2"\n`,
  );
  await ws.write(`${dir}/app/Cargo.toml`, `${CARGO_PACKAGE("app")}\n[dependencies]\n${deps}`);
  let lib = "";
  for (let i = 1; i <= (options.warnings ?? 0); i++) {
    lib +=
      `\npub fn ${VERBS[i % VERBS.length]}_${
        NOUNS[i % NOUNS.length]
      }_${i}(input: &[u8]) -> usize {\n` +
      `    let checksum_${i} = input.len() * ${i};\n    input.iter().map(|b| *b as usize).sum()\n}\n`;
  }
  for (let i = 1; i <= (options.errors ?? 0); i++) {
    lib +=
      `\npub fn ${VERBS[i % VERBS.length]}_${
        NOUNS[i % NOUNS.length]
      }_${i}(input: &[u8]) -> usize {\n` +
      `    let limit: u32 = input.len();\n    limit as usize + ${i}\n}\n`;
  }
  if (options.deprecatedNote !== undefined) {
    const note = Array.from(
      { length: Math.ceil(options.deprecatedNote / 48) },
      (_, k) => `use the v2 ${NOUNS[k % NOUNS.length]} API (see docs/migrate.md#step-${k})`,
    ).join("; ");
    lib +=
      `\n#[deprecated(note = "${note}")]\npub fn legacy_total(input: &[u8]) -> usize {\n    input.len()\n}\n` +
      `\npub fn total(input: &[u8]) -> usize {\n    #[allow(unused_imports)]\n    legacy_total(input)\n}\n`;
  }
  if (options.codegen !== undefined) lib += `\ncodegen::tables!();\n`;
  for (let i = 1; i <= libs; i++) lib += `\npub use l${pad(i, 3)}::weight as weight_${i};\n`;
  const tests: string[] = [];
  for (let t = 1; t <= (options.tests ?? 0); t++) {
    const fails = options.failing?.includes(t) ?? false;
    tests.push(
      `    #[test]\n    fn ${NOUNS[t % NOUNS.length]}_${VERBS[t % VERBS.length]}_${
        pad(t, 3)
      }() {\n` +
        `        let input = vec![${t % 7}u8; ${t % 13 + 1}];\n` +
        `        assert_eq!(input.len() * ${fails ? 2 : 1}, ${t % 13 + 1}, "length of the ${
          NOUNS[t % NOUNS.length]
        } batch");\n    }\n`,
    );
  }
  if (options.longAssert !== undefined) {
    const want = Array.from(
      { length: Math.ceil(options.longAssert / 10) },
      (_, k) => `row-${pad(k, 5)}`,
    ).join(",");
    tests.push(
      `    #[test]\n    fn report_matches_golden_file() {\n        let golden = "${want}";\n` +
        `        let actual = golden.replace("row-00042", "row-0042");\n        assert_eq!(actual, golden);\n    }\n`,
    );
  }
  if (options.rawOutput === true) {
    tests.push(
      `    #[test]\n    fn dumps_legacy_records() {\n        use std::io::Write;\n        let mut out = std::io::stdout().lock();\n` +
        `        for i in 0..200 {\n            out.write_all(format!("{i:03} TODO caf").as_bytes()).unwrap();\n` +
        `            out.write_all(b"\\xe9\\x00 legacy record\\n").unwrap();\n        }\n    }\n`,
    );
  }
  if (tests.length > 0) lib += `\n#[cfg(test)]\nmod tests {\n${tests.join("\n")}}\n`;
  await ws.write(`${dir}/app/src/lib.rs`, lib.trimStart() || "//! app\n");
}

/** The nine cases of `cargo build`, `cargo check` or `cargo clippy`. */
async function cargoBuildCases(
  ws: Workspace,
  sub: "build" | "check" | "clippy",
  nearMiss: string[],
): Promise<Draft[]> {
  const rule = `build/cargo-${sub}`;
  const base = `cargo-${sub}`;
  const run = (dir: string, args: string[], env: Record<string, string> = {}) =>
    ws.run(["cargo", ...args], { cwd: `${base}/${dir}`, env });
  await cargoProject(ws, `${base}/warnings`, { libs: 12, warnings: 40 });
  await cargoProject(ws, `${base}/near`, { libs: 12, warnings: 40 });
  await cargoProject(ws, `${base}/errors`, { libs: 4, errors: 50 });
  await cargoProject(ws, `${base}/tiny`, {});
  await cargoProject(ws, `${base}/clean`, { libs: 2 });
  await cargoProject(ws, `${base}/middle`, { libs: 100, warnIn: 50 });
  await cargoProject(ws, `${base}/long`, { deprecatedNote: 5000 });
  // Past the success policy's 100 + 60 lines on both streams.
  await cargoProject(ws, `${base}/codegen`, { libs: 4, warnings: 12, codegen: 250 });
  await cargoProject(ws, `${base}/legacy`, { codegen: 1 });
  await ws.exec(["cargo", sub], `${base}/clean`);
  const legacy = await run("legacy", [sub]);
  const records = bytes(
    ...Array.from(
      { length: 200 },
      (_, i) =>
        bytes(`codegen: legacy row ${pad(i, 3)} caf`, new Uint8Array([0xe9, 0]), " loaded\n"),
    ),
  );
  return [
    { rule, name: "success", sample: await run("warnings", [sub], { CARGO_TERM_COLOR: "always" }) },
    { rule, name: "failure", sample: await run("errors", [sub]) },
    { rule, name: "near-miss", sample: await run("near", nearMiss) },
    { rule, name: "short-exact", sample: await run("tiny", [sub]) },
    { rule, name: "middle-line", sample: await run("middle", [sub]) },
    { rule, name: "long-line", sample: await run("long", [sub]) },
    { rule, name: "empty", sample: await run("clean", [sub, "-q"]) },
    { rule, name: "separate-streams", sample: await run("codegen", [sub]) },
    // cargo passes a proc macro's stdout through lossily (invalid bytes become U+FFFD);
    // this stdout is what the macro itself wrote, with its real cargo stderr.
    { rule, name: "invalid-utf8", sample: { ...legacy, stdout: records } },
  ];
}

/** tests/cargo-test: `cargo test` over generated crates (single-threaded tests). */
async function cargoTestCases(ws: Workspace): Promise<Draft[]> {
  const rule = "tests/cargo-test";
  const run = (dir: string, args: string[]) =>
    ws.run(["cargo", ...args], { cwd: `cargo-test/${dir}` });
  await cargoProject(ws, "cargo-test/pass", { libs: 3, tests: 300 });
  await cargoProject(ws, "cargo-test/fail", {
    libs: 3,
    tests: 300,
    failing: [17, 58, 99, 140, 181, 222, 263, 290],
  });
  await cargoProject(ws, "cargo-test/tiny", { tests: 2 });
  await cargoProject(ws, "cargo-test/middle", { libs: 3, tests: 300, failing: [150] });
  await cargoProject(ws, "cargo-test/long", { tests: 3, longAssert: 6000 });
  await cargoProject(ws, "cargo-test/clean", { tests: 3 });
  await cargoProject(ws, "cargo-test/warnings", { libs: 3, tests: 300, warnings: 40 });
  await cargoProject(ws, "cargo-test/legacy", { tests: 2, rawOutput: true });
  await ws.exec(["cargo", "test", "--no-run"], "cargo-test/clean");
  return [
    { rule, name: "success", sample: await run("pass", ["test"]) },
    { rule, name: "failure", sample: await run("fail", ["test"]) },
    { rule, name: "near-miss", sample: await run("pass", ["t"]) },
    { rule, name: "short-exact", sample: await run("tiny", ["test"]) },
    { rule, name: "middle-line", sample: await run("middle", ["test"]) },
    { rule, name: "long-line", sample: await run("long", ["test"]) },
    { rule, name: "empty", sample: await run("clean", ["test", "-q", "--no-run"]) },
    { rule, name: "separate-streams", sample: await run("warnings", ["test"]) },
    {
      rule,
      name: "invalid-utf8",
      sample: await run("legacy", ["test", "--", "--nocapture", "dumps_legacy_records"]),
    },
  ];
}

/** The cargo guard: `--message-format=json`. */
async function cargoGuardCases(ws: Workspace): Promise<Draft[]> {
  await cargoProject(ws, "cargo-guard", { libs: 3, warnings: 10 });
  return [{
    rule: "build/cargo-guard-message-format",
    name: "guard",
    sample: await ws.run(["cargo", "build", "--message-format=json"], { cwd: "cargo-guard" }),
  }];
}

/** libtest's JSON suite events carry the elapsed time; a fixed value replaces it. */
const LIBTEST_JSON: readonly Normalizer[] = [
  (t) => t.replace(/("exec_time": )\d+(?:\.\d+)?(?:e-?\d+)?/g, (_, a) => `${a}0.0125`),
];

/**
 * The cargo test guards: libtest's `--format json` and `--format=json` after `--`, where argv
 * tokens are kept raw. The format is unstable; `RUSTC_BOOTSTRAP=1` lets this stable toolchain
 * print it as nightly does.
 */
async function cargoTestGuardCases(ws: Workspace): Promise<Draft[]> {
  await cargoProject(ws, "cargo-test-guard", { libs: 2, tests: 60 });
  const env = { RUSTC_BOOTSTRAP: "1" };
  await ws.exec(["cargo", "test", "--no-run"], "cargo-test-guard", env);
  const run = (args: string[]) =>
    ws.run(["cargo", "test", "--", "-Z", "unstable-options", ...args], {
      cwd: "cargo-test-guard",
      env,
      normalize: [...LIBTEST_JSON],
    });
  return [
    { rule: "tests/cargo-guard-format", name: "guard", sample: await run(["--format", "json"]) },
    { rule: "tests/cargo-guard-format-json", name: "guard", sample: await run(["--format=json"]) },
  ];
}

// ---------------------------------------------------------------------------
// pytest (real) and npm test with node --test (real)
// ---------------------------------------------------------------------------

/** pytest's elapsed time in summaries and its interpreter path in the -v header. */
const PYTEST: readonly Normalizer[] = [
  (t) =>
    t.replace(/( in )\d+\.\d+s((?: \(\d+:\d\d:\d\d\))?(?: =+)?)$/gm, (_, a, b) => `${a}0.42s${b}`),
  (t) => t.replace(/(pluggy-[\d.]+ -- )\S+$/gm, (_, a) => `${a}/usr/bin/python3`),
];

/** What a generated test suite contains. */
interface SuiteOptions {
  /** Tests per file; files are named after {@link AREAS}. */
  readonly perFile: number;
  readonly files: number;
  /** Global test numbers (1-based) that fail. */
  readonly failing?: readonly number[];
  /** A failing test comparing strings this long. */
  readonly longAssert?: number;
  /** A passing test that prints a line this long. */
  readonly longPrint?: number;
}

/** The name of global test `t` (`parse_config_017`). */
function testName(t: number): string {
  return `${VERBS[t % VERBS.length]}_${NOUNS[t % NOUNS.length]}_${pad(t, 3)}`;
}

/** Writes a pytest suite at `dir`. */
async function pytestSuite(ws: Workspace, dir: string, options: SuiteOptions): Promise<void> {
  let t = 0;
  for (let f = 0; f < options.files; f++) {
    let text = "from demo_totals import total\n";
    for (let k = 0; k < options.perFile; k++) {
      t++;
      const fails = options.failing?.includes(t) ?? false;
      text += `\n\ndef test_${testName(t)}():\n    batch = [${t % 7}, ${t % 5}, ${t % 3}]\n` +
        `    assert total(batch) == ${(t % 7) + (t % 5) + (t % 3) + (fails ? 1 : 0)}\n`;
    }
    if (f === 0 && options.longAssert !== undefined) {
      text += `\n\ndef test_report_matches_golden_file():\n` +
        `    golden = ",".join(f"row-{k:05}" for k in range(${
          Math.ceil(options.longAssert / 10)
        }))\n` +
        `    assert golden.replace("row-00042", "row-0042") == golden\n`;
    }
    await ws.write(`${dir}/tests/test_${AREAS[f % AREAS.length]}${f < 8 ? "" : f}.py`, text);
  }
  await ws.write(`${dir}/demo_totals.py`, "def total(batch):\n    return sum(batch)\n");
  await ws.write(`${dir}/pytest.ini`, "[pytest]\npythonpath = .\n");
}

/** The nine cases of pytest run as `launcher` (`["pytest"]` or `["python3", "-m", "pytest"]`). */
async function pytestCases(
  ws: Workspace,
  rule: string,
  launcher: readonly string[],
  nearMiss: readonly string[],
): Promise<Draft[]> {
  const base = rule.replace("/", "-");
  const run = (dir: string, args: string[]) =>
    ws.run([...launcher, ...args], { cwd: `${base}/${dir}`, normalize: [...PYTEST] });
  await pytestSuite(ws, `${base}/pass`, { files: 8, perFile: 40 });
  await pytestSuite(ws, `${base}/fail`, {
    files: 10,
    perFile: 40,
    failing: [17, 58, 99, 140, 181, 222, 263, 304],
  });
  await pytestSuite(ws, `${base}/tiny`, { files: 1, perFile: 3 });
  await pytestSuite(ws, `${base}/middle`, { files: 8, perFile: 40, failing: [160] });
  await pytestSuite(ws, `${base}/long`, { files: 1, perFile: 3, longAssert: 6000 });
  await pytestSuite(ws, `${base}/noisy`, { files: 8, perFile: 40 });
  await ws.write(
    `${base}/noisy/conftest.py`,
    // Written at interpreter exit, after pytest stops capturing, as leaked-resource reports are.
    "import atexit\nimport sys\n\n\n@atexit.register\ndef report_open_handles():\n" +
      "    for i in range(150):\n" +
      '        sys.stderr.write(f"warning: cache/fixture_{i:03}.db was not closed; closing at exit\\n")\n',
  );
  await pytestSuite(ws, `${base}/legacy`, { files: 1, perFile: 1 });
  await ws.write(
    `${base}/legacy/tests/test_dump.py`,
    "import sys\n\n\ndef test_dump_legacy_records():\n    for i in range(200):\n" +
      '        sys.stdout.buffer.write(f"{i:03} TODO caf".encode() + b"\\xe9\\x00 legacy record\\n")\n',
  );
  const unittest = `${base}/unittest`;
  for (const [f, area] of AREAS.entries()) {
    let text = "import unittest\n\n\nclass Test" + capitalize(area) + "(unittest.TestCase):\n";
    for (let k = 1; k <= 25; k++) {
      text += `    def test_${testName(f * 25 + k)}(self):\n        self.assertEqual(${k} + 1, ${
        k + 1
      })\n\n`;
    }
    await ws.write(`${unittest}/tests/test_${area}.py`, text);
  }
  await ws.write(`${unittest}/tests/__init__.py`, "");
  return [
    { rule, name: "success", sample: await run("pass", ["-v"]) },
    { rule, name: "failure", sample: await run("fail", ["-v"]) },
    {
      rule,
      name: "near-miss",
      sample: await ws.run([...nearMiss], { cwd: unittest, normalize: [...PYTEST] }),
    },
    { rule, name: "short-exact", sample: await run("tiny", ["-q"]) },
    { rule, name: "middle-line", sample: await run("middle", ["-v"]) },
    { rule, name: "long-line", sample: await run("long", ["-vv"]) },
    { rule, name: "empty", sample: await run("tiny", ["-p", "no:terminal"]) },
    { rule, name: "separate-streams", sample: await run("noisy", ["-v"]) },
    { rule, name: "invalid-utf8", sample: await run("legacy", ["-s", "-q"]) },
  ];
}

/** Writes a node --test suite under `dir/test/`. */
async function nodeSuite(ws: Workspace, dir: string, options: SuiteOptions): Promise<void> {
  let t = 0;
  for (let f = 0; f < options.files; f++) {
    let text =
      'const test = require("node:test");\nconst assert = require("node:assert/strict");\n' +
      'const { total } = require("../lib/totals.js");\n';
    for (let k = 0; k < options.perFile; k++) {
      t++;
      const fails = options.failing?.includes(t) ?? false;
      const want = (t % 7) + (t % 5) + (t % 3) + (fails ? 1 : 0);
      text += `\ntest("${testName(t).replaceAll("_", " ")}", () => {\n` +
        `  assert.equal(total([${t % 7}, ${t % 5}, ${
          t % 3
        }]), ${want}, "total of the batch");\n});\n`;
    }
    if (f === 0 && options.longPrint !== undefined) {
      text += `\ntest("prints the route table", () => {\n  console.log(JSON.stringify(` +
        `Array.from({ length: ${
          Math.ceil(options.longPrint / 40)
        } }, (_, k) => ({ path: "/api/v2/r" + k, auth: k % 2 }))));\n});\n`;
    }
    await ws.write(`${dir}/test/${AREAS[f % AREAS.length]}${f < 8 ? "" : f}.test.js`, text);
  }
  await ws.write(
    `${dir}/lib/totals.js`,
    "exports.total = (batch) => batch.reduce((a, b) => a + b, 0);\n",
  );
}

/** Writes package.json with `scripts` at `dir`. */
function packageJson(ws: Workspace, dir: string, scripts: Record<string, string>): Promise<void> {
  return ws.write(
    `${dir}/package.json`,
    JSON.stringify({ name: "demo", version: "1.0.0", private: true, scripts }, null, 2) + "\n",
  );
}

/** The nine cases of an npm test command (`["test"]`, `["t"]` or `["run", "test"]`). */
async function npmTestCases(
  ws: Workspace,
  rule: string,
  command: readonly string[],
  reporter: "tap" | "spec",
  nearMiss: readonly string[],
): Promise<Draft[]> {
  const base = rule.replace("/", "-");
  const run = (dir: string, args: readonly string[] = command) =>
    ws.run(["npm", ...args], { cwd: `${base}/${dir}` });
  const nodeTest = reporter === "tap" ? "node --test" : "node --test --test-reporter=spec";
  const spec = "node --test --test-reporter=spec";
  const project = async (dir: string, suite: SuiteOptions, scripts: Record<string, string>) => {
    await nodeSuite(ws, `${base}/${dir}`, suite);
    await packageJson(ws, `${base}/${dir}`, scripts);
  };
  await project("pass", { files: 8, perFile: 30 }, { test: nodeTest });
  await project("fail", { files: 8, perFile: 30, failing: [17, 58, 99, 140, 181, 222] }, {
    test: nodeTest,
  });
  await project("near", { files: 8, perFile: 30 }, { test: nodeTest, "test:unit": spec });
  await project("tiny", { files: 1, perFile: 2 }, { test: spec });
  await project("middle", { files: 8, perFile: 30, failing: [120] }, { test: spec });
  await project("long", { files: 1, perFile: 3, longPrint: 5000 }, { test: spec });
  await project("quiet", { files: 2, perFile: 5 }, {
    test: "node --test --test-reporter=tap --test-reporter-destination=reports/test.tap",
  });
  await Deno.mkdir(ws.path(`${base}/quiet/reports`), { recursive: true });
  await project("lint", { files: 8, perFile: 30 }, { pretest: "node scripts/lint.js", test: spec });
  await ws.write(
    `${base}/lint/scripts/lint.js`,
    "for (let i = 1; i <= 120; i++) {\n" +
      "  console.error(`lib/handlers/h${String(i).padStart(3, \"0\")}.js:${i % 40 + 1}:7: warning: 'ctx' is assigned a value but never used (no-unused-vars)`);\n}\n",
  );
  await project("legacy", { files: 1, perFile: 1 }, { test: "node scripts/dump.js" });
  await ws.write(
    `${base}/legacy/scripts/dump.js`,
    "for (let i = 0; i < 200; i++) {\n" +
      '  process.stdout.write(Buffer.concat([Buffer.from(`${String(i).padStart(3, "0")} TODO caf`), ' +
      'Buffer.from([0xe9, 0]), Buffer.from(" legacy record\\n")]));\n}\n',
  );
  return [
    { rule, name: "success", sample: await run("pass") },
    { rule, name: "failure", sample: await run("fail") },
    { rule, name: "near-miss", sample: await run("near", nearMiss) },
    { rule, name: "short-exact", sample: await run("tiny") },
    { rule, name: "middle-line", sample: await run("middle") },
    { rule, name: "long-line", sample: await run("long") },
    { rule, name: "empty", sample: await run("quiet", [...command, "--silent"]) },
    { rule, name: "separate-streams", sample: await run("lint") },
    { rule, name: "invalid-utf8", sample: await run("legacy") },
  ];
}

/**
 * A project test runner (`node test/run.js`) that prints mocha's JSON report for
 * `--reporter=json` and dots otherwise. It really runs its cases against `lib/totals.js`;
 * durations and times are fixed so the output is deterministic.
 */
const JSON_REPORTER_RUNNER = `const { total } = require("../lib/totals.js");
const cases = require("./cases.json");
const results = cases.map((c) => ({ ...c, ok: total(c.batch) === c.want }));
if (process.argv.includes("--reporter=json")) {
  const test = (r) => ({
    title: r.title,
    fullTitle: r.suite + " " + r.title,
    file: require("node:path").join(__dirname, r.suite + ".test.js"),
    duration: r.batch.length,
    currentRetry: 0,
    speed: "fast",
    err: {},
  });
  const passes = results.filter((r) => r.ok).map(test);
  const failures = results.filter((r) => !r.ok).map(test);
  const report = {
    stats: {
      suites: new Set(cases.map((c) => c.suite)).size,
      tests: results.length,
      passes: passes.length,
      pending: 0,
      failures: failures.length,
      start: "2024-05-01T10:00:00.000Z",
      end: "2024-05-01T10:00:00.412Z",
      duration: 412,
    },
    tests: results.map(test),
    pending: [],
    failures,
    passes,
  };
  process.stdout.write(JSON.stringify(report, null, 2) + "\\n");
} else {
  process.stdout.write(results.map((r) => (r.ok ? "." : "F")).join("") + "\\n");
}
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
`;

/** The npm guard of a test runner's JSON report: `npm test -- --reporter=json` (real npm). */
async function npmReporterGuardCases(ws: Workspace): Promise<Draft[]> {
  const dir = "npm-reporter-guard";
  const cases = Array.from({ length: 80 }, (_, i) => ({
    suite: AREAS[i % AREAS.length],
    title: testName(i + 1).replaceAll("_", " "),
    batch: [(i + 1) % 7, (i + 1) % 5, (i + 1) % 3],
    want: ((i + 1) % 7) + ((i + 1) % 5) + ((i + 1) % 3),
  }));
  await ws.write(`${dir}/test/cases.json`, JSON.stringify(cases, null, 2) + "\n");
  await ws.write(`${dir}/test/run.js`, JSON_REPORTER_RUNNER);
  await ws.write(
    `${dir}/lib/totals.js`,
    "exports.total = (batch) => batch.reduce((a, b) => a + b, 0);\n",
  );
  await packageJson(ws, dir, { test: "node test/run.js" });
  return [{
    rule: "tests/npm-guard-reporter-json",
    name: "guard",
    sample: await ws.run(["npm", "test", "--", "--reporter=json"], { cwd: dir }),
  }];
}

/**
 * A project test runner for `--watchAll` (`node scripts/watch-all.js`): it runs the suite once
 * with `node --test`, then, given `--watchAll`, says so and waits for changes as jest does, until
 * it is interrupted.
 */
const WATCH_ALL_RUNNER = `const { spawnSync } = require("node:child_process");
const run = spawnSync(process.execPath, ["--test", "--test-reporter=spec"], { stdio: "inherit" });
if (!process.argv.includes("--watchAll")) process.exit(run.status ?? 1);
console.log("\\nWatch Usage: press q to quit, a to run all tests, Enter to rerun.");
console.log("Watching all files for changes...");
setInterval(() => {}, 1000);
`;

/**
 * The package managers' watch guards: `--watch` or `--watchAll` anywhere in the argv, as in
 * `npm test -- --watch`, which hands it to the test runner. A watch run never ends by itself, so a
 * reduced one would show nothing until it is interrupted. npm runs for real (node's own
 * `--test --watch`, and a runner that watches on `--watchAll`), interrupted after the first
 * report; pnpm and yarn are not installed here and are written by hand.
 */
async function packageWatchGuardCases(ws: Workspace): Promise<Draft[]> {
  const dir = "npm-watch-guard";
  await nodeSuite(ws, dir, { files: 4, perFile: 20 });
  await ws.write(`${dir}/scripts/watch-all.js`, WATCH_ALL_RUNNER);
  await packageJson(ws, dir, { test: "node --test --test-reporter=spec" });
  const watch = await ws.run(["npm", "test", "--", "--watch"], {
    cwd: dir,
    interruptAfterMs: WATCH_RUN_MS,
  });
  await packageJson(ws, dir, { test: "node scripts/watch-all.js" });
  const watchAll = await ws.run(["npm", "test", "--", "--watchAll"], {
    cwd: dir,
    interruptAfterMs: WATCH_RUN_MS,
  });
  const suites = AREAS.map((area, f) => ({
    file: `src/${area}/${NOUNS[f]}`,
    suite: NOUNS[f],
    titles: Array.from({ length: 10 }, (_, k) => testName(f * 10 + k + 1).replaceAll("_", " ")),
  }));
  const vitestWatch = (runner: string) =>
    `${runner}\n DEV  v3.2.4 ${ALIAS}\n\n` +
    suites.map(({ file, suite, titles }) =>
      titles.map((title, k) => ` ✓ ${file}.test.ts > ${suite} > ${title} ${k % 4 + 1}ms\n`).join("")
    ).join("") +
    "\n Test Files  8 passed (8)\n      Tests  80 passed (80)\n   Start at  10:00:00\n" +
    "   Duration  412ms (transform 61ms, setup 0ms, collect 88ms, tests 20ms)\n\n" +
    " PASS  Waiting for file changes...\n       press h to show help, press q to quit\n";
  const jestWatchAll = (runner: string) =>
    `${runner}\n` +
    suites.map(({ file, suite, titles }) =>
      `PASS ${file}.test.js\n  ${suite}\n` +
      titles.map((title, k) => `    ✓ ${title} (${k % 4 + 1} ms)\n`).join("") + "\n"
    ).join("") +
    "Test Suites: 8 passed, 8 total\nTests:       80 passed, 80 total\n" +
    "Snapshots:   0 total\nTime:        0.412 s\nRan all test suites.\n\n" +
    "Watch Usage\n › Press f to run only failed tests.\n › Press q to quit watch mode.\n";
  // Interrupted (130) watch runs of pnpm and yarn: [manager, flag, header, report].
  const handWritten: [string, string, string, (header: string) => string][] = [
    ["pnpm", "--watch", `\n> demo@1.0.0 test ${ALIAS}\n> vitest "--watch"\n`, vitestWatch],
    ["pnpm", "--watchAll", `\n> demo@1.0.0 test ${ALIAS}\n> jest "--watchAll"\n`, jestWatchAll],
    ["yarn", "--watch", "yarn run v1.22.22\n$ vitest --watch", vitestWatch],
    ["yarn", "--watchAll", "yarn run v1.22.22\n$ jest --watchAll", jestWatchAll],
  ];
  return [
    { rule: "tests/npm-guard-watch", name: "guard", sample: watch },
    { rule: "tests/npm-guard-watch-all", name: "guard", sample: watchAll },
    ...handWritten.map(([manager, flag, header, report]): Draft => ({
      rule: `tests/${manager}-guard-${flag === "--watch" ? "watch" : "watch-all"}`,
      name: "guard",
      sample: written([manager, "test", flag], 130, report(header)),
    })),
  ];
}

// ---------------------------------------------------------------------------
// npx vitest and npx jest (real runners, pinned, installed from the npm registry)
// ---------------------------------------------------------------------------

/** The test runners `npx vitest` and `npx jest` run, exact versions. */
const NPX_RUNNERS = ["vitest@3.2.4", "jest@29.7.0"] as const;
/**
 * Where the runners are installed. Each test project is a subdirectory with neither a
 * package.json nor a node_modules of its own, so npx finds the runners here and never downloads.
 */
const NPX_TOOLS = "npx-tools";
const npxInstalls = new WeakMap<Workspace, Promise<void>>();

/** Installs {@link NPX_RUNNERS} once per workspace: the only fixture inputs that need the network. */
function installNpxRunners(ws: Workspace): Promise<void> {
  let install = npxInstalls.get(ws);
  if (install === undefined) {
    install = (async () => {
      await ws.write(
        `${NPX_TOOLS}/package.json`,
        JSON.stringify({ name: "demo-test-runners", version: "1.0.0", private: true }, null, 2) +
          "\n",
      );
      await ws.exec(["npm", "install", "--save-exact", ...NPX_RUNNERS], NPX_TOOLS);
    })();
    npxInstalls.set(ws, install);
  }
  return install;
}

/** Start and end times and durations in vitest's and jest's JSON reports, fixed. */
const JSON_REPORT_TIMES: Normalizer = (t) =>
  t.replace(
    /"(startTime|endTime|duration)":\d+(?:\.\d+)?/g,
    (_, key) =>
      `"${key}":${key === "duration" ? 1 : key === "endTime" ? 1714557600412 : 1714557600000}`,
  );

/** vitest's start time and durations (of the run, each file and each test) in every report, fixed. */
const VITEST: readonly Normalizer[] = [
  (t) => t.replace(/^( {3}Start at {2})\d\d:\d\d:\d\d$/gm, (_, a) => `${a}10:00:00`),
  (t) =>
    t.replace(
      /^( {3}Duration {2})\d.*$/gm,
      (_, a) =>
        `${a}1.20s (transform 210ms, setup 0ms, collect 310ms, tests 42ms, environment 0ms, prepare 95ms)`,
    ),
  (t) => t.replace(/ \d+ms$/gm, " 1ms"),
  JSON_REPORT_TIMES,
  // The JUnit report's run time, host and durations, and the TAP reports' durations.
  (t) => t.replace(/ timestamp="[^"]*"/g, ' timestamp="2024-05-01T10:00:00.000Z"'),
  (t) => t.replace(/ hostname="[^"]*"/g, ' hostname="devbox"'),
  (t) => t.replace(/ time="\d+(?:\.\d+)?"/g, ' time="0.001"'),
  (t) => t.replace(/ # time=\d+(?:\.\d+)?ms/g, " # time=1.00ms"),
];

/**
 * jest's run time and test durations. A test's `(N ms)` shows only when it took a millisecond or
 * more, so it is removed, as jest prints it for a faster test.
 */
const JEST: readonly Normalizer[] = [
  (t) =>
    t.replace(
      /^(Time: {8})\d+(?:\.\d+)? m?s(?:, estimated \d+ m?s)?$/gm,
      (_, a) => `${a}1.234 s`,
    ),
  (t) => t.replace(/ \(\d+ ms\)$/gm, ""),
  (t) => t.replace(/^((?:PASS|FAIL) .*) \(\d+(?:\.\d+)? m?s\)$/gm, (_, a) => a),
  JSON_REPORT_TIMES,
  // `--showConfig` prints the random seed jest draws for each run.
  (t) => t.replace(/^( {4}"seed": )-?\d+,$/gm, (_, a) => `${a}1234,`),
];

/** What a generated vitest or jest project contains besides its {@link SuiteOptions}. */
interface RunnerSuiteOptions extends SuiteOptions {
  /** One test per file that writes a warning to console.error (vitest) or console.warn (jest). */
  readonly warnings?: boolean;
  /** A test that writes 200 latin-1 records with NUL bytes to stdout. */
  readonly dump?: boolean;
}

/**
 * Test files of a vitest or jest project: `src/<area>/<noun>.test.<ext>`, one `describe` each.
 * Both runners order files by size, largest first, so blank lines at the end make every size
 * distinct and the order fixed.
 */
function runnerTestFiles(
  options: RunnerSuiteOptions,
  header: string,
  ext: string,
): Map<string, string> {
  const files = new Map<string, string>();
  const sizes = new Set<number>();
  let t = 0;
  for (let f = 0; f < options.files; f++) {
    let text = `${header}\ndescribe("${NOUNS[f % NOUNS.length]}", () => {\n`;
    for (let k = 0; k < options.perFile; k++) {
      t++;
      const fails = options.failing?.includes(t) ?? false;
      const want = (t % 7) + (t % 5) + (t % 3) + (fails ? 1 : 0);
      text += `  it("${testName(t).replaceAll("_", " ")}", () => {\n` +
        `    expect(total([${t % 7}, ${t % 5}, ${t % 3}])).toBe(${want});\n  });\n`;
    }
    if (options.warnings) {
      text += `  it("retries the upstream call", () => {\n` +
        `    console.${ext === "ts" ? "error" : "warn"}("warning: retrying request ${
          f % 3 + 1
        }/3 after ECONNRESET");\n  });\n`;
    }
    if (f === 0 && options.longPrint !== undefined) {
      text += `  it("prints the route table", () => {\n    console.log(JSON.stringify(` +
        `Array.from({ length: ${
          Math.ceil(options.longPrint / 40)
        } }, (_, k) => ({ path: "/api/v2/r" + k, auth: k % 2 }))));\n  });\n`;
    }
    if (f === 0 && options.dump) {
      text += `  it("dumps the legacy records", () => {\n    for (let i = 0; i < 200; i++) {\n` +
        `      process.stdout.write(Buffer.concat([Buffer.from(String(i).padStart(3, "0") + " TODO caf"), ` +
        `Buffer.from([0xe9, 0]), Buffer.from(" legacy record\\n")]));\n    }\n  });\n`;
    }
    text += "});\n";
    while (sizes.has(encoder.encode(text).length)) text += "\n";
    sizes.add(encoder.encode(text).length);
    const path = `src/${AREAS[f % AREAS.length]}/${NOUNS[f % NOUNS.length]}${f < 8 ? "" : f}`;
    files.set(`${path}.test.${ext}`, text);
  }
  return files;
}

/**
 * Writes a vitest project at `dir` (TypeScript tests) whose config runs one file at a time, keeps
 * vitest's cache outside node_modules and reports no test as slow (the default reporter lists a
 * passing test that took over 300 ms, which a busy machine can make happen).
 */
async function vitestProject(
  ws: Workspace,
  dir: string,
  options: RunnerSuiteOptions,
): Promise<void> {
  await ws.write(
    `${dir}/vitest.config.mjs`,
    'export default {\n  cacheDir: ".vite-cache",\n  test: { fileParallelism: false, slowTestThreshold: 60_000 },\n};\n',
  );
  await ws.write(
    `${dir}/src/totals.ts`,
    "export const total = (batch: number[]): number => batch.reduce((a, b) => a + b, 0);\n",
  );
  const header =
    'import { describe, expect, it } from "vitest";\nimport { total } from "../totals";\n';
  for (const [path, text] of runnerTestFiles(options, header, "ts")) {
    await ws.write(`${dir}/${path}`, text);
  }
}

/**
 * Writes a jest project at `dir` (CommonJS tests) whose config runs the files in band with a
 * cache of its own.
 */
async function jestProject(ws: Workspace, dir: string, options: RunnerSuiteOptions): Promise<void> {
  await ws.write(
    `${dir}/jest.config.js`,
    'module.exports = { maxWorkers: 1, cacheDirectory: "<rootDir>/.jest-cache" };\n',
  );
  await ws.write(
    `${dir}/src/totals.js`,
    "exports.total = (batch) => batch.reduce((a, b) => a + b, 0);\n",
  );
  for (
    const [path, text] of runnerTestFiles(
      options,
      'const { total } = require("../totals.js");\n',
      "js",
    )
  ) {
    await ws.write(`${dir}/${path}`, text);
  }
}

/** A vitest reporter of a project's own that writes a summary file and prints nothing. */
const VITEST_SUMMARY_REPORTER = `import { mkdirSync, writeFileSync } from "node:fs";

export default class SummaryReporter {
  onTestRunEnd(modules) {
    mkdirSync("reports", { recursive: true });
    writeFileSync("reports/summary.txt", modules.map((m) => m.moduleId + " " + m.state()).join("\\n") + "\\n");
  }
}
`;

/** A jest reporter of a project's own that writes a summary file and prints nothing. */
const JEST_SUMMARY_REPORTER = `const { mkdirSync, writeFileSync } = require("node:fs");

module.exports = class SummaryReporter {
  onRunComplete(_contexts, results) {
    mkdirSync("reports", { recursive: true });
    writeFileSync("reports/summary.txt", results.testResults.map((r) => r.testFilePath + " " + (r.numFailingTests > 0 ? "failed" : "passed")).join("\\n") + "\\n");
  }
};
`;

/**
 * tests/npx-vitest: real vitest over generated TypeScript suites. vitest prints its report on
 * stdout and the failed tests' details, and what tests write to console.error, on stderr.
 */
async function npxVitestCases(ws: Workspace): Promise<Draft[]> {
  await installNpxRunners(ws);
  const base = `${NPX_TOOLS}/vitest`;
  const verbose = ["npx", "vitest", "run", "--reporter=verbose"];
  const plain = ["npx", "vitest", "run"];
  await ws.write(`${base}/quiet/scripts/summary-reporter.mjs`, VITEST_SUMMARY_REPORTER);
  return await runnerCases(ws, "tests/npx-vitest", {
    base,
    project: vitestProject,
    normalize: VITEST,
  }, [
    ["success", "pass", { files: 8, perFile: 30 }, verbose],
    // Every failure in one file: vitest lists the failed tests of several files in the order it
    // collected the files, which varies from run to run.
    ["failure", "fail", { files: 8, perFile: 30, failing: [4, 9, 13, 18, 22, 27] }, plain],
    // npx's own option before the package name: not a reviewed program-level option.
    ["near-miss", "near", { files: 8, perFile: 30 }, [
      "npx",
      "--yes",
      "vitest",
      "run",
      "--reporter=verbose",
    ]],
    ["short-exact", "tiny", { files: 1, perFile: 2 }, plain],
    ["middle-line", "middle", { files: 8, perFile: 30, failing: [120] }, verbose],
    ["long-line", "long", { files: 1, perFile: 3, longPrint: 5000 }, plain],
    ["empty", "quiet", { files: 2, perFile: 5 }, [
      ...plain,
      "--reporter=./scripts/summary-reporter.mjs",
    ]],
    ["separate-streams", "noisy", { files: 8, perFile: 30, warnings: true }, verbose],
    ["invalid-utf8", "legacy", { files: 1, perFile: 1, dump: true }, plain],
  ]);
}

/** A real test runner as {@link runnerCases} drives it. */
interface RunnerTool {
  /** The directory under which each case gets a project of its own. */
  readonly base: string;
  /** Writes a project of the runner at a directory. */
  readonly project: (ws: Workspace, dir: string, options: RunnerSuiteOptions) => Promise<void>;
  readonly normalize: readonly Normalizer[];
}

/** One runner case: its name, its project's directory under the base, the suite, the argv. */
type RunnerCase = readonly [CaseName, string, RunnerSuiteOptions, readonly string[]];

/** Runs each case, in order, in a fresh project of `tool`. */
async function runnerCases(
  ws: Workspace,
  rule: string,
  tool: RunnerTool,
  cases: readonly RunnerCase[],
): Promise<Draft[]> {
  const drafts: Draft[] = [];
  for (const [name, dir, options, argv] of cases) {
    const cwd = `${tool.base}/${dir}`;
    await tool.project(ws, cwd, options);
    drafts.push({
      rule,
      name,
      sample: await ws.run(argv, { cwd, normalize: [...tool.normalize] }),
    });
  }
  return drafts;
}

/** How long a watch-mode run goes on before its Ctrl-C: past the first full report. */
const WATCH_RUN_MS = 15_000;

/**
 * The vitest guards (real vitest): its machine-readable reports (`--reporter=json`, `junit`,
 * `tap` and `tap-flat`, each also as `--reporter NAME`), and its watch modes, interrupted after the first report: the `watch` and `dev` commands and
 * the `--watch` and `-w` flags. A watch run never ends by itself, so a reduced one would show
 * nothing until it is interrupted.
 */
async function npxVitestGuardCases(ws: Workspace): Promise<Draft[]> {
  await installNpxRunners(ws);
  const run = async (dir: string, argv: readonly string[], interruptAfterMs?: number) => {
    // One file: the JSON report lists files in the order vitest collected them, which varies.
    await vitestProject(ws, `${NPX_TOOLS}/vitest-guards/${dir}`, { files: 1, perFile: 40 });
    return ws.run(argv, {
      cwd: `${NPX_TOOLS}/vitest-guards/${dir}`,
      normalize: [...VITEST],
      interruptAfterMs,
    });
  };
  const watch = (dir: string, argv: readonly string[]) => run(dir, argv, WATCH_RUN_MS);
  const reporters: Draft[] = [];
  for (const reporter of ["junit", "tap", "tap-flat"]) {
    reporters.push({
      rule: `tests/npx-vitest-guard-reporter-${reporter}`,
      name: "guard",
      sample: await run(reporter, ["npx", "vitest", "run", `--reporter=${reporter}`]),
    }, {
      rule: `tests/npx-vitest-guard-reporter-${reporter}-spaced`,
      name: "guard",
      sample: await run(`${reporter}-spaced`, ["npx", "vitest", "run", "--reporter", reporter]),
    });
  }
  return [
    ...reporters,
    {
      rule: "tests/npx-vitest-guard-reporter-json",
      name: "guard",
      sample: await run("assigned", ["npx", "vitest", "run", "--reporter=json"]),
    },
    {
      rule: "tests/npx-vitest-guard-reporter-json-spaced",
      name: "guard",
      sample: await run("spaced", ["npx", "vitest", "run", "--reporter", "json"]),
    },
    {
      rule: "tests/npx-vitest-guard-watch",
      name: "guard",
      sample: await watch("watch", ["npx", "vitest", "watch", "--reporter=verbose"]),
    },
    {
      rule: "tests/npx-vitest-guard-dev",
      name: "guard",
      sample: await watch("dev", ["npx", "vitest", "dev", "--reporter=verbose"]),
    },
    {
      rule: "tests/npx-vitest-guard-watch-flag",
      name: "guard",
      sample: await watch("flag", ["npx", "vitest", "--watch", "--reporter=verbose"]),
    },
    {
      rule: "tests/npx-vitest-guard-watch-short",
      name: "guard",
      sample: await watch("short", ["npx", "vitest", "-w", "--reporter=verbose"]),
    },
  ];
}

/**
 * tests/npx-jest: real jest over generated CommonJS suites. jest prints its report on stderr;
 * with `--verbose` what tests write to the console goes to stdout. The `invalid-utf8` case runs
 * `--verbose` because jest's default reporter re-encodes what tests write to stdout as UTF-8.
 */
async function npxJestCases(ws: Workspace): Promise<Draft[]> {
  await installNpxRunners(ws);
  const base = `${NPX_TOOLS}/jest`;
  const verbose = ["npx", "jest", "--verbose"];
  const plain = ["npx", "jest"];
  await ws.write(`${base}/quiet/scripts/summary-reporter.js`, JEST_SUMMARY_REPORTER);
  return await runnerCases(ws, "tests/npx-jest", { base, project: jestProject, normalize: JEST }, [
    ["success", "pass", { files: 8, perFile: 30 }, verbose],
    ["failure", "fail", { files: 24, perFile: 10, failing: [17, 58, 99, 140, 181, 222] }, plain],
    // `npm exec`: the same runner through npm, not npx.
    ["near-miss", "near", { files: 8, perFile: 30 }, ["npm", "exec", "--", "jest", "--verbose"]],
    ["short-exact", "tiny", { files: 1, perFile: 2 }, plain],
    ["middle-line", "middle", { files: 8, perFile: 30, failing: [120] }, verbose],
    ["long-line", "long", { files: 1, perFile: 3, longPrint: 5000 }, plain],
    ["empty", "quiet", { files: 2, perFile: 5 }, [
      ...plain,
      "--reporters=./scripts/summary-reporter.js",
    ]],
    ["separate-streams", "noisy", { files: 8, perFile: 30, warnings: true }, verbose],
    ["invalid-utf8", "legacy", { files: 1, perFile: 1, dump: true }, verbose],
  ]);
}

/**
 * The jest guards (real jest): its JSON report (`--json`), its resolved configuration
 * (`--showConfig`), and its watch modes (`--watch`, `--watchAll`), interrupted after the first
 * report.
 */
async function npxJestGuardCases(ws: Workspace): Promise<Draft[]> {
  await installNpxRunners(ws);
  const dir = `${NPX_TOOLS}/jest-guards/json`;
  await jestProject(ws, dir, { files: 8, perFile: 10 });
  const watch = async (name: string, flag: string) => {
    const project = `${NPX_TOOLS}/jest-guards/${name}`;
    await jestProject(ws, project, { files: 8, perFile: 30 });
    // Outside a repository jest's --watch would refuse to start, so the project is one.
    await ws.exec(["git", "init", "-q"], project);
    return ws.run(["npx", "jest", flag, "--verbose"], {
      cwd: project,
      normalize: [...JEST],
      interruptAfterMs: WATCH_RUN_MS,
    });
  };
  return [
    {
      rule: "tests/npx-jest-guard-json",
      name: "guard",
      sample: await ws.run(["npx", "jest", "--json"], { cwd: dir, normalize: [...JEST] }),
    },
    {
      rule: "tests/npx-jest-guard-show-config",
      name: "guard",
      sample: await ws.run(["npx", "jest", "--showConfig"], { cwd: dir, normalize: [...JEST] }),
    },
    { rule: "tests/npx-jest-guard-watch", name: "guard", sample: await watch("watch", "--watch") },
    {
      rule: "tests/npx-jest-guard-watch-all",
      name: "guard",
      sample: await watch("watch-all", "--watchAll"),
    },
  ];
}

// ---------------------------------------------------------------------------
// npm install / i / ci (real npm; local file: packages with install scripts)
// ---------------------------------------------------------------------------

/** What each local dependency's postinstall script prints. */
type InstallScript = (n: number) => string;

/** A node-gyp style native build log on stdout. */
const GYP_BUILD: InstallScript = (n) =>
  `const n = ${n};\n` +
  "console.log(`gyp info it worked if it ends with ok`);\n" +
  "console.log(`gyp info using node-gyp@10.1.0 | linux | x64`);\n" +
  "for (const f of ['binding', 'codec', 'pool']) console.log(`  CC(target) Release/obj.target/native${n}/src/${f}.o`);\n" +
  "console.log(`  SOLINK_MODULE(target) Release/obj.target/native${n}.node`);\n" +
  "console.log(`gyp info ok`);\n";

/** Writes an npm project at `dir` with `deps` local packages running `script`. */
async function npmProject(
  ws: Workspace,
  dir: string,
  deps: number,
  script: InstallScript,
): Promise<void> {
  const dependencies: Record<string, string> = {};
  for (let n = 1; n <= deps; n++) {
    const name = `native${pad(n)}`;
    dependencies[name] = `file:deps/${name}`;
    await ws.write(
      `${dir}/deps/${name}/package.json`,
      JSON.stringify({ name, version: `1.${n}.0`, scripts: { postinstall: "node build.js" } }) +
        "\n",
    );
    await ws.write(`${dir}/deps/${name}/build.js`, script(n));
  }
  await ws.write(
    `${dir}/package.json`,
    JSON.stringify(
      {
        name: "demo",
        version: "1.0.0",
        private: true,
        scripts: { test: "node -e \"console.log('tests ok')\"" },
        dependencies,
      },
      null,
      2,
    ) + "\n",
  );
  await ws.write(`${dir}/.npmrc`, "foreground-scripts=true\n");
}

/** The nine cases of `npm install`, `npm i` or `npm ci`. */
async function npmInstallCases(
  ws: Workspace,
  rule: string,
  command: string,
  nearMiss: readonly string[],
): Promise<Draft[]> {
  const base = rule.replace("/", "-");
  const project = async (dir: string, deps: number, script: InstallScript) => {
    await npmProject(ws, `${base}/${dir}`, deps, script);
    if (command === "ci") {
      await ws.exec(
        ["npm", "install", "--package-lock-only", "--ignore-scripts"],
        `${base}/${dir}`,
      );
    }
  };
  const run = (dir: string, args: readonly string[] = [command]) =>
    ws.run(["npm", ...args], { cwd: `${base}/${dir}` });
  await project("native", 30, GYP_BUILD);
  await project("near", 30, GYP_BUILD);
  await project("broken", 30, (n) =>
    n === 24
      ? GYP_BUILD(n).replace(
        "console.log(`gyp info ok`);\n",
        "console.error(`native${n}.cc:41:10: fatal error: zlib.h: No such file or directory`);\n" +
          "console.error(`gyp ERR! build error`);\n" +
          "console.error(`gyp ERR! stack Error: \\`make\\` failed with exit code: 2`);\n" +
          "console.error(`gyp ERR! not ok`);\nprocess.exit(1);\n",
      )
      : GYP_BUILD(n));
  await project("none", 0, GYP_BUILD);
  await project(
    "prebuilt",
    12,
    (n) =>
      `const n = ${n};\nfor (const part of ['core', 'codec', 'simd', 'extra']) {\n` +
      "  console.log(`Downloading https://example.com/prebuilt/native${n}-${part}-linux-x64.tar.gz`);\n" +
      "  console.log(`Downloaded native${n}-${part}-linux-x64.tar.gz (1.${n} MB)`);\n}\n" +
      (n === 6
        ? "console.log(`warning: no prebuilt binary for musl; building native${n} from source`);\n"
        : ""),
  );
  await project(
    "long",
    2,
    (n) =>
      `console.log("binding.gyp defines: " + Array.from({ length: 160 }, (_, k) => \`FEATURE_${n}_\${k}=1\`).join(" "));\n`,
  );
  await project("chatty", 30, (n) =>
    GYP_BUILD(n) +
    "for (const api of ['NanNew', 'NanAsyncWorker', 'NanCallback', 'NanReturnValue']) {\n" +
    `  console.error(\`warning: native${n}: \${api} is deprecated; port to node-addon-api\`);\n}\n`);
  await project("legacy", 1, () =>
    "for (let i = 0; i < 200; i++) {\n" +
    '  process.stdout.write(Buffer.concat([Buffer.from(`${String(i).padStart(3, "0")} TODO caf`), ' +
    'Buffer.from([0xe9, 0]), Buffer.from(" legacy record\\n")]));\n}\n');
  return [
    { rule, name: "success", sample: await run("native") },
    { rule, name: "failure", sample: await run("broken") },
    { rule, name: "near-miss", sample: await run("near", nearMiss) },
    { rule, name: "short-exact", sample: await run("none") },
    { rule, name: "middle-line", sample: await run("prebuilt") },
    { rule, name: "long-line", sample: await run("long") },
    { rule, name: "empty", sample: await run("none", [command, "--silent"]) },
    { rule, name: "separate-streams", sample: await run("chatty") },
    { rule, name: "invalid-utf8", sample: await run("legacy") },
  ];
}

/** The npm guard: `npm install --json`. */
async function npmGuardCases(ws: Workspace): Promise<Draft[]> {
  await npmProject(ws, "npm-guard", 30, GYP_BUILD);
  return [{
    rule: "package/npm-guard-json",
    name: "guard",
    sample: await ws.run(["npm", "install", "--json", "--ignore-scripts"], { cwd: "npm-guard" }),
  }];
}

// ---------------------------------------------------------------------------
// Written by hand: go, tsc, pnpm and yarn are not installed here
// ---------------------------------------------------------------------------

const GO_MODULE = "example.com/shop";
const GO_STD = [
  "internal/goarch",
  "internal/unsafeheader",
  "internal/abi",
  "internal/cpu",
  "internal/bytealg",
  "internal/byteorder",
  "internal/chacha8rand",
  "internal/coverage/rtcov",
  "internal/godebugs",
  "internal/goexperiment",
  "internal/goos",
  "internal/profilerecord",
  "internal/runtime/atomic",
  "internal/runtime/exithook",
  "internal/runtime/math",
  "internal/runtime/sys",
  "internal/stringslite",
  "runtime",
  "internal/reflectlite",
  "errors",
  "sync/atomic",
  "internal/race",
  "sync",
  "io",
  "unicode",
  "unicode/utf8",
  "slices",
  "internal/itoa",
  "math/bits",
  "math",
  "strconv",
  "internal/fmtsort",
  "iter",
  "reflect",
  "internal/oserror",
  "io/fs",
  "internal/syscall/unix",
  "syscall",
  "time",
  "internal/poll",
  "internal/filepathlite",
  "internal/testlog",
  "os",
  "fmt",
  "bytes",
  "strings",
  "sort",
  "context",
  "encoding",
  "encoding/binary",
  "encoding/base64",
  "unicode/utf16",
  "encoding/json",
  "bufio",
  "log",
  "path",
  "path/filepath",
  "regexp/syntax",
  "regexp",
  "net/netip",
  "vendor/golang.org/x/net/dns/dnsmessage",
  "internal/nettrace",
  "internal/singleflight",
  "net",
  "net/url",
  "mime",
  "mime/quotedprintable",
  "net/textproto",
  "mime/multipart",
  "crypto",
  "crypto/internal/fips140deps/byteorder",
  "crypto/subtle",
  "crypto/cipher",
  "crypto/aes",
  "crypto/sha256",
  "crypto/hmac",
  "crypto/rand",
  "hash",
  "hash/crc32",
  "compress/flate",
  "compress/gzip",
  "container/list",
  "crypto/tls",
  "net/http/internal",
  "net/http/httptrace",
  "net/http",
  "database/sql/driver",
  "database/sql",
  "log/slog",
  "html",
  "text/template/parse",
  "text/template",
  "html/template",
  "embed",
  "flag",
];

/** The packages of the hand-written Go module, `internal/<area>/<noun>`. */
function goPackages(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) =>
      `internal/${AREAS[i % AREAS.length]}/${NOUNS[(i * 7) % NOUNS.length]}${i < 20 ? "" : i}`,
  );
}

/** Compiler errors of one Go package, as `go build` prints them (at most 10, then "too many errors"). */
function goErrors(pkg: string, count: number): string {
  const file = `${pkg}/${pkg.split("/").at(-1)}.go`;
  const kinds = [
    (n: number) => `${file}:${12 + n * 9}:9: undefined: decimal.NewFromInt`,
    (n: number) => `${file}:${14 + n * 9}:2: declared and not used: rows${n}`,
    (n: number) =>
      `${file}:${
        17 + n * 9
      }:15: cannot use id (variable of type int64) as string value in argument to s.lookup`,
    (n: number) => `${file}:${19 + n * 9}:3: missing return`,
  ];
  let out = `# ${GO_MODULE}/${pkg}\n`;
  for (let n = 0; n < Math.min(count, 10); n++) out += kinds[n % kinds.length](n) + "\n";
  if (count > 10) out += `${file}:${12 + 10 * 9}:2: too many errors\n`;
  return out;
}

/** `go vet` findings for one package. */
function goVetFindings(pkg: string, count: number): string {
  const file = `${pkg}/${pkg.split("/").at(-1)}.go`;
  const kinds = [
    (n: number) =>
      `${file}:${31 + n * 7}:2: fmt.Printf format %d has arg name of wrong type string`,
    (n: number) => `${file}:${33 + n * 7}:3: unreachable code`,
    (n: number) =>
      `${file}:${36 + n * 7}:9: call of json.Unmarshal passes non-pointer as second argument`,
    (n: number) => `${file}:${38 + n * 7}:6: self-assignment of cfg.Timeout to cfg.Timeout`,
  ];
  let out = `# ${GO_MODULE}/${pkg}\n`;
  for (let n = 0; n < count; n++) out += kinds[n % kinds.length](n) + "\n";
  return out;
}

/** A latin-1 record with a NUL byte, 200 times, as raw bytes. */
function legacyOutput(prefix: (i: number) => string): Uint8Array {
  return bytes(
    ...Array.from(
      { length: 200 },
      (_, i) =>
        bytes(`${prefix(i)}${pad(i, 3)} TODO caf`, new Uint8Array([0xe9, 0]), " legacy record\n"),
    ),
  );
}

/** build/go-build, written by hand: go writes package lists and errors to stderr. */
function goBuildCases(): Promise<Draft[]> {
  const rule = "build/go-build";
  const pkgs = goPackages(360);
  const built = [...GO_STD, ...pkgs.map((p) => `${GO_MODULE}/${p}`), `${GO_MODULE}/cmd/shop`];
  const failing = pkgs.slice(10, 55);
  const long =
    `internal/orders/cart/cart.go:88:15: cannot use items (variable of type map[string]struct{` +
    Array.from({ length: 200 }, (_, k) => `F${k} ${k % 2 ? "int64" : "string"} "json:\\"f${k}\\""`)
      .join("; ") +
    `}) as map[string]CartItem value in return statement\n`;
  // The failing package's errors land after the failure policy's 300 head lines.
  const middle = built.slice(0, 320).join("\n") + "\n" + goErrors(pkgs[240], 2) +
    built.slice(320).filter((p) => !p.endsWith(pkgs[240])).join("\n") + "\n";
  return Promise.resolve([
    {
      rule,
      name: "success",
      sample: written(["go", "build", "-v", "./..."], 0, "", built.join("\n") + "\n"),
    },
    {
      rule,
      name: "failure",
      sample: written(
        ["go", "build", "./..."],
        1,
        "",
        failing.map((p, i) => goErrors(p, 6 + (i % 7))).join(""),
      ),
    },
    {
      rule,
      name: "near-miss",
      sample: written(["go", "install", "-v", "./..."], 0, "", built.join("\n") + "\n"),
    },
    {
      rule,
      name: "short-exact",
      sample: written(
        ["go", "build", "-v", "./cmd/shop"],
        0,
        "",
        `${GO_MODULE}/internal/config\n${GO_MODULE}/cmd/shop\n`,
      ),
    },
    { rule, name: "middle-line", sample: written(["go", "build", "-v", "./..."], 1, "", middle) },
    {
      rule,
      name: "long-line",
      sample: written(
        ["go", "build", "./..."],
        1,
        "",
        `# ${GO_MODULE}/internal/orders/cart\n${long}`,
      ),
    },
    { rule, name: "empty", sample: written(["go", "build", "./..."], 0, "") },
    {
      rule,
      name: "separate-streams",
      sample: written(
        ["go", "build", "-v", "./..."],
        1,
        "",
        built.join("\n") + "\n" + goErrors(pkgs[3], 4),
      ),
    },
    {
      rule,
      name: "invalid-utf8",
      sample: {
        ...written(["go", "build", "./..."], 1, ""),
        stderr: bytes(
          `# ${GO_MODULE}/internal/legacy\n`,
          legacyOutput(() => "internal/legacy/records.go:12:2: invalid UTF-8 in string literal: "),
        ),
      },
    },
  ]);
}

/** build/go-vet, written by hand: findings on stderr, exit 1. */
function goVetCases(): Promise<Draft[]> {
  const rule = "build/go-vet";
  const pkgs = goPackages(220);
  const vetX = pkgs.slice(0, 200).map((p, i) =>
    `cd ${ALIAS}/${p}\n/usr/local/go/pkg/tool/linux_amd64/vet -atomic -bool -buildtags -directive ` +
    `-errorsas -ifaceassert -nilfunc -printf -stringintconv -tests $WORK/b${
      pad(i + 1, 3)
    }/vet.cfg\n`
  ).join("");
  const findings = pkgs.slice(0, 70).map((p, i) => goVetFindings(p, 3 + (i % 5))).join("");
  const staticcheck = findings.split("\n").filter((l) => l !== "" && !l.startsWith("# "))
    .map((l) => `${l} (SA5009)\n`).join("");
  const middle = pkgs.map((p) =>
    `# ${GO_MODULE}/${p}\n${p}/${
      p.split("/").at(-1)
    }.go:31:2: fmt.Printf format %d has arg name of wrong type string\n`
  ).join("");
  return Promise.resolve([
    {
      rule,
      name: "success",
      sample: written(["go", "vet", "-x", "./..."], 0, "", vetX),
    },
    { rule, name: "failure", sample: written(["go", "vet", "./..."], 1, "", findings) },
    {
      rule,
      name: "near-miss",
      sample: written(["staticcheck", "./..."], 1, staticcheck),
    },
    {
      rule,
      name: "short-exact",
      sample: written(
        ["go", "vet", "./internal/report"],
        1,
        "",
        goVetFindings("internal/reports/report", 2),
      ),
    },
    {
      rule,
      name: "middle-line",
      sample: written(
        ["go", "vet", "./..."],
        1,
        "",
        middle.replace(
          `${pkgs[160]}/${
            pkgs[160].split("/").at(-1)
          }.go:31:2: fmt.Printf format %d has arg name of wrong type string`,
          `${pkgs[160]}/${pkgs[160].split("/").at(-1)}.go:44:9: possible misuse of unsafe.Pointer`,
        ),
      ),
    },
    {
      rule,
      name: "long-line",
      sample: written(
        ["go", "vet", "./internal/orders/..."],
        1,
        "",
        `# ${GO_MODULE}/internal/orders/cart\n` +
          `internal/orders/cart/cart.go:51:2: struct field tag \`${
            Array.from({ length: 500 }, (_, k) => `json:"f${k}"`).join(" ")
          }\` not compatible with reflect.StructTag.Get: bad syntax for struct tag pair\n`,
      ),
    },
    { rule, name: "empty", sample: written(["go", "vet", "./..."], 0, "") },
    {
      rule,
      name: "separate-streams",
      sample: written(
        ["go", "vet", "-x", "./..."],
        1,
        "",
        vetX + findings.slice(0, 4000).replace(/\n[^\n]*$/, "\n"),
      ),
    },
    {
      rule,
      name: "invalid-utf8",
      sample: {
        ...written(["go", "vet", "./..."], 1, ""),
        stderr: bytes(
          `# ${GO_MODULE}/internal/legacy\n`,
          legacyOutput(() =>
            "internal/legacy/records.go:12:2: fmt.Sprintf call has arguments but no formatting directives: "
          ),
        ),
      },
    },
  ]);
}

/** `go test -v` output of one package with `tests` tests (failing ones listed). */
function goTestPackage(
  pkg: string,
  first: number,
  tests: number,
  failing: readonly number[],
  extra = "",
): { stdout: string; failed: boolean } {
  let out = "";
  let failed = false;
  const file = `${pkg.split("/").at(-1)}_test.go`;
  for (let t = first; t < first + tests; t++) {
    const name = `Test${capitalize(VERBS[t % VERBS.length])}${
      capitalize(NOUNS[t % NOUNS.length])
    }${t}`;
    out += `=== RUN   ${name}\n`;
    if (t % 5 === 0) out += `=== PAUSE ${name}\n=== CONT  ${name}\n`;
    if (failing.includes(t)) {
      failed = true;
      out += `    ${file}:${40 + t % 50}: total(${t % 7}, ${t % 5}) = ${
        (t % 7) + (t % 5) + 1
      }, want ${(t % 7) + (t % 5)}\n`;
      out += `--- FAIL: ${name} (0.00s)\n`;
    } else {
      out += `--- PASS: ${name} (0.00s)\n`;
    }
  }
  out += extra;
  out += failed
    ? `FAIL\nFAIL\t${GO_MODULE}/${pkg}\t0.0${first % 9 + 1}1s\n`
    : `PASS\nok  \t${GO_MODULE}/${pkg}\t0.0${first % 9 + 1}2s\n`;
  return { stdout: out, failed };
}

/** `go test -v ./...` over `packages` packages of `tests` tests. */
function goTestRun(
  packages: number,
  tests: number,
  failing: readonly number[] = [],
  extra: (p: number) => string = () => "",
): { stdout: string; failed: boolean } {
  let stdout = "";
  let failed = false;
  for (const [i, pkg] of goPackages(packages).entries()) {
    const run = goTestPackage(pkg, i * tests + 1, tests, failing, extra(i));
    stdout += run.stdout;
    failed ||= run.failed;
  }
  if (failed) stdout += "FAIL\n";
  return { stdout, failed };
}

/** tests/go-test, written by hand: test output on stdout, build errors on stderr. */
function goTestCases(): Promise<Draft[]> {
  const rule = "tests/go-test";
  const pass = goTestRun(8, 40);
  const fail = goTestRun(10, 40, [17, 58, 99, 140, 181, 222, 263, 304]);
  const middle = goTestRun(8, 40, [160]);
  const long = goTestRun(
    1,
    3,
    [],
    () =>
      `=== RUN   TestRouteTable\n    routes_test.go:30: routes: ${
        JSON.stringify(
          Array.from({ length: 120 }, (_, k) => ({ path: `/api/v2/r${k}`, auth: k % 2 })),
        )
      }\n--- PASS: TestRouteTable (0.00s)\n`,
  );
  const buildFailure =
    `# ${GO_MODULE}/internal/orders/cart [${GO_MODULE}/internal/orders/cart.test]\n` +
    `internal/orders/cart/cart_test.go:14:2: undefined: newTestCart\n` +
    `internal/orders/cart/cart_test.go:29:9: undefined: newTestCart\n`;
  const gotestsum = goPackages(8).flatMap((pkg, p) =>
    Array.from({ length: 40 }, (_, k) => {
      const t = p * 40 + k + 1;
      return `PASS ${pkg}.Test${capitalize(VERBS[t % VERBS.length])}${
        capitalize(NOUNS[t % NOUNS.length])
      }${t} (0.00s)\n`;
    }).concat([`PASS ${pkg}\n`])
  ).join("") + "\nDONE 320 tests in 1.412s\n";
  const raw = bytes(
    "=== RUN   TestDumpLegacyRecords\n",
    legacyOutput(() => "    records_test.go:21: "),
    "--- PASS: TestDumpLegacyRecords (0.00s)\nPASS\n",
    `ok  \t${GO_MODULE}/internal/legacy\t0.011s\n`,
  );
  return Promise.resolve([
    { rule, name: "success", sample: written(["go", "test", "-v", "./..."], 0, pass.stdout) },
    { rule, name: "failure", sample: written(["go", "test", "-v", "./..."], 1, fail.stdout) },
    {
      rule,
      name: "near-miss",
      sample: written(["gotestsum", "--format", "standard-quiet", "--", "./..."], 0, gotestsum),
    },
    {
      rule,
      name: "short-exact",
      sample: written(
        ["go", "test", "./internal/auth/..."],
        0,
        `ok  \t${GO_MODULE}/internal/auth/config\t0.012s\nok  \t${GO_MODULE}/internal/auth/session\t0.015s\n`,
      ),
    },
    { rule, name: "middle-line", sample: written(["go", "test", "-v", "./..."], 1, middle.stdout) },
    {
      rule,
      name: "long-line",
      sample: written(["go", "test", "-v", "./internal/auth/..."], 0, long.stdout),
    },
    {
      rule,
      name: "empty",
      sample: written(["go", "test", "-c", "-o", "/dev/null", "./internal/auth/config"], 0, ""),
    },
    {
      rule,
      name: "separate-streams",
      sample: written(
        ["go", "test", "-v", "./..."],
        1,
        pass.stdout + `FAIL\t${GO_MODULE}/internal/orders/cart [build failed]\nFAIL\n`,
        buildFailure,
      ),
    },
    {
      rule,
      name: "invalid-utf8",
      sample: { ...written(["go", "test", "-v", "./internal/legacy"], 0, ""), stdout: raw },
    },
  ]);
}

/** The go guards: `go test -json` and `-json=true` events with fixed times. */
function goGuardCases(): Promise<Draft[]> {
  let json = "";
  let second = 0;
  const time = () =>
    `2024-05-01T10:00:${pad(Math.floor(second / 1000) % 60)}.${pad(second++ % 1000, 3)}412Z`;
  for (const [p, pkg] of goPackages(4).entries()) {
    const Package = `${GO_MODULE}/${pkg}`;
    json += JSON.stringify({ Time: time(), Action: "start", Package }) + "\n";
    for (let k = 1; k <= 12; k++) {
      const Test = `Test${capitalize(VERBS[(p * 12 + k) % VERBS.length])}${p * 12 + k}`;
      json += JSON.stringify({ Time: time(), Action: "run", Package, Test }) + "\n";
      json += JSON.stringify({
        Time: time(),
        Action: "output",
        Package,
        Test,
        Output: `=== RUN   ${Test}\n`,
      }) + "\n";
      json += JSON.stringify({
        Time: time(),
        Action: "output",
        Package,
        Test,
        Output: `--- PASS: ${Test} (0.00s)\n`,
      }) + "\n";
      json += JSON.stringify({ Time: time(), Action: "pass", Package, Test, Elapsed: 0 }) + "\n";
    }
    json += JSON.stringify({ Time: time(), Action: "output", Package, Output: "PASS\n" }) + "\n";
    json += JSON.stringify({
      Time: time(),
      Action: "output",
      Package,
      Output: `ok  \t${Package}\t0.012s\n`,
    }) + "\n";
    json += JSON.stringify({ Time: time(), Action: "pass", Package, Elapsed: 0.012 }) + "\n";
  }
  return Promise.resolve([
    {
      rule: "tests/go-guard-json",
      name: "guard",
      sample: written(["go", "test", "-json", "./..."], 0, json),
    },
    {
      rule: "tests/go-guard-json-true",
      name: "guard",
      sample: written(["go", "test", "-json=true", "-count=1", "./..."], 0, json),
    },
  ]);
}

// --- tsc ---------------------------------------------------------------------

/** One tsc diagnostic (non-pretty form) with optional elaboration lines. */
function tscError(i: number): string {
  const area = AREAS[i % AREAS.length];
  const file = `src/${area}/${NOUNS[(i * 3) % NOUNS.length]}.ts(${10 + (i * 7) % 300},${
    3 + i % 20
  })`;
  switch (i % 6) {
    case 0:
      return `${file}: error TS2322: Type 'string' is not assignable to type 'number'.\n`;
    case 1:
      return `${file}: error TS2339: Property '${
        NOUNS[i % NOUNS.length]
      }Id' does not exist on type '${capitalize(area)}Record'.\n`;
    case 2:
      return `${file}: error TS2345: Argument of type '{ id: string; size: string; }' is not assignable to parameter of type '${
        capitalize(area)
      }Record'.\n` +
        `  Types of property 'size' are incompatible.\n    Type 'string' is not assignable to type 'number'.\n`;
    case 3:
      return `${file}: error TS7006: Parameter 'row' implicitly has an 'any' type.\n`;
    case 4:
      return `${file}: error TS18048: 'input.tags' is possibly 'undefined'.\n`;
    default:
      return `${file}: error TS2554: Expected 2 arguments, but got 1.\n`;
  }
}

/** Source paths (without extension) of the hand-written TypeScript project. */
function tscSources(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) => `${AREAS[i % AREAS.length]}/${NOUNS[(i * 3) % NOUNS.length]}${i < 20 ? "" : i}`,
  );
}

/** What `tsc --explainFiles` prints for the hand-written project: each file and why it is in. */
function tscExplainFiles(count: number): string {
  const libs = ["es5", "es2015", "es2016", "es2017", "es2018", "es2019", "es2020", "es2021"];
  let out = "";
  for (const [k, lib] of libs.entries()) {
    const by = libs[k + 1] ?? "es2022";
    out += `node_modules/typescript/lib/lib.${lib}.d.ts\n` +
      `  Library referenced via '${lib}' from file 'node_modules/typescript/lib/lib.${by}.d.ts'\n`;
  }
  out += "node_modules/typescript/lib/lib.es2022.d.ts\n" +
    "  Library referenced via 'es2022' from file 'node_modules/typescript/lib/lib.es2022.full.d.ts'\n" +
    "node_modules/typescript/lib/lib.es2022.full.d.ts\n  Default library for target 'es2022'\n";
  const sources = tscSources(count);
  for (const [i, source] of sources.entries()) {
    out += `src/${source}.ts\n  Matched by include pattern 'src' in 'tsconfig.json'\n`;
    if (i > 0) out += `  Imported via '../${source}' from file 'src/${sources[i - 1]}.ts'\n`;
  }
  return out;
}

/** The nine cases of `tsc` or `npx tsc` (`launcher`). */
function tscCases(
  rule: string,
  launcher: readonly string[],
  nearMiss: readonly string[],
): Promise<Draft[]> {
  const argv = (...args: string[]) => [...launcher, ...args];
  const errors = Array.from({ length: 400 }, (_, i) => tscError(i)).join("");
  const implicit = Array.from({ length: 500 }, (_, i) => tscError(i * 6 + 3));
  implicit.splice(
    350,
    0,
    "src/orders/cart.ts(3,27): error TS2307: Cannot find module './generated/schema' or its corresponding type declarations.\n",
  );
  const huge = `{ ${
    Array.from({ length: 160 }, (_, k) => `field${k}: ${k % 2 ? "number" : "string"}`).join("; ")
  } }`;
  const npxNotice = launcher[0] === "npx"
    ? "npm warn exec The following package was not found and will be installed: typescript@5.6.3\n"
    : "";
  const legacy = legacyOutput((i) =>
    `src/legacy/records.ts(${i + 1},1): error TS1127: Invalid character. `
  );
  return Promise.resolve([
    {
      rule,
      name: "success",
      // --listEmittedFiles and --listFiles are exact lists (guarded); --explainFiles is prose.
      sample: written(argv("--noEmit", "--explainFiles"), 0, tscExplainFiles(120)),
    },
    { rule, name: "failure", sample: written(argv("--noEmit"), 2, errors, npxNotice) },
    { rule, name: "near-miss", sample: written(nearMiss, 2, errors) },
    { rule, name: "short-exact", sample: written(argv("--noEmit"), 2, tscError(0) + tscError(3)) },
    { rule, name: "middle-line", sample: written(argv("--noEmit"), 2, implicit.join("")) },
    {
      rule,
      name: "long-line",
      sample: written(
        argv("--noEmit", "--noErrorTruncation"),
        2,
        `src/orders/cart.ts(42,9): error TS2322: Type '${
          huge.replaceAll("number", "string")
        }' is not assignable to type '${huge}'.\n`,
      ),
    },
    { rule, name: "empty", sample: written(argv("--noEmit"), 0, "") },
    {
      rule,
      name: "separate-streams",
      // npx reports the package it installs on stderr; plain tsc writes nothing there.
      sample: written(argv("--noEmit"), 2, errors, npxNotice),
    },
    { rule, name: "invalid-utf8", sample: { ...written(argv("--noEmit"), 2, ""), stdout: legacy } },
  ]);
}

/**
 * The guards of `tsc` or `npx tsc` (`launcher`, rule ids from `prefix`): --listFiles,
 * --showConfig and --listEmittedFiles, written by hand.
 */
function tscGuardCases(prefix: string, launcher: readonly string[]): Promise<Draft[]> {
  const lib = [
    "es5",
    "es2015.core",
    "es2015.collection",
    "es2015.generator",
    "es2015.iterable",
    "es2015.promise",
    "es2015.proxy",
    "es2015.reflect",
    "es2015.symbol",
    "es2015.symbol.wellknown",
    "es2016.array.include",
    "es2016.intl",
    "es2017.object",
    "es2017.string",
    "es2017.intl",
    "es2017.typedarrays",
    "es2018.asyncgenerator",
    "es2018.asynciterable",
    "es2018.intl",
    "es2018.promise",
    "es2018.regexp",
    "es2019.array",
    "es2019.object",
    "es2019.string",
    "es2019.symbol",
    "es2020.bigint",
    "es2020.date",
    "es2020.promise",
    "es2020.sharedmemory",
    "es2020.string",
    "es2020.symbol.wellknown",
    "es2020.intl",
    "es2020.number",
    "es2021.promise",
    "es2021.string",
    "es2021.weakref",
    "es2022.array",
    "es2022.error",
    "es2022.intl",
    "es2022.object",
    "es2022.string",
    "es2022.regexp",
    "decorators",
    "decorators.legacy",
  ];
  const files = [
    ...lib.map((l) => `${ALIAS}/node_modules/typescript/lib/lib.${l}.d.ts`),
    ...tscSources(120).map((s) => `${ALIAS}/src/${s}.ts`),
    `${ALIAS}/node_modules/@types/node/globals.d.ts`,
  ].join("\n") + "\n";
  const config = JSON.stringify(
    {
      compilerOptions: {
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        outDir: "./dist",
        rootDir: "./src",
        declaration: true,
        sourceMap: true,
        skipLibCheck: true,
        esModuleInterop: true,
      },
      files: tscSources(120).map((s) => `./src/${s}.ts`),
    },
    null,
    4,
  ) + "\n";
  const emitted = tscSources(100).flatMap((s) =>
    [".js", ".js.map", ".d.ts"].map((ext) => `TSFILE: ${ALIAS}/dist/${s}${ext}\n`)
  ).join("");
  return Promise.resolve([
    {
      rule: `${prefix}-guard-listfiles`,
      name: "guard",
      sample: written([...launcher, "--noEmit", "--listFiles"], 0, files),
    },
    {
      rule: `${prefix}-guard-showconfig`,
      name: "guard",
      sample: written([...launcher, "--showConfig"], 0, config),
    },
    {
      rule: `${prefix}-guard-listemittedfiles`,
      name: "guard",
      sample: written([...launcher, "--listEmittedFiles"], 0, emitted),
    },
    {
      rule: `${prefix}-guard-watch`,
      name: "guard",
      sample: written([...launcher, "--watch"], 130, tscWatchLog()),
    },
    {
      rule: `${prefix}-guard-watch-short`,
      name: "guard",
      sample: written([...launcher, "-w", "-p", "."], 130, tscWatchLog()),
    },
  ]);
}

/**
 * What `tsc --watch` prints before its Ctrl-C (it never ends by itself): the watch banner, a
 * compile with errors, a recompile after a file change, and the waiting line. tsc clears the
 * screen first when its output is a terminal, not when it is piped.
 */
function tscWatchLog(): string {
  const errors = tscSources(40).map((source, n) =>
    `src/${source}.ts(${10 + n},${5 + (n % 9)}): error TS2322: ` +
    `Type 'string' is not assignable to type 'number'.\n`
  ).join("");
  return "[9:41:00 AM] Starting compilation in watch mode...\n\n" + errors +
    "\n[9:41:03 AM] Found 40 errors. Watching for file changes.\n\n" +
    "[9:41:20 AM] File change detected. Starting incremental compilation...\n\n" + errors +
    "\n[9:41:21 AM] Found 40 errors. Watching for file changes.\n\n";
}

// --- pnpm and yarn -----------------------------------------------------------

const NPM_PACKAGES = [
  "accepts",
  "array-flatten",
  "body-parser",
  "bytes",
  "call-bind",
  "content-disposition",
  "content-type",
  "cookie",
  "cookie-signature",
  "debug",
  "depd",
  "destroy",
  "ee-first",
  "encodeurl",
  "escape-html",
  "etag",
  "express",
  "finalhandler",
  "forwarded",
  "fresh",
  "function-bind",
  "get-intrinsic",
  "gopd",
  "has-symbols",
  "hasown",
  "iconv-lite",
  "inherits",
  "ipaddr.js",
  "media-typer",
  "merge-descriptors",
  "methods",
  "mime",
  "mime-db",
  "mime-types",
  "ms",
  "negotiator",
  "object-inspect",
  "on-finished",
  "parseurl",
  "path-to-regexp",
  "proxy-addr",
  "qs",
  "range-parser",
  "raw-body",
  "safe-buffer",
  "safer-buffer",
  "send",
  "serve-static",
  "setprototypeof",
  "side-channel",
  "statuses",
  "toidentifier",
  "type-is",
  "unpipe",
  "utils-merge",
  "vary",
  "zod",
  "esbuild",
  "rollup",
  "vite",
  "vitest",
  "postcss",
  "nanoid",
  "picocolors",
  "source-map-js",
  "typescript",
  "tinyspy",
];

/** A deterministic semver for the i-th package. */
function packageVersion(i: number): string {
  return `${1 + i % 5}.${(i * 7) % 20}.${(i * 3) % 11}`;
}

/** pnpm's append-only (non-TTY) install report. */
function pnpmInstall(
  options: {
    packages: number;
    direct: number;
    progress: number;
    downloads?: number;
    warnIn?: number;
    added?: string;
  },
): string {
  let out = "Lockfile is up to date, resolution step is skipped\n";
  const total = options.packages;
  for (let k = 0; k < options.progress; k++) {
    const resolved = Math.min(total, Math.round((total * (k + 1)) / options.progress));
    out += `Progress: resolved ${resolved}, reused ${Math.max(0, resolved - 12)}, downloaded ${
      Math.min(12, resolved)
    }, added ${Math.round(resolved * 0.8)}\n`;
    if (k === 0) out += `Packages: +${total}\n${"+".repeat(Math.min(total, 120))}\n`;
    if (options.downloads !== undefined && k < options.downloads) {
      out += `Downloading ${NPM_PACKAGES[(k * 5) % NPM_PACKAGES.length]}@${packageVersion(k)}: ${
        k + 5
      }.${k % 10} MB/${k + 5}.${k % 10} MB, done\n`;
    }
    if (options.warnIn === k) {
      out += " WARN  GET https://registry.npmjs.org/zod error (ECONNRESET). " +
        "Will retry in 10 seconds. 2 retries left.\n";
    }
  }
  out += `Progress: resolved ${total}, reused ${total - 12}, downloaded 12, added ${total}, done\n`;
  out +=
    `.../node_modules/esbuild postinstall$ node install.js\n.../node_modules/esbuild postinstall: Done\n\ndependencies:\n`;
  for (let i = 0; i < options.direct; i++) {
    out += `+ ${NPM_PACKAGES[i % NPM_PACKAGES.length]} ${packageVersion(i)}\n`;
  }
  if (options.added !== undefined) out += options.added;
  return out + "\nDone in 4.2s\n";
}

/** package/pnpm-*: pnpm install reports, written by hand. */
function pnpmInstallCases(
  rule: string,
  command: readonly string[],
  nearMiss: readonly string[],
): Promise<Draft[]> {
  const argv = ["pnpm", ...command];
  const peer = " WARN  Issues with peer dependencies found\n.\n" +
    Array.from(
      { length: 60 },
      (_, i) =>
        `├─┬ @acme/widget-${pad(i, 2)} 2.${i}.0\n│ └── ✕ unmet peer react@^18.0.0: found 17.0.2\n`,
    ).join("") +
    "└─┬ @testing-library/react 14.3.1\n  └── ✕ unmet peer react-dom@^18.0.0: found 17.0.2\n";
  const failure =
    pnpmInstall({ packages: 400, direct: 0, progress: 120 }).split("\n.../node_modules")[0] +
    "\n ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/@acme%2Fwidget-core: Not Found - 404\n\n" +
    "This error happened while installing a direct dependency of /home/dev/demo\n\n" +
    "@acme/widget-core is not in the npm registry, or you have no permission to fetch it.\n\n" +
    "No authorization header was set for the request.\n";
  const legacy = bytes(
    "Lockfile is up to date, resolution step is skipped\nPackages: +1\n+\n",
    legacyOutput(() => ".../node_modules/legacy-db postinstall: "),
    ".../node_modules/legacy-db postinstall: Done\n\nDone in 1.1s\n",
  );
  return Promise.resolve([
    {
      rule,
      name: "success",
      sample: written(argv, 0, pnpmInstall({ packages: 1204, direct: 60, progress: 150 })),
    },
    { rule, name: "failure", sample: written(argv, 1, failure) },
    {
      rule,
      name: "near-miss",
      sample: written(
        ["pnpm", ...nearMiss],
        0,
        pnpmInstall({ packages: 1204, direct: 60, progress: 150 }),
      ),
    },
    { rule, name: "short-exact", sample: written(argv, 0, "Already up to date\nDone in 412ms\n") },
    {
      rule,
      name: "middle-line",
      sample: written(
        argv,
        0,
        pnpmInstall({ packages: 800, direct: 12, progress: 100, downloads: 40, warnIn: 50 }),
      ),
    },
    {
      rule,
      name: "long-line",
      sample: written(
        argv,
        0,
        pnpmInstall({
          packages: 12,
          direct: 3,
          progress: 2,
          added: `.../node_modules/sharp install: ${
            Array.from({ length: 300 }, (_, k) => `libvips-${k}.so`).join(" ")
          }\n`,
        }),
      ),
    },
    { rule, name: "empty", sample: written([...argv, "--silent"], 0, "") },
    {
      rule,
      name: "separate-streams",
      sample: written(argv, 0, pnpmInstall({ packages: 1204, direct: 60, progress: 150 }), peer),
    },
    { rule, name: "invalid-utf8", sample: { ...written(argv, 0, ""), stdout: legacy } },
  ]);
}

/** Yarn 1 install report; `verbose` request lines stand for `--verbose`. */
function yarnInstall(command: string, verbose: number, extra = ""): string {
  let out = `yarn ${command} v1.22.22\n[1/4] Resolving packages...\n`;
  for (let i = 0; i < verbose; i++) {
    const name = NPM_PACKAGES[i % NPM_PACKAGES.length];
    out += `verbose ${
      (0.2 + i * 0.013).toFixed(3)
    } Performing "GET" request to "https://registry.yarnpkg.com/${name}".\n`;
    out += `verbose ${
      (0.25 + i * 0.013).toFixed(3)
    } Request "https://registry.yarnpkg.com/${name}" finished with status code 200.\n`;
  }
  return out +
    "[2/4] Fetching packages...\n[3/4] Linking dependencies...\n[4/4] Building fresh packages...\n" +
    extra + "success Saved lockfile.\nDone in 12.34s.\n";
}

/** package/yarn-*: yarn 1 install reports (warnings on stderr), written by hand. */
function yarnInstallCases(
  rule: string,
  command: readonly string[],
  nearMiss: readonly string[],
): Promise<Draft[]> {
  const argv = ["yarn", ...command];
  const sub = command[0];
  const peers = Array.from(
    { length: 120 },
    (_, i) =>
      `warning " > @acme/widget-${pad(i, 3)}@2.${
        i % 9
      }.0" has unmet peer dependency "react@^18.0.0".\n`,
  ).join("");
  const failure = `yarn ${sub} v1.22.22\n[1/4] Resolving packages...\n` +
    Array.from(
      { length: 200 },
      (_, i) =>
        `verbose ${
          (0.2 + i * 0.013).toFixed(3)
        } Performing "GET" request to "https://registry.yarnpkg.com/${
          NPM_PACKAGES[i % NPM_PACKAGES.length]
        }".\n`,
    ).join("");
  const failureErr =
    'error An unexpected error occurred: "https://registry.yarnpkg.com/@acme%2fwidget-core: Not found".\n' +
    'info If you think this is a bug, please open a bug report with the information provided in "/home/dev/demo/yarn-error.log".\n' +
    "info Visit https://yarnpkg.com/en/docs/cli/install for documentation about this command.\n";
  // Yarn writes its warnings to stderr; one that matters sits among peer warnings.
  const middle =
    peers.split("\n").slice(0, 100).map((line, i) =>
      i === 50
        ? 'warning Pattern ["lodash@^4.17.21"] is trying to unpack in the same destination as ' +
          '["lodash@4.17.21"]; this could result in non-deterministic behavior'
        : line
    ).join("\n") + "\n";
  const legacy = bytes(
    `yarn ${sub} v1.22.22\n[1/4] Resolving packages...\n[4/4] Building fresh packages...\n`,
    legacyOutput(() => "legacy-db: "),
    "Done in 1.20s.\n",
  );
  return Promise.resolve([
    { rule, name: "success", sample: written([...argv, "--verbose"], 0, yarnInstall(sub, 150)) },
    { rule, name: "failure", sample: written([...argv, "--verbose"], 1, failure, failureErr) },
    {
      rule,
      name: "near-miss",
      sample: written(["yarn", ...nearMiss], 0, yarnInstall(nearMiss[0], 150)),
    },
    {
      rule,
      name: "short-exact",
      sample: written(
        argv,
        0,
        `yarn ${sub} v1.22.22\n[1/4] Resolving packages...\nsuccess Already up-to-date.\nDone in 0.41s.\n`,
      ),
    },
    { rule, name: "middle-line", sample: written(argv, 0, yarnInstall(sub, 0), middle) },
    {
      rule,
      name: "long-line",
      sample: written(
        argv,
        0,
        yarnInstall(
          sub,
          0,
          `info This package requires node-gyp, which is not currently installed. Yarn will attempt to automatically install it. If this fails, you can run "yarn global add node-gyp" to manually install it. Searched: ${
            Array.from({ length: 200 }, (_, k) => `/opt/tool-${k}/bin`).join(":")
          }\n`,
        ),
      ),
    },
    { rule, name: "empty", sample: written([...argv, "--silent"], 0, "") },
    {
      rule,
      name: "separate-streams",
      sample: written([...argv, "--verbose"], 0, yarnInstall(sub, 150), peers),
    },
    { rule, name: "invalid-utf8", sample: { ...written(argv, 0, ""), stdout: legacy } },
  ]);
}

/** vitest's default non-TTY report; `failing` tests get the failure block. */
function vitestRun(
  files: number,
  perFile: number,
  failing: readonly number[] = [],
  verbose = false,
): { stdout: string; failed: boolean } {
  let out = ` RUN  v2.1.4 ${ALIAS}\n\n`;
  let failures = "";
  let failedTests = 0;
  let failedFiles = 0;
  for (let f = 0; f < files; f++) {
    const file = `src/${AREAS[f % AREAS.length]}/${NOUNS[f % NOUNS.length]}${
      f < 8 ? "" : f
    }.test.ts`;
    const bad = Array.from({ length: perFile }, (_, k) => f * perFile + k + 1).filter((t) =>
      failing.includes(t)
    );
    if (bad.length === 0) {
      out += ` ✓ ${file} (${perFile} tests) ${3 + f % 17}ms\n`;
      if (verbose) {
        for (let k = 1; k <= perFile; k++) {
          out += `   ✓ ${file} > ${testName(f * perFile + k).replaceAll("_", " ")} ${k % 4}ms\n`;
        }
      }
      continue;
    }
    failedFiles++;
    out += ` ❯ ${file} (${perFile} tests | ${bad.length} failed) ${5 + f % 13}ms\n`;
    for (const t of bad) {
      failedTests++;
      const name = testName(t).replaceAll("_", " ");
      out += `   × ${name} ${t % 9}ms\n     → expected ${t % 7 + 1} to be ${
        t % 7
      } // Object.is equality\n`;
      failures +=
        ` FAIL  ${file} > ${name}\nAssertionError: expected ${t % 7 + 1} to be ${
          t % 7
        } // Object.is equality\n\n` +
        `- Expected\n+ Received\n\n- ${t % 7}\n+ ${t % 7 + 1}\n\n ❯ ${file}:${10 + t % 40}:27\n` +
        `     ${8 + t % 40}|   it("${name}", () => {\n     ${
          9 + t % 40
        }|     const batch = makeBatch(${t});\n` +
        `     ${10 + t % 40}|     expect(total(batch)).toBe(${
          t % 7
        });\n       |                           ^\n     ${11 + t % 40}|   });\n\n` +
        `⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[${failedTests}/${failing.length}]⎯\n\n`;
    }
  }
  if (failures !== "") out += `\n⎯⎯⎯⎯⎯⎯⎯ Failed Tests ${failedTests} ⎯⎯⎯⎯⎯⎯⎯\n\n${failures}`;
  const tests = files * perFile;
  out +=
    `\n Test Files  ${failedFiles > 0 ? `${failedFiles} failed | ` : ""}${
      files - failedFiles
    } passed (${files})\n` +
    `      Tests  ${failedTests > 0 ? `${failedTests} failed | ` : ""}${
      tests - failedTests
    } passed (${tests})\n` +
    `   Start at  10:00:00\n   Duration  2.41s (transform 410ms, setup 0ms, collect 1.10s, tests 512ms, environment 2ms, prepare 1.20s)\n\n`;
  return { stdout: out, failed: failedTests > 0 };
}

/** tests/pnpm-*: `pnpm test` running vitest, written by hand. */
function pnpmTestCases(
  rule: string,
  command: readonly string[],
  nearMiss: readonly string[],
): Promise<Draft[]> {
  const argv = ["pnpm", ...command];
  const banner = (script: string) => `\n> demo@1.0.0 test ${ALIAS}\n> ${script}\n\n`;
  const fail = " ELIFECYCLE  Test failed. See above for more details.\n";
  const pass = vitestRun(8, 40, [], true);
  const failed = vitestRun(10, 40, [17, 58, 99, 140, 181, 222, 263, 304], true);
  const middle = vitestRun(8, 40, [160], true);
  const tiny = vitestRun(1, 2);
  // vitest prints what tests write to console.error on stderr, under a header.
  const logged = Array.from(
    { length: 60 },
    (_, i) =>
      `stderr | src/handlers/h${pad(i + 1, 3)}.test.ts > retries the upstream call\n` +
      `warning: retrying request ${i % 3 + 1}/3 after ECONNRESET\n\n`,
  ).join("");
  const routes = JSON.stringify(
    Array.from({ length: 120 }, (_, k) => ({ path: `/api/v2/r${k}`, auth: k % 2 })),
  );
  const longRun = vitestRun(1, 3, [], true).stdout.replace(
    " RUN  v2.1.4 /home/dev/demo\n\n",
    ` RUN  v2.1.4 /home/dev/demo\n\nstdout | src/auth/session.test.ts > prints the route table\n${routes}\n\n`,
  );
  /** A case run as `pnpm test -- --reporter=verbose`. */
  const verbose = (name: CaseName, code: number, body: string, stderr = ""): Draft => ({
    rule,
    name,
    sample: written(
      [...argv, "--", "--reporter=verbose"],
      code,
      banner("vitest run --reporter=verbose") + body,
      stderr,
    ),
  });
  return Promise.resolve([
    verbose("success", 0, pass.stdout),
    verbose("failure", 1, failed.stdout, fail),
    {
      rule,
      name: "near-miss",
      sample: written(
        ["pnpm", ...nearMiss],
        0,
        // `pnpm exec` prints no script banner; `pnpm run test:unit` names its script.
        (nearMiss[0] === "exec" ? "" : banner("vitest run --reporter=verbose").replace(
          "demo@1.0.0 test",
          `demo@1.0.0 ${nearMiss.at(-1)}`,
        )) + pass.stdout,
      ),
    },
    { rule, name: "short-exact", sample: written(argv, 0, banner("vitest run") + tiny.stdout) },
    verbose("middle-line", 1, middle.stdout, fail),
    verbose("long-line", 0, longRun),
    { rule, name: "empty", sample: written([...argv, "--silent"], 0, "") },
    verbose("separate-streams", 0, pass.stdout, logged),
    {
      rule,
      name: "invalid-utf8",
      sample: {
        ...written(argv, 0, ""),
        stdout: bytes(banner("node scripts/dump.js"), legacyOutput(() => "")),
      },
    },
  ]);
}

/** jest's report (jest writes it to stderr); `verbose` lists every test. */
function jestRun(
  files: number,
  perFile: number,
  failing: readonly number[] = [],
  verbose = false,
): { stderr: string; failed: boolean } {
  let out = "";
  let failedTests = 0;
  let failedFiles = 0;
  for (let f = 0; f < files; f++) {
    const file = `src/${AREAS[f % AREAS.length]}/${NOUNS[f % NOUNS.length]}${
      f < 8 ? "" : f
    }.test.js`;
    const ids = Array.from({ length: perFile }, (_, k) => f * perFile + k + 1);
    const bad = ids.filter((t) => failing.includes(t));
    out += `${bad.length > 0 ? "FAIL" : "PASS"} ${file}\n`;
    if (bad.length > 0) failedFiles++;
    if (verbose) {
      out += `  ${NOUNS[f % NOUNS.length]}\n`;
      for (const t of ids) {
        out += `    ${bad.includes(t) ? "✕" : "✓"} ${testName(t).replaceAll("_", " ")} (${
          t % 5 + 1
        } ms)\n`;
      }
      out += "\n";
    }
    for (const t of bad) {
      failedTests++;
      out += `  ● ${NOUNS[f % NOUNS.length]} › ${testName(t).replaceAll("_", " ")}\n\n` +
        `    expect(received).toBe(expected) // Object.is equality\n\n    Expected: ${
          t % 7
        }\n    Received: ${t % 7 + 1}\n\n` +
        `      ${8 + t % 40} |   it("${testName(t).replaceAll("_", " ")}", () => {\n` +
        `      ${9 + t % 40} |     const batch = makeBatch(${t});\n` +
        `    > ${10 + t % 40} |     expect(total(batch)).toBe(${t % 7});\n` +
        `         |                          ^\n      ${11 + t % 40} |   });\n\n` +
        `      at Object.toBe (${file}:${10 + t % 40}:26)\n\n`;
    }
  }
  const tests = files * perFile;
  out +=
    `Test Suites: ${failedFiles > 0 ? `${failedFiles} failed, ` : ""}${
      files - failedFiles
    } passed, ${files} total\n` +
    `Tests:       ${failedTests > 0 ? `${failedTests} failed, ` : ""}${
      tests - failedTests
    } passed, ${tests} total\n` +
    "Snapshots:   0 total\nTime:        3.21 s\nRan all test suites.\n";
  return { stderr: out, failed: failedTests > 0 };
}

/** tests/yarn-*: `yarn test` running jest (report on stderr), written by hand. */
function yarnTestCases(
  rule: string,
  command: readonly string[],
  nearMiss: readonly string[],
): Promise<Draft[]> {
  const argv = ["yarn", ...command];
  const head = (script: string) => `yarn run v1.22.22\n$ ${script}\n`;
  const fail =
    "error Command failed with exit code 1.\ninfo Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command.\n";
  const pass = jestRun(8, 40, [], true);
  const failed = jestRun(10, 40, [17, 58, 99, 140, 181, 222, 263, 304], true);
  const middle = jestRun(8, 40, [160], true);
  const tiny = jestRun(1, 2);
  const routes = JSON.stringify(
    Array.from({ length: 120 }, (_, k) => ({ path: `/api/v2/r${k}`, auth: k % 2 })),
  );
  const long =
    `  console.log\n    ${routes}\n\n      at Object.log (src/auth/routes.test.js:12:13)\n\n` +
    jestRun(1, 3, [], true).stderr;
  return Promise.resolve([
    {
      rule,
      name: "success",
      sample: written(
        [...argv, "--verbose"],
        0,
        head("jest --verbose") + "Done in 4.12s.\n",
        pass.stderr,
      ),
    },
    {
      rule,
      name: "failure",
      sample: written([...argv, "--verbose"], 1, head("jest --verbose"), failed.stderr + fail),
    },
    {
      rule,
      name: "near-miss",
      sample: written(
        ["yarn", ...nearMiss],
        0,
        head("jest --verbose") + "Done in 4.12s.\n",
        pass.stderr,
      ),
    },
    {
      rule,
      name: "short-exact",
      sample: written(argv, 0, head("jest") + "Done in 1.02s.\n", tiny.stderr),
    },
    {
      rule,
      name: "middle-line",
      sample: written([...argv, "--verbose"], 1, head("jest --verbose"), middle.stderr + fail),
    },
    {
      rule,
      name: "long-line",
      sample: written([...argv, "--verbose"], 0, head("jest --verbose") + "Done in 1.40s.\n", long),
    },
    { rule, name: "empty", sample: written([...argv, "--silent"], 0, "") },
    {
      rule,
      name: "separate-streams",
      sample: written(
        [...argv, "--verbose"],
        0,
        // The test script seeds a database first: its log is on stdout, jest's report on stderr.
        head("node scripts/seed.js && jest --verbose") + Array.from({ length: 120 }, (_, i) =>
          `[fixtures] seeded table t${pad(i, 3)} with ${i * 7} rows\n`).join("") +
          "Done in 4.12s.\n",
        pass.stderr,
      ),
    },
    {
      rule,
      name: "invalid-utf8",
      sample: {
        ...written(argv, 0, ""),
        stdout: bytes(
          head("node scripts/dump.js"),
          legacyOutput(() =>
            ""
          ),
          "Done in 0.31s.\n",
        ),
      },
    },
  ]);
}

/** The pnpm and yarn --json guards, written by hand. */
function packageGuardCases(): Promise<Draft[]> {
  const jest = {
    numFailedTestSuites: 0,
    numFailedTests: 0,
    numPassedTestSuites: 8,
    numPassedTests: 80,
    numTotalTests: 80,
    success: true,
    testResults: Array.from({ length: 8 }, (_, f) => ({
      name: `${ALIAS}/src/${AREAS[f]}/${NOUNS[f]}.test.js`,
      status: "passed",
      startTime: 1714557600000 + f * 120,
      endTime: 1714557600000 + f * 120 + 97,
      assertionResults: Array.from({ length: 10 }, (_, k) => ({
        ancestorTitles: [NOUNS[f]],
        fullName: `${NOUNS[f]} ${testName(f * 10 + k + 1).replaceAll("_", " ")}`,
        status: "passed",
        title: testName(f * 10 + k + 1).replaceAll("_", " "),
        duration: k % 5 + 1,
        failureMessages: [],
      })),
    })),
  };
  const events = [
    { type: "step", data: { message: "Resolving packages", current: 1, total: 4 } },
    ...Array.from({ length: 80 }, (_, i) => ({
      type: "warning",
      data: `" > @acme/widget-${pad(i, 3)}@2.${
        i % 9
      }.0" has unmet peer dependency "react@^18.0.0".`,
    })),
    { type: "step", data: { message: "Fetching packages", current: 2, total: 4 } },
    { type: "step", data: { message: "Linking dependencies", current: 3, total: 4 } },
    { type: "step", data: { message: "Building fresh packages", current: 4, total: 4 } },
    { type: "success", data: "Saved lockfile." },
    { type: "finished", data: 12340 },
  ];
  return Promise.resolve([
    {
      rule: "package/pnpm-guard-json",
      name: "guard",
      sample: written(
        ["pnpm", "test", "--json"],
        0,
        `\n> demo@1.0.0 test ${ALIAS}\n> jest "--json"\n\n${JSON.stringify(jest)}\n`,
      ),
    },
    {
      rule: "package/yarn-guard-json",
      name: "guard",
      sample: written(
        ["yarn", "install", "--json"],
        0,
        events.map((e) => JSON.stringify(e)).join("\n") + "\n",
      ),
    },
  ]);
}

/**
 * The pnpm and yarn guards of a test runner's JSON report, written by hand: vitest's one-line
 * report after `pnpm test -- --reporter=json` (tokens after `--` stay raw) and mocha's indented
 * report after `yarn test --reporter=json`.
 */
function reporterGuardCases(): Promise<Draft[]> {
  const suites = Array.from({ length: 8 }, (_, f) => ({
    file: `src/${AREAS[f]}/${NOUNS[f]}.test.ts`,
    suite: NOUNS[f],
    titles: Array.from({ length: 10 }, (_, k) => testName(f * 10 + k + 1).replaceAll("_", " ")),
  }));
  const vitest = {
    numTotalTestSuites: 16,
    numPassedTestSuites: 16,
    numFailedTestSuites: 0,
    numPendingTestSuites: 0,
    numTotalTests: 80,
    numPassedTests: 80,
    numFailedTests: 0,
    numPendingTests: 0,
    numTodoTests: 0,
    snapshot: {
      added: 0,
      failure: false,
      filesAdded: 0,
      filesRemoved: 0,
      filesRemovedList: [],
      filesUnmatched: 0,
      filesUpdated: 0,
      matched: 0,
      total: 0,
      unchecked: 0,
      uncheckedKeysByFile: [],
      unmatched: 0,
      updated: 0,
      didUpdate: false,
    },
    startTime: 1714557600000,
    success: true,
    testResults: suites.map(({ file, suite, titles }, f) => ({
      assertionResults: titles.map((title, k) => ({
        ancestorTitles: [suite],
        fullName: `${suite} ${title}`,
        status: "passed",
        title,
        duration: k % 5 + 1,
        failureMessages: [],
        meta: {},
      })),
      startTime: 1714557600000 + f * 120,
      endTime: 1714557600000 + f * 120 + 97,
      status: "passed",
      message: "",
      name: `${ALIAS}/${file}`,
    })),
  };
  const mochaTests = suites.flatMap(({ file, suite, titles }) =>
    titles.map((title, k) => ({
      title,
      fullTitle: `${suite} ${title}`,
      file: `${ALIAS}/${file.replace(".ts", ".js")}`,
      duration: k % 5 + 1,
      currentRetry: 0,
      speed: "fast",
      err: {},
    }))
  );
  const mocha = {
    stats: {
      suites: 8,
      tests: 80,
      passes: 80,
      pending: 0,
      failures: 0,
      start: "2024-05-01T10:00:00.000Z",
      end: "2024-05-01T10:00:00.412Z",
      duration: 412,
    },
    tests: mochaTests,
    pending: [],
    failures: [],
    passes: mochaTests,
  };
  return Promise.resolve([
    {
      rule: "tests/pnpm-guard-reporter-json",
      name: "guard",
      sample: written(
        ["pnpm", "test", "--", "--reporter=json"],
        0,
        `\n> demo@1.0.0 test ${ALIAS}\n> vitest run --reporter=json\n\n${JSON.stringify(vitest)}\n`,
      ),
    },
    {
      rule: "tests/yarn-guard-reporter-json",
      name: "guard",
      sample: written(
        ["yarn", "test", "--reporter=json"],
        0,
        `yarn run v1.22.22\n$ mocha --reporter=json\n${
          JSON.stringify(mocha, null, 2)
        }\nDone in 1.02s.\n`,
      ),
    },
  ]);
}

// ---------------------------------------------------------------------------
// Expected results, purpose checks and fixture files
// ---------------------------------------------------------------------------

/** What one stream of a fixture expects. */
interface ExpectedStream {
  readonly bytes: Uint8Array;
  readonly changed: boolean;
  readonly omittedLines: number;
  readonly truncatedLines: number;
}

/** A draft with its selection and expected streams. */
interface Judged {
  readonly draft: Draft;
  readonly outcome: "reduce" | "guarded" | "ambiguous" | "unsupported" | "transform";
  readonly rule?: string;
  readonly guards: readonly string[];
  readonly shadowed: readonly string[];
  readonly stdout: ExpectedStream;
  readonly stderr: ExpectedStream;
}

/** A stream that must stay exactly as it is. */
function exact(data: Uint8Array): ExpectedStream {
  return { bytes: data, changed: false, omittedLines: 0, truncatedLines: 0 };
}

/** Runs the real reducer of `rule` over one stream, finished with `exitCode`. */
function reduceStream(rule: ReductionRule, data: Uint8Array, exitCode: number): ExpectedStream {
  const reducer = createStreamReducer(rule);
  if (data.length > 0) reducer.push(data);
  const out = reducer.finish({ code: exitCode }, { kind: "none" });
  return {
    bytes: out.bytes,
    changed: out.changed,
    omittedLines: out.omittedLines,
    truncatedLines: out.truncatedLines,
  };
}

/** Selects the rule for a draft's argv and computes the expected streams. */
function judge(draft: Draft, registry: RuleRegistry): Judged {
  const { sample } = draft;
  const selection = registry.select(sample.argv);
  const same = { guards: [] as string[], shadowed: [] as string[] };
  switch (selection.outcome) {
    case "reduce": {
      const rule = selection.match.rule;
      return {
        draft,
        outcome: "reduce",
        rule: rule.id,
        ...same,
        stdout: reduceStream(rule, sample.stdout, sample.exitCode),
        stderr: reduceStream(rule, sample.stderr, sample.exitCode),
      };
    }
    case "guarded":
      return {
        draft,
        outcome: "guarded",
        rule: selection.guards[0].rule.id,
        guards: selection.guards.map((ref) => ref.rule.id),
        shadowed: selection.shadowed.map((ref) => ref.rule.id),
        stdout: exact(sample.stdout),
        stderr: exact(sample.stderr),
      };
    case "transform":
      return {
        draft,
        outcome: "transform",
        rule: selection.match.rule.id,
        ...same,
        stdout: exact(sample.stdout),
        stderr: exact(sample.stderr),
      };
    case "ambiguous":
    case "unsupported":
      return {
        draft,
        outcome: selection.outcome,
        ...same,
        stdout: exact(sample.stdout),
        stderr: exact(sample.stderr),
      };
    case "invalid-pack":
      throw new Error(`${draft.rule}/${draft.name}: invalid pack: ${selection.message}`);
  }
}

/**
 * What is wrong with a judged case for its purpose (empty when nothing).
 * The fixture test checks the same properties on the committed files.
 */
function purposeProblems(judged: Judged, rules: ReadonlyMap<string, Rule>): string[] {
  const { draft, outcome, rule, stdout, stderr } = judged;
  const { sample, name } = draft;
  const problems: string[] = [];
  const want = (ok: boolean, message: string) => ok || problems.push(message);
  if (name === "near-miss") {
    want(outcome === "unsupported" || outcome === "guarded", `selects ${outcome} ${rule ?? ""}`);
    want(rule !== draft.rule, "selects the rule it should miss");
    want(sample.stdout.length + sample.stderr.length > 0, "has no output");
    return problems;
  }
  if (name === "transform") {
    want(outcome === "transform" && rule === draft.rule, `selects ${outcome} ${rule ?? ""}`);
    want(sample.stdout.length + sample.stderr.length > 0, "has no output");
    return problems;
  }
  if (name === "guard") {
    want(outcome === "guarded", `outcome is ${outcome}, not guarded`);
    want(judged.guards.includes(draft.rule), `guards are [${judged.guards}]`);
    want(
      judged.shadowed.length > 0 || draft.rule in GUARDS_WITHOUT_SHADOW,
      "shadows no reduction rule",
    );
    want(sample.stdout.length + sample.stderr.length > 1024, "output is small");
    return problems;
  }
  want(outcome === "reduce" && rule === draft.rule, `selects ${outcome} ${rule ?? ""}`);
  const changed = stdout.changed || stderr.changed;
  switch (name) {
    case "success":
      want(sample.exitCode === 0, `exit code ${sample.exitCode}`);
      want(changed, "nothing changed");
      break;
    case "failure":
      want(sample.exitCode !== 0, "exit code 0");
      want(changed, "nothing changed");
      break;
    case "short-exact":
      want(!changed, "changed");
      want(sample.stdout.length + sample.stderr.length > 0, "has no output");
      break;
    case "middle-line": {
      want(changed, "nothing changed");
      const spec = (rules.get(draft.rule) as ReductionRule).reducer;
      if (
        spec.kind === "line_filter" && spec.drop.length > 0 && !(draft.rule in MIDDLE_LINE_LOST)
      ) {
        for (const [input, output] of [[sample.stdout, stdout], [sample.stderr, stderr]] as const) {
          const kept = new Set(textLines(output.bytes));
          const lost = textLines(input).filter((l) => isDiagnosticLine(l) && !kept.has(l));
          want(lost.length === 0, `lost diagnostic lines: ${lost.slice(0, 3).join(" | ")}`);
        }
        want(
          textLines(sample.stdout).concat(textLines(sample.stderr)).some((l) =>
            isDiagnosticLine(l)
          ),
          "has no diagnostic line",
        );
      } else {
        want(stdout.omittedLines + stderr.omittedLines > 0, "omitted nothing");
      }
      break;
    }
    case "long-line":
      want(stdout.truncatedLines + stderr.truncatedLines >= 1, "truncated nothing");
      break;
    case "empty":
      want(sample.stdout.length === 0 && sample.stderr.length === 0, "input is not empty");
      want(stdout.bytes.length === 0 && stderr.bytes.length === 0, "output is not empty");
      break;
    case "separate-streams":
      if (!(draft.rule in ONE_STREAM_RULES)) {
        want(sample.stdout.length > 0 && sample.stderr.length > 0, "a stream is empty");
      }
      want(changed, "nothing changed");
      break;
    case "invalid-utf8":
      want(!isUtf8(sample.stdout) || !isUtf8(sample.stderr), "input is valid UTF-8");
      break;
  }
  return problems;
}

/** A byte field: the UTF-8 string when the bytes are UTF-8, else base64. */
function byteField(data: Uint8Array): string | { encoding: "base64"; data: string } {
  if (isUtf8(data)) return strictUtf8.decode(data);
  return { encoding: "base64", data: Buffer.from(data).toString("base64") };
}

/** The fixture file text of a judged case: stable key order, 2-space indent, final newline. */
function fixtureText(judged: Judged): string {
  const { draft, outcome, rule, stdout, stderr } = judged;
  const fixture = {
    id: `${draft.rule}/${draft.name}`,
    argv: draft.sample.argv,
    outcome,
    ...(rule === undefined ? {} : { rule }),
    exit_code: draft.sample.exitCode,
    stdout: byteField(draft.sample.stdout),
    stderr: byteField(draft.sample.stderr),
    expected_stdout: byteField(stdout.bytes),
    expected_stderr: byteField(stderr.bytes),
    expected_omitted_lines: { stdout: stdout.omittedLines, stderr: stderr.omittedLines },
    expected_truncated_lines: { stdout: stdout.truncatedLines, stderr: stderr.truncatedLines },
  };
  return JSON.stringify(fixture, null, 2) + "\n";
}

// ---------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------

/** A group of drafts built together, and the fixture directories it fills. */
interface Family {
  readonly rules: readonly string[];
  readonly build: (ws: Workspace) => Promise<Draft[]>;
}

const FAMILIES: readonly Family[] = [
  { rules: ["git/log"], build: gitLogCases },
  { rules: ["git/diff"], build: gitDiffCases },
  { rules: ["git/show"], build: gitShowCases },
  { rules: ["git/status"], build: gitStatusCases },
  {
    rules: [
      "git/guard-binary-patch",
      "git/guard-nul",
      "git/guard-null-data",
      "git/guard-object-path",
      "git/guard-porcelain",
      "git/guard-raw",
      "git/guard-patch-with-raw",
    ],
    build: gitGuardCases,
  },
  { rules: ["search/grep"], build: grepCases },
  {
    rules: [
      "search/guard-grep-count",
      "search/guard-grep-null-data",
      "search/guard-grep-null-long",
      "search/guard-grep-null",
      "search/guard-grep-count-long",
      "search/guard-grep-null-data-long",
    ],
    build: grepGuardCases,
  },
  { rules: ["search/git-grep"], build: gitGrepCases },
  {
    rules: ["search/guard-git-grep-count", "search/guard-git-grep-count-long"],
    build: gitGrepGuardCases,
  },
  { rules: ["search/rg"], build: rgCases },
  {
    rules: [
      "pipeline/cat",
      "pipeline/head",
      "pipeline/tail",
      "pipeline/sort",
      "pipeline/uniq",
      "pipeline/tee",
    ],
    build: pipelineCases,
  },
  {
    rules: [
      "search/guard-rg-count-long",
      "search/guard-rg-count",
      "search/guard-rg-json",
      "search/guard-rg-null-long",
      "search/guard-rg-null",
      "search/guard-rg-null-data",
    ],
    build: rgGuardCases,
  },
  { rules: ["build/cargo-build"], build: (ws) => cargoBuildCases(ws, "build", ["b"]) },
  { rules: ["build/cargo-check"], build: (ws) => cargoBuildCases(ws, "check", ["c"]) },
  {
    rules: ["build/cargo-clippy"],
    build: (ws) => cargoBuildCases(ws, "clippy", ["--offline", "clippy"]),
  },
  { rules: ["tests/cargo-test"], build: cargoTestCases },
  { rules: ["build/cargo-guard-message-format"], build: cargoGuardCases },
  {
    rules: ["tests/cargo-guard-format", "tests/cargo-guard-format-json"],
    build: cargoTestGuardCases,
  },
  { rules: ["build/make"], build: makeCases },
  { rules: ["build/cmake-build"], build: cmakeBuildCases },
  {
    rules: ["package/npm-install"],
    build: (ws) => npmInstallCases(ws, "package/npm-install", "install", ["install-test"]),
  },
  { rules: ["package/npm-i"], build: (ws) => npmInstallCases(ws, "package/npm-i", "i", ["add"]) },
  {
    rules: ["package/npm-ci"],
    build: (ws) => npmInstallCases(ws, "package/npm-ci", "ci", ["clean-install"]),
  },
  { rules: ["package/npm-guard-json"], build: npmGuardCases },
  {
    rules: ["tests/pytest"],
    build: (ws) => pytestCases(ws, "tests/pytest", ["pytest"], ["python3", "-m", "unittest", "-v"]),
  },
  {
    rules: ["tests/python-m-pytest"],
    build: (ws) =>
      pytestCases(ws, "tests/python-m-pytest", ["python3", "-m", "pytest"], [
        "python3",
        "-X",
        "dev",
        "-m",
        "pytest",
        "-v",
      ]),
  },
  {
    rules: ["tests/npm-test"],
    build: (ws) => npmTestCases(ws, "tests/npm-test", ["test"], "tap", ["run-script", "test"]),
  },
  {
    rules: ["tests/npm-t"],
    build: (ws) => npmTestCases(ws, "tests/npm-t", ["t"], "spec", ["tst"]),
  },
  {
    rules: ["tests/npm-run-test"],
    build: (ws) =>
      npmTestCases(ws, "tests/npm-run-test", ["run", "test"], "spec", ["run", "test:unit"]),
  },
  { rules: ["tests/npm-guard-reporter-json"], build: npmReporterGuardCases },
  {
    rules: [
      "tests/npm-guard-watch",
      "tests/npm-guard-watch-all",
      "tests/pnpm-guard-watch",
      "tests/pnpm-guard-watch-all",
      "tests/yarn-guard-watch",
      "tests/yarn-guard-watch-all",
    ],
    build: packageWatchGuardCases,
  },
  { rules: ["tests/npx-vitest"], build: npxVitestCases },
  {
    rules: [
      "tests/npx-vitest-guard-reporter-json",
      "tests/npx-vitest-guard-reporter-json-spaced",
      ...["junit", "tap", "tap-flat"].flatMap((reporter) => [
        `tests/npx-vitest-guard-reporter-${reporter}`,
        `tests/npx-vitest-guard-reporter-${reporter}-spaced`,
      ]),
      "tests/npx-vitest-guard-watch",
      "tests/npx-vitest-guard-dev",
      "tests/npx-vitest-guard-watch-flag",
      "tests/npx-vitest-guard-watch-short",
    ],
    build: npxVitestGuardCases,
  },
  { rules: ["tests/npx-jest"], build: npxJestCases },
  {
    rules: [
      "tests/npx-jest-guard-json",
      "tests/npx-jest-guard-show-config",
      "tests/npx-jest-guard-watch",
      "tests/npx-jest-guard-watch-all",
    ],
    build: npxJestGuardCases,
  },
  {
    rules: [
      "build/make-guard-dry-run",
      "build/make-guard-print-db",
      "build/make-guard-dry-run-long",
      "build/make-guard-just-print",
      "build/make-guard-recon",
      "build/make-guard-print-data-base",
    ],
    build: makeGuardCases,
  },
  { rules: ["build/go-build"], build: goBuildCases },
  { rules: ["build/go-vet"], build: goVetCases },
  { rules: ["tests/go-test"], build: goTestCases },
  { rules: ["tests/go-guard-json", "tests/go-guard-json-true"], build: goGuardCases },
  { rules: ["build/tsc"], build: () => tscCases("build/tsc", ["tsc"], ["vue-tsc", "--noEmit"]) },
  {
    rules: ["build/npx-tsc"],
    build: () => tscCases("build/npx-tsc", ["npx", "tsc"], ["npx", "vue-tsc", "--noEmit"]),
  },
  {
    rules: [
      "build/tsc-guard-listfiles",
      "build/tsc-guard-showconfig",
      "build/tsc-guard-listemittedfiles",
      "build/tsc-guard-watch",
      "build/tsc-guard-watch-short",
    ],
    build: () => tscGuardCases("build/tsc", ["tsc"]),
  },
  {
    rules: [
      "build/npx-tsc-guard-listfiles",
      "build/npx-tsc-guard-showconfig",
      "build/npx-tsc-guard-listemittedfiles",
      "build/npx-tsc-guard-watch",
      "build/npx-tsc-guard-watch-short",
    ],
    build: () => tscGuardCases("build/npx-tsc", ["npx", "tsc"]),
  },
  {
    rules: ["package/pnpm-install"],
    build: () => pnpmInstallCases("package/pnpm-install", ["install"], ["install-test"]),
  },
  { rules: ["package/pnpm-i"], build: () => pnpmInstallCases("package/pnpm-i", ["i"], ["up"]) },
  {
    rules: ["package/pnpm-add"],
    build: () => pnpmInstallCases("package/pnpm-add", ["add", "zod"], ["update", "zod"]),
  },
  {
    rules: ["package/yarn-install"],
    build: () => yarnInstallCases("package/yarn-install", ["install"], ["upgrade"]),
  },
  {
    rules: ["package/yarn-add"],
    build: () => yarnInstallCases("package/yarn-add", ["add", "zod"], ["upgrade", "zod"]),
  },
  {
    rules: ["tests/pnpm-test"],
    build: () =>
      pnpmTestCases("tests/pnpm-test", ["test"], ["exec", "vitest", "run", "--reporter=verbose"]),
  },
  {
    rules: ["tests/pnpm-run-test"],
    build: () => pnpmTestCases("tests/pnpm-run-test", ["run", "test"], ["run", "test:unit"]),
  },
  {
    rules: ["tests/yarn-test"],
    build: () => yarnTestCases("tests/yarn-test", ["test"], ["run", "test:ci"]),
  },
  {
    rules: ["tests/yarn-run-test"],
    build: () => yarnTestCases("tests/yarn-run-test", ["run", "test"], ["run", "test:unit"]),
  },
  { rules: ["package/pnpm-guard-json", "package/yarn-guard-json"], build: packageGuardCases },
  {
    rules: ["tests/pnpm-guard-reporter-json", "tests/yarn-guard-reporter-json"],
    build: reporterGuardCases,
  },
  { rules: ["list/ls"], build: lsCases },
  { rules: ["list/guard-ls-zero"], build: lsGuardCases },
  { rules: ["list/tree"], build: treeCases },
  {
    rules: ["list/guard-tree-json", "list/guard-tree-xml", "list/guard-tree-html"],
    build: treeGuardCases,
  },
  { rules: ["list/find"], build: findCases },
  {
    rules: [
      "list/guard-find-exec",
      "list/guard-find-execdir",
      "list/guard-find-print0",
      "list/guard-find-delete",
      "list/guard-find-printf",
      "list/guard-find-fprint0",
    ],
    build: findGuardCases,
  },
];

/** The `.json` files under `dir`, in sorted order (nothing when it is missing). */
function* jsonFiles(dir: string): Generator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return;
  }
  entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* jsonFiles(path);
    else if (entry.name.endsWith(".json")) yield path;
  }
}

/** What the pack requires: every reduce rule's nine cases and every guard's `guard` case. */
function requiredFixtures(pack: RulePack): string[] {
  return pack.rules.flatMap((rule) =>
    rule.action === "reduce"
      ? REDUCE_CASES.map((name) => `${rule.id}/${name}`)
      : rule.action === "passthrough"
      ? [`${rule.id}/guard`]
      : TRANSFORM_CASES.map((name) => `${rule.id}/${name}`)
  ).sort();
}

/** Builds every wanted family, checks and writes its fixtures; returns the exit code. */
async function main(args: readonly string[]): Promise<number> {
  const only: string[] = [];
  for (let i = 0; i < args.length; i++) if (args[i] === "--only") only.push(args[++i] ?? "");
  const checkOnly = args.includes("--check");
  const outAt = args.indexOf("--out");
  const outDir = outAt === -1 ? FIXTURES : args[outAt + 1];
  const keepTemp = args.includes("--keep-temp");
  const loaded = await loadSourcePack(join(ROOT, "rules"));
  if (!loaded.ok) {
    for (const diagnostic of loaded.diagnostics) console.error(formatDiagnostic(diagnostic));
    return 1;
  }
  const pack = loaded.pack;
  const registry = createRuleRegistry([ruleSourceFromPack(pack, "builtin")]);
  const rules = new Map(pack.rules.map((rule) => [rule.id, rule]));
  const wanted = (id: string) => only.length === 0 || only.some((p) => id.startsWith(p));

  // A fixed path: cargo's artifact hashes include the absolute path of each crate.
  const root = join(Deno.env.get("TMPDIR") ?? "/tmp", "yarp-fixtures-work");
  await Deno.remove(root, { recursive: true }).catch(() => {});
  await Deno.mkdir(root, { recursive: true });
  const ws = new Workspace(root);
  await Deno.mkdir(ws.env.HOME, { recursive: true });
  await Deno.writeTextFile(
    ws.env.GIT_CONFIG_GLOBAL,
    "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n",
  );
  const problems: string[] = [];
  const written = new Set<string>();
  let changedFiles = 0;
  try {
    for (const family of FAMILIES) {
      if (!family.rules.some(wanted)) continue;
      console.error(`building ${family.rules.join(", ")}`);
      for (const draft of await family.build(ws)) {
        const id = `${draft.rule}/${draft.name}`;
        if (!wanted(draft.rule)) continue;
        if (!rules.has(draft.rule)) problems.push(`${id}: no rule ${draft.rule} in the pack`);
        if (written.has(id)) problems.push(`${id}: built twice`);
        const judged = judge(draft, registry);
        for (const problem of purposeProblems(judged, rules)) problems.push(`${id}: ${problem}`);
        const text = fixtureText(judged);
        const file = join(FIXTURES, `${id}.json`);
        const validated = validateFixtureText(`fixtures/${id}.json`, text);
        if (!validated.ok) problems.push(...validated.diagnostics.map(formatDiagnostic));
        if (text.length > 200 * 1024) problems.push(`${id}: ${text.length} bytes (over 200 KiB)`);
        written.add(id);
        const current = await Deno.readTextFile(file).catch(() => undefined);
        if (current === text) continue;
        changedFiles++;
        console.error(`${current === undefined ? "new" : "changed"}: fixtures/${id}.json`);
        if (!checkOnly) {
          const target = join(outDir, `${id}.json`);
          await Deno.mkdir(dirname(target), { recursive: true });
          await Deno.writeTextFile(target, text);
        }
      }
    }
  } finally {
    if (keepTemp) console.error(`kept ${root}`);
    else await Deno.remove(root, { recursive: true });
  }
  if (only.length === 0) {
    for (const id of requiredFixtures(pack)) {
      if (!written.has(id)) problems.push(`${id}: required fixture not built`);
    }
    for (const file of jsonFiles(FIXTURES)) {
      const id = file.slice(FIXTURES.length + 1, -".json".length);
      if (!written.has(id)) {
        console.error(`stale (not written by this script): fixtures/${id}.json`);
      }
    }
  }
  for (const problem of problems) console.error(`problem: ${problem}`);
  console.error(
    `${written.size} fixtures, ${changedFiles} ${checkOnly ? "would change" : "written"}, ` +
      `${problems.length} problems`,
  );
  return problems.length > 0 || (checkOnly && changedFiles > 0) ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
