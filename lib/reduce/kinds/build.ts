/**
 * The `build` kind (tsc, eslint, cargo/rustc, gcc/clang, go build/vet, make,
 * cmake/ninja, Maven, Gradle, dotnet build): progress lines
 * (`[12/480] Building CXX…`, `[ 40%] Building C object`, `Compiling foo
 * v1.2`, `Checking`, `Downloading…`, `Downloaded`, `Fresh`, make's
 * `Entering`/`Leaving directory`, `Scanning dependencies`, Gradle's
 * `> Task`, Maven's `[INFO] ---`/`Download…` lines, go's `go: downloading`)
 * are noise; every error and warning line with its following context
 * (location, source line, caret) is kept by the engine, identical
 * diagnostics once with a count. A line that leads with a source location
 * (`./x.go:12:5: undefined: y`, go vet's and flake8's findings, gcc's
 * `note:` lines) is a finding even without a marker word, and is kept with
 * the warnings. go's package header before its errors or findings
 * (`# example.com/shop/orders`, `# pkg [pkg.test]`) is structure, so the
 * package of a finding stays named. eslint's file header (an absolute path
 * alone) is a heading: kept with the findings, so each finding stays under
 * its file, and the same warning in two files is shown under each.
 *
 * @module
 */
import {
  BUSIEST_FIRST,
  type Family,
  find,
  isWord,
  type KeySink,
  PrefixSet,
  Role,
  skipBlanks,
  startsWith,
  stateless,
} from "./family.ts";
import { leadsWithLocation } from "../source_location.ts";

const NOISE_PREFIXES = new PrefixSet([
  "Compiling ",
  "Checking ",
  "Downloading ",
  "Downloaded ",
  "Fresh ",
  "Updating ",
  "Locking ",
  "Adding ",
  "Blocking ",
  "Building ",
  "Scanning dependencies",
  "Consolidate compiler",
  "Linking ",
  "> Task ",
  "[INFO] Download",
  "[INFO] ---",
  "[INFO] Building ",
  "[INFO] Compiling ",
  "[INFO] ",
  "Progress (",
  "Determining projects",
  "Restored ",
  "-- ",
  "go: downloading ",
  "go: finding ",
  "go: found ",
  "go: extracting ",
]);

function line(
  bytes: Uint8Array,
  start: number,
  end: number,
  _flags: number,
  _sink: KeySink,
): number {
  const at = skipBlanks(bytes, start, end);
  if (at === end) return Role.Noise;
  if (NOISE_PREFIXES.matchAt(bytes, at, end)) return Role.Noise;
  if (bytes[at] === 0x5b) {
    // `[12/480] …` (ninja) and `[ 40%] …` (cmake's make).
    let i = at + 1;
    while (
      i < end &&
      (bytes[i] === 0x20 || (bytes[i] >= 0x30 && bytes[i] <= 0x39) || bytes[i] === 0x2f ||
        bytes[i] === 0x25)
    ) i++;
    if (i > at + 1 && bytes[i] === 0x5d) return Role.Noise;
  }
  if (makeDirectory(bytes, at, end)) return Role.Noise;
  if (at === start && goPackageHeader(bytes, start, end)) return Role.Structure;
  if (at === start && lonePath(bytes, start, end)) return Role.Heading;
  return leadsWithLocation(bytes, at, end) ? Role.Important : Role.Other;
}

/** make's `make[2]: Entering directory '…'` and `Leaving directory` lines (also gmake). */
function makeDirectory(bytes: Uint8Array, at: number, end: number): boolean {
  let i = bytes[at] === 0x67 ? at + 1 : at; // g
  if (!startsWith(bytes, i, end, "make")) return false;
  i += 4;
  if (bytes[i] === 0x5b) {
    const from = i + 1;
    i = from;
    while (i < end && bytes[i] >= 0x30 && bytes[i] <= 0x39) i++;
    if (i === from || bytes[i] !== 0x5d) return false;
    i++;
  }
  return startsWith(bytes, i, end, ": Entering directory") ||
    startsWith(bytes, i, end, ": Leaving directory");
}

/** go's `# import/path` line, optionally with its test variant: `# pkg [pkg.test]`. */
function goPackageHeader(bytes: Uint8Array, start: number, end: number): boolean {
  if (!startsWith(bytes, start, end, "# ")) return false;
  const space = find(bytes, 0x20, start + 2, end);
  if (space === -1) return isWord(bytes, start + 2, end);
  return isWord(bytes, start + 2, space) && startsWith(bytes, space, end, " [") &&
    bytes[end - 1] === 0x5d && isWord(bytes, space + 2, end - 1);
}

/** eslint's file header: an absolute path alone on its line (`/src/app/a.ts`). */
function lonePath(bytes: Uint8Array, start: number, end: number): boolean {
  return bytes[start] === 0x2f && isWord(bytes, start + 1, end);
}

/** The build family. */
export const BUILD: Family = {
  rowNoun: "",
  keyNoun: "",
  key2Noun: "",
  samplesPerKey: 0,
  textShowsFailure: true,
  floor: BUSIEST_FIRST,
  headRows: false,
  create: stateless(line),
};
