/**
 * The global output cap (docs/architecture.md, "Reducers and evidence"; docs/shell.md,
 * "Global output cap"): a pure renderer for a finished result that no rule
 * reduces. A result of at most `thresholdBytes` is left alone. A larger one
 * keeps, in source order:
 *
 * - its first `headLines` lines within `headBytes`, and its last
 *   `tailLines` lines within `tailBytes` (each line counted at its kept
 *   size; the first and the last line are always kept);
 * - every line the evidence classifier (`evidence.ts`) marks mandatory (a
 *   host's truncation notice, an exit or timeout notice), and every line
 *   holding a host notice anywhere (`hostNoticeSpans`), without bound;
 * - the first `evidenceLines` other lines the classifier calls diagnostics
 *   (`diagnostics.ts`), then, in what budget is left and at most
 *   `contextLines` of them, the first lines it marks summary or that lead
 *   with a source location (`file.ext:LINE`, `File "…", line N`);
 *
 * each cut to `maxLineBytes` (diagnostic and mandatory lines to
 * `maxEvidenceLineBytes`) with the shared truncation marker; a cut line
 * keeps the text of every host notice in its cut part, each gap before and
 * after it marked. A run of omitted lines becomes one `[yarp: … N lines
 * omitted …]` line; diagnostics that did not fit are counted in one
 * `[yarp: N omitted lines carry error or warning markers]` line; the
 * result ends with the shared omission marker naming the exact copy. The
 * result is used only when it is smaller than the input.
 *
 * Bound: the output holds at most `headLines + tailLines + evidenceLines`
 * bounded lines, the mandatory lines, one gap line per kept run and the
 * marker. Work is one pass over the lines. Lines are classified after ANSI
 * escapes are removed; the kept bytes are the input's own.
 *
 * Known misses: diagnostics beyond `evidenceLines` are dropped (the note
 * counts them, `yarp read` returns them); a context line around a
 * diagnostic is kept only when it is itself in the head or tail.
 *
 * @module
 */
import { AnsiStripper } from "../bytes/ansi.ts";
import {
  classifyLine,
  Evidence,
  hostNoticeSpans,
  MANDATORY,
  NOTICE_WINDOW_BYTES,
} from "./evidence.ts";
import { omittedDiagnosticsNote } from "./diagnostics.ts";
import { leadsWithLocation } from "./source_location.ts";
import { formatCount, omissionMarker, truncationMarker } from "./marker.ts";
import type { Recovery } from "./types.ts";

/** The cap's sizes; see the module contract. */
export interface OutputCapPolicy {
  /** Results of at most this many bytes are left whole. */
  readonly thresholdBytes: number;
  /** Leading lines kept. */
  readonly headLines: number;
  /** Trailing lines kept. */
  readonly tailLines: number;
  /** Bytes of the leading lines kept (the first line is kept whatever its size). */
  readonly headBytes: number;
  /** Bytes of the trailing lines kept (the last line is kept whatever its size). */
  readonly tailBytes: number;
  /** Diagnostic and summary lines kept between head and tail (mandatory lines are extra). */
  readonly evidenceLines: number;
  /** Of `evidenceLines`, the most summary and located lines that are not diagnostics. */
  readonly contextLines: number;
  /** Bytes kept of a head or tail line. */
  readonly maxLineBytes: number;
  /** Bytes kept of a diagnostic, summary or mandatory line. */
  readonly maxEvidenceLineBytes: number;
}

/**
 * The built-in sizes, chosen by measurement on both development corpora
 * (docs/rules.md, "The global output cap's size"): 4 KiB threshold; 10 head
 * lines within 1 KiB, 20 tail lines within 1.5 KiB; 200 evidence lines,
 * of which at most 40 summary or located lines; 512-byte head/tail lines,
 * 2 KiB evidence lines.
 */
export const DEFAULT_OUTPUT_CAP: OutputCapPolicy = {
  thresholdBytes: 4096,
  headLines: 10,
  tailLines: 20,
  headBytes: 1024,
  tailBytes: 1536,
  evidenceLines: 200,
  contextLines: 40,
  maxLineBytes: 512,
  maxEvidenceLineBytes: 2048,
};

/** What the cap did; `bytes` is the input itself when unchanged. */
export interface CappedOutput {
  readonly changed: boolean;
  readonly bytes: Uint8Array;
  readonly inputLines: number;
  readonly keptLines: number;
}

const LF = 10;
const ESC = 27;
const encoder = new TextEncoder();

/** The flag the cap gives a line that leads with a source location (`source_location.ts`). */
const LOCATION = 1 << 8;

function flagsOf(bytes: Uint8Array, start: number, end: number): number {
  let line = bytes;
  let from = start;
  let to = end;
  if (bytes.subarray(start, end).indexOf(ESC) !== -1) {
    line = new Uint8Array(end - start);
    from = 0;
    to = new AnsiStripper().strip(bytes, start, end, line, 0);
  }
  const flags = classifyLine(line, from, to);
  return leadsWithLocation(line, from, to) ? flags | LOCATION : flags;
}

/** The start of the UTF-8 sequence that holds byte `at` (never cut inside a character). */
function charBoundary(bytes: Uint8Array, from: number, at: number): number {
  let cut = at;
  while (cut > from && (bytes[cut] & 0xc0) === 0x80) cut--;
  return cut;
}

/**
 * Caps `input` under `policy` (see the module contract); `recovery` names
 * the exact copy in the marker. Pure; never throws.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { capOutput, DEFAULT_OUTPUT_CAP } from "./output_cap.ts";
 * const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
 * lines[2500] = "error: disk full";
 * const input = new TextEncoder().encode(lines.join("\n") + "\n");
 * const capped = capOutput(input, DEFAULT_OUTPUT_CAP, { kind: "archived", id: "8f2c1a00" });
 * const text = new TextDecoder().decode(capped.bytes);
 * assert.ok(capped.changed && text.includes("error: disk full\n"));
 * assert.ok(text.endsWith("exact: yarp read 8f2c1a00 · --grep TEXT · --lines A:B]\n"));
 * ```
 */
export function capOutput(
  input: Uint8Array,
  policy: OutputCapPolicy,
  recovery: Recovery,
): CappedOutput {
  const unchanged = (lines: number): CappedOutput => ({
    changed: false,
    bytes: input,
    inputLines: lines,
    keptLines: lines,
  });
  if (input.length <= policy.thresholdBytes) return unchanged(0);
  const starts: number[] = [];
  for (let at = 0; at < input.length;) {
    starts.push(at);
    const lf = input.indexOf(LF, at);
    at = lf === -1 ? input.length : lf + 1;
  }
  const count = starts.length;
  const lineEnd = (index: number) => (index + 1 < count ? starts[index + 1] : input.length);
  const contentEnd = (index: number) => {
    const end = lineEnd(index);
    return end > starts[index] && input[end - 1] === LF ? end - 1 : end;
  };
  // 0: omitted, 1: kept as a plain line, 2: kept as an evidence line
  const keep = new Uint8Array(count);
  /** The bytes a head or tail line takes in the output (a cut line at most its limit). */
  const shownBytes = (index: number) =>
    Math.min(lineEnd(index) - starts[index], policy.maxLineBytes + 1);
  let headUsed = 0;
  for (let index = 0; index < Math.min(policy.headLines, count); index++) {
    headUsed += shownBytes(index);
    if (index > 0 && headUsed > policy.headBytes) break;
    keep[index] = 1;
  }
  let tailUsed = 0;
  for (let index = count - 1; index >= Math.max(0, count - policy.tailLines); index--) {
    tailUsed += shownBytes(index);
    if (index < count - 1 && tailUsed > policy.tailBytes) break;
    keep[index] = 1;
  }
  // Diagnostics first, then summaries and located lines, in the evidence budget.
  const other: number[] = [];
  let evidence = 0;
  let lostDiagnostics = 0;
  for (let index = 0; index < count; index++) {
    const start = starts[index];
    const end = contentEnd(index);
    const flags = flagsOf(input, start, end);
    if (
      (flags & MANDATORY) ||
      (end - start > NOTICE_WINDOW_BYTES && hostNoticeSpans(input, start, end).length > 0)
    ) {
      keep[index] = 2;
    } else if (flags & Evidence.Diagnostic) {
      if (keep[index] !== 0) keep[index] = 2;
      else if (evidence < policy.evidenceLines) {
        keep[index] = 2;
        evidence++;
      } else lostDiagnostics++;
    } else if (flags & (Evidence.Summary | LOCATION)) {
      if (keep[index] !== 0) keep[index] = 2;
      else other.push(index);
    }
  }
  for (const index of other.slice(0, policy.contextLines)) {
    if (evidence === policy.evidenceLines) break;
    keep[index] = 2;
    evidence++;
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  const emit = (part: Uint8Array) => {
    parts.push(part);
    size += part.length;
  };
  let kept = 0;
  let truncated = 0;
  let omitted = 0;
  let omittedBytes = 0;
  let gap = 0;
  const closeGap = () => {
    if (gap === 0) return;
    emit(encoder.encode(`[yarp: … ${formatCount(gap)} line${gap === 1 ? "" : "s"} omitted …]\n`));
    gap = 0;
  };
  for (let index = 0; index < count; index++) {
    const start = starts[index];
    if (keep[index] === 0) {
      gap++;
      omitted++;
      omittedBytes += lineEnd(index) - start;
      continue;
    }
    closeGap();
    kept++;
    const end = contentEnd(index);
    const limit = keep[index] === 2 ? policy.maxEvidenceLineBytes : policy.maxLineBytes;
    if (end - start <= limit) {
      emit(input.subarray(start, lineEnd(index)));
      continue;
    }
    truncated++;
    // A host's notice in the cut part is shown as it is, each gap marked.
    const spans = hostNoticeSpans(input, start, end);
    let cut = charBoundary(input, start, start + limit);
    for (let s = 0; s < spans.length; s += 2) if (spans[s + 1] > cut) cut = Math.min(cut, spans[s]);
    emit(input.subarray(start, cut));
    let at = cut;
    for (let s = 0; s < spans.length; s += 2) {
      if (spans[s + 1] <= cut) continue;
      if (spans[s] > at) emit(encoder.encode(truncationMarker(spans[s] - at)));
      emit(input.subarray(spans[s], spans[s + 1]));
      at = spans[s + 1];
    }
    emit(encoder.encode(`${at < end ? truncationMarker(end - at) : ""}\n`));
  }
  closeGap();
  const note = omittedDiagnosticsNote(lostDiagnostics);
  if (note !== "") {
    if (size > 0 && parts[parts.length - 1].at(-1) !== LF) emit(encoder.encode("\n"));
    emit(encoder.encode(note + "\n"));
  }
  if (omitted === 0 && truncated === 0) return unchanged(count);
  if (size > 0 && parts[parts.length - 1].at(-1) !== LF) emit(encoder.encode("\n"));
  const marker = omissionMarker(
    {
      keptLines: kept,
      inputLines: count,
      omittedLines: omitted,
      omittedBytes,
      truncatedLines: truncated,
    },
    recovery,
  );
  emit(encoder.encode(marker + "\n"));
  if (size >= input.length) return unchanged(count);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return { changed: true, bytes, inputLines: count, keptLines: kept };
}
