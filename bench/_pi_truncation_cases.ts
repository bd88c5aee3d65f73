/**
 * The decision table and output generators that both the `piTruncate` unit
 * tests (tests/pi_truncation_test.ts) and the check against Pi itself
 * (bench/pi_truncation_check.ts) run.
 *
 * @module
 */
import fc from "fast-check";
import { PI_FULL_OUTPUT_PATH } from "./_pi_truncation.ts";

/** `line F` … `line T`, newline-separated. */
export function numbered(from: number, to: number): string {
  return Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`).join("\n");
}

/** `count` lines of exactly `width` bytes each (`width` ≥ 5), newline-separated. */
export function fixedWidth(count: number, width: number): string {
  return Array.from({ length: count }, (_, i) => String(i).padStart(5, "0").padEnd(width, "-"))
    .join("\n");
}

export const CASES: { name: string; input: string; keep: string; notice: string | null }[] = [
  { name: "empty output shows Pi's placeholder", input: "", keep: "(no output)", notice: null },
  {
    name: "small output is unchanged",
    input: "hello\nworld\n",
    keep: "hello\nworld\n",
    notice: null,
  },
  {
    name: "2,000 lines without a trailing newline fit",
    input: numbered(1, 2000),
    keep: numbered(1, 2000),
    notice: null,
  },
  {
    name: "a trailing newline is a 2,001st (empty) line",
    input: `${numbered(1, 2000)}\n`,
    keep: `${numbered(2, 2000)}\n`,
    notice: "Showing lines 2-2001 of 2001",
  },
  {
    name: "the line limit keeps the last 2,000 lines",
    input: numbered(1, 2500),
    keep: numbered(501, 2500),
    notice: "Showing lines 501-2500 of 2500",
  },
  {
    name: "the byte limit keeps whole lines only",
    input: fixedWidth(1000, 100),
    keep: fixedWidth(1000, 100).split("\n").slice(494).join("\n"),
    notice: "Showing lines 495-1000 of 1000 (50.0KB limit)",
  },
  {
    name: "with both limits exceeded the tighter one wins",
    input: fixedWidth(3000, 30),
    keep: fixedWidth(3000, 30).split("\n").slice(1349).join("\n"),
    notice: "Showing lines 1350-3000 of 3000 (50.0KB limit)",
  },
  {
    name: "multi-byte text counts bytes, not characters",
    input: `${"é".repeat(40_000)}\nabc`,
    keep: "abc",
    notice: "Showing lines 2-2 of 2 (50.0KB limit)",
  },
  {
    name: "exactly 51,200 bytes on one line fit",
    input: "a".repeat(51_200),
    keep: "a".repeat(51_200),
    notice: null,
  },
  {
    name: "one byte over on one line keeps its last 50 KiB",
    input: "a".repeat(51_201),
    keep: "a".repeat(51_200),
    notice: "Showing last 50.0KB of line 1 (line is 50.0KB)",
  },
  {
    name: "a long last line is cut at a character boundary",
    input: "€".repeat(17_100),
    keep: "€".repeat(17_066),
    notice: "Showing last 50.0KB of line 1 (line is 50.1KB)",
  },
  {
    name: "a huge last line is the only line shown",
    input: `first\n${"z".repeat(2_000_000)}`,
    keep: "z".repeat(51_200),
    notice: "Showing last 50.0KB of line 2 (line is 1.9MB)",
  },
  {
    name: "a huge line before a trailing newline leaves only the placeholder",
    input: `${"y".repeat(60_000)}\n`,
    keep: "(no output)",
    notice: "Showing lines 2-2 of 2 (50.0KB limit)",
  },
  {
    name: "ANSI, CR and NUL pass through",
    input: "\x1b[31mred\x1b[0m\r\n\0tail",
    keep: "\x1b[31mred\x1b[0m\r\n\0tail",
    notice: null,
  },
];

/** What `piTruncate` returns for a kept text and a notice (null: none). */
export function expected(keep: string, notice: string | null): string {
  return notice === null ? keep : `${keep}\n\n[${notice}. Full output: ${PI_FULL_OUTPUT_PATH}]`;
}

/** Outputs near both limits: up to 2,600 lines of up to 40 units (1 to 4 bytes each), maybe one long line (often last). */
export const shapedOutput = fc.record({
  lines: fc.oneof(fc.integer({ min: 0, max: 2_600 }), fc.integer({ min: 1_995, max: 2_600 })),
  width: fc.integer({ min: 0, max: 40 }),
  unit: fc.constantFrom("x", "é", "€", "😀", "a\r", "\x1b[0m"),
  long: fc.option(
    fc.record({ last: fc.boolean(), at: fc.nat(), units: fc.integer({ min: 1, max: 70_000 }) }),
  ),
  trailingNewline: fc.boolean(),
}).map(({ lines, width, unit, long, trailingNewline }) => {
  const rows = Array.from(
    { length: lines },
    (_, i) => `${i}:${unit.repeat((i * 31) % (width + 1))}`,
  );
  if (long !== null) {
    rows.splice(long.last ? lines : long.at % (lines + 1), 0, unit.repeat(long.units));
  }
  return rows.join("\n") + (trailingNewline ? "\n" : "");
});

/** Short outputs of any characters, under both limits. */
export const smallOutput = fc.array(fc.string({ unit: "binary", maxLength: 40 }), { maxLength: 40 })
  .map((rows) => rows.join("\n"));
