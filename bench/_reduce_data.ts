/**
 * Synthetic stream data and rules for the reducer benchmarks: short build
 * lines, long lines, ANSI colour, invalid UTF-8 and a high share of lines
 * that the filter rule drops. Deterministic (no randomness).
 *
 * @module
 */
import type { LinePattern, OutputPolicy, ReductionRule } from "../lib/rules/model.ts";

const te = new TextEncoder();

/** The policy both benchmark rules use for success and failure (state bound ≈ 150 KiB). */
export const BENCH_POLICY: OutputPolicy = {
  headLines: 40,
  tailLines: 40,
  maxLineBytes: 16_384,
  maxOutputBytes: 16_384,
  minSavingsBytes: 120,
};

const match = { programs: ["bench"], argvPrefix: [], argvContainsAll: [] };

/** `head_tail` over the benchmark policy. */
export const HEAD_TAIL_RULE: ReductionRule = {
  id: "bench/head-tail",
  action: "reduce",
  match,
  reducer: { kind: "head_tail" },
  success: BENCH_POLICY,
  failure: BENCH_POLICY,
};

/** A pattern as the benchmark rules write it: case-sensitive. */
function pattern(kind: LinePattern["kind"], value: string, trim: LinePattern["trim"]): LinePattern {
  return { kind, value, caseMode: "sensitive", trim };
}

/** A `line_filter` over the benchmark policy that strips ANSI. */
function filterRule(id: string, drop: LinePattern[], keep: LinePattern[]): ReductionRule {
  const reducer = { kind: "line_filter" as const, stripAnsi: true, drop, keep };
  return { id, action: "reduce", match, reducer, success: BENCH_POLICY, failure: BENCH_POLICY };
}

/** `line_filter` that strips ANSI, drops progress lines and keeps diagnostics. */
export const LINE_FILTER_RULE: ReductionRule = filterRule("bench/line-filter", [
  pattern("prefix", "Compiling ", "start"),
  pattern("prefix", "Downloaded ", "start"),
], [
  { kind: "contains", value: "error", caseMode: "ascii_insensitive", trim: "none" },
  { kind: "contains", value: "warning", caseMode: "ascii_insensitive", trim: "none" },
  pattern("prefix", "test result:", "start"),
]);

/**
 * A drop-only `line_filter` shaped like the built-in cargo and npm test
 * rules: strips ANSI and drops progress and passing-test lines by trimmed
 * prefix, one `contains` and one trimmed suffix; every other line is a
 * candidate.
 */
export const DROP_FILTER_RULE: ReductionRule = filterRule("bench/drop-filter", [
  pattern("prefix", "Compiling ", "start"),
  pattern("prefix", "Checking ", "start"),
  pattern("prefix", "Downloaded ", "start"),
  pattern("prefix", "Fresh ", "start"),
  pattern("prefix", "✓ ", "start"),
  pattern("prefix", "PASS ", "start"),
  pattern("contains", ": Entering directory '", "none"),
  pattern("suffix", " ... ok", "both"),
], []);

/** The benchmarked rules by the name the benchmarks print. */
export const BENCH_RULES: Readonly<Record<string, ReductionRule>> = {
  head_tail: HEAD_TAIL_RULE,
  keep_filter: LINE_FILTER_RULE,
  drop_filter: DROP_FILTER_RULE,
};

/** Repeats `line(i)` (i = 0, 1, …) until the block holds at least 64 KiB. */
function block(line: (i: number) => string | Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (let i = 0; size < 64 * 1024; i++) {
    const l = line(i);
    const b = typeof l === "string" ? te.encode(l) : l;
    parts.push(b);
    size += b.length;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * A block of mixed lines (about 64 KiB) that the benchmarks repeat: mostly
 * short progress lines (dropped by the filter), coloured diagnostics,
 * occasional 3 KiB and 40 KiB lines (cut by the line limit) and invalid
 * UTF-8 with NUL bytes.
 */
export function mixedBlock(): Uint8Array {
  return block((i) => {
    if (i % 97 === 0) return "x".repeat(3000) + "\n";
    if (i % 1009 === 0) return "y".repeat(40_000) + "\n";
    if (i % 13 === 0) {
      return `\x1b[1m\x1b[31merror[E0${i % 1000}]\x1b[0m: mismatched types at src/m${i}.rs\n`;
    }
    if (i % 17 === 0) return new Uint8Array([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x41, 0x0d, 0x0a]);
    if (i % 19 === 0) return `warning: unused variable \`v${i}\`\r\n`;
    return `   Compiling crate-${i} v0.${i % 50}.${i % 7} (registry)\n`;
  });
}

/** Named ~64 KiB blocks, one per input shape the seed's stream benchmark lists. */
export function inputBlocks(): Record<string, Uint8Array> {
  return {
    short: block((i) => `   Compiling crate-${i} v0.${i % 50}.${i % 7} (registry)\n`),
    long: block((i) => String(i % 10).repeat(20_000 + (i % 3) * 7_000) + "\n"),
    ansi: block((i) => `\x1b[3${i % 8}m\x1b[1mtest t${i} ... \x1b[32mok\x1b[0m\n`),
    invalid_utf8: block((i) =>
      new Uint8Array([0xff, 0xc3, 0x28, 0x00, 0xe2, 0x82, 0x41 + (i % 26), 0x80, 0x0a])
    ),
    filter_heavy: mixedBlock(),
  };
}
