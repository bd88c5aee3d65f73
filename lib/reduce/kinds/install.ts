/**
 * The `install` kind (npm/pnpm/yarn/bun install and ci, pip, uv, apt-get,
 * cargo fetch, go mod download): progress and download noise (`npm http
 * fetch`, progress bars, yarn's `[1/4] Resolving…`, `info …`, `verbose …`, pip's
 * `Collecting`/`Downloading`/`Using cached`/`Requirement already
 * satisfied`, apt's `Get:`/`Hit:`/`Unpacking`/`Setting up`, `go:
 * downloading`, `go: found`) is dropped; warnings, errors, conflicts and deprecations
 * (also those without a marker word: `DEPRECATION:`, `deprecated`,
 * `ERESOLVE`, `conflict`, `peer dep`, go's module errors `… no such file or
 * directory`, `… does not exist`, `cannot find module …` and the
 * `example.com/app imports` line before each) and the final summary are
 * kept.
 *
 * @module
 */
import {
  BUSIEST_FIRST,
  type Family,
  FoldedWords,
  isWord,
  type KeySink,
  NO_FAMILY_WORDS,
  PrefixSet,
  Role,
  skipBlanks,
  startsWith,
  stateless,
} from "./family.ts";

const NOISE_PREFIXES = new PrefixSet([
  "npm http ",
  "npm sill ",
  "npm verb ",
  "npm timing ",
  "npm info ",
  "Progress: ",
  "info ",
  "verbose ",
  "Collecting ",
  "Downloading ",
  "Downloaded ",
  "Using cached ",
  "Requirement already satisfied",
  "Obtaining ",
  "Building wheel",
  "Created wheel",
  "Stored in directory",
  "Preparing metadata",
  "Installing build dependencies",
  "Getting requirements",
  "Installing collected packages",
  "Get:",
  "Hit:",
  "Ign:",
  "Fetched ",
  "Reading package lists",
  "Building dependency tree",
  "Reading state information",
  "Selecting previously unselected",
  "Preparing to unpack",
  "Unpacking ",
  "Setting up ",
  "Processing triggers",
  "(Reading database",
  "go: downloading ",
  "go: finding ",
  "go: found ",
  "Updating crates.io",
  "Resolving: ",
  "Lockfile is up to date",
  "Already up to date",
  "Resolving dependencies",
  "Resolved, downloaded",
  "Resolving packages",
  "Fetching packages",
  "Linking dependencies",
  "Building fresh packages",
  "━",
  "⸨",
  "#",
]);

/** Words that keep a line without a marker word (in any case). */
const KEEP_WORDS = [
  "deprecat",
  "conflict",
  "ERESOLVE",
  "peer dep",
  "vulnerab",
  "unmet",
  "not found",
  "denied",
  "no such file",
  "does not exist",
  "cannot find",
  "ERR",
];
const KEEP = new FoldedWords(KEEP_WORDS);

/** Bytes from the first non-blank byte searched for {@link KEEP}. */
const KEEP_WINDOW = 200;

function line(
  bytes: Uint8Array,
  start: number,
  end: number,
  flags: number,
  _sink: KeySink,
): number {
  const at = skipBlanks(bytes, start, end);
  if (at === end) return Role.Noise;
  if (
    (flags & NO_FAMILY_WORDS) === 0 && KEEP.foundIn(bytes, at, Math.min(end, at + KEEP_WINDOW))
  ) {
    return Role.Important;
  }
  if (NOISE_PREFIXES.matchAt(bytes, at, end) || yarnStep(bytes, at, end)) return Role.Noise;
  return goImportStack(bytes, at, end) ? Role.Important : Role.Other;
}

/**
 * go's import stack line before a module error: `example.com/app/deps imports`
 * (with `go: ` before it in newer releases): one path, then ` imports`.
 */
function goImportStack(bytes: Uint8Array, at: number, end: number): boolean {
  const word = end - IMPORTS.length;
  if (word <= at || !startsWith(bytes, word, end, IMPORTS)) return false;
  return isWord(bytes, startsWith(bytes, at, end, "go: ") ? at + 4 : at, word);
}

const IMPORTS = " imports";

/** yarn's `[1/4] Resolving…` step lines: `[`, digits, `/`, digits, `] `. */
function yarnStep(bytes: Uint8Array, at: number, end: number): boolean {
  if (bytes[at] !== 0x5b) return false;
  let i = digits(bytes, at + 1, end);
  if (i === at + 1 || bytes[i] !== 0x2f) return false;
  const from = i + 1;
  i = digits(bytes, from, end);
  return i > from && i + 1 < end && bytes[i] === 0x5d && bytes[i + 1] === 0x20;
}

function digits(bytes: Uint8Array, at: number, end: number): number {
  while (at < end && bytes[at] >= 0x30 && bytes[at] <= 0x39) at++;
  return at;
}

/** The install family. */
export const INSTALL: Family = {
  rowNoun: "",
  keyNoun: "",
  key2Noun: "",
  samplesPerKey: 0,
  textShowsFailure: true,
  floor: BUSIEST_FIRST,
  headRows: false,
  words: KEEP_WORDS,
  create: stateless(line),
};
