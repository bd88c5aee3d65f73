/**
 * Where a chunk may hold evidence words: a native regular-expression
 * search of the chunk for every word of `MARKER_WORDS` and
 * `FOLDED_FORM_WORDS` (`evidence.ts`) in any case and of
 * `EXACT_FORM_WORDS` as written, anywhere (not only at word starts), so
 * that a line with none of them is classified without a scan of its own
 * bytes (`classifyUnmarkedLine`); a family's own words (`Family.words`)
 * can join the search, so its parser can skip its own scan too. The chunk
 * is decoded one UTF-16 unit per byte (as UTF-8 when that gives as many
 * units as bytes, as for ASCII, else as windows-1252), so string offsets
 * are byte offsets and an ASCII letter is the same byte in both, a window of
 * {@link WINDOW_BYTES} at a time (each window reaches {@link OVERLAP_BYTES}
 * into the next, so a word across a window edge is found whole). The last
 * byte of every match is recorded. A word holds no line break, so a match
 * lies in one line, and an occurrence a match swallows or overlaps lies in
 * that match's line: every line that holds a word holds a recorded byte.
 *
 * Bound: at most {@link MAX_CANDIDATES} positions per chunk; past that the
 * rest of the chunk counts as candidates everywhere ({@link
 * WordCandidates.hasCandidate} answers true), so the state never grows with
 * the chunk.
 *
 * @module
 */
import { EXACT_FORM_WORDS, FOLDED_FORM_WORDS, MARKER_WORDS } from "./evidence.ts";

/** Positions recorded per chunk at most. */
export const MAX_CANDIDATES = 4096;
/** Bytes decoded and searched at a time. */
const WINDOW_BYTES = 16384;

/** Bytes a window reaches into the next: the longest word's length less one (at least). */
const OVERLAP_BYTES = 31;
/** Compiled searches by their words. */
const PATTERNS = new Map<string, RegExp>();

/**
 * The search for marker words and `extra` in any case and, with `forms`,
 * the screen's folded words in any case and its exact words as written,
 * each set as a prefix trie ({@link trieAlternation}).
 */
function patternFor(extra: readonly string[], forms: boolean): RegExp {
  const key = `${forms}|${extra.join("|")}`;
  let pattern = PATTERNS.get(key);
  if (pattern === undefined) {
    const folded = [...MARKER_WORDS, ...(forms ? FOLDED_FORM_WORDS : []), ...extra];
    const exact = forms ? `|(?-i:${trieAlternation(EXACT_FORM_WORDS)})` : "";
    pattern = new RegExp(
      `${trieAlternation(folded.map((word) => word.toLowerCase()))}${exact}`,
      "gi",
    );
    PATTERNS.set(key, pattern);
  }
  return pattern;
}

/**
 * `words` (non-empty, compared as written) as an alternation shaped like their prefix
 * trie, `e(?:rror|xception)|fail|…`; a word that another one starts with
 * stands for both (a line that holds `failed` holds `fail`). Measured on the
 * typed bench's 16 KiB test, diff and list windows, V8 runs it at 573–813
 * MB/s where the flat `(?i:error|fail|…)|run|…` list ran at 498–569.
 */
export function trieAlternation(words: readonly string[]): string {
  return trieBranches(words).join("|");
}

/** The branches of {@link trieAlternation}, one per leading character, in code-unit order. */
function trieBranches(words: readonly string[]): string[] {
  const byLead = new Map<string, string[]>();
  for (const word of new Set(words)) {
    const rests = byLead.get(word[0]);
    if (rests === undefined) byLead.set(word[0], [word.slice(1)]);
    else rests.push(word.slice(1));
  }
  return [...byLead.keys()].sort().map((lead) => {
    const rests = byLead.get(lead)!;
    const head = /\w/.test(lead) ? lead : RegExp.escape(lead); // RegExp.escape hexes a letter
    if (rests.includes("")) return head;
    const inner = trieBranches(rests);
    return inner.length === 1 ? head + inner[0] : `${head}(?:${inner.join("|")})`;
  });
}

const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder();

/** The word positions of the last chunk searched, read in line order. */
export class WordCandidates {
  private readonly _pattern: RegExp;
  private readonly _at = new Int32Array(MAX_CANDIDATES);
  private _count = 0;
  private _next = 0;
  /** Offset from which every position counts as a candidate (past the bound), or the chunk's length. */
  private _saturated = 0;

  /**
   * Searches for the marker words, `extra` (printable ASCII words, any case,
   * at most 32 bytes) and, with `forms`, the screen's words; without them a
   * line with no candidate may still hold a form word.
   */
  constructor(extra: readonly string[] = [], forms = true) {
    if (extra.some((w) => w.length > OVERLAP_BYTES + 1 || !/^[\x20-\x7e]+$/.test(w))) {
      throw new RangeError("extra words are printable ASCII of at most 32 bytes");
    }
    this._pattern = patternFor(extra, forms);
  }

  /** Bytes retained. */
  retainedBytes(): number {
    return this._at.byteLength;
  }

  /** Searches `chunk`; the lines asked about next must lie in it, in order. */
  search(chunk: Uint8Array): void {
    let count = 0;
    let last = -1;
    let ascii = true;
    this._saturated = chunk.length;
    const pattern = this._pattern;
    search: for (let from = 0; from < chunk.length; from += WINDOW_BYTES) {
      const stop = Math.min(chunk.length, from + WINDOW_BYTES + OVERLAP_BYTES);
      const window = chunk.subarray(from, stop);
      // UTF-8 decodes ASCII fastest, and a text as long as its bytes is one unit per byte there
      // too; after a window that is not, the rest of the chunk goes to windows-1252 at once.
      let text = ascii ? utf8.decode(window) : latin1.decode(window);
      if (ascii && text.length !== window.length) {
        ascii = false;
        text = latin1.decode(window);
      }
      pattern.lastIndex = 0;
      while (pattern.test(text)) {
        // The match's last byte: inside the word, so inside its line.
        const at = from + pattern.lastIndex - 1;
        if (at <= last) continue; // found again by the window before (or overlapping it)
        if (count === MAX_CANDIDATES) {
          this._saturated = at;
          break search;
        }
        this._at[count++] = at;
        last = at;
      }
    }
    this._count = count;
    this._next = 0;
  }

  /** True when a word may lie in `[start, end)` of the chunk searched last (ranges asked in order). */
  hasCandidate(start: number, end: number): boolean {
    if (end > this._saturated) return true;
    let next = this._next;
    while (next < this._count && this._at[next] < start) next++;
    this._next = next;
    return next < this._count && this._at[next] < end;
  }
}
