/**
 * The fuzz campaign: generated inputs for every parser
 * and byte machine that reads untrusted data, each checked against an
 * oracle, each timed.
 *
 * ```sh
 * deno run --allow-read --allow-run --allow-env scripts/fuzz.ts \
 *   [--inputs N] [--targets a,b] [--seed S] [--workers W] [--json]
 * ```
 *
 * Targets and their oracles:
 *
 * - `shell`: `ShellParser.parse` over mutated shell sources; it returns a
 *   model or one rejection reason and never throws.
 * - `strict-json`: `parseStrictJson` over mutated JSON documents; it never
 *   throws, and accepts only text `JSON.parse` accepts.
 * - `yrp`: `openCompiledPack` over mutated `.yrp` files, then `verifyAll`
 *   and `candidates`; only `PackFormatError` may escape.
 * - `bytes`: `LineSplitter` over random bytes in random chunks (the lines,
 *   endings and dropped counts rebuild the input exactly; carry within its
 *   bound) and `AnsiStripper` (output within its bound, identical however
 *   the input is chunked).
 * - `result-reduce`: `reduceFinishedResult`, the function `yarp
 *   result-reduce` runs, over random commands and random bytes with an
 *   in-memory exact copy: an unchanged result is the input byte for byte; a
 *   changed one is smaller, names the copy's id in its marker, and the copy
 *   holds the input byte for byte.
 *
 * Input `i` of a target under seed `S` is generated from `(S, i)` alone, so
 * any finding is replayed with `--targets T --seed S --from i --inputs 1`.
 * `--workers W` splits each target's range over W processes (seeds stay
 * the same, so the inputs do not depend on W). Every input is timed; one
 * over 1 s of CPU time counts as a hang (see {@link HANG_MS}). The table
 * lists, per target: inputs run, crashes (an exception or a broken
 * oracle), hangs, unrecovered (a changed result without an exact copy),
 * accepted inputs, the slowest input in ms of CPU time and its index, the
 * slowest wall time, and the seed. Exit 1 when any crash, hang or
 * unrecovered result was found.
 *
 * @module
 */
import process from "node:process";
import { loadShellParser } from "../lib/shell/mod.ts";
import { parseStrictJson } from "../lib/rules/strict_json.ts";
import {
  encodeCompiledPack,
  openCompiledPack,
  PackFormatError,
} from "../lib/rules/compiled_pack.ts";
import { bytesEqual } from "../lib/bytes/byte_search.ts";
import { AnsiStripper } from "../lib/bytes/ansi.ts";
import { LINE_END_CRLF, LINE_END_LF, LineSplitter } from "../lib/bytes/line_splitter.ts";
import { BUILTIN_PACK, builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { reduceFinishedResult } from "../lib/shell/finished_result.ts";

/** The targets, in table order. */
export const TARGETS = ["shell", "strict-json", "yrp", "bytes", "result-reduce"] as const;
/** One fuzz target's name. */
export type Target = typeof TARGETS[number];

/**
 * An input that costs over this many milliseconds of CPU time is a hang.
 * CPU time (user + system, from `process.cpuUsage`), not wall time: on a
 * shared, loaded machine a nice-19 process can wait seconds for a core
 * without doing any work. Wall time is reported beside it.
 */
export const HANG_MS = 1000;

/** One target's figures over a range of inputs. */
export interface TargetReport {
  readonly target: Target;
  readonly seed: number;
  readonly inputs: number;
  readonly crashes: number;
  readonly hangs: number;
  readonly unrecovered: number;
  /**
   * Inputs that got past every check to a positive result: a parsed shell
   * model, accepted JSON, an opened pack, a split with a kept line, a
   * changed (reduced) result. Shows the oracles were exercised.
   */
  readonly accepted: number;
  /** The most CPU time one input took, in ms. */
  readonly slowestMs: number;
  /** The index of that input. */
  readonly slowestIndex: number;
  /** The most wall time one input took, in ms (scheduling delays included). */
  readonly slowestWallMs: number;
  /** Up to five findings: index and what went wrong. */
  readonly findings: readonly { readonly index: number; readonly problem: string }[];
}

/** A small, fast, seedable generator (mulberry32). */
class Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** An integer in [0, n). */
  below(n: number): number {
    return n <= 1 ? 0 : this.u32() % n;
  }
  /** One element of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.u32() < p * 0x1_0000_0000;
  }
  /** `length` random bytes. */
  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.u32() & 0xff;
    return out;
  }
}

/** The generator state for input `index` under `seed`: independent of every other input. */
function inputRandom(seed: number, index: number): Random {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return new Random(h);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Applies 1 to 4 random edits (insert, delete, replace, duplicate a span) to `text`. */
function mutateText(random: Random, text: string, alphabet: readonly string[]): string {
  let out = text;
  const edits = 1 + random.below(4);
  for (let e = 0; e < edits; e++) {
    const at = random.below(out.length + 1);
    switch (random.below(4)) {
      case 0:
        out = out.slice(0, at) + random.pick(alphabet) + out.slice(at);
        break;
      case 1:
        out = out.slice(0, at) + out.slice(at + 1 + random.below(4));
        break;
      case 2:
        out = out.slice(0, at) + random.pick(alphabet) + out.slice(at + 1);
        break;
      default: {
        const end = Math.min(out.length, at + 1 + random.below(16));
        out = out.slice(0, end) + out.slice(at, end) + out.slice(end);
      }
    }
  }
  return out;
}

/** Applies 1 to 8 random byte edits (flip, set, insert, delete, truncate) to a copy of `bytes`. */
function mutateBytes(random: Random, bytes: Uint8Array): Uint8Array {
  let out = bytes.slice();
  const edits = 1 + random.below(8);
  for (let e = 0; e < edits; e++) {
    const at = random.below(out.length + 1);
    switch (random.below(5)) {
      case 0:
        if (at < out.length) out[at] ^= 1 << random.below(8);
        break;
      case 1:
        if (at < out.length) out[at] = random.pick([0, 1, 0x7f, 0x80, 0xff, random.u32() & 0xff]);
        break;
      case 2: {
        const grown = new Uint8Array(out.length + 1 + random.below(8));
        grown.set(out.subarray(0, at));
        grown.set(random.bytes(grown.length - out.length), at);
        grown.set(out.subarray(at), at + grown.length - out.length);
        out = grown;
        break;
      }
      case 3:
        out = Uint8Array.from([...out.subarray(0, at), ...out.subarray(at + 1 + random.below(8))]);
        break;
      default:
        out = out.slice(0, at);
    }
  }
  return out;
}

// ---------------------------------------------------------------- shell

const SHELL_SEEDS = [
  "git diff --stat",
  "cargo test -- --nocapture 2>&1 | tail -n 50",
  "cd app && npm test; echo done",
  "rg -n 'TODO|FIXME' src/ | head -100",
  'FOO=1 BAR="x y" make -j4 all',
  "git log --oneline -n 20 > log.txt",
  "if [ -f x ]; then cat x; else ls -la; fi",
  'for f in *.ts; do deno fmt "$f"; done',
  "cat <<'EOF' | python3 -\nprint(1)\nEOF",
  "echo $(date) ${HOME:-/} $((1+2)) `uname`",
  "(cd sub && pytest -q) || exit 1",
  "find . -name '*.rs' -exec wc -l {} +",
  "ls | xargs -n1 echo | sort | uniq -c",
  "npx tsc --noEmit && npx eslint . --max-warnings=0",
  'grep -r "a\\"b" . 2>/dev/null',
  "go test ./... -run 'Test.*' -count=1 &",
  "$'ansi\\tc' 'single' \"double $x\" \\escaped",
  "a|b|c|d|e|f|g|h",
  "{ echo a; echo b; } >&2",
  "time cargo build --release 2>&1",
];
const SHELL_ALPHABET = [
  ..."abcxyz019 -_./=:,@%+~",
  ..."|&;<>()$`\\\"'{}[]*?!#\n\t",
  "$(",
  "${",
  "<<",
  ">>",
  "&&",
  "||",
  "2>&1",
  "\0",
  "\x1b",
  "é",
  "😀",
  "\ud800",
];

function shellInput(random: Random): string {
  if (random.chance(0.1)) {
    let text = "";
    const length = random.below(200);
    for (let i = 0; i < length; i++) text += random.pick(SHELL_ALPHABET);
    return text;
  }
  let source = random.pick(SHELL_SEEDS);
  if (random.chance(0.3)) {
    source += random.pick([" && ", " | ", "; ", " || "]) + random.pick(SHELL_SEEDS);
  }
  return random.chance(0.9) ? mutateText(random, source, SHELL_ALPHABET) : source;
}

// ---------------------------------------------------------------- strict JSON

const JSON_ALPHABET = [
  ...'{}[]:,"\\ \n\t0123456789-+.eE',
  "true",
  "false",
  "null",
  "\\u",
  "\u0000",
  "\u2028",
  "é",
];

function jsonValue(random: Random, depth: number): unknown {
  switch (random.below(depth > 3 ? 4 : 7)) {
    case 0:
      return random.below(1_000_000) - 500_000;
    case 1:
      return random.pick(["", "a", "x/y", "é😀", "\\", '"', "\u0007", "line\nbreak"]);
    case 2:
      return random.pick([true, false, null]);
    case 3:
      return random.u32() / 7;
    case 4:
    case 5: {
      const object: Record<string, unknown> = {};
      const fields = random.below(5);
      for (let i = 0; i < fields; i++) {
        object[random.pick(["id", "match", "programs", "kind", "value", "a", "b", ""])] = jsonValue(
          random,
          depth + 1,
        );
      }
      return object;
    }
    default:
      return Array.from({ length: random.below(5) }, () => jsonValue(random, depth + 1));
  }
}

function strictJsonInput(random: Random): string {
  const text = JSON.stringify(jsonValue(random, 0), null, random.chance(0.5) ? 2 : undefined) ??
    "null";
  return random.chance(0.8) ? mutateText(random, text, JSON_ALPHABET) : text;
}

function strictJsonCheck(text: string): { problem?: string; accepted?: boolean } {
  const result = parseStrictJson("fuzz.json", text);
  if (!result.ok) {
    return result.diagnostics.length === 0 ? { problem: "rejected with no diagnostic" } : {};
  }
  try {
    JSON.parse(text);
  } catch {
    return { problem: "accepted text that JSON.parse rejects" };
  }
  return { accepted: true };
}

// ---------------------------------------------------------------- .yrp

let yrpSeeds: Uint8Array[] | undefined;

/** Seed packs: a few slices of the built-in rules, encoded. */
function yrpSeedPacks(): Uint8Array[] {
  yrpSeeds ??= [1, 3, 8].map((count, n) =>
    encodeCompiledPack({
      id: `fuzz-${n}`,
      sourceDigest: BUILTIN_PACK.sourceDigest,
      rules: BUILTIN_PACK.rules.slice(n * 10, n * 10 + count),
    })
  );
  return yrpSeeds;
}

function yrpInput(random: Random): Uint8Array {
  const seed = random.pick(yrpSeedPacks());
  return random.chance(0.95) ? mutateBytes(random, seed) : seed;
}

function yrpCheck(bytes: Uint8Array): { problem?: string; accepted?: boolean } {
  try {
    const pack = openCompiledPack(bytes, { label: "fuzz.yrp" });
    pack.verifyAll();
    for (const program of ["git", "cargo", "npm", "make", "rg", "zz"]) pack.candidates(program);
    return { accepted: true };
  } catch (error) {
    return error instanceof PackFormatError ? {} : { problem: `threw ${describe(error)}` };
  }
}

// ---------------------------------------------------------------- bytes

const BYTE_POOL = [10, 13, 27, 0x5b, 0x5d, 0x07, 0x9b, 0x30, 0x3b, 0x6d, 0x41, 0x20, 0, 0xff];

function bytesInput(random: Random): Uint8Array {
  const length = random.below(random.chance(0.1) ? 20_000 : 600);
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    out[i] = random.chance(0.6) ? random.pick(BYTE_POOL) : random.u32() & 0xff;
  }
  return out;
}

/** Random chunk boundaries over `length` bytes (derived from the input, so checks are replayable). */
function chunksOf(bytes: Uint8Array, random: Random): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const size = 1 + random.below(random.chance(0.5) ? 8 : 4096);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

function bytesCheck(input: Uint8Array, random: Random): string | undefined {
  const max = 1 + random.below(random.chance(0.5) ? 16 : 2048);
  const splitter = new LineSplitter(max);
  const rebuilt: number[] = [];
  let problem: string | undefined;
  let offset = 0;
  const take = () => {
    const length = splitter.end - splitter.start;
    if (length > max) problem ??= `line of ${length} bytes over the limit ${max}`;
    const ending = splitter.ending === LINE_END_CRLF ? 2 : splitter.ending === LINE_END_LF ? 1 : 0;
    for (let i = 0; i < length; i++) {
      if (splitter.bytes[splitter.start + i] !== input[offset + i]) {
        problem ??= `line content differs at byte ${offset + i}`;
      }
    }
    offset += length + splitter.droppedBytes + ending;
    rebuilt.push(offset);
    if (splitter.retainedBytes() > max) problem ??= `carry of ${splitter.retainedBytes()} > ${max}`;
  };
  for (const chunk of chunksOf(input, random)) {
    splitter.feed(chunk);
    while (splitter.next()) take();
  }
  if (splitter.finish()) take();
  if (offset !== input.length) problem ??= `lines cover ${offset} of ${input.length} bytes`;
  if (problem !== undefined) return `splitter: ${problem}`;

  const whole = new Uint8Array(input.length);
  const wholeEnd = new AnsiStripper().strip(input, 0, input.length, whole, 0);
  if (wholeEnd > input.length) return "ansi: wrote more than it read";
  const stripper = new AnsiStripper(2 + random.below(64) + (random.chance(0.5) ? 4096 : 0));
  const fresh = new AnsiStripper();
  const parts = new Uint8Array(input.length);
  let partsEnd = 0;
  for (const chunk of chunksOf(input, random)) {
    partsEnd = fresh.strip(chunk, 0, chunk.length, parts, partsEnd);
  }
  if (
    partsEnd !== wholeEnd || !bytesEqual(parts.subarray(0, partsEnd), whole.subarray(0, wholeEnd))
  ) {
    return "ansi: chunked output differs from whole output";
  }
  // In place, with a small sequence bound: never overtakes its reads.
  const inPlace = input.slice();
  const inPlaceEnd = stripper.strip(inPlace, 0, inPlace.length, inPlace, 0);
  if (inPlaceEnd > input.length) return "ansi: in-place strip grew";
  return undefined;
}

// ---------------------------------------------------------------- result-reduce

const RR_COMMANDS = [
  "cargo test",
  "cargo build --release",
  "npm test",
  "make -j4",
  "git diff",
  "git status",
  "rg TODO src",
  "pytest -q",
  "go test ./...",
  "npx tsc --noEmit",
  "git log --oneline",
  "cargo test 2>&1 | tail -n 40",
  "cd app && make",
  "ls -la",
  "jest --ci",
];
const RR_LINES = [
  "test tests::case_1 ... ok",
  "test result: ok. 10 passed; 0 failed",
  "error[E0308]: mismatched types",
  "  --> src/main.rs:3:5",
  "warning: unused variable `x`",
  "src/a.ts(3,5): error TS2322: Type 'string' is not assignable",
  "FAILED tests/test_a.py::test_b - AssertionError",
  "make: *** [all] Error 2",
  "diff --git a/x b/x",
  "@@ -1,3 +1,4 @@",
  "+added line",
  "-removed line",
  " M src/main.rs",
  "src/lib.rs:10:  // TODO later",
  "\x1b[31mred\x1b[0m",
  "\x1b]0;title\x07",
  "   Compiling demo v0.1.0",
  "PASS src/a.test.ts",
  "ok  \tpkg/a\t0.01s",
  "",
];

function resultReduceInput(
  random: Random,
): { command: string; input: Uint8Array; exitCode?: number } {
  const command = random.chance(0.9)
    ? random.pick(RR_COMMANDS)
    : mutateText(random, random.pick(RR_COMMANDS), SHELL_ALPHABET);
  const lines = random.below(random.chance(0.05) ? 3000 : 200);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < lines; i++) {
    parts.push(
      random.chance(0.1)
        ? random.bytes(random.below(80))
        : encoder.encode(`${random.pick(RR_LINES)}${random.chance(0.3) ? ` ${i}` : ""}`),
      encoder.encode(random.chance(0.05) ? "\r\n" : "\n"),
    );
  }
  const input = concat(parts);
  const exitCode = random.chance(0.1) ? undefined : random.pick([0, 0, 1, 2, 101, -1, 3221225794]);
  return { command, input, exitCode };
}

async function resultReduceCheck(
  parser: Awaited<ReturnType<typeof loadShellParser>>,
  registry: ReturnType<typeof createRuleRegistry>,
  sample: { command: string; input: Uint8Array; exitCode?: number },
  index: number,
): Promise<{ problem?: string; unrecovered?: boolean; changed?: boolean }> {
  const id = (0x10000000 + index).toString(16);
  const kept: Uint8Array[] = [];
  const { output, report } = await reduceFinishedResult(
    sample.command,
    sample.input,
    sample.exitCode,
    parser,
    registry,
    {
      obtain() {
        kept.push(sample.input.slice());
        return Promise.resolve({ id });
      },
    },
  );
  if (!report.changed) {
    return bytesEqual(output, sample.input)
      ? {}
      : { problem: "unchanged result differs from input" };
  }
  if (kept.length !== 1 || !bytesEqual(kept[0], sample.input) || report.archiveId !== id) {
    return { unrecovered: true, problem: "changed without an exact copy of the input" };
  }
  if (!decoder.decode(output).includes(`yarp read ${id}`)) {
    return { unrecovered: true, problem: "changed output does not name its exact copy" };
  }
  if (output.length >= sample.input.length) return { problem: "changed output is not smaller" };
  return { changed: true };
}

// ---------------------------------------------------------------- driver

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.split("\n")[0]}` : String(error);
}

/**
 * Runs inputs `from` to `from + count - 1` of `target` under `seed` in this
 * process and returns the figures. Never throws for a finding; `onProgress`
 * is called every 10,000 inputs with the number done and the figures so
 * far (so a campaign stopped early can still say how far it got).
 */
export async function fuzzTarget(
  target: Target,
  seed: number,
  from: number,
  count: number,
  onProgress?: (done: number, soFar: string) => void,
): Promise<TargetReport> {
  const parser = target === "shell" || target === "result-reduce"
    ? await loadShellParser()
    : undefined;
  const registry = target === "result-reduce"
    ? createRuleRegistry([builtinRuleSource()])
    : undefined;
  let crashes = 0, hangs = 0, unrecovered = 0, accepted = 0;
  let slowestMs = 0, slowestIndex = from, slowestWallMs = 0;
  const findings: { index: number; problem: string }[] = [];
  for (let index = from; index < from + count; index++) {
    const random = inputRandom(seed, index);
    let problem: string | undefined;
    let lostCopy = false;
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    try {
      if (target === "shell") {
        const parsed = parser!.parse(shellInput(random));
        if (!parsed.ok && typeof parsed.reason !== "string") problem = "rejection without a reason";
        if (parsed.ok) accepted++;
      } else if (target === "strict-json") {
        const outcome = strictJsonCheck(strictJsonInput(random));
        problem = outcome.problem;
        if (outcome.accepted) accepted++;
      } else if (target === "yrp") {
        const outcome = yrpCheck(yrpInput(random));
        problem = outcome.problem;
        if (outcome.accepted) accepted++;
      } else if (target === "bytes") {
        const input = bytesInput(random);
        problem = bytesCheck(input, random);
        if (input.length > 0) accepted++;
      } else {
        const sample = resultReduceInput(random);
        const outcome = await resultReduceCheck(parser!, registry!, sample, index);
        problem = outcome.problem;
        lostCopy = outcome.unrecovered === true;
        if (outcome.changed) accepted++;
      }
    } catch (error) {
      problem = `threw ${describe(error)}`;
    }
    const cpu = process.cpuUsage(cpuBefore);
    const elapsed = (cpu.user + cpu.system) / 1000;
    slowestWallMs = Math.max(slowestWallMs, performance.now() - started);
    if (elapsed > slowestMs) {
      slowestMs = elapsed;
      slowestIndex = index;
    }
    if (elapsed > HANG_MS) {
      hangs++;
      if (findings.length < 5) {
        findings.push({ index, problem: `took ${elapsed.toFixed(0)} ms of CPU time` });
      }
    }
    if (problem !== undefined) {
      if (lostCopy) unrecovered++;
      else crashes++;
      if (findings.length < 5) findings.push({ index, problem });
    }
    if (onProgress !== undefined && (index - from + 1) % 10_000 === 0) {
      const soFar = `crashes ${crashes}, hangs ${hangs}, unrecovered ${unrecovered}, ` +
        `accepted ${accepted}, slowest ${slowestMs.toFixed(2)} ms CPU (index ${slowestIndex}), ` +
        `${slowestWallMs.toFixed(2)} ms wall`;
      onProgress(index - from + 1, soFar);
    }
  }
  return {
    target,
    seed,
    inputs: count,
    crashes,
    hangs,
    unrecovered,
    accepted,
    slowestMs,
    slowestIndex,
    slowestWallMs,
    findings,
  };
}

/** Sums the reports of one target's shards (same seed). */
export function mergeReports(reports: readonly TargetReport[]): TargetReport {
  const slowest = reports.reduce((a, b) => (b.slowestMs > a.slowestMs ? b : a));
  return {
    target: reports[0].target,
    seed: reports[0].seed,
    inputs: reports.reduce((sum, r) => sum + r.inputs, 0),
    crashes: reports.reduce((sum, r) => sum + r.crashes, 0),
    hangs: reports.reduce((sum, r) => sum + r.hangs, 0),
    unrecovered: reports.reduce((sum, r) => sum + r.unrecovered, 0),
    accepted: reports.reduce((sum, r) => sum + r.accepted, 0),
    slowestMs: slowest.slowestMs,
    slowestWallMs: Math.max(...reports.map((r) => r.slowestWallMs)),
    slowestIndex: slowest.slowestIndex,
    findings: reports.flatMap((r) => r.findings).slice(0, 5),
  };
}

/** The summary table, one row per target. */
export function formatTable(reports: readonly TargetReport[]): string {
  const rows = [
    [
      "target",
      "inputs",
      "crashes",
      "hangs",
      "unrecovered",
      "accepted",
      "slowest cpu ms",
      "(index)",
      "slowest wall ms",
      "seed",
    ],
    ...reports.map((r) => [
      r.target,
      r.inputs.toLocaleString("en-US"),
      String(r.crashes),
      String(r.hangs),
      String(r.unrecovered),
      r.accepted.toLocaleString("en-US"),
      r.slowestMs.toFixed(2),
      String(r.slowestIndex),
      r.slowestWallMs.toFixed(2),
      String(r.seed),
    ]),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const line = (row: string[]) =>
    row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  ");
  const findings = reports.flatMap((r) =>
    r.findings.map((f) => `  ${r.target} seed ${r.seed} index ${f.index}: ${f.problem}`)
  );
  return [...rows.map(line), ...(findings.length > 0 ? ["findings:", ...findings] : [])].join(
    "\n",
  ) +
    "\n";
}

interface Options {
  inputs: number;
  targets: Target[];
  seed: number;
  from: number;
  workers: number;
  json: boolean;
}

function parseOptions(args: string[]): Options | string {
  const options: Options = {
    inputs: 1_000_000,
    targets: [...TARGETS],
    seed: 1,
    from: 0,
    workers: 1,
    json: false,
  };
  for (let i = 0; i < args.length; i++) {
    const [name, inline] = args[i].split("=", 2);
    if (name === "--json") {
      options.json = true;
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined) return `${name}: needs a value`;
    if (name === "--targets") {
      const names = value.split(",");
      const unknown = names.find((n) => !(TARGETS as readonly string[]).includes(n));
      if (unknown !== undefined) {
        return `--targets: unknown target '${unknown}' (${TARGETS.join(", ")})`;
      }
      options.targets = names as Target[];
    } else if (["--inputs", "--seed", "--from", "--workers"].includes(name)) {
      if (!/^\d+$/.test(value)) return `${name}: expected a non-negative integer, got '${value}'`;
      const number = Number(value);
      if (name === "--inputs") options.inputs = number;
      else if (name === "--seed") options.seed = number;
      else if (name === "--from") options.from = number;
      else options.workers = Math.max(1, number);
    } else return `unknown option '${name}'`;
  }
  return options;
}

/** Runs one shard in a child process (same script, `--json`) and returns its report. */
async function runShard(target: Target, seed: number, from: number, count: number) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-read",
      "--allow-env",
      "--allow-run",
      new URL(import.meta.url).pathname,
      "--targets",
      target,
      "--seed",
      String(seed),
      "--from",
      String(from),
      "--inputs",
      String(count),
      "--json",
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).output();
  // Exit 1 means findings, which the report carries; anything else is the shard failing.
  if (out.code !== 0 && out.code !== 1) {
    throw new Error(`shard ${target} ${from}+${count} exited with ${out.code}`);
  }
  return (JSON.parse(decoder.decode(out.stdout)) as TargetReport[])[0];
}

async function main(args: string[]): Promise<number> {
  const options = parseOptions(args);
  if (typeof options === "string") {
    console.error(`fuzz: ${options}`);
    return 2;
  }
  const reports: TargetReport[] = [];
  for (const target of options.targets) {
    const started = performance.now();
    let report: TargetReport;
    if (options.workers === 1) {
      report = await fuzzTarget(
        target,
        options.seed,
        options.from,
        options.inputs,
        (done, soFar) => {
          if (!options.json && done % 50_000 === 0) {
            console.error(`fuzz: ${target}: ${done.toLocaleString("en-US")} inputs; ${soFar}`);
          }
        },
      );
    } else {
      const per = Math.ceil(options.inputs / options.workers);
      const shards = [];
      for (let w = 0; w < options.workers; w++) {
        const from = options.from + w * per;
        const count = Math.min(per, options.from + options.inputs - from);
        if (count > 0) shards.push(runShard(target, options.seed, from, count));
      }
      report = mergeReports(await Promise.all(shards));
    }
    reports.push(report);
    if (!options.json) {
      console.error(
        `fuzz: ${target} done: ${report.inputs} inputs in ${
          ((performance.now() - started) / 1000).toFixed(1)
        } s`,
      );
    }
  }
  console.log(options.json ? JSON.stringify(reports) : formatTable(reports));
  return reports.some((r) => r.crashes + r.hangs + r.unrecovered > 0) ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
