/**
 * The `install` kind (npm/pnpm/yarn/bun install and ci, pip, uv, apt-get,
 * cargo fetch, go mod download): progress and download noise (`npm http
 * fetch`, progress bars, yarn's `[1/4] Resolving…`, `info …`, pip's
 * `Collecting`/`Downloading`/`Using cached`/`Requirement already
 * satisfied`, apt's `Get:`/`Hit:`/`Unpacking`/`Setting up`, `go:
 * downloading`) is dropped; warnings, errors, conflicts and deprecations
 * (also those without a marker word: `DEPRECATION:`, `deprecated`,
 * `ERESOLVE`, `conflict`, `peer dep`) and the final summary are kept.
 *
 * @module
 */
import { type Family, type KeySink, Role, skipBlanks, startsWith, stateless } from "./family.ts";

const NOISE_PREFIXES = [
  "npm http ",
  "npm sill ",
  "npm verb ",
  "npm timing ",
  "npm info ",
  "Progress: ",
  "info ",
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
];

const KEEP = /deprecat|conflict|ERESOLVE|peer dep|vulnerab|unmet|not found|denied|ERR/i;

function line(
  bytes: Uint8Array,
  start: number,
  end: number,
  _flags: number,
  _sink: KeySink,
): number {
  const at = skipBlanks(bytes, start, end);
  if (at === end) return Role.Noise;
  const window = text(bytes, at, end);
  if (KEEP.test(window)) return Role.Important;
  for (const prefix of NOISE_PREFIXES) if (startsWith(bytes, at, end, prefix)) return Role.Noise;
  if (/^\[\d+\/\d+\] /.test(window)) return Role.Noise; // yarn steps
  return Role.Other;
}

function text(bytes: Uint8Array, start: number, end: number): string {
  return new TextDecoder().decode(bytes.subarray(start, Math.min(end, start + 200)));
}

/** The install family. */
export const INSTALL: Family = {
  rowNoun: "",
  keyNoun: "",
  key2Noun: "",
  samplesPerKey: 0,
  textShowsFailure: true,
  headRows: false,
  create: stateless(line),
};
