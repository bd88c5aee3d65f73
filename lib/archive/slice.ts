/**
 * Targeted exact recovery (`yarp read ID --lines A:B | --head N | --tail N
 * | --grep TEXT | -n | --max-bytes N`): whole lines of an archived call,
 * chosen and paged, written as their exact bytes. Pure over a
 * {@link SliceSource}; the archive adapter is `slice_source.ts`.
 *
 * Definitions (docs/archive.md, "Targeted recovery"):
 *
 * - The view is the chosen streams one after another (all of the call's,
 *   in the order stdout, stderr, output, or the one named by `--stream`).
 * - A line is its bytes up to and including an LF; a stream's last bytes
 *   after its last LF are a line too (a final line without LF), so a line
 *   never spans two streams. Lines are numbered from 1 through the view.
 * - Steps, in this order: `--lines A:B` keeps the lines numbered A to B;
 *   `--grep TEXT` keeps those whose bytes before the LF contain TEXT's
 *   UTF-8 bytes (`ignoreCase` folds ASCII A–Z only); `--head N` keeps the
 *   first N of those, `--tail N` the last N; `-n` writes each kept line as
 *   its number, `:` and its bytes; a page takes kept lines while they fit
 *   in `maxBytes` (prefixes included) and `maxLines`, and ends with one
 *   note line naming the exact command for the next page.
 * - A kept line longer than `maxBytes` on its own is never cut: its page
 *   shows no line and its note names `--lines K:K` (the whole line) and
 *   `--bytes S:E` (its first `maxBytes` bytes).
 *
 * Bounds: the scan holds one chunk of the source and, for `--grep`, the
 * last `TEXT.length - 1` bytes of a line that crosses a chunk; a kept line
 * that crosses chunks is copied out through a {@link RANGE_WINDOW_BYTES}
 * window by {@link SliceSource.readAt}. Nothing grows with the view. Work
 * is linear: LF search is native, `--grep` uses {@link LineMatcher}
 * (Horspool, then Knuth–Morris–Pratt), no regular expression. `--tail`
 * scans the view twice (count, then select).
 *
 * @module
 */
import { LineMatcher } from "../bytes/line_pattern.ts";
import { formatCount, plural } from "../reduce/marker.ts";

/** The source of a view: its streams' sizes, their bytes in order, and bytes at an offset. */
export interface SliceSource {
  /** Byte size of each stream of the view, in order. */
  readonly sizes: readonly number[];
  /**
   * The bytes of stream `index` in order; a yielded array is valid only
   * until the next step. May throw (a damaged stream): the slice stops.
   */
  chunks(index: number): AsyncIterable<Uint8Array>;
  /**
   * Copies bytes of stream `index` from `offset` into `into` and returns how
   * many (0 only at its end).
   */
  readAt(index: number, offset: number, into: Uint8Array): number;
}

/** Lines `from` to `to` (1-based, inclusive; `to` absent: to the end). */
export interface LineRange {
  readonly from: number;
  readonly to?: number;
}

/** A literal text to find in a line. */
export interface LineGrep {
  /** Non-empty, without LF; compared as its UTF-8 bytes. */
  readonly text: string;
  /** Fold ASCII A–Z on both sides; every other byte compares exactly. */
  readonly ignoreCase: boolean;
}

/** How a paged read cuts its output. */
export interface PageLimit {
  /** Bytes of kept lines (with their `-n` prefixes) on one page; at least 1. */
  readonly maxBytes: number;
  /** Lines on one page; at least 1. */
  readonly maxLines: number;
  /** The words that repeat these limits in the next page's command, e.g. `--max-bytes 28k`. */
  readonly words: readonly string[];
}

/** What to write from the view. */
export interface SliceRequest {
  readonly lines?: LineRange;
  readonly grep?: LineGrep;
  /** Keep the first N selected lines (N ≥ 1); not with `tail`. */
  readonly head?: number;
  /** Keep the last N selected lines (N ≥ 1); not with `head`. */
  readonly tail?: number;
  /** Prefix each written line with its number and `:`. */
  readonly numbered: boolean;
  /** Page the output; absent: write every kept line and no note. */
  readonly page?: PageLimit;
}

/** What a slice wrote and found. */
export interface SliceSummary {
  /** Lines in the view. */
  readonly viewLines: number;
  /** Lines written (bytes of whole lines). */
  readonly writtenLines: number;
  /** False when `emit` reported that the reader went away; nothing more was written. */
  readonly complete: boolean;
}

/** Writes `bytes`; false when the reader has gone away. */
export type Emit = (bytes: Uint8Array) => boolean;

/** Bytes copied at a time for a kept line that crosses chunks (64 KiB). */
export const RANGE_WINDOW_BYTES = 64 * 1024;

const LF = 10;
const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();

/**
 * Calls `onLine` for every line of the view, in order, with its number, the
 * stream, its offsets in that stream, whether it ends with LF, whether it
 * contains `grep`, and the chunk holding its end with that chunk's offset
 * (valid only during the call).
 */
class LineScanner {
  number = 0;
  private _stream = 0;
  private _offset = 0;
  private _lineStart = 0;
  private _matched = false;
  private readonly _matcher: LineMatcher | undefined;
  private readonly _carry: Uint8Array;
  private _carryLength = 0;
  private readonly _window: Uint8Array;
  /** The line handed to `onLine`, reused for every line: copy what must outlive the call. */
  private readonly _line: ScannedLine = {
    number: 0,
    stream: 0,
    start: 0,
    end: 0,
    lf: false,
    matched: false,
  };

  constructor(
    grep: LineGrep | undefined,
    private readonly _onLine: (line: ScannedLine, chunk: Uint8Array, chunkStart: number) => void,
  ) {
    this._matcher = grep === undefined ? undefined : new LineMatcher({
      kind: "contains",
      value: grep.text,
      caseMode: grep.ignoreCase ? "ascii_insensitive" : "sensitive",
      trim: "none",
    });
    const keep = Math.max(0, (this._matcher?.length ?? 1) - 1);
    this._carry = new Uint8Array(keep);
    this._window = new Uint8Array(keep * 2);
  }

  /** Starts stream `index` (after {@link endStream} of the one before). */
  startStream(index: number): void {
    this._stream = index;
    this._offset = 0;
    this._lineStart = 0;
  }

  push(chunk: Uint8Array): void {
    const chunkStart = this._offset;
    let at = 0;
    while (at < chunk.length) {
      const lf = chunk.indexOf(LF, at);
      const end = lf === -1 ? chunk.length : lf;
      if (this._matcher !== undefined && !this._matched) this._search(chunk, at, end, lf === -1);
      if (lf === -1) break;
      this._offset = chunkStart + lf + 1;
      this._emit(true, chunk, chunkStart);
      at = lf + 1;
    }
    this._offset = chunkStart + chunk.length;
  }

  /**
   * Ends the current stream: its bytes after the last LF are a line (its
   * chunk is gone, so it is copied out through `readAt`).
   */
  endStream(): void {
    if (this._offset > this._lineStart) this._emit(false, EMPTY, this._offset);
  }

  private _emit(lf: boolean, chunk: Uint8Array, chunkStart: number): void {
    this.number += 1;
    const line = this._line;
    line.number = this.number;
    line.stream = this._stream;
    line.start = this._lineStart;
    line.end = this._offset;
    line.lf = lf;
    line.matched = this._matched;
    this._onLine(line, chunk, chunkStart);
    this._lineStart = this._offset;
    this._matched = false;
    this._carryLength = 0;
  }

  /** Looks for the text in `chunk[start, end)`, the next piece of the current line. */
  private _search(chunk: Uint8Array, start: number, end: number, continues: boolean): void {
    const matcher = this._matcher!;
    const keep = this._carry.length;
    if (this._carryLength > 0 && end > start) {
      const take = Math.min(keep, end - start);
      this._window.set(this._carry.subarray(0, this._carryLength));
      this._window.set(chunk.subarray(start, start + take), this._carryLength);
      if (matcher.matches(this._window, 0, this._carryLength + take)) {
        this._matched = true;
        return;
      }
    }
    if (matcher.matches(chunk, start, end)) {
      this._matched = true;
      return;
    }
    if (!continues || keep === 0) return;
    // The line goes on in the next chunk: keep its last `keep` bytes.
    const piece = end - start;
    if (piece >= keep) {
      this._carry.set(chunk.subarray(end - keep, end));
      this._carryLength = keep;
    } else {
      const held = Math.min(this._carryLength, keep - piece);
      this._carry.copyWithin(0, this._carryLength - held, this._carryLength);
      this._carry.set(chunk.subarray(start, end), held);
      this._carryLength = held + piece;
    }
  }
}

/** One line as the scanner reports it; the object is reused for the next line. */
interface ScannedLine {
  number: number;
  stream: number;
  /** Offset of its first byte in its stream. */
  start: number;
  /** Offset after its last byte (after the LF) in its stream. */
  end: number;
  lf: boolean;
  matched: boolean;
}

/** Runs a scanner over every stream of `source`. */
async function scan(
  source: SliceSource,
  grep: LineGrep | undefined,
  onLine: (line: ScannedLine, chunk: Uint8Array, chunkStart: number) => void,
): Promise<number> {
  const scanner = new LineScanner(grep, onLine);
  for (let index = 0; index < source.sizes.length; index++) {
    scanner.startStream(index);
    for await (const chunk of source.chunks(index)) scanner.push(chunk);
    scanner.endStream();
  }
  return scanner.number;
}

/** True when `line` passes `--lines` and `--grep`. */
function selected(request: SliceRequest, line: ScannedLine): boolean {
  const range = request.lines;
  if (range !== undefined && (line.number < range.from || line.number > (range.to ?? Infinity))) {
    return false;
  }
  return request.grep === undefined || line.matched;
}

/**
 * Writes the lines `request` keeps from `source` through `emit`, as exact
 * bytes (with `-n` prefixes when asked), and for a paged request ends with
 * the page's note (see {@link pageNote}). `readCommand` is the command
 * that reads this view (`yarp read ID` or `yarp read ID --stream S`); the
 * note's commands start with it. Throws what the source throws.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { writeSlice } from "./slice.ts";
 * const bytes = new TextEncoder().encode("alpha\nbeta\ngamma\n");
 * const source = {
 *   sizes: [bytes.length],
 *   chunks: async function* () { yield bytes; },
 *   readAt: (_: number, offset: number, into: Uint8Array) => {
 *     const part = bytes.subarray(offset, offset + into.length);
 *     into.set(part);
 *     return part.length;
 *   },
 * };
 * let out = "";
 * const emit = (b: Uint8Array) => (out += new TextDecoder().decode(b), true);
 * await writeSlice(source, { grep: { text: "A", ignoreCase: true }, numbered: true }, emit, "yarp read 8f2c1a0b");
 * equal(out, "1:alpha\n2:beta\n3:gamma\n");
 * ```
 */
export async function writeSlice(
  source: SliceSource,
  request: SliceRequest,
  emit: Emit,
  readCommand: string,
): Promise<SliceSummary> {
  let skip = 0;
  if (request.tail !== undefined) {
    let count = 0;
    await scan(source, request.grep, (line) => {
      if (selected(request, line)) count += 1;
    });
    skip = Math.max(0, count - request.tail);
  }
  const page = request.page;
  const window = new Uint8Array(RANGE_WINDOW_BYTES);
  let open = true;
  let kept = 0; // lines that passed --lines, --grep and --head/--tail
  let written = 0;
  let pageBytes = 0;
  let first: number | undefined;
  let last: number | undefined;
  let lastHasLf = true;
  let overlong: ScannedLine | undefined;
  let next: ScannedLine | undefined;
  let full = false;
  const put = (bytes: Uint8Array) => (open &&= emit(bytes));
  const writeLine = (line: ScannedLine, chunk: Uint8Array, chunkStart: number) => {
    if (request.numbered) put(encoder.encode(`${line.number}:`));
    if (line.start >= chunkStart) {
      put(chunk.subarray(line.start - chunkStart, line.end - chunkStart));
      return;
    }
    for (let at = line.start; at < line.end && open;) {
      const n = source.readAt(
        line.stream,
        at,
        window.subarray(0, Math.min(window.length, line.end - at)),
      );
      if (n === 0) throw new Error(`stream ${line.stream} ends before byte ${line.end}`);
      put(window.subarray(0, n));
      at += n;
    }
  };
  const viewLines = await scan(source, request.grep, (line, chunk, chunkStart) => {
    if (!selected(request, line)) return;
    const index = kept++;
    if (index < skip || (request.head !== undefined && index >= request.head)) return;
    if (page !== undefined) {
      if (full) {
        next ??= { ...line };
        return;
      }
      const size = line.end - line.start + (request.numbered ? String(line.number).length + 1 : 0);
      if (written === page.maxLines || pageBytes + size > page.maxBytes) {
        full = true;
        if (written > 0) {
          next = { ...line };
          return;
        }
        overlong = { ...line };
        return;
      }
      pageBytes += size;
    }
    first ??= line.number;
    last = line.number;
    lastHasLf = line.lf;
    written += 1;
    if (open) writeLine(line, chunk, chunkStart);
  });
  if (page !== undefined && open) {
    const consumed = written + (overlong === undefined ? 0 : 1);
    const headLeft = request.head === undefined ? undefined : request.head - consumed;
    const note = pageNote({
      request,
      readCommand,
      viewLines,
      written,
      bytes: pageBytes,
      first,
      last,
      lastHasLf,
      overlong: overlong === undefined ? undefined : {
        number: overlong.number,
        size: overlong.end - overlong.start,
        viewStart: viewOffset(source, overlong.stream) + overlong.start,
      },
      next: headLeft === 0 ? undefined : next?.number,
      headLeft,
    });
    put(encoder.encode(note));
  }
  return { viewLines, writtenLines: written, complete: open };
}

/** Offset of stream `index`'s first byte in the view. */
function viewOffset(source: SliceSource, index: number): number {
  let at = 0;
  for (let i = 0; i < index; i++) at += source.sizes[i];
  return at;
}

/** The facts of one page, for {@link pageNote}. */
export interface PageFacts {
  readonly request: SliceRequest;
  readonly readCommand: string;
  readonly viewLines: number;
  readonly written: number;
  /** Bytes of the written lines, prefixes included. */
  readonly bytes: number;
  /** Numbers of the first and last written line; absent when none was. */
  readonly first?: number;
  readonly last?: number;
  /** False when the last written line ends without LF (the note then starts with one). */
  readonly lastHasLf: boolean;
  /** A kept line too long for the page: its number, size and first byte's view offset (0-based). */
  readonly overlong?: {
    readonly number: number;
    readonly size: number;
    readonly viewStart: number;
  };
  /** Number of the first kept line of the next page; absent at the end. */
  readonly next?: number;
  /** `--head` lines left for the next page. */
  readonly headLeft?: number;
}

/**
 * The note that ends a page, with its line ending: what the page holds and
 * either `· next: COMMAND` (the same request from the next kept line, with
 * `--head` reduced by what this page used and `--tail` dropped since every
 * later kept line is in it) or `· end`; for a line longer than the page,
 * the two commands that return it. When the page's last line has no LF the
 * note starts with one LF that is not part of the output, and says so.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { pageNote } from "./slice.ts";
 * const request = { numbered: false, page: { maxBytes: 28672, maxLines: 1000, words: ["--max-bytes", "28k"] } };
 * equal(
 *   pageNote({ request, readCommand: "yarp read 8f2c1a0b", viewLines: 2500, written: 1000, bytes: 6893,
 *     first: 1, last: 1000, lastHasLf: true, next: 1001 }),
 *   "[yarp: page of 1,000 lines (6,893 bytes), line 1 to 1,000 of 2,500 · next: yarp read 8f2c1a0b --lines 1001: --max-bytes 28k]\n",
 * );
 * ```
 */
export function pageNote(facts: PageFacts): string {
  const { request, readCommand } = facts;
  let text = facts.lastHasLf ? "[yarp: " : "\n[yarp: ";
  text += facts.written === 0
    ? `page of 0 lines, ${formatCount(facts.viewLines)} in all`
    : `page of ${plural(facts.written, "line")} (${plural(facts.bytes, "byte")}), line ${
      formatCount(facts.first!)
    } to ${formatCount(facts.last!)} of ${formatCount(facts.viewLines)}`;
  if (!facts.lastHasLf) {
    text += ` · line ${formatCount(facts.last!)} has no LF (the LF before this note is added)`;
  }
  const long = facts.overlong;
  if (long !== undefined) {
    const shown = Math.min(long.size, request.page!.maxBytes);
    text +=
      ` · line ${formatCount(long.number)} is ${plural(long.size, "byte")}, over --max-bytes:` +
      ` whole: ${readCommand} --lines ${long.number}:${long.number}` +
      ` · first ${formatCount(shown)}: ${readCommand} --bytes ${long.viewStart + 1}:${
        long.viewStart + shown
      }`;
  }
  text += facts.next === undefined
    ? " · end]"
    : ` · next: ${nextPageCommand(request, readCommand, facts.next, facts.headLeft)}]`;
  return text + "\n";
}

/** The command for the page starting at kept line `from`. */
function nextPageCommand(
  request: SliceRequest,
  readCommand: string,
  from: number,
  headLeft: number | undefined,
): string {
  const words = [readCommand, "--lines", `${from}:${request.lines?.to ?? ""}`];
  if (request.grep !== undefined) {
    words.push("--grep", shellWord(request.grep.text));
    if (request.grep.ignoreCase) words.push("-i");
  }
  if (headLeft !== undefined) words.push("--head", String(headLeft));
  if (request.numbered) words.push("-n");
  words.push(...request.page!.words);
  return words.join(" ");
}

const PLAIN_WORD = /^[A-Za-z0-9_./:@%+=,-]+$/;

/**
 * `text` as one POSIX shell word: unchanged when it holds only safe
 * characters, else single-quoted (`'` written `'\''`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { shellWord } from "./slice.ts";
 * equal(shellWord("error"), "error");
 * equal(shellWord("it's bad"), "'it'\\''s bad'");
 * ```
 */
export function shellWord(text: string): string {
  return PLAIN_WORD.test(text) && !text.startsWith("-")
    ? text
    : `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * Writes bytes `from` to `to` of the view (1-based, inclusive, `to` clipped
 * at the view's end) through `emit`, in pieces of at most
 * {@link RANGE_WINDOW_BYTES}. Not whole lines: the form for a line longer
 * than a page. Returns false when the reader went away.
 */
export function writeByteRange(
  source: SliceSource,
  from: number,
  to: number | undefined,
  emit: Emit,
): boolean {
  const window = new Uint8Array(RANGE_WINDOW_BYTES);
  let base = 0;
  const last = to ?? Infinity;
  for (let index = 0; index < source.sizes.length; index++) {
    const size = source.sizes[index];
    let at = Math.max(0, from - 1 - base);
    const end = Math.min(size, last - base);
    while (at < end) {
      const n = source.readAt(index, at, window.subarray(0, Math.min(window.length, end - at)));
      if (n === 0) throw new Error(`stream ${index} ends before byte ${end}`);
      if (!emit(window.subarray(0, n))) return false;
      at += n;
    }
    base += size;
  }
  return true;
}

/** Per-stream facts for `--stat`. */
export interface StreamStat {
  readonly bytes: number;
  readonly lines: number;
  /** False when the stream is non-empty and its last byte is not LF. */
  readonly endsWithLf: boolean;
  /** Lines that contain the `--grep` text (0 without one). */
  readonly matches: number;
}

/** Counts the lines of each stream of `source` (and those holding `grep`), reading it once. */
export async function streamStats(
  source: SliceSource,
  grep?: LineGrep,
): Promise<StreamStat[]> {
  const stats = source.sizes.map((bytes) => ({ bytes, lines: 0, endsWithLf: true, matches: 0 }));
  await scan(source, grep, (line) => {
    const stat = stats[line.stream];
    stat.lines += 1;
    stat.endsWithLf = line.lf;
    if (line.matched) stat.matches += 1;
  });
  return stats;
}

// --- argument values -------------------------------------------------------------------------

/** A parsed value, or one line naming the argument and what was wrong. */
export type Parsed<T> = { readonly value: T } | { readonly error: string };

const DIGITS = /^[0-9]+$/;

/** Largest count or size accepted (2^50): far above any archive, exact in a double. */
const MAX_NUMBER = 2 ** 50;

/**
 * A positive whole number for option `name` (`--head`, `--tail`,
 * `--max-lines`).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseCount } from "./slice.ts";
 * deepEqual(parseCount("--head", "20"), { value: 20 });
 * deepEqual(parseCount("--head", "x"), { error: "--head: expected a positive whole number, got 'x'" });
 * ```
 */
export function parseCount(name: string, text: string): Parsed<number> {
  const value = DIGITS.test(text) ? Number(text) : NaN;
  return value >= 1 && value <= MAX_NUMBER
    ? { value }
    : { error: `${name}: expected a positive whole number, got '${text}'` };
}

/**
 * A positive byte size for `--max-bytes`: digits, optionally followed by
 * `k` (×1,024) or `m` (×1,048,576), either case.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseByteSize } from "./slice.ts";
 * deepEqual(parseByteSize("--max-bytes", "40k"), { value: 40960 });
 * deepEqual(parseByteSize("--max-bytes", "-5"), {
 *   error: "--max-bytes: expected a positive size such as 40000 or 40k, got '-5'",
 * });
 * ```
 */
export function parseByteSize(name: string, text: string): Parsed<number> {
  const unit = text.slice(-1).toLowerCase();
  const scale = unit === "k" ? 1024 : unit === "m" ? 1024 * 1024 : 1;
  const digits = scale === 1 ? text : text.slice(0, -1);
  const value = DIGITS.test(digits) ? Number(digits) * scale : NaN;
  return value >= 1 && value <= MAX_NUMBER
    ? { value }
    : { error: `${name}: expected a positive size such as 40000 or 40k, got '${text}'` };
}

/**
 * A 1-based inclusive range for `--lines` or `--bytes`: `A:B`, `A:` (to
 * the end), `:B` (from 1) or `A` (just A), with 1 ≤ A ≤ B.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseRange } from "./slice.ts";
 * deepEqual(parseRange("--lines", "10:20"), { value: { from: 10, to: 20 } });
 * deepEqual(parseRange("--lines", "10:"), { value: { from: 10 } });
 * deepEqual(parseRange("--lines", "5:2"), {
 *   error: "--lines: expected A:B, A: or :B with 1 ≤ A ≤ B, got '5:2'",
 * });
 * ```
 */
export function parseRange(name: string, text: string): Parsed<LineRange> {
  const colon = text.indexOf(":");
  const left = colon === -1 ? text : text.slice(0, colon);
  const right = colon === -1 ? text : text.slice(colon + 1);
  const from = left === "" && colon !== -1 ? 1 : DIGITS.test(left) ? Number(left) : NaN;
  const to = right === "" && colon !== -1 ? undefined : DIGITS.test(right) ? Number(right) : NaN;
  const ok = from >= 1 && from <= MAX_NUMBER &&
    (to === undefined || (to >= from && to <= MAX_NUMBER)) && text !== ":";
  if (!ok) return { error: `${name}: expected A:B, A: or :B with 1 ≤ A ≤ B, got '${text}'` };
  return { value: to === undefined ? { from } : { from, to } };
}

/**
 * The `--grep` text: non-empty and without LF (a line's bytes before its
 * LF never hold one).
 */
export function parseGrepText(text: string): Parsed<string> {
  if (text === "") return { error: "--grep: the text is empty" };
  if (text.includes("\n")) return { error: "--grep: the text holds a newline; lines never do" };
  return { value: text };
}
