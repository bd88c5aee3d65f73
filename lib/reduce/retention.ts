/**
 * Bounded line retention and budget-aware rendering, shared by every
 * reducer. A reducer feeds it each input chunk (for the short raw
 * pass-through buffer) and each source line, saying whether the line is a
 * candidate for output; retention keeps the first candidates in a head store
 * and the last in a tail ring, sized for both policies, and at finish renders
 * the selected policy:
 *
 * 1. the exact input when nothing would change and it fits `maxOutputBytes`;
 * 2. else the policy's head and tail lines, each cut to `maxLineBytes` with
 *    a truncation marker, within `maxOutputBytes` minus room reserved for
 *    the one omission marker (when both sections cannot fit, each gets half
 *    and one gives the other what it does not need; the line at a section's
 *    budget edge keeps a cut prefix when at least one byte fits);
 * 3. the omission marker as its own line, in the first observed line ending
 *    (`\n` if none), between head and tail when candidates were omitted
 *    between them, else at the end;
 * 4. the exact input instead, when it fits `maxOutputBytes` and the
 *    reduction would save fewer than `minSavingsBytes` bytes.
 *
 * Diagnostics: a reducer reports each line the classifier calls a
 * diagnostic (`diagnosticForm`) that does not go to the head store with
 * {@link LineRetention.keepDiagnostic}, and each one it filtered out (not a
 * candidate) with {@link LineRetention.keepEvidence}; the first
 * {@link DIAGNOSTIC_RECORDS} (within {@link lineStoreBytes}) are stored. At
 * render, those the policy's tail does not show are written between head and
 * tail, before the head and tail fill, within the failure policy's
 * `maxOutputBytes` (whatever the exit status); every diagnostic not shown
 * (not stored, not fitting, or a retained head or tail line left out) is
 * counted in one `[yarp: N omitted lines carry error or warning markers]`
 * line. A stored diagnostic's index is its candidate index, or, for one
 * filtered out, the index of the next candidate minus one half: it sits
 * between two candidates and no head or tail ever shows it.
 *
 * Bound: raw buffer ≤ `rawBytes`; each of the head, tail and diagnostic
 * stores ≤ {@link lineStoreBytes} bytes plus fixed bookkeeping (the
 * diagnostic store {@link DIAGNOSTIC_RECORDS} lines); nothing grows with
 * input size.
 *
 * @module
 */
import { LINE_END_CRLF, LINE_END_LF, type LineEnding } from "../bytes/mod.ts";
import type { OutputPolicy } from "../rules/model.ts";
import { FIXED_STATE_BYTES, lineStoreBytes, type StreamEnvelope } from "./budget.ts";
import { copyRange, LineStore } from "./_line_store.ts";
import {
  type OmissionFacts,
  omissionMarkerBytes,
  truncationMarkerLength,
  writeTruncationMarker,
} from "./marker.ts";
import { type Recovery, type ReducedStream, unchangedStream } from "./types.ts";
import { diagnosticForm, NOT_DIAGNOSTIC, omittedDiagnosticsNote } from "./diagnostics.ts";
import { DIAGNOSTIC_RECORDS } from "./typed_budget.ts";

const INITIAL_RAW_BYTES = 4096;
const LF = 10;
const CR = 13;
const EMPTY = new Uint8Array(0);
const LF_BYTES = new Uint8Array([10]);
const CRLF_BYTES = new Uint8Array([13, 10]);

/** One line chosen for output: where it is and how much of it is shown. */
interface LineView {
  /** Candidate index in the stream. */
  readonly index: number;
  readonly store: LineStore;
  readonly slot: number;
  /** Content bytes shown. */
  readonly shown: number;
  /** Content bytes not shown (a truncation marker is written when > 0). */
  readonly omitted: number;
  /** Rendered bytes: shown + truncation marker + ending. */
  readonly size: number;
}

/**
 * The end of `bytes[start, end)` moved back so the range does not finish
 * inside a UTF-8 sequence that continues after `end`. Bytes that are not
 * valid UTF-8 are left alone.
 */
function utf8SafeCut(bytes: Uint8Array, start: number, end: number): number {
  let i = end - 1;
  let continuation = 0;
  while (i >= start && continuation < 3 && (bytes[i] & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  if (i < start) return end;
  const lead = bytes[i];
  const need = lead >= 0xf0 && lead <= 0xf4
    ? 4
    : lead >= 0xe0 && lead <= 0xef
    ? 3
    : lead >= 0xc2 && lead <= 0xdf
    ? 2
    : 1;
  return need > continuation + 1 ? i : end;
}

/** Says what {@link LineRetention.survivorsStart} should assume of one line. */
export interface CandidateSizer {
  /**
   * The bytes a line store keeps for the complete line `chunk[start, lf]`
   * (content and ending), or -1 when the line is not a candidate.
   */
  storedSize(chunk: Uint8Array, start: number, lf: number): number;
}

/** Retained lines and counters of one stream; see the module comment. */
export class LineRetention {
  private readonly _env: StreamEnvelope;
  private _raw: Uint8Array | null = EMPTY;
  private _rawLen = 0;
  private _inputBytes = 0;
  private _inputLines = 0;
  private _candidates = 0;
  private _firstEnding: LineEnding = 0;
  private _altered = false;
  /** The chunk being pushed: tail lines that lie in it are copied at {@link endChunk}. */
  private _chunk: Uint8Array = EMPTY;
  private readonly _head: LineStore | null;
  private readonly _tail: LineStore | null;
  /** The first diagnostics outside the head store, with their candidate index. */
  private readonly _diag: LineStore;
  private readonly _diagIndex = new Float64Array(DIAGNOSTIC_RECORDS);
  /** Diagnostics reported, stored or not; once one is not stored, none after it is. */
  private _diagnostics = 0;
  /** Views of stored diagnostics the last `_diagViews` returned. */
  private _storedViews = 0;
  /** Every line is a candidate, stored cut to the line limit. */
  private readonly _rawSizer: CandidateSizer = {
    storedSize: (chunk, start, lf) => {
      const ending = lf > start && chunk[lf - 1] === CR ? LINE_END_CRLF : LINE_END_LF;
      const content = lf + 1 - ending - start;
      return (content < this._env.lineBytes ? content : this._env.lineBytes) + ending;
    },
  };

  /** Sizes every buffer from `env`; allocates only bookkeeping up front. */
  constructor(env: StreamEnvelope) {
    this._env = env;
    const storeBytes = lineStoreBytes(env);
    this._head = env.headLines > 0 ? new LineStore(env.headLines, storeBytes) : null;
    this._tail = env.tailLines > 0 ? new LineStore(env.tailLines, storeBytes) : null;
    this._diag = new LineStore(DIAGNOSTIC_RECORDS, storeBytes);
  }

  /** Candidates counted so far: the index the next candidate gets. */
  get candidates(): number {
    return this._candidates;
  }

  /**
   * Records a diagnostic line that does not go to the head store, before it
   * is counted: content `bytes[start, end)` (copied now, cut to the line
   * limit), its ending, content bytes already cut (`hidden`), its source
   * size, and its candidate index `index`.
   */
  keepDiagnostic(
    bytes: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    hidden: number,
    source: number,
    index: number,
  ): void {
    const diag = this._diag;
    const n = this._diagnostics++;
    const cut = Math.min(end, start + this._env.lineBytes);
    if (
      n !== diag.count || diag.count >= DIAGNOSTIC_RECORDS ||
      diag.usedBytes + cut - start + ending > lineStoreBytes(this._env)
    ) return;
    this._diagIndex[n] = index;
    diag.append(bytes, start, cut, ending, hidden + end - cut, source, false);
  }

  /**
   * Records a diagnostic line that was filtered out (never a candidate),
   * before the next line is counted: content `bytes[start, end)` (copied
   * now, cut to the line limit), its ending, content bytes already cut
   * (`hidden`) and its source size. It is shown with the diagnostics, or
   * counted as not shown.
   */
  keepEvidence(
    bytes: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    hidden: number,
    source: number,
  ): void {
    this.keepDiagnostic(bytes, start, end, ending, hidden, source, this._candidates - 0.5);
  }

  /**
   * True once a reported diagnostic was not stored: none reported after it
   * is, so a reducer may then only count them ({@link countDiagnostics}).
   */
  get diagnosticsFull(): boolean {
    return this._diagnostics > this._diag.count;
  }

  /**
   * Counts `n` diagnostic lines that are not stored (once
   * {@link diagnosticsFull}, past the head), as if each were reported.
   */
  countDiagnostics(n: number): void {
    if (!this.diagnosticsFull) throw new Error("report diagnostics while the store takes them");
    this._diagnostics += n;
  }

  /** Allocated bytes: raw buffer, both stores and fixed state. */
  retainedBytes(): number {
    return (this._raw?.byteLength ?? 0) + (this._head?.retainedBytes() ?? 0) +
      (this._tail?.retainedBytes() ?? 0) + this._diag.retainedBytes() +
      this._diagIndex.byteLength + FIXED_STATE_BYTES;
  }

  /** Counts a raw chunk and keeps it while the stream fits the raw pass-through buffer. */
  observeChunk(chunk: Uint8Array): void {
    this._chunk = chunk;
    this._inputBytes += chunk.length;
    const raw = this._raw;
    if (raw === null) return;
    const need = this._rawLen + chunk.length;
    if (need > this._env.rawBytes) {
      this._raw = null;
      this._rawLen = 0;
      return;
    }
    if (need > raw.length) {
      let size = Math.max(raw.length * 2, INITIAL_RAW_BYTES);
      while (size < need) size *= 2;
      const next = new Uint8Array(Math.min(size, this._env.rawBytes));
      next.set(raw.subarray(0, this._rawLen));
      this._raw = next;
    }
    this._raw!.set(chunk, this._rawLen);
    this._rawLen = need;
  }

  /** Copies the retained tail lines that still point into the chunk; call before `push` returns. */
  endChunk(): void {
    this._tail?.flush(this._chunk);
    this._chunk = EMPTY;
  }

  /**
   * Records that a line's content differs from its source (ANSI removed).
   * It matters only while every line is a candidate and retained, so lines
   * counted with {@link omitLines} or {@link skipLines} need not report it.
   */
  markAltered(): void {
    this._altered = true;
  }

  /** Counts a source line that is not a candidate for output (filtered out). */
  omitLine(ending: LineEnding): void {
    this._inputLines++;
    if (this._firstEnding === 0) this._firstEnding = ending;
  }

  /**
   * Counts `count` source lines that are not candidates, after the first
   * line was counted (their endings no longer matter to the marker).
   */
  omitLines(count: number): void {
    if (this._inputLines === 0) throw new Error("count the first line with omitLine");
    this._inputLines += count;
  }

  /**
   * Counts a source line that is a candidate for output and retains it when
   * it may be in a head or tail: content `bytes[start, end)` (read, copied
   * now or, when it lies in the current chunk, at {@link endChunk}; never
   * kept), its ending, content bytes already cut (`hidden`) and its
   * size in the source.
   */
  keepLine(
    bytes: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    hidden: number,
    source: number,
  ): void {
    this._inputLines++;
    if (this._firstEnding === 0) this._firstEnding = ending;
    this._candidates++;
    const outputBytes = this._env.outputBytes;
    const head = this._head;
    if (head !== null && head.count < this._env.headLines && head.usedBytes < outputBytes) {
      head.append(bytes, start, end, ending, hidden, source, false);
      return;
    }
    const tail = this._tail;
    if (tail === null) return;
    const size = end - start + ending;
    const maxLines = this._env.tailLines;
    while (
      tail.count > 0 &&
      (tail.count >= maxLines || tail.usedBytes + size - tail.oldestSize() >= outputBytes)
    ) {
      tail.evictOldest();
    }
    tail.append(bytes, start, end, ending, hidden, source, bytes === this._chunk);
  }

  /**
   * True once the head store takes no more lines (it is full, or the policy
   * has no head); from then on every candidate goes to the tail ring.
   */
  get headClosed(): boolean {
    const head = this._head;
    return head === null || head.count >= this._env.headLines ||
      head.usedBytes >= this._env.outputBytes;
  }

  /**
   * Once {@link headClosed}: the offset in `chunk` where the candidates that
   * can outlast the chunk begin. `from` must start a line. If the complete
   * lines of `chunk[from, …)` were fed in order, the tail ring would end up
   * holding only candidates at or after the returned offset (the ring keeps
   * the newest candidates whose count is at most `tailLines` and whose sizes,
   * the oldest's excepted, sum below `outputBytes`), so the complete lines
   * before it can be counted with {@link skipLines} instead of fed. Reads
   * lines from the chunk's end backwards until the ring would be full, asking
   * `sizer` what each line is (by default every line is a candidate, stored
   * cut to the line limit); returns `from` when the ring would not fill, or
   * when it gave up after reading more than `walkLimit` bytes.
   */
  survivorsStart(
    chunk: Uint8Array,
    from: number,
    sizer: CandidateSizer = this._rawSizer,
    walkLimit = Infinity,
  ): number {
    let lf = chunk.lastIndexOf(LF);
    if (lf < from) return from;
    if (this._tail === null) return lf + 1;
    const { tailLines, outputBytes } = this._env;
    const stop = lf - walkLimit;
    let lines = 0;
    let bytes = 0;
    while (lines < tailLines && (lines === 0 || bytes < outputBytes)) {
      // The line ending at `lf` joins the ring's suffix if it is a candidate; find where it starts.
      const prev = lf > from ? chunk.lastIndexOf(LF, lf - 1) : -1;
      const start = prev < from ? from : prev + 1;
      const size = sizer.storedSize(chunk, start, lf);
      if (size >= 0) {
        bytes += size;
        lines++;
      }
      if (prev < from || start < stop) return from;
      lf = prev;
    }
    return lf + 1;
  }

  /**
   * Counts `lines` source lines, `candidates` of them candidates, that were
   * never kept because they were filtered out or the tail ring would have
   * evicted them, with every line it holds now, before the current chunk
   * ends (see {@link survivorsStart}); empties the ring.
   */
  skipLines(lines: number, candidates: number): void {
    this._inputLines += lines;
    this._candidates += candidates;
    this._tail?.clear();
  }

  /**
   * Renders the stream under `policy`, diagnostics within `diagnosticBytes`
   * (the failure policy's `maxOutputBytes`); call once, after the last line.
   */
  render(
    policy: OutputPolicy,
    recovery: Recovery,
    diagnosticBytes = policy.maxOutputBytes,
  ): ReducedStream {
    const inputBytes = this._inputBytes;
    const inputLines = this._inputLines;
    if (inputBytes === 0) return this._exact();
    this._head?.linearize();
    this._tail?.linearize();
    const count = this._candidates;
    const headEnd = Math.min(policy.headLines, count);
    const tailStart = Math.max(headEnd, count - policy.tailLines);

    const headViews: LineView[] = [];
    for (let i = 0; i < headEnd; i++) {
      const v = this._view(i, policy.maxLineBytes);
      if (v === null) break;
      headViews.push(v);
    }
    const tailViews: LineView[] = []; // newest first
    for (let i = count - 1; i >= tailStart; i--) {
      const v = this._view(i, policy.maxLineBytes);
      if (v === null) break;
      tailViews.push(v);
    }
    const complete = count === inputLines && !this._altered &&
      headViews.length + tailViews.length === count &&
      headViews.every((v) => v.omitted === 0) && tailViews.every((v) => v.omitted === 0);
    if (complete && inputBytes <= policy.maxOutputBytes) return this._exact();

    const eol = this._firstEnding === LINE_END_CRLF ? CRLF_BYTES : LF_BYTES;
    const worst: OmissionFacts = {
      keptLines: inputLines,
      inputLines,
      omittedLines: inputLines,
      omittedBytes: inputBytes,
      truncatedLines: inputLines,
    };
    const markerRoom = omissionMarkerBytes(worst, recovery).length + 2 * eol.length;
    const diagViews = this._diagViews(headEnd, tailStart, policy.maxLineBytes);
    const headDiagnostics = diagViews.length - this._storedViews;
    const reported = headDiagnostics + this._diagnostics;
    const noteRoom = reported > 0 ? omittedDiagnosticsNote(reported).length + eol.length : 0;
    const limit = Math.max(policy.maxOutputBytes, diagnosticBytes);
    const diag = this._fit(diagViews, Math.max(0, limit - markerRoom - noteRoom));
    const available = Math.min(
      policy.maxOutputBytes - markerRoom,
      limit - markerRoom - noteRoom - totalSize(diag),
    );
    if (available < 0 && diag.length === 0) return this._markerOnly(policy, recovery);

    const needHead = totalSize(headViews);
    const needTail = totalSize(tailViews);
    let headBudget = needHead;
    if (needHead + needTail > available) {
      const half = Math.floor(available / 2);
      if (needHead <= half) headBudget = needHead;
      else if (needTail <= available - half) headBudget = available - needTail;
      else headBudget = half;
    }
    const head = this._fit(headViews, Math.max(0, headBudget));
    const tail = this._fit(tailViews, Math.max(0, available - totalSize(head))).reverse();
    const note = omittedDiagnosticsNote(
      this._lostDiagnostics(head, tail, headEnd, reported - diag.length),
    );
    const noteBytes = note === "" ? EMPTY : new TextEncoder().encode(note);

    let keptSource = 0;
    let truncatedLines = 0;
    for (const v of head) {
      keptSource += v.store.source(v.slot);
      if (v.omitted > 0) truncatedLines++;
    }
    for (const v of tail) {
      keptSource += v.store.source(v.slot);
      if (v.omitted > 0) truncatedLines++;
    }
    for (const v of diag) {
      keptSource += v.store.source(v.slot);
      if (v.omitted > 0) truncatedLines++;
    }
    const keptLines = head.length + tail.length + diag.length;
    const marker = omissionMarkerBytes({
      keptLines,
      inputLines,
      omittedLines: inputLines - keptLines,
      omittedBytes: inputBytes - keptSource,
      truncatedLines,
    }, recovery);
    const markerBetween = tail.length > 0 &&
      (head.length + candidateViews(diag) < tail[0].index || noteBytes.length > 0);
    const last = tail.length > 0 ? tail[tail.length - 1] : head[head.length - 1];
    const eolBefore = !markerBetween && last !== undefined && last.store.ending(last.slot) === 0;
    const outLen = totalSize(head) + totalSize(diag) + totalSize(tail) + marker.length +
      eol.length + (eolBefore ? eol.length : 0) +
      (noteBytes.length > 0 ? noteBytes.length + eol.length : 0);

    if (
      this._raw !== null && inputBytes <= policy.maxOutputBytes &&
      inputBytes - outLen < policy.minSavingsBytes
    ) {
      return this._exact();
    }

    const out = new Uint8Array(outLen);
    let at = 0;
    for (const v of head) at = writeView(out, at, v);
    for (const v of diag) at = writeView(out, at, v);
    if (markerBetween) {
      if (noteBytes.length > 0) at = writeMarker(out, at, noteBytes, eol);
      at = writeMarker(out, at, marker, eol);
    }
    for (const v of tail) at = writeView(out, at, v);
    if (!markerBetween) {
      if (eolBefore) {
        out.set(eol, at);
        at += eol.length;
      }
      if (noteBytes.length > 0) at = writeMarker(out, at, noteBytes, eol);
      writeMarker(out, at, marker, eol);
    }
    return {
      bytes: out,
      changed: true,
      omittedLines: inputLines - keptLines,
      omittedBytes: inputBytes - keptSource,
      truncatedLines,
      inputBytes,
      inputLines,
    };
  }

  /** The exact input (the raw buffer always holds it when this is called). */
  private _exact(): ReducedStream {
    const raw = this._raw;
    if (raw === null) throw new Error("exact output requested after the raw buffer was discarded");
    return unchangedStream(raw.subarray(0, this._rawLen), this._inputBytes, this._inputLines);
  }

  /** Fallback when the marker alone exceeds the budget: the marker, cut to fit. */
  private _markerOnly(policy: OutputPolicy, recovery: Recovery): ReducedStream {
    const inputLines = this._inputLines;
    const inputBytes = this._inputBytes;
    const marker = omissionMarkerBytes({
      keptLines: 0,
      inputLines,
      omittedLines: inputLines,
      omittedBytes: inputBytes,
      truncatedLines: 0,
    }, recovery);
    const cut = Math.min(marker.length, policy.maxOutputBytes);
    return {
      bytes: marker.slice(0, utf8SafeCut(marker, 0, cut)),
      changed: true,
      omittedLines: inputLines,
      omittedBytes: inputBytes,
      truncatedLines: 0,
      inputBytes,
      inputLines,
    };
  }

  /**
   * The diagnostics the policy's head (to candidate `headEnd`) and tail
   * (from `tailStart`) would not show, in order, cut to `limit` content
   * bytes: the head store's past `headEnd` (the other policy's head), then
   * the stored ones (`_storedViews` of them).
   */
  private _diagViews(headEnd: number, tailStart: number, limit: number): LineView[] {
    const views: LineView[] = [];
    const head = this._head;
    for (let i = headEnd; i < (head?.count ?? 0); i++) {
      const v = cutView(i, head!, i, limit);
      if (isDiagnostic(v)) views.push(v);
    }
    const diag = this._diag;
    diag.linearize();
    this._storedViews = 0;
    for (let i = 0; i < diag.count; i++) {
      if (this._diagIndex[i] >= tailStart && isCandidate(this._diagIndex[i])) continue;
      views.push(cutView(this._diagIndex[i], diag, i, limit));
      this._storedViews++;
    }
    return views;
  }

  /**
   * Diagnostics not shown: the `unshown` ones of the diagnostic section and
   * the reported ones past it (the stored or unstored ones the shown `tail`
   * holds are shown), plus the head lines before `headEnd` that the shown
   * `head` left out and are diagnostics.
   */
  private _lostDiagnostics(
    head: readonly LineView[],
    tail: readonly LineView[],
    headEnd: number,
    unshown: number,
  ): number {
    let lost = unshown;
    const diag = this._diag;
    const tailFirst = tail.length > 0 ? tail[0].index : Infinity;
    const lastStored = diag.count > 0 ? this._diagIndex[diag.count - 1] : -1;
    for (let i = 0; i < diag.count; i++) {
      if (this._diagIndex[i] >= tailFirst && isCandidate(this._diagIndex[i])) lost--;
    }
    if (this._diagnostics > diag.count) {
      for (const v of tail) if (v.index > lastStored && isDiagnostic(v)) lost--;
    }
    for (let i = head.length; i < headEnd; i++) {
      if (isDiagnostic(cutView(i, this._head!, i, 0))) lost++;
    }
    return lost;
  }

  /** Candidate `index` shown whole or cut to `limit` content bytes; null when not retained. */
  private _view(index: number, limit: number): LineView | null {
    const headCount = this._head?.count ?? 0;
    const tailFirst = this._candidates - (this._tail?.count ?? 0);
    let store: LineStore;
    let slot: number;
    if (index < headCount) {
      store = this._head!;
      slot = index;
    } else if (index >= tailFirst) {
      store = this._tail!;
      slot = index - tailFirst;
    } else {
      return null;
    }
    return cutView(index, store, slot, limit);
  }

  /** The longest prefix of `views` within `budget`; the first that does not fit may be cut to fit. */
  private _fit(views: readonly LineView[], budget: number): LineView[] {
    const taken: LineView[] = [];
    let room = budget;
    for (const v of views) {
      if (v.size <= room) {
        taken.push(v);
        room -= v.size;
        continue;
      }
      const ending = v.store.ending(v.slot);
      const whole = v.store.length(v.slot) + v.store.hidden(v.slot);
      const limit = room - ending - truncationMarkerLength(whole);
      if (limit >= 1) {
        const cut = cutView(v.index, v.store, v.slot, Math.min(limit, v.shown));
        if (cut.shown >= 1) taken.push(cut);
      }
      break;
    }
    return taken;
  }
}

/** A view of a stored line with at most `limit` content bytes shown. */
function cutView(index: number, store: LineStore, slot: number, limit: number): LineView {
  const len = store.length(slot);
  const hidden = store.hidden(slot);
  let shown = len < limit ? len : limit;
  if (hidden > 0 || shown < len) {
    const start = store.start(slot);
    shown = utf8SafeCut(store.bytes, start, start + shown) - start;
  }
  const omitted = hidden + len - shown;
  const size = shown + (omitted > 0 ? truncationMarkerLength(omitted) : 0) + store.ending(slot);
  return { index, store, slot, shown, omitted, size };
}

/** True when the stored line of `v` is a diagnostic by its form. */
function isDiagnostic(v: LineView): boolean {
  const start = v.store.start(v.slot);
  return diagnosticForm(v.store.bytes, start, start + v.store.length(v.slot)) !== NOT_DIAGNOSTIC;
}

/** True when a stored diagnostic's `index` is a candidate's (filtered-out lines sit at a half index). */
function isCandidate(index: number): boolean {
  return Number.isInteger(index);
}

/** The views in `views` that show candidates. */
function candidateViews(views: readonly LineView[]): number {
  let n = 0;
  for (const v of views) if (isCandidate(v.index)) n++;
  return n;
}

function totalSize(views: readonly LineView[]): number {
  let total = 0;
  for (const v of views) total += v.size;
  return total;
}

function writeView(out: Uint8Array, at: number, v: LineView): number {
  const bytes = v.store.bytes;
  const start = v.store.start(v.slot);
  copyRange(bytes, start, start + v.shown, out, at);
  at += v.shown;
  if (v.omitted > 0) at = writeTruncationMarker(out, at, v.omitted);
  const endingStart = start + v.store.length(v.slot);
  const ending = v.store.ending(v.slot);
  copyRange(bytes, endingStart, endingStart + ending, out, at);
  return at + ending;
}

function writeMarker(out: Uint8Array, at: number, marker: Uint8Array, eol: Uint8Array): number {
  out.set(marker, at);
  out.set(eol, at + marker.length);
  return at + marker.length + eol.length;
}
