/**
 * Pi 0.73.1's default bash-result truncation, as the model sees it: the
 * "do nothing clever" baseline for side-by-side comparisons.
 *
 * Mirrors `truncateTail` (`dist/core/tools/truncate.js` of
 * `@mariozechner/pi-coding-agent@0.73.1`) and the notice that the bash tool's
 * `formatOutput` (`dist/core/tools/bash.js`) appends:
 *
 * - Lines are `text.split("\n")`, so a trailing newline counts as one more
 *   (empty) line. Nothing is stripped: ANSI, CR and NUL pass through.
 * - Under both limits (at most 2,000 lines and 51,200 UTF-8 bytes) the text is
 *   returned as is; empty text becomes `(no output)`.
 * - Otherwise whole lines are kept from the end while they fit both limits
 *   (each kept line after the first costs one more byte for its newline). Only
 *   when the last line alone exceeds 51,200 bytes is it cut, to its last
 *   51,200 bytes moved forward to a character boundary.
 * - The kept text (or `(no output)` when it is empty) is followed by a blank
 *   line and one of `[Showing lines S-E of N. Full output: PATH]`,
 *   `[Showing lines S-E of N (50.0KB limit). Full output: PATH]` or
 *   `[Showing last X of line N (line is Y). Full output: PATH]`, with sizes
 *   from Pi's `formatSize` (`512B`, `50.0KB`, `1.9MB`).
 *
 * Left out on purpose: Pi's trailer (`Command exited with code N`, timeout,
 * abort), identical for every contender; the random path of the full-output
 * file, replaced by {@link PI_FULL_OUTPUT_PATH}.
 *
 * Known miss: Pi's output accumulator keeps a rolling tail (trimmed to its
 * last 100 KiB whenever it passes 200 KiB, dropping the cut first line), so
 * for outputs over 200 KiB whose kept 2,000 lines are preceded by a line that
 * straddles the trim point, Pi reports the `(50.0KB limit)` variant where this
 * reports the line-limit one. The kept text is the same; where the trim
 * falls depends on how the output was chunked, which a text cannot tell.
 *
 * @module
 */

/** The full-output path shown in notices, in place of Pi's random `$TMPDIR/pi-bash-<16 hex>.log`. */
export const PI_FULL_OUTPUT_PATH = "/tmp/pi-bash-0000000000000000.log";

const MAX_LINES = 2000;
const MAX_BYTES = 50 * 1024;

/**
 * The text Pi 0.73.1's bash tool shows the model for an output `text` (stdout
 * and stderr as interleaved, decoded text), without the exit-status trailer.
 * Pure; never throws.
 *
 * @example
 * ```ts
 * import { piTruncate } from "./_pi_truncation.ts";
 * const text = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join("\n");
 * piTruncate(text).endsWith(
 *   "line 2500\n\n[Showing lines 501-2500 of 2500. Full output: /tmp/pi-bash-0000000000000000.log]",
 * ); // true
 * ```
 */
export function piTruncate(text: string): string {
  const lines = text.split("\n");
  const totalLines = lines.length;
  if (totalLines <= MAX_LINES && utf8Length(text) <= MAX_BYTES) return text || "(no output)";
  const kept: string[] = [];
  let keptBytes = 0;
  let byBytes = false;
  let partial = false;
  for (let i = totalLines - 1; i >= 0 && kept.length < MAX_LINES; i--) {
    const lineBytes = utf8Length(lines[i]) + (kept.length > 0 ? 1 : 0);
    if (keptBytes + lineBytes > MAX_BYTES) {
      byBytes = true;
      if (kept.length === 0) {
        kept.push(utf8Tail(lines[i], MAX_BYTES));
        partial = true;
      }
      break;
    }
    kept.push(lines[i]);
    keptBytes += lineBytes;
  }
  const content = kept.reverse().join("\n");
  const start = totalLines - kept.length + 1;
  let notice: string;
  if (partial) {
    const shown = formatSize(utf8Length(content));
    const whole = formatSize(utf8Length(lines[totalLines - 1]));
    notice = `Showing last ${shown} of line ${totalLines} (line is ${whole})`;
  } else if (byBytes) {
    notice = `Showing lines ${start}-${totalLines} of ${totalLines} (${
      formatSize(MAX_BYTES)
    } limit)`;
  } else {
    notice = `Showing lines ${start}-${totalLines} of ${totalLines}`;
  }
  return `${content || "(no output)"}\n\n[${notice}. Full output: ${PI_FULL_OUTPUT_PATH}]`;
}

/** Pi's `formatSize`: bytes below 1 KiB, then KB and MB with one decimal. */
function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/** UTF-8 length of `s`, as `Buffer.byteLength` counts it (a lone surrogate is 3 bytes). */
function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (
      unit >= 0xd800 && unit <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    ) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The last `maxBytes` UTF-8 bytes of `s`, start moved forward past continuation bytes. */
function utf8Tail(s: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(s);
  let start = bytes.length - maxBytes;
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  return new TextDecoder().decode(bytes.subarray(start));
}
