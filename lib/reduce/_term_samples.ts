/**
 * One sample line for every source term (evidence class 3 of the typed
 * engine, `typed.ts`): the first row that holds each term of a
 * {@link SourceTerms}, compared as bytes (UTF-8 terms, ASCII case folded
 * when the command ignores case). A row is searched only for the terms
 * that have no sample yet; once every term has a sample, nothing is
 * searched at all. A line that holds several unsampled terms is one sample
 * for each of them.
 *
 * Rows of the chunk being pushed are not scanned byte by byte: the chunk,
 * decoded one UTF-16 unit per byte (`byteText`, so string offsets are byte
 * offsets), is searched natively for each missing term's next
 * occurrence (`indexOf`, or when folded a regular expression with `i`, whose
 * hits are confirmed on the bytes since `i` folds more than ASCII), and a row
 * holds the term when that occurrence lies inside it; rows advance, so each
 * term is searched about once per occurrence. Other rows (ANSI-stripped
 * content, a line across chunks) are scanned in one pass through a table of
 * the missing terms' first bytes.
 *
 * Memory: at most `MAX_TERMS` records of `ROW_BYTES` and the terms
 * (`TERM_SAMPLES_BYTES`, `typed_budget.ts`); while a chunk is pushed, its
 * decoded text too (dropped by {@link TermSamples.forget}); nothing grows
 * with the input.
 *
 * @module
 */
import { byteText, type LineEnding } from "../bytes/mod.ts";
import { foldedEqual } from "./kinds/family.ts";
import { RecordStore } from "./_records.ts";
import { MAX_TERMS, type SourceTerms } from "./source_terms.ts";
import { ROW_BYTES } from "./typed_budget.ts";

const encoder = new TextEncoder();
const windows1252 = new TextDecoder("latin1");

/** The first row holding each term, kept in a bounded store. */
export class TermSamples {
  /** The sample records; {@link slot} says which one belongs to a term. */
  readonly store = new RecordStore(MAX_TERMS * ROW_BYTES, MAX_TERMS, ROW_BYTES);
  /** The terms as bytes (lower-case ASCII when folded), at most `MAX_TERMS`. */
  private readonly _terms: Uint8Array[];
  private readonly _fold: boolean;
  /** Per term: its sample's slot in {@link store}, or -1. */
  private readonly _slots: Int32Array;
  /** Per byte value: the terms without a sample that start with it (either case when folded). */
  private readonly _lead = new Uint16Array(256);
  private _missing: number;
  /** Per term: its text (one unit per byte), and when folded its case-insensitive search. */
  private readonly _needles: string[];
  private readonly _patterns: RegExp[];
  /** The chunk being pushed, and its text; null and "" between pushes or when nothing is missing. */
  private _source: Uint8Array | null = null;
  private _text = "";
  /** Per term: its next confirmed occurrence in {@link _source} at or after the last row's start, the chunk's length when none, or -1 before the first search. */
  private readonly _next: Int32Array;
  /** The least end of a missing term's {@link _next} occurrence: a chunk row ending before it holds none. */
  private _due = 0;

  /** Samples for `terms` (its first `MAX_TERMS` non-empty ones). */
  constructor(terms: SourceTerms) {
    this._fold = terms.ignoreCase;
    this._terms = terms.terms.filter((term) => term !== "").slice(0, MAX_TERMS).map((term) => {
      const bytes = encoder.encode(term);
      if (this._fold) { for (let i = 0; i < bytes.length; i++) bytes[i] = lowerAscii(bytes[i]); }
      return bytes;
    });
    this._slots = new Int32Array(this._terms.length).fill(-1);
    this._next = new Int32Array(this._terms.length);
    this._needles = this._terms.map((term) => windows1252.decode(term));
    this._patterns = this._fold
      ? this._needles.map((needle) => new RegExp(RegExp.escape(needle), "gi"))
      : [];
    this._missing = this._terms.length;
    this._setLeads();
  }

  /** How many terms there are. */
  get size(): number {
    return this._terms.length;
  }

  /** The slot in {@link store} of term `term`'s sample, or -1 when no row held it. */
  slot(term: number): number {
    return this._slots[term];
  }

  /** Prepares the search of the rows of `chunk`, the chunk being pushed (its bytes must not change until {@link forget}). */
  search(chunk: Uint8Array): void {
    if (this._missing === 0) return;
    this._source = chunk;
    this._text = byteText(chunk);
    this._next.fill(-1);
    this._due = 0;
  }

  /** Drops the chunk of {@link search}. */
  forget(): void {
    this._source = null;
    this._text = "";
  }

  /**
   * Keeps the row `line[start, end)` as the sample of every term without
   * one that it holds (see {@link RecordStore.add} for the arguments).
   */
  offer(
    line: Uint8Array,
    start: number,
    end: number,
    ending: LineEnding,
    dropped: number,
    index: number,
  ): void {
    if (this._missing === 0 || (line === this._source && end < this._due)) return;
    const found = line === this._source
      ? this._findInChunk(start, end)
      : this._find(line, start, end);
    if (found === 0) return;
    const slot = this.store.size;
    if (!this.store.add(line, start, end, ending, dropped, index, 0)) return;
    for (let t = 0; t < this._terms.length; t++) {
      if ((found & (1 << t)) !== 0) {
        this._slots[t] = slot;
        this._missing--;
      }
    }
    this._setLeads();
  }

  /** Bytes retained: the store's and the fixed tables'. */
  retainedBytes(): number {
    let bytes = this.store.retainedBytes() + this._lead.byteLength + this._slots.byteLength;
    for (const term of this._terms) bytes += term.byteLength;
    return bytes;
  }

  /** The terms without a sample that the chunk's row `[start, end)` holds, as a bit mask. */
  private _findInChunk(start: number, end: number): number {
    let found = 0;
    let due = Number.MAX_SAFE_INTEGER;
    for (let t = 0; t < this._terms.length; t++) {
      if (this._slots[t] >= 0) continue;
      let at = this._next[t];
      if (at < start) {
        at = this._seek(t, start);
        this._next[t] = at;
      }
      const atEnd = at + this._terms[t].length;
      if (atEnd <= end) found |= 1 << t;
      else due = Math.min(due, atEnd);
    }
    this._due = due;
    return found;
  }

  /** The first confirmed occurrence of term `t` in the chunk at or after `from`, or the chunk's length. */
  private _seek(t: number, from: number): number {
    const source = this._source!;
    for (;;) {
      const at = this._locate(t, from);
      if (at < 0) return source.length;
      if (this._holdsAt(this._terms[t], source, at, source.length)) return at;
      from = at + 1;
    }
  }

  /** The next place at or after `from` where the chunk's text may hold term `t`, or -1. */
  private _locate(t: number, from: number): number {
    if (!this._fold) return this._text.indexOf(this._needles[t], from);
    const pattern = this._patterns[t];
    pattern.lastIndex = from;
    return pattern.exec(this._text)?.index ?? -1;
  }

  /** The terms without a sample that `line[start, end)` holds, as a bit mask. */
  private _find(line: Uint8Array, start: number, end: number): number {
    const lead = this._lead;
    let found = 0;
    for (let i = start; i < end; i++) {
      let candidates = lead[line[i]] & ~found;
      while (candidates !== 0) {
        const t = 31 - Math.clz32(candidates & -candidates);
        candidates &= candidates - 1;
        if (this._holdsAt(this._terms[t], line, i, end, 1)) found |= 1 << t;
      }
    }
    return found;
  }

  /** True when `term` occurs in `line` at `at` (before `end`; its first byte is not compared when `from` is 1). */
  private _holdsAt(
    term: Uint8Array,
    line: Uint8Array,
    at: number,
    end: number,
    from = 0,
  ): boolean {
    if (end - at < term.length) return false;
    if (this._fold) {
      for (let k = from; k < term.length; k++) {
        if (!foldedEqual(line[at + k], term[k])) return false;
      }
    } else {
      for (let k = from; k < term.length; k++) if (line[at + k] !== term[k]) return false;
    }
    return true;
  }

  /** Rebuilds {@link _lead} from the terms without a sample. */
  private _setLeads(): void {
    this._lead.fill(0);
    for (let t = 0; t < this._terms.length; t++) {
      if (this._slots[t] >= 0) continue;
      const first = this._terms[t][0];
      this._lead[first] |= 1 << t;
      if (this._fold && first >= 0x61 && first <= 0x7a) this._lead[first - 0x20] |= 1 << t;
    }
  }
}

function lowerAscii(b: number): number {
  return b >= 0x41 && b <= 0x5a ? b + 0x20 : b;
}
