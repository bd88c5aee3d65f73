/**
 * Search snippets in linear time. FTS5's own `snippet()` scores a window at
 * every instance of a term against every other instance, so its cost grows
 * with the square of a term's count in a row: `yarp search error` over ten
 * 128 KiB logs that say "error" on every line took three seconds. FTS5
 * still decides which calls match; this module only finds, in a matching
 * call's indexed text, the first place a query phrase occurs (one native
 * regular-expression pass) and cuts a short excerpt around it.
 *
 * Tokens follow the archive's tokenizer (`unicode61 remove_diacritics 2`):
 * runs of letters, digits and private-use characters, compared without case
 * or diacritics. The excerpt is cut from the text in canonical decomposed
 * form (NFD), which displays the same; a character that this folding treats
 * differently from SQLite only changes which excerpt is shown, never which
 * calls match.
 *
 * @module
 */

/** A query phrase as folded tokens: `src/main.rs` is `["src", "main", "rs"]`. */
export type Phrase = readonly string[];

/** Tokens in an excerpt: the budget FTS5 `snippet(…, 12)` had. */
export const SNIPPET_TOKENS = 12;

/** Characters scanned back from an occurrence for the tokens that precede it. */
const LOOKBACK_CHARS = 1024;

/** Longest token or gap shown whole; longer ones keep their two ends around `…`. */
export const SNIPPET_PIECE_CHARS = 40;

/**
 * How tokens are recognised in a text. ASCII text gets plain classes: the
 * Unicode property classes cost milliseconds to compile, once per process,
 * and `yarp search` is one short process.
 */
interface Alphabet {
  /** A regular-expression class body for a token's characters. */
  readonly tokenChars: string;
  /** A class body for what may follow inside a token (combining marks too). */
  readonly innerChars: string;
  /** What may follow each character of a query token in the text. */
  readonly markSuffix: string;
  readonly flags: "" | "u";
}

const ASCII_ALPHABET: Alphabet = {
  tokenChars: "A-Za-z0-9",
  innerChars: "A-Za-z0-9",
  markSuffix: "",
  flags: "",
};
const UNICODE_ALPHABET: Alphabet = {
  tokenChars: String.raw`\p{L}\p{N}\p{Co}`,
  innerChars: String.raw`\p{L}\p{N}\p{Co}\p{M}`,
  markSuffix: String.raw`\p{M}*`,
  flags: "u",
};
// deno-lint-ignore no-control-regex -- the whole ASCII range, controls included, is the point
const ASCII_TEXT = /^[\x00-\x7f]*$/;
let combiningMarks: RegExp | undefined;

function alphabetOf(text: string): Alphabet {
  return ASCII_TEXT.test(text) ? ASCII_ALPHABET : UNICODE_ALPHABET;
}

/** A fresh global token pattern of `alphabet` (callers move its `lastIndex`). */
function tokenPattern(alphabet: Alphabet): RegExp {
  return new RegExp(`[${alphabet.tokenChars}][${alphabet.innerChars}]*`, `g${alphabet.flags}`);
}

/** A token folded as the tokenizer folds it: lower case, diacritics removed. */
export function foldToken(token: string): string {
  if (ASCII_TEXT.test(token)) return token.toLowerCase();
  combiningMarks ??= /\p{M}/gu;
  return token.normalize("NFD").replace(combiningMarks, "").toLowerCase();
}

/**
 * The phrases of a free-text query, one per whitespace-separated word, each
 * split into folded tokens; words without a token are left out.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { queryPhrases } from "./snippet.ts";
 * deepEqual(queryPhrases("Café src/main.rs --"), [["cafe"], ["src", "main", "rs"]]);
 * ```
 */
export function queryPhrases(text: string): Phrase[] {
  const phrases: Phrase[] = [];
  for (const word of text.split(/\s+/)) {
    const alphabet = alphabetOf(word);
    const decomposed = alphabet === ASCII_ALPHABET ? word : word.normalize("NFD");
    const tokens = Array.from(decomposed.matchAll(tokenPattern(alphabet)), (m) => foldToken(m[0]));
    if (tokens.length > 0) phrases.push(tokens);
  }
  return phrases;
}

/**
 * A folded query token as a pattern: its characters (letters and digits,
 * never special in a pattern), each followed by the alphabet's optional marks.
 */
function queryTokenPattern(token: string, alphabet: Alphabet): string {
  return alphabet.markSuffix === ""
    ? token
    : Array.from(token, (char) => char + alphabet.markSuffix).join("");
}

/** The patterns built for each query's phrases, per alphabet (a search reuses one phrase list). */
const phrasePatterns = new WeakMap<readonly Phrase[], Map<Alphabet, RegExp>>();

/**
 * One pattern finding any phrase, case-insensitive; group `i + 1` is phrase
 * `i`. Built once per phrase list and alphabet: it has no `g` flag, so it
 * keeps no state between texts.
 */
function phrasesPattern(phrases: readonly Phrase[], alphabet: Alphabet): RegExp {
  let byAlphabet = phrasePatterns.get(phrases);
  if (byAlphabet === undefined) phrasePatterns.set(phrases, byAlphabet = new Map());
  let pattern = byAlphabet.get(alphabet);
  if (pattern === undefined) {
    const separator = `[^${alphabet.innerChars}]+`;
    const alternatives = phrases.map((phrase) =>
      `(${phrase.map((token) => queryTokenPattern(token, alphabet)).join(separator)})`
    );
    pattern = new RegExp(
      `(?<![${alphabet.innerChars}])(?:${alternatives.join("|")})(?![${alphabet.innerChars}])`,
      `i${alphabet.flags}`,
    );
    byAlphabet.set(alphabet, pattern);
  }
  return pattern;
}

interface Token {
  readonly start: number;
  readonly end: number;
  readonly folded: string;
}

/** The tokens of `text` from offset `from`, at most `limit` of them, and whether more follow. */
function tokensFrom(
  text: string,
  alphabet: Alphabet,
  from: number,
  limit: number,
): { tokens: Token[]; more: boolean } {
  const pattern = tokenPattern(alphabet);
  pattern.lastIndex = from;
  const tokens: Token[] = [];
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (tokens.length === limit) return { tokens, more: true };
    tokens.push({ start: match.index, end: pattern.lastIndex, folded: foldToken(match[0]) });
  }
  return { tokens, more: false };
}

/**
 * An excerpt of at most `maxTokens` tokens of `text` around the first
 * occurrence of any of `phrases`, with the phrase occurrences inside it
 * between `«` and `»` and `…` where text was cut (also inside a token or
 * gap longer than {@link SNIPPET_PIECE_CHARS}); `undefined` when no phrase
 * occurs. One regular-expression pass up to the first occurrence,
 * then a bounded look around it: linear in the text, whatever the number
 * of occurrences.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { snippetAround } from "./snippet.ts";
 * equal(snippetAround("a b c d e f g h", [["e"]], 4), "…d «e» f g…");
 * equal(snippetAround("Le Café", [["cafe"]]), "Le «Cafe\u0301»");
 * ```
 */
export function snippetAround(
  text: string,
  phrases: readonly Phrase[],
  maxTokens = SNIPPET_TOKENS,
): string | undefined {
  if (phrases.length === 0 || maxTokens < 1) return undefined;
  const alphabet = alphabetOf(text);
  const decomposed = alphabet === ASCII_ALPHABET ? text : text.normalize("NFD");
  const found = phrasesPattern(phrases, alphabet).exec(decomposed);
  if (found === null) return undefined;
  const phraseLength = phrases[found.slice(1).findIndex((group) => group !== undefined)].length;
  const wanted = Math.max(0, Math.floor((maxTokens - phraseLength) / 2));
  const lookFrom = Math.max(0, found.index - LOOKBACK_CHARS);
  const preceding = tokensFrom(decomposed.slice(0, found.index), alphabet, lookFrom, Infinity)
    .tokens;
  const before = preceding.slice(Math.max(0, preceding.length - wanted));
  const after = tokensFrom(decomposed, alphabet, found.index, maxTokens - before.length);
  const window = [...before, ...after.tokens];
  const cutBefore = before.length < preceding.length || lookFrom > 0;
  return (cutBefore ? "…" : "") + markPhrases(decomposed, window, phrases) +
    (after.more ? "…" : "");
}

/** The length of the longest phrase that ends at `tokens[last]`, or 0. */
function phraseEndingAt(
  tokens: readonly Token[],
  last: number,
  phrases: readonly Phrase[],
): number {
  let longest = 0;
  for (const phrase of phrases) {
    if (phrase.length <= longest || phrase.length > last + 1) continue;
    let matches = true;
    for (let offset = 0; offset < phrase.length && matches; offset += 1) {
      matches = tokens[last - offset].folded === phrase[phrase.length - 1 - offset];
    }
    if (matches) longest = phrase.length;
  }
  return longest;
}

/** The text from the window's first token to its last, phrase occurrences between « and ». */
function markPhrases(text: string, window: readonly Token[], phrases: readonly Phrase[]): string {
  // Marked token ranges [first, last], merged where occurrences overlap.
  const ranges: [number, number][] = [];
  for (let last = 0; last < window.length; last += 1) {
    const length = phraseEndingAt(window, last, phrases);
    if (length === 0) continue;
    const first = last - length + 1;
    const previous = ranges.at(-1);
    if (previous !== undefined && first <= previous[1]) previous[1] = last;
    else ranges.push([first, last]);
  }
  let excerpt = "";
  let range = 0;
  for (let index = 0; index < window.length; index += 1) {
    const token = window[index];
    if (index > 0) excerpt += clip(text.slice(window[index - 1].end, token.start));
    if (ranges[range]?.[0] === index) excerpt += "«";
    excerpt += clip(text.slice(token.start, token.end));
    if (ranges[range]?.[1] === index) {
      excerpt += "»";
      range += 1;
    }
  }
  return excerpt;
}

/** `piece`, or its two ends around `…` when longer than {@link SNIPPET_PIECE_CHARS} code points. */
function clip(piece: string): string {
  if (piece.length <= SNIPPET_PIECE_CHARS) return piece;
  const points = Array.from(piece);
  if (points.length <= SNIPPET_PIECE_CHARS) return piece;
  const half = SNIPPET_PIECE_CHARS / 2;
  return `${points.slice(0, half).join("")}…${points.slice(-half).join("")}`;
}
