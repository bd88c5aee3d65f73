/**
 * The typed reducer engine behind every typed kind (`search`, `diff`,
 * `status`, `test`, `build`, `install`, `log`, `list`): one bounded
 * streaming state machine that splits lines, removes ANSI sequences, asks
 * the kind's {@link Family} parser for each line's role and the shared
 * classifier (`evidence.ts`) for its evidence, keeps bounded records, and at
 * finish selects evidence in the ranked order of docs/architecture.md,
 * "Evidence selection". Each chunk is
 * first searched once for marker, form and family words
 * (`_word_candidates.ts`); a line of the chunk holding none is classified
 * without a scan of its bytes. The order of evidence:
 *
 * 1. outcomes: host truncation notices, exit and timeout notices, and the
 *    runner's own summary lines (mandatory: if they cannot all fit the
 *    policy's `maxOutputBytes` and the input is still buffered, the exact
 *    input is kept; otherwise the ones that fit are kept and the rest
 *    counted);
 * 2. diagnostics, as the one classifier (`diagnostics.ts`) calls them
 *    (failures first, then warnings): on a data row (a grep match, a list
 *    entry) and a data family's noise and structure only a tool's
 *    diagnostic form counts (`file(1,2): error TS2322` from `npx tsc | grep
 *    "error TS"` is kept, `export class ParseError` is not); with the lines right
 *    after a failure as bounded context, shown only under that failure (the
 *    context of a failure that is not kept is dropped, never shown as
 *    fill), exact duplicates once with a count (a family's heading, such as
 *    eslint's file path, is kept with them and starts a new count);
 * 3. one sample for every source term (`_term_samples.ts`): given the
 *    command's terms (the search kind: `sourceTerms` of its argv), the
 *    first row that holds each term, in term order; without terms no row is
 *    searched;
 * 4. a fixed summary of rows by key with exact counts (`[yarp: 1,204
 *    matches in 31 files: …]`), its keys listed within the family's
 *    `Floor` share of the budget (diff: in file order, with `+N −M`),
 *    then structural lines of the family (hunk headers, branch lines; a
 *    `Role.Detail` line only under the failure budget); a `headRows` family
 *    (log) shows each row with its structure as one group, whole or not at
 *    all; with `examplesInOrder` (diff), structure and samples go together
 *    in input order on success (a file's header, first hunk header and
 *    first changed lines);
 * 5. diverse examples: the first rows of each key, key by key;
 * 6. head and tail fill.
 *
 * Budgets: the failure budget is used when the child failed, or when the
 * text shows a failure (a line with an error, fail, panic, traceback,
 * exception or assertion marker that is not a summary or a data row; test,
 * build and install kinds also on exit 0). When the rule's success policy
 * is its failure policy (the planner's rule for an incomplete status, e.g.
 * `… | tail` without pipefail), a failure shown anywhere in the text, data
 * kinds included, selects the failure budget; without one the success
 * budget applies (the failure policy's limits stay: they are the rule's
 * only ones). A data row of a failure form selects the failure budget too.
 * On success, classes 3–6 stop at the success budget in all (the
 * constructor's `successBytes`, default {@link SUCCESS_BUDGET_BYTES};
 * classes 1–2 may use the policy's `maxOutputBytes`). Every
 * diagnostic line that is not shown is counted in one line
 * (`[yarp: 12 omitted lines carry error or warning markers]`). The output
 * ends with the shared omission marker; the minimum-savings gate and the
 * hard `maxOutputBytes` limit are the shared ones.
 *
 * A form the family does not recognise is all `Other` lines: the result is
 * then evidence plus bounded head/tail, the internal fallback.
 *
 * State bound: `typedStateBytes` (`typed_budget.ts`) of the envelope plus
 * the fixed state; nothing grows with the input.
 *
 * @module
 */
import { LINE_END_CRLF, LINE_END_LF, type LineEnding, LineSplitter } from "../bytes/mod.ts";
import type { OutputPolicy, ReductionRule } from "../rules/model.ts";
import { FIXED_STATE_BYTES, streamEnvelope } from "./budget.ts";
import {
  classifyLine,
  classifyUnmarkedLine,
  DIAGNOSTIC_ANCHORS,
  diagnosticForm,
  Evidence,
  FAILURE_DIAGNOSTIC,
  isPassingLine,
  MANDATORY,
  mayLeadForm,
  NOT_DIAGNOSTIC,
} from "./evidence.ts";
import { omittedDiagnosticsNote } from "./diagnostics.ts";
import { WordCandidates } from "./_word_candidates.ts";
import {
  type Family,
  type KeySink,
  type LineParser,
  NO_FAMILY_WORDS,
  Role,
} from "./kinds/family.ts";
import { formatCount, omissionMarker, repeatNote, truncationMarker } from "./marker.ts";
import { RecordRing, RecordStore } from "./_records.ts";
import { KeyTable } from "./_key_table.ts";
import {
  CONTEXT_LINES,
  DIAGNOSTIC_RECORDS,
  HEAD_LINES,
  KEY_BYTES,
  MANDATORY_RECORDS,
  MAX_KEYS,
  MAX_KEYS2,
  ROW_BYTES,
  STRUCTURE_RECORDS,
  SUCCESS_BUDGET_BYTES,
  SUCCESS_LINE_BYTES,
  SUMMARY_HEAD,
  SUMMARY_TAIL,
  TAIL_LINES,
} from "./typed_budget.ts";
import { LineContent } from "./_line_content.ts";
import type { SourceTerms } from "./source_terms.ts";
import { TermSamples } from "./_term_samples.ts";
import {
  type ChildStatus,
  type Recovery,
  type ReducedStream,
  type StreamReducer,
  unchangedStream,
} from "./types.ts";

/** The marker flags of a {@link classifyLine} answer; the rest are its form flags. */
const MARKS = Evidence.Passing | Evidence.Diagnostic | Evidence.Failure;

/** Tags of records. */
const TAG_LINE = 0;
const TAG_CONTEXT = 1;
/** A line the classifier calls a diagnostic: counted by the omitted-diagnostics note. */
const TAG_DIAGNOSTIC = 2;
/** A row that starts a group of structure lines (log: a commit). */
const TAG_ROW = 3;

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

/** One line chosen for output. */
interface Pick {
  readonly index: number;
  readonly store: RecordStore;
  readonly slot: number;
  readonly shown: number;
  readonly size: number;
}

/** Typed streaming reducer for one stream; state bound: `streamMemoryBound(rule)`. */
export class TypedStreamReducer implements StreamReducer, KeySink {
  private readonly _rule: ReductionRule;
  private readonly _family: Family;
  private readonly _parser: LineParser;
  private readonly _lines: LineSplitter;
  private readonly _content: LineContent;
  private readonly _rawLimit: number;
  private readonly _lineBytes: number;
  private _raw: Uint8Array | null = new Uint8Array(0);
  /** The chunk being pushed (lines of it may be kept deferred until the push ends). */
  private _chunk: Uint8Array = EMPTY;
  /** Where the chunk being pushed may hold marker or form words. */
  private readonly _candidates: WordCandidates;
  /** True when the chunk search covers the form words too (all but the rows-only families). */
  private readonly _formsSearched: boolean;
  /** {@link Family.readsPassing}. */
  private readonly _readsPassing: boolean;
  private _rawUsed = 0;
  private _inputBytes = 0;
  private _inputLines = 0;
  private _firstEnding: LineEnding | -1 = -1;
  private _altered = false;

  private readonly _mandatory: RecordStore;
  private readonly _failures: RecordStore;
  private readonly _warnings: RecordStore;
  private readonly _summaryHead: RecordStore;
  private readonly _summaryTail: RecordRing;
  private readonly _structure: RecordStore;
  /** {@link Role.Detail} lines, shown under the failure budget only. */
  private readonly _details: RecordStore;
  /** The success budget of optional evidence, in bytes. */
  private readonly _successBytes: number;
  private readonly _samples: RecordStore;
  private readonly _head: RecordStore;
  private readonly _tail: RecordRing;
  private readonly _keys = new KeyTable(MAX_KEYS);
  private readonly _keys2 = new KeyTable(MAX_KEYS2);
  /** The first row of every source term, or null without terms. */
  private readonly _terms: TermSamples | null;
  private _summaryLines = 0;
  private _mandatoryLost = 0;
  private _diagnosticLines = 0;
  private _failureText = false;
  private _rows = 0;
  /** Rows counted as removed lines (diff). */
  private _minusRows = 0;
  /** True once the family gave a {@link Role.Heading}: warnings are then kept in order only. */
  private _headings = false;
  /** Lines still to keep as context of the last failure; negative: to drop as a lost one's. */
  private _context = 0;

  // KeySink: the current row's keys, as ranges of the line or of the parser's state (read before the next line).
  private _key: Uint8Array = EMPTY;
  private _keyStart = 0;
  private _keyLength = -1;
  private _key2: Uint8Array = EMPTY;
  private _key2Start = 0;
  private _key2Length = -1;
  minus = false;

  /**
   * Prepares state for `rule` under `family`; with `terms` (the command's
   * source terms), its rows are searched for the terms without a sample.
   * `successBytes` is the success budget of optional evidence (the
   * configured `budgets:`, else {@link SUCCESS_BUDGET_BYTES}).
   */
  constructor(
    rule: ReductionRule,
    family: Family,
    terms?: SourceTerms,
    successBytes: number = SUCCESS_BUDGET_BYTES,
  ) {
    this._rule = rule;
    this._successBytes = successBytes;
    this._family = family;
    this._terms = terms === undefined || terms.terms.length === 0 ? null : new TermSamples(terms);
    this._parser = family.create();
    // Families of data rows alone ask for form words only on their few other lines: those
    // lines are scanned whole, and the chunk search looks for marker words alone.
    this._formsSearched = family.rowsOnly !== true;
    this._readsPassing = family.readsPassing === true;
    // The diagnostic anchors join the search of text families: a line without them or a
    // marker is a diagnostic only by a lead form (`mayLeadForm`). Rows-only families leave
    // them out (a search for `go:` costs them a quarter of their speed): a go location row
    // without a marker word (`grep undefined` over go build's output) is then an ordinary row.
    this._candidates = new WordCandidates(
      this._formsSearched ? [...(family.words ?? []), ...DIAGNOSTIC_ANCHORS] : family.words,
      this._formsSearched,
    );
    const env = streamEnvelope(rule);
    this._rawLimit = env.rawBytes;
    this._lineBytes = env.lineBytes;
    this._lines = new LineSplitter(env.lineBytes);
    this._content = new LineContent(true, env.lineBytes);
    const line = env.lineBytes;
    this._mandatory = new RecordStore(env.outputBytes, MANDATORY_RECORDS, line);
    this._failures = new RecordStore(env.outputBytes, DIAGNOSTIC_RECORDS, line);
    this._warnings = new RecordStore(env.outputBytes, DIAGNOSTIC_RECORDS, line, true);
    this._summaryHead = new RecordStore(SUMMARY_HEAD * line, SUMMARY_HEAD, line);
    this._summaryTail = new RecordRing(SUMMARY_TAIL, line);
    this._structure = new RecordStore(STRUCTURE_RECORDS * ROW_BYTES, STRUCTURE_RECORDS, ROW_BYTES);
    this._details = new RecordStore(STRUCTURE_RECORDS * ROW_BYTES, STRUCTURE_RECORDS, ROW_BYTES);
    const perKey = family.samplesPerKey;
    this._samples = new RecordStore(MAX_KEYS * perKey * ROW_BYTES, MAX_KEYS * perKey, ROW_BYTES);
    this._head = new RecordStore(HEAD_LINES * ROW_BYTES, HEAD_LINES, ROW_BYTES);
    this._tail = new RecordRing(TAIL_LINES, ROW_BYTES);
  }

  /** {@link KeySink.key}. */
  key(bytes: Uint8Array, start: number, end: number): void {
    this._key = bytes;
    this._keyStart = start;
    this._keyLength = Math.min(end - start, KEY_BYTES);
  }

  /** {@link KeySink.key2}. */
  key2(bytes: Uint8Array, start: number, end: number): void {
    this._key2 = bytes;
    this._key2Start = start;
    this._key2Length = Math.min(end - start, KEY_BYTES);
  }

  /** Feeds one chunk. */
  push(chunk: Uint8Array): void {
    this._inputBytes += chunk.length;
    this._keepRaw(chunk);
    this._content.forget();
    const lines = this._lines;
    lines.feed(chunk);
    this._chunk = chunk;
    this._candidates.search(chunk);
    const terms = this._terms;
    terms?.search(chunk);
    while (lines.next()) {
      this._line(lines.bytes, lines.start, lines.end, lines.ending, lines.droppedBytes);
    }
    this._tail.settle();
    terms?.forget();
    this._chunk = EMPTY;
  }

  /** Renders under the policy `status` selects (see the module contract). */
  finish(status: ChildStatus, recovery: Recovery): ReducedStream {
    const lines = this._lines;
    this._content.forget();
    if (lines.finish()) {
      this._line(lines.bytes, lines.start, lines.end, lines.ending, lines.droppedBytes);
    }
    return this._render(status, recovery);
  }

  /** Bytes of state retained now. */
  retainedBytes(): number {
    return (this._raw?.byteLength ?? 0) + this._lines.retainedBytes() +
      this._content.retainedBytes() + this._parser.retainedBytes() +
      this._candidates.retainedBytes() +
      this._mandatory.retainedBytes() + this._failures.retainedBytes() +
      this._warnings.retainedBytes() + this._summaryHead.retainedBytes() +
      this._summaryTail.retainedBytes() + this._structure.retainedBytes() +
      this._details.retainedBytes() +
      this._samples.retainedBytes() + this._head.retainedBytes() + this._tail.retainedBytes() +
      this._keys.retainedBytes() + this._keys2.retainedBytes() +
      (this._terms?.retainedBytes() ?? 0) + FIXED_STATE_BYTES;
  }

  private _keepRaw(chunk: Uint8Array): void {
    if (this._raw === null) return;
    const need = this._rawUsed + chunk.length;
    if (need > this._rawLimit) {
      this._raw = null;
      return;
    }
    if (need > this._raw.length) {
      const grown = new Uint8Array(
        Math.min(this._rawLimit, Math.max(need, this._raw.length * 2, 4096)),
      );
      grown.set(this._raw.subarray(0, this._rawUsed));
      this._raw = grown;
    }
    this._raw.set(chunk, this._rawUsed);
    this._rawUsed = need;
  }

  private _line(
    raw: Uint8Array,
    rawStart: number,
    rawEnd: number,
    ending: LineEnding,
    dropped: number,
  ): void {
    const index = this._inputLines++;
    if (this._firstEnding === -1 && ending !== 0) this._firstEnding = ending;
    const content = this._content;
    if (content.read(raw, rawStart, rawEnd)) this._altered = true;
    const b = content.bytes;
    const start = content.start;
    const end = content.end;
    this._keyLength = -1;
    this._key2Length = -1;
    this.minus = false;
    const passing = this._readsPassing && isPassingLine(b, start, end)
      ? Evidence.Passing
      : Evidence.None;
    // A line of the chunk with no candidate word has no marker and no family word (and, when
    // searched for, no unanchored form word).
    const words = b !== this._chunk || this._candidates.hasCandidate(start, end);
    const role = this._parser.line(
      b,
      start,
      end,
      words ? passing : passing | NO_FAMILY_WORDS,
      this,
    );
    if (role === Role.Passed) return;
    if (role !== Role.Row && this._keyLength >= 0) {
      this._keys.register(this._key, this._keyStart, this._keyLength);
    }
    if (role === Role.Row) {
      // A row is a diagnostic by its form alone (`grep "error TS"` over tsc's output), never
      // for a word of the code or name it quotes.
      const diagnostic = words || mayLeadForm(b, start, end)
        ? diagnosticForm(b, start, end)
        : NOT_DIAGNOSTIC;
      this._row(b, start, end, ending, dropped, index);
      this._terms?.offer(b, start, end, ending, dropped, index);
      if (diagnostic !== NOT_DIAGNOSTIC) {
        this._context = 0;
        this._diagnostic(b, start, end, ending, dropped, index, diagnostic === FAILURE_DIAGNOSTIC);
        return;
      }
      if (this._family.headRows) {
        // Shown from the start, each with its group; past the store a row alone is dropped.
        this._structure.add(b, start, end, ending, dropped, index, TAG_ROW);
        return;
      }
      this._fill(b, start, end, ending, dropped, index);
      return;
    }
    // A data family's noise and structure quote data too (diff context, a path in a header):
    // forms only; its other lines are the tool's own messages, read whole.
    const formOnly = !this._family.textShowsFailure && role !== Role.Other;
    const flags = words || !this._formsSearched
      ? classifyLine(b, start, end, formOnly)
      : classifyUnmarkedLine(b, start, end);
    const marks = flags & MARKS;
    const forms = flags & ~MARKS;
    if ((forms & MANDATORY) !== 0) {
      if (!this._mandatory.add(b, start, end, ending, dropped, index, TAG_LINE)) {
        this._mandatoryLost++;
      }
      return;
    }
    if ((forms & Evidence.Summary) !== 0) {
      this._summaryLines++;
      if (!this._summaryHead.add(b, start, end, ending, dropped, index, TAG_LINE)) {
        this._summaryTail.add(b, start, end, ending, dropped, index);
      }
      return;
    }
    if (role === Role.Heading) {
      this._headings = true;
      this._warnings.newScope();
    }
    if ((marks & Evidence.Diagnostic) !== 0 && role !== Role.Heading) {
      this._diagnostic(
        b,
        start,
        end,
        ending,
        dropped,
        index,
        role === Role.Failure || (marks & Evidence.Failure) !== 0,
      );
      return;
    }
    if (role === Role.Failure) {
      this._failure(b, start, end, ending, dropped, index, TAG_LINE);
      return;
    }
    // A heading stays with the warnings it heads, whatever words its path holds: never a
    // diagnostic itself.
    if (role === Role.Important || role === Role.Heading) {
      this._warnings.add(b, start, end, ending, dropped, index, TAG_LINE);
      return;
    }
    if (role === Role.Noise) return;
    if (this._context > 0) {
      this._context--;
      this._failures.add(b, start, end, ending, dropped, index, TAG_CONTEXT);
      return;
    }
    if (this._context < 0) {
      this._context++;
      return;
    }
    if (role === Role.Structure) {
      // Past the store, a group's structure (a commit's date or subject) would show as fill
      // apart from its row: it is dropped.
      const added = this._structure.add(b, start, end, ending, dropped, index, TAG_LINE);
      if (added || this._family.headRows) return;
    }
    if (role === Role.Detail) {
      this._details.add(b, start, end, ending, dropped, index, TAG_LINE);
      return;
    }
    this._fill(b, start, end, ending, dropped, index);
  }

  /** Keeps a line the classifier calls a diagnostic: a failure (with its context) or a warning. */
  private _diagnostic(
    b: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    dropped: number,
    index: number,
    failure: boolean,
  ): void {
    this._diagnosticLines++;
    if (failure) this._failure(b, start, end, ending, dropped, index, TAG_DIAGNOSTIC);
    else this._warnings.add(b, start, end, ending, dropped, index, TAG_DIAGNOSTIC);
  }

  /** Keeps a failure line; the lines after it are its context, or dropped with it. */
  private _failure(
    b: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    dropped: number,
    index: number,
    tag: number,
  ): void {
    this._failureText = true;
    // The context of a failure that could not be kept goes too: shown as fill, it would
    // read as another failure's.
    const kept = this._failures.add(b, start, end, ending, dropped, index, tag);
    this._context = kept ? CONTEXT_LINES : -CONTEXT_LINES;
  }

  private _row(
    b: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    dropped: number,
    index: number,
  ): void {
    this._rows++;
    if (this.minus) this._minusRows++;
    if (this._keyLength >= 0) {
      const slot = this._keys.count(this._key, this._keyStart, this._keyLength, this.minus);
      if (slot >= 0) {
        const samples = this._keys.sampleSlots[slot];
        if (samples.length < this._family.samplesPerKey && !this._family.headRows) {
          const at = this._samples.size;
          if (this._samples.add(b, start, end, ending, dropped, index, TAG_LINE)) samples.push(at);
        }
      }
    }
    if (this._key2Length >= 0) {
      this._keys2.count(this._key2, this._key2Start, this._key2Length, false);
    }
  }

  private _fill(
    b: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    dropped: number,
    index: number,
  ): void {
    const head = this._head;
    if (head.size === HEAD_LINES || !head.add(b, start, end, ending, dropped, index, TAG_LINE)) {
      this._tail.add(b, start, end, ending, dropped, index, b === this._chunk);
    }
  }

  private _render(status: ChildStatus, recovery: Recovery): ReducedStream {
    const rule = this._rule;
    // An incomplete status (the planner's success policy is its failure policy) gets the
    // failure budget only when the text shows a failure: else a hidden failure cannot be there.
    const incomplete = rule.success === rule.failure;
    const exitFailed = status.code !== 0 || status.signal !== undefined;
    const failed = exitFailed || this._failureText || (incomplete && this._failures.size > 0);
    const policy: OutputPolicy = failed ? rule.failure : rule.success;
    const eol = this._firstEnding === LINE_END_CRLF ? "\r\n" : "\n";
    const eolBytes = eol.length;
    const hard = policy.maxOutputBytes;
    const optionalLimit = failed ? hard : Math.min(hard, this._successBytes);
    const lineCap = (optional: boolean) =>
      Math.min(policy.maxLineBytes, failed || !optional ? policy.maxLineBytes : SUCCESS_LINE_BYTES);

    // Room for the marker and the two fixed lines, at their largest counts.
    const worst = omissionMarker({
      keptLines: this._inputLines,
      inputLines: this._inputLines,
      omittedLines: this._inputLines,
      omittedBytes: this._inputBytes,
      truncatedLines: this._inputLines,
    }, recovery).length + 8 + eolBytes;
    const diagnosticNote = omittedDiagnosticsNote(this._diagnosticLines);
    const reserve = worst + (diagnosticNote.length + eolBytes) + 16;

    const picks: Pick[] = [];
    const taken = new Set<number>();
    let used = 0;
    /** Bytes shown of record `slot`, and its size in the output with notes and ending. */
    const measure = (store: RecordStore, slot: number, optional: boolean) => {
      const length = store.length[slot];
      const shown = Math.min(length, lineCap(optional));
      const omitted = length - shown + store.cut[slot];
      let size = shown + store.ending[slot] +
        (omitted > 0 ? byteLength(truncationMarker(omitted)) : 0);
      if (store.ending[slot] === 0) size += eolBytes;
      if (store.count[slot] > 1) size += byteLength(repeatNote(store.count[slot])) + eolBytes;
      return { shown, size };
    };
    const pick = (store: RecordStore, slot: number, optional: boolean, limit: number): boolean => {
      const index = store.index[slot];
      if (taken.has(index)) return true;
      const { shown, size } = measure(store, slot, optional);
      if (used + size > limit - reserve) return false;
      used += size;
      taken.add(index);
      picks.push({ index, store, slot, shown, size });
      return true;
    };

    // 1. mandatory: notices, outcomes, summaries.
    const summaries = new RecordStore(
      (SUMMARY_HEAD + SUMMARY_TAIL) * this._lineBytes,
      SUMMARY_HEAD + SUMMARY_TAIL,
      Number.MAX_SAFE_INTEGER,
    );
    copyStore(this._summaryHead, summaries);
    this._summaryTail.drainInto(summaries, TAG_LINE);
    let lostMandatory = this._mandatoryLost + (this._summaryLines - summaries.size);
    for (const store of [this._mandatory, summaries]) {
      for (let s = 0; s < store.size; s++) if (!pick(store, s, false, hard)) lostMandatory++;
    }
    if (lostMandatory > 0 && this._raw !== null) return this._unchanged();

    // 2. diagnostics: failures (each with its context, shown only under it), then warnings.
    let failureShown = false;
    for (let s = 0; s < this._failures.size; s++) {
      if (this._failures.tag[s] === TAG_CONTEXT) {
        if (failureShown) pick(this._failures, s, false, hard);
      } else failureShown = pick(this._failures, s, false, hard);
    }
    // Under headings, the first warning that does not fit ends them: a later one would show
    // under the last heading shown, not its own.
    for (let s = 0; s < this._warnings.size; s++) {
      if (!pick(this._warnings, s, false, hard) && this._headings) break;
    }

    // 3. one sample for every source term, in term order (a later, shorter one may still fit).
    const terms = this._terms;
    if (terms !== null) {
      for (let t = 0; t < terms.size; t++) {
        const slot = terms.slot(t);
        if (slot >= 0) pick(terms.store, slot, true, optionalLimit);
      }
    }
    // 4. the fixed summary of rows by key, within its share of the success budget.
    const floor = this._family.floor;
    const keyLine = failed
      ? this._keySummary(12, Number.MAX_SAFE_INTEGER)
      : this._keySummary(Number.MAX_SAFE_INTEGER, Math.floor(optionalLimit * floor.keyShare));
    let extra = 0;
    if (keyLine !== "" && used + byteLength(keyLine) + eolBytes <= optionalLimit - reserve) {
      extra = byteLength(keyLine) + eolBytes;
      used += extra;
    }
    const keys = this._keys;
    if (!failed && floor.examplesInOrder) {
      // 4–5. structure and samples together in input order (diff: each file's header and first
      // hunk header with its first changed lines), until one does not fit; structure left
      // without a line under it goes.
      const first = picks.length;
      for (const [store, slot] of inOrder([this._structure, this._samples])) {
        if (!pick(store, slot, true, optionalLimit)) break;
      }
      while (picks.length > first && picks[picks.length - 1].store === this._structure) {
        const dangling = picks.pop()!;
        taken.delete(dangling.index);
        used -= dangling.size;
      }
    } else if (this._family.headRows) {
      // 4. groups in order (log: a commit with its date, subject and stat line), each whole.
      const structure = this._structure;
      for (let s = 0; s < structure.size;) {
        let next = s + 1;
        while (next < structure.size && structure.tag[next] !== TAG_ROW) next++;
        let size = 0;
        for (let g = s; g < next; g++) size += measure(structure, g, true).size;
        if (used + size > optionalLimit - reserve) break;
        for (let g = s; g < next; g++) pick(structure, g, true, optionalLimit);
        s = next;
      }
    } else {
      // 4. structure (and, under the failure budget, details) in input order.
      for (
        const [store, slot] of inOrder(
          failed ? [this._structure, this._details] : [this._structure],
        )
      ) {
        if (!pick(store, slot, true, optionalLimit)) break;
      }
    }
    // 5. diverse examples: sample k of every key, then k+1 (in-order examples have theirs).
    const diverse = failed || !floor.examplesInOrder ? this._family.samplesPerKey : 0;
    for (let k = 0; k < diverse; k++) {
      for (let key = 0; key < keys.keys.length; key++) {
        const slot = keys.sampleSlots[key][k];
        if (slot !== undefined) pick(this._samples, slot, true, optionalLimit);
      }
    }
    // 6. head and tail fill.
    const tail = new RecordStore(TAIL_LINES * ROW_BYTES, TAIL_LINES, ROW_BYTES);
    this._tail.drainInto(tail, TAG_LINE);
    const headBudget = optionalLimit - Math.floor((optionalLimit - used - reserve) / 3);
    for (let s = 0; s < this._head.size; s++) if (!pick(this._head, s, true, headBudget)) break;
    for (let s = tail.size - 1; s >= 0; s--) if (!pick(tail, s, true, optionalLimit)) break;

    picks.sort((a, b) => a.index - b.index);
    let keptSource = 0;
    let truncated = 0;
    let keptLines = 0;
    let shownDiagnostics = 0;
    for (const p of picks) {
      keptLines++;
      const { store, slot } = p;
      keptSource += store.length[slot] + store.cut[slot] + store.ending[slot];
      if (p.shown < store.length[slot] || store.cut[slot] > 0) truncated++;
      if (store.tag[slot] === TAG_DIAGNOSTIC) shownDiagnostics += store.count[slot];
    }
    const omittedLines = this._inputLines - keptLines;
    if (omittedLines === 0 && truncated === 0 && !this._altered && this._raw !== null) {
      return this._unchanged();
    }
    const note = omittedDiagnosticsNote(this._diagnosticLines - shownDiagnostics);
    const marker = omissionMarker({
      keptLines,
      inputLines: this._inputLines,
      omittedLines,
      omittedBytes: Math.max(0, this._inputBytes - keptSource),
      truncatedLines: truncated,
    }, recovery);
    const tailText = (keyLine !== "" && extra > 0 ? keyLine + eol : "") +
      (note !== "" ? note + eol : "") + marker + eol;
    const tailBytes = encoder.encode(tailText);
    const out = new Uint8Array(used + tailBytes.length);
    let at = 0;
    for (const p of picks) {
      const { store, slot } = p;
      const off = store.offset[slot];
      out.set(store.bytes.subarray(off, off + p.shown), at);
      at += p.shown;
      const omitted = store.length[slot] - p.shown + store.cut[slot];
      if (omitted > 0) {
        at += encoder.encodeInto(truncationMarker(omitted), out.subarray(at)).written;
      }
      const ending = store.ending[slot];
      at += writeEnding(
        out,
        at,
        ending === 0 ? (eolBytes === 2 ? LINE_END_CRLF : LINE_END_LF) : ending,
      );
      if (store.count[slot] > 1) {
        at += encoder.encodeInto(repeatNote(store.count[slot]) + eol, out.subarray(at)).written;
      }
    }
    out.set(tailBytes, at);
    at += tailBytes.length;
    const bytes = out.subarray(0, at);
    if (this._raw !== null) {
      const input = this._rawUsed;
      if (bytes.length > policy.maxOutputBytes && input <= policy.maxOutputBytes) {
        return this._unchanged();
      }
      if (input <= policy.maxOutputBytes && input - bytes.length < policy.minSavingsBytes) {
        return this._unchanged();
      }
      if (bytes.length >= input) return this._unchanged();
    }
    return {
      bytes,
      changed: true,
      omittedLines,
      omittedBytes: Math.max(0, this._inputBytes - keptSource),
      truncatedLines: truncated,
      inputBytes: this._inputBytes,
      inputLines: this._inputLines,
    };
  }

  private _unchanged(): ReducedStream {
    const raw = this._raw!;
    const bytes = this._rawUsed === 0 ? EMPTY : raw.slice(0, this._rawUsed);
    return unchangedStream(bytes, this._inputBytes, this._inputLines);
  }

  /**
   * `[yarp: 1,204 matches in 31 files: src/a.ts 120 · src/b.ts 40 · 29 more files (1,044 matches)]`,
   * or "": at most `most` keys of each table, while the line stays within
   * `maxBytes` (one key at least); the counts are exact ("over" only past
   * the hashed further keys). Diff lines give `+N −M` per file and in all.
   */
  private _keySummary(most: number, maxBytes: number): string {
    const family = this._family;
    const keys = this._keys;
    if (this._rows === 0 && keys.keys.length === 0) return "";
    const rows = this._rows;
    const diff = family.rowNoun === "changed line";
    const signed = (plus: number, minus: number) => `+${formatCount(plus)} −${formatCount(minus)}`;
    let text = `[yarp: ${plural(rows, family.rowNoun)}`;
    if (diff) text += ` (${signed(rows - this._minusRows, this._minusRows)})`;
    /** Appends the keys of `table` in `order` while they fit; returns the rows they hold. */
    const list = (
      table: KeyTable,
      order: number[],
      separator: string,
      item: (i: number) => string,
    ) => {
      let listed = 0;
      let held = 0;
      for (const i of order) {
        const next = (listed === 0 ? separator : " · ") + item(i);
        if (listed === most || (listed > 0 && byteLength(text + next) + 2 > maxBytes)) break;
        text += next;
        listed++;
        held += table.counts[i] + table.minus[i];
      }
      return { listed, held };
    };
    if (family.keyNoun !== "" && keys.keys.length > 0) {
      const over = keys.otherKeysExact ? "" : "over ";
      text += ` in ${over}${plural(keys.distinct, family.keyNoun)}`;
      const order = keys.keys.map((_, i) => i);
      if (!family.floor.keysInOrder) {
        order.sort((a, b) =>
          (keys.counts[b] + keys.minus[b]) - (keys.counts[a] + keys.minus[a]) || a - b
        );
      }
      const { listed, held } = list(keys, order, ": ", (i) => {
        const name = latin1Key(keys.keys[i]);
        return diff
          ? `${name} ${signed(keys.counts[i], keys.minus[i])}`
          : `${name} ${formatCount(keys.counts[i])}`;
      });
      const rest = keys.distinct - listed;
      if (rest > 0) {
        text += ` · ${over}${plural(rest, "more " + family.keyNoun)}`;
        const restRows = rows - held;
        if (diff) {
          let restMinus = this._minusRows;
          for (const i of order.slice(0, listed)) restMinus -= keys.minus[i];
          text += ` ${signed(restRows - restMinus, restMinus)}`;
        } else if (restRows > 0) text += ` (${plural(restRows, family.rowNoun)})`;
      }
    }
    const keys2 = this._keys2;
    if (family.key2Noun !== "" && keys2.keys.length > 0) {
      const order = keys2.keys.map((_, i) => i).sort((a, b) =>
        keys2.counts[b] - keys2.counts[a] || a - b
      );
      const { listed } = list(
        keys2,
        order,
        `; by ${family.key2Noun}: `,
        (i) => `${latin1Key(keys2.keys[i])} ${formatCount(keys2.counts[i])}`,
      );
      const over = keys2.otherKeysExact ? "" : "over ";
      const rest = keys2.distinct - listed;
      if (rest > 0) text += ` · ${over}${plural(rest, "more " + family.key2Noun)}`;
    }
    return text + "]";
  }
}

/** `1 word` or `N words`, the count grouped (`1,204 matches`). */
function plural(n: number, word: string): string {
  return n === 1 ? `1 ${word}` : `${formatCount(n)} ${pluralOf(word)}`;
}

/** The plural of a noun phrase's last word: `entries`, `matches`, `changed lines`. */
function pluralOf(word: string): string {
  const last = word.split(" ").pop()!;
  return last.endsWith("y") && !last.endsWith("ey")
    ? word.slice(0, -1) + "ies"
    : last.endsWith("ch") || last.endsWith("s")
    ? word + "es"
    : word + "s";
}

/** A key's bytes as text, invalid UTF-8 replaced. */
function latin1Key(key: Uint8Array): string {
  return new TextDecoder().decode(key);
}

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

function writeEnding(out: Uint8Array, at: number, ending: LineEnding): number {
  if (ending === LINE_END_CRLF) {
    out[at] = 13;
    out[at + 1] = 10;
    return 2;
  }
  out[at] = 10;
  return 1;
}

/** The records of `stores` as `[store, slot]` pairs, in input order. */
function inOrder(stores: readonly RecordStore[]): [RecordStore, number][] {
  const all: [RecordStore, number][] = [];
  for (const store of stores) for (let s = 0; s < store.size; s++) all.push([store, s]);
  return all.sort((a, b) => a[0].index[a[1]] - b[0].index[b[1]]);
}

function copyStore(from: RecordStore, to: RecordStore): void {
  for (let s = 0; s < from.size; s++) {
    const off = from.offset[s];
    to.add(
      from.bytes,
      off,
      off + from.length[s],
      from.ending[s],
      from.cut[s],
      from.index[s],
      from.tag[s],
    );
  }
}
