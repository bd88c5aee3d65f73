/**
 * The `build` kind (tsc, eslint, cargo/rustc, gcc/clang, go build/vet, make,
 * cmake/ninja, Maven, Gradle, dotnet build): progress lines
 * (`[12/480] Building CXX…`, `[ 40%] Building C object`, `Compiling foo
 * v1.2`, `Checking`, `Downloading…`, `Downloaded`, `Fresh`, make's
 * `Entering`/`Leaving directory`, `Scanning dependencies`, Gradle's
 * `> Task`, Maven's `[INFO] ---`/`Download…` lines) are noise; every error
 * and warning line with its following context (location, source line,
 * caret) is kept by the engine, identical diagnostics once with a count.
 *
 * @module
 */
import { type Family, type KeySink, Role, skipBlanks, startsWith, stateless } from "./family.ts";

const NOISE_PREFIXES = [
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
];

function line(
  bytes: Uint8Array,
  start: number,
  end: number,
  _flags: number,
  _sink: KeySink,
): number {
  const at = skipBlanks(bytes, start, end);
  if (at === end) return Role.Noise;
  for (const prefix of NOISE_PREFIXES) if (startsWith(bytes, at, end, prefix)) return Role.Noise;
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
  if (/^g?make(?:\[\d+\])?: (?:Entering|Leaving) directory/.test(text(bytes, at, end))) {
    return Role.Noise;
  }
  return Role.Other;
}

function text(bytes: Uint8Array, start: number, end: number): string {
  let out = "";
  for (let i = start; i < Math.min(end, start + 48); i++) out += String.fromCharCode(bytes[i]);
  return out;
}

/** The build family. */
export const BUILD: Family = {
  rowNoun: "",
  keyNoun: "",
  key2Noun: "",
  samplesPerKey: 0,
  textShowsFailure: true,
  headRows: false,
  create: stateless(line),
};
