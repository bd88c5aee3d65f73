/**
 * Reviewed stage forms (docs/architecture.md, "Boundaries"; docs/shell.md, "Stage
 * forms"): the words around a command that run it unchanged, read from the
 * literal argv alone. Pure functions over words; nothing is resolved,
 * expanded or executed.
 *
 * - **Wrappers** run their operand as it is written and print nothing of
 *   their own on the reviewed options: `timeout`, `time`, `nice`, `nohup`,
 *   `env` (assignments only; not `-i`, `-u`, `-S`, `-C`, `-0`), `stdbuf`,
 *   `command` (not `-v`, `-V`, `-p`), `sudo` (`-E`, `-H`, `-n`, `-u USER`,
 *   `-g GROUP` only; its password prompt needs a terminal, which a host's
 *   result has not). An option that prints (`timeout -v`,
 *   `time -v`/`-f`/`-o`) or a wrapper without an operand (`env`, `nice`
 *   alone print state) is `wrapper-option`.
 * - **Front ends** run a known tool: `python[3[.N]] [-u|-B] -m MOD ARGS` is
 *   `MOD ARGS`; `uv run`, `poetry run` and `pipenv run` (reviewed quiet
 *   flags only) run their operand; `pnpm exec`, `yarn exec`, `bunx`, `yarn
 *   RUNNER`, `npx --yes`/`-y`/`--no-install` run a local runner as `npx
 *   RUNNER` does. The planner tries a front end's operand only when the
 *   front end itself selects no rule.
 * - **Assignments** (`NAME=value cmd`, `env NAME=value cmd`, `export
 *   NAME=value`) are reviewed by name ({@link assignmentEffect}): names that
 *   change which program runs or how it prints keep the result exact; the
 *   search paths `PATH` and `LD_LIBRARY_PATH` are setup (the name is read
 *   as the same name under any inherited search path).
 * - **Nested shells**: `bash -c 'LITERAL'`, `sh -c`, `bash -lc` with no
 *   further operands, and `su`/`runuser` running `-c 'LITERAL'` as one
 *   user ({@link shellScriptOperand}); the parser plans the literal as a
 *   program of its own.
 * - **Setup**: `source FILE` / `. FILE` of a virtual-env activate script
 *   ({@link isActivateScript}).
 *
 * Known misses: `nohup` writes to `nohup.out` when its stdout is a
 * terminal (a host's result is not); `bash -l` reads login start-up files,
 * which may print lines before the command's output (they reach the
 * reducer as unknown lines); `time`'s three report lines are part of the
 * result.
 *
 * @module
 */

/** Why a stage form stays closed; stable codes, never command text. */
export type StageFormReason = "wrapper-option" | "assignment-output";

/** A peeled stage: the command that really runs, and assignments met on the way. */
export interface PeeledStage {
  readonly argv: readonly string[];
  readonly assignments: readonly { readonly name: string; readonly value: string }[];
}

const DURATION = /^\d+(\.\d+)?[smhd]?$/;
const NAME_VALUE = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

/** Reads the options of a wrapper; returns the operand index or a reason. */
type WrapperReader = (argv: readonly string[]) => number | StageFormReason;

function readTimeout(argv: readonly string[]): number | StageFormReason {
  let index = 1;
  for (; index < argv.length; index += 1) {
    const word = argv[index];
    if (word === "--") {
      index += 1;
      break;
    }
    if (!word.startsWith("-") || word === "-") break;
    if (word === "--foreground" || word === "--preserve-status") continue;
    if (word === "-s" || word === "--signal" || word === "-k" || word === "--kill-after") {
      index += 1;
      continue;
    }
    if (/^(-s|-k).+$/.test(word) || /^--(signal|kill-after)=.+$/.test(word)) continue;
    return "wrapper-option"; // -v/--verbose prints, unknown options are unreviewed
  }
  if (!DURATION.test(argv[index] ?? "")) return "wrapper-option";
  return index + 1;
}

function readTime(argv: readonly string[]): number | StageFormReason {
  let index = 1;
  while (argv[index] === "-p") index += 1; // POSIX report format, still three lines
  return argv[index]?.startsWith("-") ? "wrapper-option" : index;
}

function readNice(argv: readonly string[]): number | StageFormReason {
  let index = 1;
  const word = argv[index];
  if (word === "-n" || word === "--adjustment") index += 2;
  else if (word !== undefined && /^(-n|--adjustment=)?[+-]?\d+$/.test(word)) index += 1;
  else if (word === "-") return "wrapper-option";
  return argv[index]?.startsWith("-") ? "wrapper-option" : index;
}

function readPlain(argv: readonly string[]): number | StageFormReason {
  const index = argv[1] === "--" ? 2 : 1;
  return argv[index]?.startsWith("-") ? "wrapper-option" : index;
}

function readStdbuf(argv: readonly string[]): number | StageFormReason {
  let index = 1;
  for (; index < argv.length; index += 1) {
    const word = argv[index];
    if (word === "--") return index + 1;
    if (!word.startsWith("-")) break;
    if (word === "-i" || word === "-o" || word === "-e") index += 1;
    else if (!/^(-[ioe].+|--(input|output|error)=.+)$/.test(word)) return "wrapper-option";
  }
  return index;
}

/** `sudo` options that only choose whom the operand runs as and what it keeps; the rest are unreviewed. */
const SUDO_SWITCHES: ReadonlySet<string> = new Set([
  "-E",
  "--preserve-env",
  "-H",
  "--set-home",
  "-n",
  "--non-interactive",
]);

/**
 * `sudo [-E|-H|-n|-u USER|-g GROUP]… CMD`: runs CMD with the same argv as
 * another user. Options that print, edit or start a shell (`-l`, `-v`,
 * `-e`, `-i`, `-s`, `-k`, …) are `wrapper-option`.
 */
function readSudo(argv: readonly string[]): number | StageFormReason {
  let index = 1;
  for (; index < argv.length; index += 1) {
    const word = argv[index];
    if (word === "--") return index + 1;
    if (!word.startsWith("-")) break;
    if (SUDO_SWITCHES.has(word)) continue;
    if (word === "-u" || word === "-g" || word === "--user" || word === "--group") {
      index += 1;
      continue;
    }
    if (!/^(-[ug].+|--(user|group)=.+)$/.test(word)) return "wrapper-option";
  }
  return index;
}

/** `env` with assignments only: the operand index, assignments read by the caller. */
function readEnv(argv: readonly string[]): number | StageFormReason {
  let index = argv[1] === "--" ? 2 : 1;
  while (index < argv.length && NAME_VALUE.test(argv[index])) index += 1;
  return argv[index]?.startsWith("-") ? "wrapper-option" : index;
}

const WRAPPERS: ReadonlyMap<string, WrapperReader> = new Map([
  ["timeout", readTimeout],
  ["time", readTime],
  ["nice", readNice],
  ["nohup", readPlain],
  ["command", readPlain],
  ["stdbuf", readStdbuf],
  ["env", readEnv],
  ["sudo", readSudo],
]);

/**
 * Peels the reviewed wrappers off `argv` (see the module contract), also
 * collecting `env`'s assignments. Returns the argv that runs, unchanged
 * when `argv[0]` is no wrapper, or the reason a wrapper form stays closed
 * (a wrapper with nothing to run included).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { peelWrappers } from "./stage_forms.ts";
 * const peeled = peelWrappers(["timeout", "60", "env", "CI=1", "npm", "test"]);
 * assert.deepEqual(peeled, { argv: ["npm", "test"], assignments: [{ name: "CI", value: "1" }] });
 * assert.equal(peelWrappers(["timeout", "-v", "5", "make"]), "wrapper-option");
 * ```
 */
export function peelWrappers(argv: readonly string[]): PeeledStage | StageFormReason {
  const assignments: { name: string; value: string }[] = [];
  let words = argv;
  for (let guard = 0; guard < 16; guard += 1) {
    const reader = WRAPPERS.get(words[0] ?? "");
    if (reader === undefined) return { argv: words, assignments };
    const at = reader(words);
    if (typeof at === "string") return at;
    if (words[0] === "env") {
      for (const word of words.slice(words[1] === "--" ? 2 : 1, at)) {
        const [, name, value] = NAME_VALUE.exec(word)!;
        assignments.push({ name, value });
      }
    }
    if (at >= words.length) return "wrapper-option";
    words = words.slice(at);
  }
  return "wrapper-option";
}

const PYTHON = /^python(3(\.\d{1,2})?)?$/;
const RUN_FRONT_ENDS: ReadonlySet<string> = new Set(["uv", "poetry", "pipenv"]);
const QUIET_RUN_FLAGS: ReadonlySet<string> = new Set([
  "--frozen",
  "--locked",
  "--no-sync",
  "--offline",
  "--all-extras",
  "--no-dev",
  "--active",
  "-q",
  "--quiet",
]);
/** Local runners that `npx RUNNER` rules know; other operands stay with the front end. */
const KNOWN_RUNNERS: ReadonlySet<string> = new Set([
  "jest",
  "vitest",
  "tsc",
  "eslint",
  "mocha",
  "playwright",
  "prettier",
]);

/**
 * The command a front end runs (see the module contract), or undefined
 * when `argv` is no reviewed front end. `python -m pytest -x` →
 * `pytest -x`; `uv run pytest` → `pytest`; `pnpm exec vitest run` → `npx
 * vitest run`.
 */
export function frontEndOperand(argv: readonly string[]): readonly string[] | undefined {
  const program = argv[0];
  if (program === undefined) return undefined;
  if (PYTHON.test(program)) {
    let index = 1;
    while (argv[index] === "-u" || argv[index] === "-B") index += 1;
    if (argv[index] !== "-m" || argv[index + 1] === undefined) return undefined;
    const module = argv[index + 1];
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(module) ? [module, ...argv.slice(index + 2)] : undefined;
  }
  if (RUN_FRONT_ENDS.has(program) && argv[1] === "run") {
    let index = 2;
    while (QUIET_RUN_FLAGS.has(argv[index] ?? "")) index += 1;
    const operand = argv.slice(index);
    return operand.length === 0 || operand[0].startsWith("-") ? undefined : operand;
  }
  const runner = (at: number) =>
    KNOWN_RUNNERS.has(argv[at] ?? "") ? ["npx", ...argv.slice(at)] : undefined;
  if ((program === "pnpm" || program === "yarn") && argv[1] === "exec") return runner(2);
  if (program === "yarn" || program === "bunx") return runner(1);
  if (program === "npx") {
    let index = 1;
    while (argv[index] === "--yes" || argv[index] === "-y" || argv[index] === "--no-install") {
      index += 1;
    }
    return index === 1 ? undefined : runner(index);
  }
  return undefined;
}

/** Shell programs whose `-c 'LITERAL'` form is planned as the literal. */
const SHELLS: ReadonlySet<string> = new Set([
  "bash",
  "sh",
  "/bin/bash",
  "/bin/sh",
  "/usr/bin/bash",
]);
const SCRIPT_OPTIONS: ReadonlySet<string> = new Set(["-c", "-lc", "-cl"]);

/**
 * The script of `bash -c SCRIPT` / `sh -c SCRIPT` / `bash -lc SCRIPT` (also
 * `bash -l -c SCRIPT`) with no further operands (they would set `$0`, `$1`),
 * or of a reviewed `su`/`runuser -c SCRIPT` form, else undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shellScriptOperand } from "./stage_forms.ts";
 * assert.equal(shellScriptOperand(["su", "-", "app", "-c", "make test"]), "make test");
 * assert.equal(shellScriptOperand(["su", "-P", "app", "-c", "make test"]), undefined);
 * ```
 */
export function shellScriptOperand(argv: readonly string[]): string | undefined {
  if (SWITCH_USER.has(argv[0] ?? "")) return switchUserScript(argv);
  if (!SHELLS.has(argv[0] ?? "")) return undefined;
  let index = 1;
  if (argv[1] === "-l" && argv[2] === "-c") index = 2;
  if (!SCRIPT_OPTIONS.has(argv[index] ?? "") || argv.length !== index + 2) return undefined;
  return argv[index + 1];
}

/** util-linux's `su` and `runuser`, which run `-c SCRIPT` with a shell as another user. */
const SWITCH_USER: ReadonlySet<string> = new Set(["su", "runuser", "/bin/su", "/usr/bin/su"]);
/** Their options that only choose the user's session: login shell, environment, groups. */
const SWITCH_USER_SWITCHES: ReadonlySet<string> = new Set([
  "-",
  "-l",
  "--login",
  "-m",
  "-p",
  "--preserve-environment",
]);
const SWITCH_USER_VALUED: ReadonlySet<string> = new Set([
  "-g",
  "--group",
  "-G",
  "--supp-group",
]);

/**
 * The script of `su [-|-l|-m|-p|-g G|-G G|-s SHELL]… USER -c SCRIPT` (also
 * `su -c SCRIPT USER`, `--command=SCRIPT`, and the same for `runuser`):
 * the user's shell, or `-s SHELL` when it is one of {@link SHELLS}, runs
 * SCRIPT as `bash -c` would. Exactly one user operand and one script; any
 * other option (`-P`/`--pty` runs it on a terminal, `-f`, `-w`,
 * `--session-command`, `-u`) or operand (it would set `$0`) is undefined.
 */
function switchUserScript(argv: readonly string[]): string | undefined {
  let script: string | undefined;
  let user: string | undefined;
  for (let index = 1; index < argv.length; index += 1) {
    const word = argv[index];
    const next = argv[index + 1];
    if (SWITCH_USER_SWITCHES.has(word)) continue;
    if (word === "-c" || word === "--command") {
      if (script !== undefined || next === undefined) return undefined;
      script = next;
      index += 1;
    } else if (word.startsWith("--command=")) {
      if (script !== undefined) return undefined;
      script = word.slice("--command=".length);
    } else if (word === "-s" || word === "--shell") {
      if (!SHELLS.has(next ?? "")) return undefined;
      index += 1;
    } else if (word.startsWith("--shell=")) {
      if (!SHELLS.has(word.slice("--shell=".length))) return undefined;
    } else if (SWITCH_USER_VALUED.has(word)) {
      if (next === undefined) return undefined;
      index += 1;
    } else if (word.startsWith("-") || user !== undefined) {
      return undefined;
    } else user = word;
  }
  return user === undefined ? undefined : script;
}

/** True for `source FILE` / `. FILE` of a virtual-env activate script (`…/bin/activate`). */
export function isActivateScript(argv: readonly string[]): boolean {
  return (argv[0] === "source" || argv[0] === ".") && argv.length === 2 &&
    /^([^\s]*\/)?bin\/activate$/.test(argv[1]);
}

/**
 * Names whose value changes which program runs or how it prints; an
 * assignment of one keeps the result exact (`assignment-output`). Exact
 * names, then prefixes. The search paths `PATH` and `LD_LIBRARY_PATH` are
 * not among them: rules select by the program's name and YARP never
 * resolves it, so a name found through an assigned search path is read as
 * the same name found through the inherited one, which is just as unknown
 * (docs/shell.md, "Stage forms"). Code injected into every program
 * (`LD_PRELOAD`, `LD_AUDIT`, `DYLD_*`) stays closed.
 */
const OUTPUT_NAMES: ReadonlySet<string> = new Set([
  "LD_PRELOAD",
  "LD_AUDIT",
  "BASH_ENV",
  "ENV",
  "IFS",
  "SHELLOPTS",
  "BASHOPTS",
  "CDPATH",
  "PAGER",
  "MANPAGER",
  "TERM",
  "COLORTERM",
  "COLUMNS",
  "LINES",
  "NO_COLOR",
  "FORCE_COLOR",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "LANG",
  "LANGUAGE",
  "TZ",
  "NODE_OPTIONS",
  "NODE_PATH",
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PYTHONWARNINGS",
  "PYTEST_ADDOPTS",
  "PYTEST_PLUGINS",
  "GOFLAGS",
  "RUSTC_WRAPPER",
  "MAKEFLAGS",
  "MFLAGS",
  "GREP_OPTIONS",
  "GREP_COLOR",
  "GREP_COLORS",
  "LS_COLORS",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "MAVEN_ARGS",
  "DOTNET_CLI_UI_LANGUAGE",
]);
const OUTPUT_PREFIXES = [
  "LC_",
  "GIT_",
  "DYLD_",
  "CARGO_TERM_",
  "NPM_CONFIG_",
  "npm_config_",
  "JEST_",
  "VITEST_",
  "RUST_LOG",
];
const OUTPUT_SUFFIXES = ["_PAGER", "_COLOR", "_COLORS", "_COLOUR"];

/**
 * `NODE_OPTIONS` flags that neither load code nor change what a program
 * prints: DNS result order, heap size, OpenSSL's legacy provider.
 */
const QUIET_NODE_OPTION =
  /^--(?:dns-result-order=(?:ipv4first|ipv6first|verbatim)|max[-_]old[-_]space[-_]size=\d+|openssl-legacy-provider)$/;

/**
 * The effect of assigning `value` to `name` (see the module contract):
 * `output` when it can change which program runs or how it prints, else
 * `setup`. `NODE_OPTIONS` is setup only when `value` is given and each of
 * its words is a {@link QUIET_NODE_OPTION} (`--max-old-space-size=4096`);
 * an opaque value is never given.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { assignmentEffect } from "./stage_forms.ts";
 * equal(assignmentEffect("NODE_OPTIONS", "--max-old-space-size=4096"), "setup");
 * equal(assignmentEffect("NODE_OPTIONS", "--require ./hook.js"), "output");
 * equal(assignmentEffect("NODE_OPTIONS"), "output");
 * ```
 */
export function assignmentEffect(name: string, value?: string): "setup" | "output" {
  if (name === "NODE_OPTIONS" && value !== undefined) {
    const words = value.split(/[ \t\n]+/).filter((word) => word !== "");
    return words.length > 0 && words.every((word) => QUIET_NODE_OPTION.test(word))
      ? "setup"
      : "output";
  }
  if (OUTPUT_NAMES.has(name)) return "output";
  if (OUTPUT_PREFIXES.some((prefix) => name.startsWith(prefix))) return "output";
  if (OUTPUT_SUFFIXES.some((suffix) => name.endsWith(suffix))) return "output";
  return "setup";
}
