/**
 * Argv normalisation for rule matching (docs/architecture.md, "Command matching").
 *
 * Contract: `normalizeArgv` turns an operating-system argument vector into
 * the program name, the argument tail after the reviewed program-level
 * options, and the set of normalised tail tokens that `argv_contains_all`
 * checks. It is pure and total: it never throws, never resolves paths and
 * never reads the environment.
 *
 * - Program-level options are skipped only from a closed, reviewed table,
 *   only before the subcommand, and only when their value is present and
 *   non-empty. Unknown or incomplete options stay in the tail, so a rule's
 *   `argv_prefix` cannot match by accident.
 * - Tokens are every tail token, plus `--name` for each `--name=value`, plus
 *   the exact `-x` token of each letter of a short-option bundle or an
 *   attached-value form, when every letter is in the reviewed table of the
 *   program (for git: of the subcommand). A value is never turned into a
 *   token; tokens after a literal `--` are kept raw and never normalised.
 *
 * Known misses (each fails safe: a rule does not match and the command
 * passes through, or a guard must name the raw token):
 * - An argv[0] containing `/` (absolute or relative path; only `./mvnw`
 *   and `./gradlew` are reviewed), an alias or a wrapper such as `env`,
 *   `sudo` or `npx` selects no rule here (lib/shell/stage_forms.ts peels
 *   the reviewed wrappers before selection).
 * - Attached forms of program-level options (`git -C/repo`, `gh -Ro/r`) and
 *   options after the subcommand that mean the same thing are not skipped.
 * - Short options of programs and git subcommands outside the table, and
 *   single-dash long options (`go test -run=X`, `find -name`) are kept raw.
 * - A letter whose meaning differs between subcommands of one program is
 *   treated as value-taking, so letters after it in a bundle stay raw.
 *
 * @module
 */

import { ruleProgramName } from "./program_alias.ts";

/** The result of normalising one argument vector. */
export interface NormalizedArgv {
  /** argv[0] exactly as given, or a reviewed project wrapper's name (`./mvnw` is `mvnw`). */
  readonly program: string;
  /** The arguments after the skipped program-level options, in order. */
  readonly tail: readonly string[];
  /** Every tail token plus its normalised option forms (see module docs). */
  readonly tokens: ReadonlySet<string>;
  /** The program-level option tokens (and values) that were skipped, in order. */
  readonly skipped: readonly string[];
}

/** Program-level options of one program that may precede its subcommand. */
interface ProgramLevelOptions {
  /** Options taking the next argument as value; `--long` ones also take `=value`. */
  readonly valued: ReadonlySet<string>;
  /** Options taking no value. */
  readonly switches: ReadonlySet<string>;
  /** Whether a first argument `+toolchain` is skipped (Cargo). */
  readonly plusToolchain: boolean;
  /** A short option whose value is attached (`-Dname=value` for Maven), if any. */
  readonly attached?: string;
}

function programLevel(
  valued: readonly string[],
  switches: readonly string[] = [],
  plusToolchain = false,
  attached?: string,
): ProgramLevelOptions {
  return { valued: new Set(valued), switches: new Set(switches), plusToolchain, attached };
}

/**
 * Maven 3.9 (`mvn --help`): options that choose what builds, how loudly and
 * with which settings, none of which is a guard's form (`-v`, `-h`, `-X`'s
 * debug stays a plain tail token only because it is not listed: it is
 * reduced like any log). `-Dname=value` is one attached token.
 */
const MAVEN_OPTIONS = programLevel(
  [
    "-pl",
    "--projects",
    "-T",
    "--threads",
    "-P",
    "--activate-profiles",
    "-f",
    "--file",
    "-s",
    "--settings",
    "-gs",
    "--global-settings",
    "-rf",
    "--resume-from",
    "-D",
    "--define",
  ],
  [
    "-B",
    "--batch-mode",
    "-q",
    "--quiet",
    "-e",
    "--errors",
    "-o",
    "--offline",
    "-U",
    "--update-snapshots",
    "-ntp",
    "--no-transfer-progress",
    "-am",
    "--also-make",
    "-amd",
    "--also-make-dependents",
    "-fae",
    "--fail-at-end",
    "-ff",
    "--fail-fast",
    "-nsu",
    "--no-snapshot-updates",
  ],
  false,
  "-D",
);

/**
 * Gradle 8 (`gradle --help`): logging, daemon, cache and project options.
 * Not listed, so never skipped: the guards' `-m`/`--dry-run` and
 * `-t`/`--continuous`.
 */
const GRADLE_OPTIONS = programLevel(
  [
    "-p",
    "--project-dir",
    "-x",
    "--exclude-task",
    "--console",
    "--warning-mode",
    "--max-workers",
    "-b",
    "--build-file",
    "-c",
    "--settings-file",
  ],
  [
    "-q",
    "--quiet",
    "-i",
    "--info",
    "-w",
    "--warn",
    "-s",
    "--stacktrace",
    "-S",
    "--full-stacktrace",
    "--no-daemon",
    "--daemon",
    "--offline",
    "--parallel",
    "--no-parallel",
    "--build-cache",
    "--no-build-cache",
    "--configuration-cache",
    "--no-configuration-cache",
    "--refresh-dependencies",
    "--rerun-tasks",
    "--continue",
  ],
);

/**
 * apt-get and apt (`apt-get --help`): assume-yes, quiet and configuration
 * options. Not listed, so never skipped: the guards' `-s`/`--simulate`,
 * `--dry-run` and `--print-uris`.
 */
const APT_OPTIONS = programLevel(["-o", "--option", "-t", "--target-release"], [
  "-y",
  "--yes",
  "--assume-yes",
  "-q",
  "-qq",
  "--quiet",
  "--no-install-recommends",
  "--install-suggests",
  "-f",
  "--fix-broken",
  "-m",
  "--fix-missing",
  "--allow-downgrades",
]);

const PACKAGE_MANAGER_OPTIONS = programLevel(["-C", "--dir"]);

/** The reviewed program-level options (docs/architecture.md, "Argument values"). */
const PROGRAM_LEVEL_OPTIONS: ReadonlyMap<string, ProgramLevelOptions> = new Map([
  [
    "git",
    programLevel(["-C", "-c", "--git-dir", "--work-tree"], [
      "-p",
      "-P",
      "--paginate",
      "--no-pager",
      "--literal-pathspecs",
      "--glob-pathspecs",
      "--noglob-pathspecs",
      "--icase-pathspecs",
    ]),
  ],
  ["npm", programLevel(["--prefix"])],
  ["pnpm", PACKAGE_MANAGER_OPTIONS],
  ["yarn", PACKAGE_MANAGER_OPTIONS],
  ["bun", PACKAGE_MANAGER_OPTIONS],
  ["uv", programLevel(["--project"])],
  ["gh", programLevel(["-R", "--repo"])],
  ["cargo", programLevel([], [], true)],
  ["mvn", MAVEN_OPTIONS],
  ["mvnw", MAVEN_OPTIONS],
  ["gradle", GRADLE_OPTIONS],
  ["gradlew", GRADLE_OPTIONS],
  ["apt-get", APT_OPTIONS],
  ["apt", APT_OPTIONS],
]);

/** Reviewed one-letter options; letter `x` normalises to the token `-x`. */
interface ShortOptionTable {
  /** Letters that take no value; a bundle continues after them. */
  readonly flags: string;
  /** Letters that take a value; the rest of the bundle is that value. */
  readonly valued: string;
}

function shortOptions(flags: string, valued: string): ShortOptionTable {
  return { flags, valued };
}

/**
 * GNU make 4.3 (`make --help`). `-C -E -f -I -o -W` take a value; `-j [N]`, `-l [N]` and
 * `-O[TYPE]` take an optional one that must be attached, so in a bundle the rest is their value
 * (`-j4`, `-l2.5`, `-Oline`) and never more letters.
 */
const MAKE_SHORT_OPTIONS = shortOptions("bmBdehikLnpqrRsStvw", "CEfIjloOW");

/** Short options that mean the same in every subcommand of the program. */
const PROGRAM_SHORT_OPTIONS: ReadonlyMap<string, ShortOptionTable> = new Map([
  ["make", MAKE_SHORT_OPTIONS],
  ["gmake", MAKE_SHORT_OPTIONS],
  ["grep", shortOptions("ivwxclLnhHoqsrRzZaIEFGP", "ABCmef")],
  ["rg", shortOptions("iIsSvwxclnNoquHpzaFPLU.", "ABCmefgtTjMrE")],
  ["ls", shortOptions("aAlhRrtS1dFisucx", "wIT")],
  // tree 2.1 (`tree --help`): a bundle such as `-aJ` must still reach the JSON guard.
  ["tree", shortOptions("adlfxRqNQpugshDFvtcUriASnCXJ", "LPIoHT")],
  ["cargo", shortOptions("qvr", "pjFZ")],
  ["npm", shortOptions("gqs", "w")],
  ["pnpm", shortOptions("r", "F")],
  ["pytest", shortOptions("qvxsl", "kmpnc")],
  // GNU coreutils 9: the line-preserving transforms and their guards.
  ["cat", shortOptions("AbeEnstTuv", "")],
  ["head", shortOptions("qvz", "nc")],
  ["tail", shortOptions("fFqvz", "ncs")],
  ["sort", shortOptions("bcCdfghiMmnrRsuVz", "kotST")],
  ["uniq", shortOptions("cdDiuz", "fsw")],
  ["tee", shortOptions("aip", "")],
  // kubectl 1.3x: `-ojson` must reach the output guard; `-f` (file or follow) is left raw.
  ["kubectl", shortOptions("Aw", "onlc")],
  // GNU tar 1.34: `-xOf` must reach the to-stdout guard.
  // UnZip 6.0: `-qc` and `-qp` must reach the to-stdout guards.
  ["unzip", shortOptions("lvtTzZcpfuonjCXKaLMVqb", "dx")],
  ["tar", shortOptions("ctxvzjJaOpkmPSWhrudiAG", "fCTXbHLNgK")],
]);

const GIT_DIFF_SHORT_OPTIONS = shortOptions("pusazbwRW", "UMCBSGO");

/** Git's short options differ per subcommand (`-n`, `-u`, `-b`, `-m`), so they are keyed by it. */
const SUBCOMMAND_SHORT_OPTIONS: ReadonlyMap<string, ReadonlyMap<string, ShortOptionTable>> =
  new Map([
    [
      "git",
      new Map([
        ["status", shortOptions("sbvz", "u")],
        ["diff", GIT_DIFF_SHORT_OPTIONS],
        ["show", GIT_DIFF_SHORT_OPTIONS],
        ["log", shortOptions("pusazbwRW", "UMCBSGOn")],
        ["commit", shortOptions("avqnsep", "mFcCuSt")],
        ["add", shortOptions("nvfpuA", "")],
        // git 2.39 `git grep -h`; `-O[PAGER]` takes an optional value that must be attached.
        ["grep", shortOptions("nivwlLchHEFPzaIrGoqpW", "efABCmO")],
        ["branch", shortOptions("arvqdDmMcClf", "ut")],
        ["checkout", shortOptions("qfpm", "bB")],
        ["switch", shortOptions("qfdm", "cC")],
        // `-z` and `-p` bundles must reach the NUL and porcelain guards.
        ["ls-files", shortOptions("cdmoiskuvtfz", "xX")],
        ["ls-tree", shortOptions("rdtlz", "")],
        ["blame", shortOptions("bcflnpstew", "LSMC")],
      ]),
    ],
    [
      // docker 27 (`docker ps --help`, …): `-aq` must reach the quiet guard, `-tf` the follow guard.
      "docker",
      new Map([
        ["ps", shortOptions("aqsl", "nf")],
        ["images", shortOptions("aq", "f")],
        ["logs", shortOptions("ft", "n")],
      ]),
    ],
  ]);

/** Index of the first tail argument after the reviewed program-level options. */
function tailStart(program: string, argv: readonly string[]): number {
  const options = PROGRAM_LEVEL_OPTIONS.get(program);
  if (options === undefined) return 1;
  let index = 1;
  if (options.plusToolchain && argv.length > 1 && argv[1].length > 1 && argv[1][0] === "+") {
    index = 2;
  }
  while (index < argv.length) {
    const arg = argv[index];
    if (options.switches.has(arg)) {
      index += 1;
    } else if (options.valued.has(arg) && index + 1 < argv.length && argv[index + 1] !== "") {
      index += 2;
    } else if (isAssignedProgramOption(arg, options)) {
      index += 1;
    } else if (
      options.attached !== undefined && arg.length > options.attached.length &&
      arg.startsWith(options.attached)
    ) {
      index += 1;
    } else {
      break;
    }
  }
  return index;
}

/** `--name=value` with a reviewed long `--name` and a non-empty value. */
function isAssignedProgramOption(arg: string, options: ProgramLevelOptions): boolean {
  const equals = arg.indexOf("=");
  return equals > 2 && equals < arg.length - 1 && arg.startsWith("--") &&
    options.valued.has(arg.slice(0, equals));
}

/** Adds the `-x` tokens of a short-option token when every letter is reviewed. */
function addShortOptionTokens(token: string, table: ShortOptionTable, tokens: Set<string>): void {
  let end = token.length;
  for (let index = 1; index < token.length; index += 1) {
    const letter = token[index];
    if (table.valued.includes(letter)) {
      end = index + 1;
      break;
    }
    if (!table.flags.includes(letter)) return;
  }
  for (let index = 1; index < end; index += 1) tokens.add(`-${token[index]}`);
}

/**
 * The synthetic token added for a `git show` operand naming a blob or tree
 * by `REV:PATH` (or `:PATH`). Such output is exact file content, so a guard
 * matches this token. A real argument never needs to spell it.
 */
export const GIT_OBJECT_PATH_TOKEN = "{rev:path}";

/** Whether an operand of `git show` names an object by path (`REV:PATH`). */
function isGitObjectPath(program: string, tail: readonly string[], token: string): boolean {
  return program === "git" && tail[0] === "show" && token[0] !== "-" && token.includes(":");
}

/** Normalised tokens of a tail (see module docs). */
function tailTokens(program: string, tail: readonly string[]): Set<string> {
  const table = SUBCOMMAND_SHORT_OPTIONS.get(program)?.get(tail[0]) ??
    PROGRAM_SHORT_OPTIONS.get(program);
  const tokens = new Set<string>();
  let normalising = true;
  for (const token of tail) {
    tokens.add(token);
    if (normalising && isGitObjectPath(program, tail, token)) tokens.add(GIT_OBJECT_PATH_TOKEN);
    if (!normalising || token.length < 2 || token[0] !== "-") continue;
    if (token === "--") {
      normalising = false;
    } else if (token[1] === "-") {
      const equals = token.indexOf("=");
      if (equals > 2) tokens.add(token.slice(0, equals));
    } else if (table !== undefined) {
      addShortOptionTokens(token, table, tokens);
    }
  }
  return tokens;
}

/** Computes `tokens` on first use: most rules test the prefix only. */
class LazyNormalizedArgv implements NormalizedArgv {
  readonly program: string;
  readonly tail: readonly string[];
  readonly skipped: readonly string[];
  #tokens: ReadonlySet<string> | undefined;

  constructor(program: string, tail: readonly string[], skipped: readonly string[]) {
    this.program = program;
    this.tail = tail;
    this.skipped = skipped;
  }

  get tokens(): ReadonlySet<string> {
    return this.#tokens ??= tailTokens(this.program, this.tail);
  }
}

const NOTHING_SKIPPED: readonly string[] = Object.freeze([]);

/**
 * Normalises an argument vector for rule matching.
 *
 * Returns `undefined` when no rule can match it: an empty argv, an empty
 * argv[0], or an argv[0] containing `/` other than the reviewed project
 * wrappers `./mvnw` and `./gradlew`. Never throws. `tokens` is computed
 * on first read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeArgv } from "./argv.ts";
 * const argv = normalizeArgv(["git", "-C", "repo", "status", "-sb", "--format=x"])!;
 * assert.ok(argv.tail[0] === "status");
 * assert.ok(argv.tokens.has("-s") && argv.tokens.has("-b") && argv.tokens.has("--format"));
 * ```
 */
export function normalizeArgv(argv: readonly string[]): NormalizedArgv | undefined {
  if (argv.length === 0) return undefined;
  const program = ruleProgramName(argv[0]);
  if (program === "" || program.includes("/")) return undefined;
  const start = tailStart(program, argv);
  const skipped = start === 1 ? NOTHING_SKIPPED : argv.slice(1, start);
  return new LazyNormalizedArgv(program, argv.slice(start), skipped);
}
