/**
 * What every built-in rule's fixtures must cover, and the reviewed
 * exceptions, shared by the fixture author (`make_fixtures.ts`) and the
 * fixture runner (`tests/fixtures_test.ts`) so the two cannot disagree.
 * Each exception says why it holds.
 *
 * @module
 */

/** The cases every reduction rule has. */
export const REDUCE_CASES = [
  "success",
  "failure",
  "near-miss",
  "short-exact",
  "middle-line",
  "long-line",
  "empty",
  "separate-streams",
  "invalid-utf8",
] as const;

/**
 * A case a `search` rule may add: `source-terms`, a result where one source
 * term of the command occurs only late, after many rows of another; every
 * term a row holds must be shown (evidence class 3).
 */
export const SOURCE_TERMS_CASE = "source-terms";

/** Rules whose tool writes to one stream only, so `separate-streams` has one empty stream. */
export const ONE_STREAM_RULES: Readonly<Record<string, string>> = {
  "build/go-build": "go build writes everything (-v lists, compiler errors) to stderr",
  "build/go-vet": "go vet writes its findings to stderr",
  "build/tsc": "tsc writes its diagnostics to stdout and nothing to stderr",
  "package/go-mod-download":
    "go mod download writes its `go: downloading` lines and errors to stderr",
  "package/go-mod-tidy":
    "go mod tidy writes its `go: downloading`/`go: finding` lines and errors to stderr",
  "package/go-get": "go get writes its downloads, `go: added` lines and errors to stderr",
  "build/go-install": "go install writes everything (-v lists, compiler errors) to stderr",
  "package/cargo-fetch":
    "cargo fetch writes its `Updating`/`Downloaded` lines and errors to stderr",
  "package/cargo-update": "cargo update writes its `Updating`/`Locking` lines and errors to stderr",
  "package/uv-pip-install":
    "uv writes its resolve, download and install lines and errors to stderr",
  "package/uv-sync": "uv writes its resolve, download and install lines and errors to stderr",
  "package/uv-add": "uv writes its resolve, download and install lines and errors to stderr",
  "package/uv-lock": "uv writes its resolve lines and errors to stderr",
  "build/ninja":
    "ninja prints its progress and every subprocess's output, merged, to stdout; stderr holds only its own start-up errors",
  "tests/tox": "tox 3 joins its commands' stderr to its own stdout; stderr stays empty",
  "list/tree":
    "tree writes its listing and its `[error opening dir]` notes to stdout; only usage errors, which end it before any listing, go to stderr",
};

/**
 * `line_filter` rules whose drop patterns match none of their tool's real
 * noise, so their `middle-line` case loses the line like `head_tail` does.
 */
export const MIDDLE_LINE_LOST: Readonly<Record<string, string>> = {};

/** The cases every transform rule has: one line-preserving sample it selects. */
export const TRANSFORM_CASES = ["transform"] as const;

/**
 * Why a guard of an exact form that no built-in rule reduces still exists: the
 * global output cap (`yarp result-reduce`) cuts results no rule reduces, but
 * never a guarded exact form, so these values, listings and JSON stay whole.
 */
const CAP_EXEMPT =
  "exact values, listings or JSON that no rule reduces; the guard keeps the global output cap off them";

/**
 * Programs whose output is exact text by nature (file reads, byte dumps, queries, digests,
 * counts, watch modes, `yarp read`, an agent harness's file windows such as SWE-agent's `open`,
 * `goto`, `scroll_down`, `edit` and `create`, PowerShell's `Get-Content`): each has an
 * `exact/<program in lower case>` guard ({@link exactRuleId}) and no reduction rule.
 */
export const EXACT_PROGRAMS = [
  "sed",
  "awk",
  "gawk",
  "mawk",
  "nl",
  "less",
  "more",
  "bat",
  "batcat",
  "xxd",
  "od",
  "hexdump",
  "base64",
  "base32",
  "strings",
  "jq",
  "yq",
  "xmllint",
  "diff",
  "cmp",
  "comm",
  "patch",
  "md5sum",
  "sha1sum",
  "sha224sum",
  "sha256sum",
  "sha384sum",
  "sha512sum",
  "b2sum",
  "cksum",
  "sum",
  "shasum",
  "wc",
  "stat",
  "readlink",
  "realpath",
  "file",
  "cut",
  "paste",
  "column",
  "printf",
  "echo",
  "printenv",
  "watch",
  "yarp",
  "sqlite3",
  "psql",
  "mysql",
  "curl",
  "wget",
  "open",
  "goto",
  "scroll_up",
  "scroll_down",
  "create",
  "edit",
  "Get-Content",
] as const;

/**
 * The id of the guard of exact program `program` (rule ids are lower case).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { exactRuleId } from "./fixture_policy.ts";
 * equal(exactRuleId("Get-Content"), "exact/get-content");
 * ```
 */
export function exactRuleId(program: string): string {
  return `exact/${program.toLowerCase()}`;
}

/** Guards that no broader built-in reduction or transform rule could shadow, and why. */
export const GUARDS_WITHOUT_SHADOW: Readonly<Record<string, string>> = {
  ...Object.fromEntries(EXACT_PROGRAMS.map((program) => [
    exactRuleId(program),
    `${program} prints exact text by nature; the guard keeps it from the global output cap`,
  ])),
  "git/guard-rev-parse": "rev-parse prints object names and paths; no git rule reduces it",
  "git/guard-rev-list": "rev-list prints object names; no git rule reduces it",
  "git/guard-cat-file": "cat-file prints object content; no git rule reduces it",
  "git/guard-config": "config prints configuration values; no git rule reduces it",
  "git/guard-for-each-ref": "for-each-ref prints refs for scripts; no git rule reduces it",
  "containers/docker-guard-inspect": "docker inspect prints JSON; no docker rule reduces it",
  "containers/docker-compose-guard-config":
    "compose config prints the resolved YAML; no rule reduces it",
  "containers/compose-v1-guard-config":
    "docker-compose config prints the resolved YAML; no rule reduces it",
  "containers/gh-guard-run-watch": "gh run watch follows a run; no gh rule reduces run watch",
  "containers/gh-guard-api": "gh api prints the API's JSON; no gh rule reduces it",
  "build/mvn-guard-help-evaluate": CAP_EXEMPT,
  "build/mvn-guard-effective-pom": CAP_EXEMPT,
  "build/mvn-guard-dependency-tree": CAP_EXEMPT,
  "build/mvn-guard-dependency-list": CAP_EXEMPT,
  "build/gradle-guard-dependencies": CAP_EXEMPT,
  "build/gradle-guard-tasks": CAP_EXEMPT,
  "build/gradle-guard-properties": CAP_EXEMPT,
  "build/cmake-guard-system-information": CAP_EXEMPT,
  "build/cmake-guard-command-mode": CAP_EXEMPT,
  "build/meson-guard-introspect": CAP_EXEMPT,
  "build/dotnet-guard-info": CAP_EXEMPT,
  "tests/cargo-guard-nextest-list": CAP_EXEMPT,
  "build/cargo-guard-metadata": CAP_EXEMPT,
  "package/cargo-guard-tree": CAP_EXEMPT,
  "build/go-guard-list-json": CAP_EXEMPT,
  "build/go-guard-env": CAP_EXEMPT,
  "package/go-guard-mod-graph": CAP_EXEMPT,
  "package/npm-guard-ls-parseable": CAP_EXEMPT,
  "package/pip-guard-freeze": CAP_EXEMPT,
  "package/pip-guard-list": CAP_EXEMPT,
  "package/pip-guard-show": CAP_EXEMPT,
  "package/uv-guard-pip-freeze": CAP_EXEMPT,
  "package/uv-guard-pip-list": CAP_EXEMPT,
  "package/uv-guard-export": CAP_EXEMPT,
  "package/uv-guard-tree": CAP_EXEMPT,
  "package/poetry-guard-show": CAP_EXEMPT,
  "package/poetry-guard-export": CAP_EXEMPT,
  "package/apt-guard-list": CAP_EXEMPT,
  "package/apt-guard-show": CAP_EXEMPT,
  "package/apt-cache-guard-policy": CAP_EXEMPT,
  "package/apt-cache-guard-show": CAP_EXEMPT,
};

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** One character per byte, so every byte of a line survives into its text. */
const latin1 = new TextDecoder("latin1");

/** True when `bytes` is valid UTF-8. */
export function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The lines of `bytes` without their endings, one character per byte. */
export function textLines(bytes: Uint8Array): string[] {
  const parts = latin1.decode(bytes).split("\n");
  if (parts.at(-1) === "") parts.pop();
  return parts.map((part) => part.endsWith("\r") ? part.slice(0, -1) : part);
}

/**
 * True when every source term of `terms` that some line of `input` holds
 * also occurs in `output` (in any ASCII case when the terms ignore case):
 * the property of a `source-terms` case.
 */
export function termsShown(
  terms: { readonly terms: readonly string[]; readonly ignoreCase: boolean },
  input: Uint8Array,
  output: Uint8Array,
): boolean {
  const fold = (text: string) =>
    terms.ignoreCase ? text.replace(/[A-Z]/g, (c) => c.toLowerCase()) : text;
  const lines = textLines(input).map(fold);
  const shown = fold(textLines(output).join("\n"));
  return terms.terms.every((term) =>
    !lines.some((line) => line.includes(fold(term))) || shown.includes(fold(term))
  );
}
