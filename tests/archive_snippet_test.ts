/** Search snippets: linear, bounded excerpts that agree with the FTS5 tokenizer on what matches. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import fc from "fast-check";
import {
  foldToken,
  queryPhrases,
  SNIPPET_PIECE_CHARS,
  SNIPPET_TOKENS,
  snippetAround,
} from "../lib/archive/snippet.ts";

/** The most code points an excerpt can hold: clipped tokens and gaps, markers, two ellipses. */
const MAX_SNIPPET_CODE_POINTS = (2 * SNIPPET_TOKENS - 1) * (SNIPPET_PIECE_CHARS + 1) +
  2 * SNIPPET_TOKENS + 2;

Deno.test("the excerpt centres the first occurrence and marks every occurrence in it", () => {
  const text = "one two three four five six seven eight nine ten eleven twelve thirteen " +
    "fourteen error fifteen error sixteen seventeen eighteen nineteen twenty";
  assert.equal(
    snippetAround(text, queryPhrases("ERROR")),
    "…ten eleven twelve thirteen fourteen «error» fifteen «error» sixteen seventeen eighteen nineteen…",
  );
  assert.equal(snippetAround("error at start", queryPhrases("error")), "«error» at start");
  assert.equal(snippetAround("no match here", queryPhrases("error")), undefined);
  assert.equal(snippetAround("errors and terror", queryPhrases("error")), undefined);
  assert.equal(snippetAround("anything", []), undefined);
});

Deno.test("phrases match token runs across any separators, case and diacritics folded", () => {
  assert.equal(
    snippetAround("at src/main.rs:10 failed", queryPhrases("src/main.rs")),
    "at «src/main.rs»:10 failed",
  );
  assert.equal(snippetAround("SRC -- MAIN rs", queryPhrases("src/main.rs")), "«SRC -- MAIN rs»");
  assert.equal(snippetAround("le Café", queryPhrases("cafe")), "le «Cafe\u0301»");
  assert.equal(snippetAround("le cafe", queryPhrases("CAFÉ")), "le «cafe»");
  assert.equal(foldToken("ÉTÉ"), "ete");
  assert.deepEqual(queryPhrases("  a-b  --  c "), [["a", "b"], ["c"]]);
});

Deno.test("long tokens and gaps are clipped to their two ends", () => {
  const text = `${"x".repeat(5000)} ${"-".repeat(300)} hit ${"y".repeat(60)}`;
  const snippet = snippetAround(text, queryPhrases("hit"))!;
  assert.match(snippet, /^…x{20}…x{20} -{19}…-{19} «hit» y{20}…y{20}$/);
});

Deno.test("property: never throws, stays bounded, and marks only query tokens", () => {
  const word = fc.stringMatching(/^[A-Za-zÀ-ÿ0-9_]{1,12}$/);
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), fc.array(word, { maxLength: 3 }), (
      text,
      words,
    ) => {
      const phrases = queryPhrases(words.join(" "));
      const snippet = snippetAround(text, phrases);
      if (snippet === undefined) return;
      assert.ok(Array.from(snippet).length <= MAX_SNIPPET_CODE_POINTS);
      const folded = new Set(phrases.flat());
      for (const [, marked] of snippet.matchAll(/«([^»]*)»/g)) {
        for (const token of queryPhrases(marked).flat()) assert.ok(folded.has(token), token);
      }
    }),
  );
});

Deno.test("property: whenever FTS5 matches a row, the snippet finds an occurrence in it", () => {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')");
  const insert = db.prepare("INSERT INTO t(body) VALUES (?)");
  // One row at a time: FTS5 answers `rowid = ? AND t MATCH ?` from the rowid alone.
  const matches = db.prepare("SELECT count(*) AS n FROM t WHERE t MATCH ?");
  const vocabulary = ["error", "Error", "ÉRROR", "érror", "ok", "test", "src", "main", "rs", "42"];
  const piece = fc.oneof(
    fc.constantFrom(...vocabulary),
    fc.constantFrom(" ", "\n", "::", "/", ".", " ... ", "✓ ", "—"),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 60 }), fc.constantFrom(...vocabulary), (
      pieces,
      query,
    ) => {
      const body = pieces.join("");
      db.exec("DELETE FROM t");
      insert.run(body);
      const fts = (matches.get(`"${query}"`) as { n: number }).n === 1;
      assert.equal(snippetAround(body, queryPhrases(query)) !== undefined, fts, body);
    }),
    { numRuns: 300 },
  );
  db.close();
});

Deno.test("a term on every line of a large text gives the excerpt at its first occurrence", () => {
  const line = "test tests::case ... ok\n";
  const text = line.repeat(20_000); // 480 KB, 40,000 occurrences of each term
  const snippet = snippetAround(text, queryPhrases("ok"))!;
  assert.match(snippet, /«ok»/);
  // Not a timing assertion: the excerpt is cut from the first lines only.
  assert.ok(snippet.startsWith("test tests::case ... «ok»"));
});
