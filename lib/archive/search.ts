/**
 * `yarp search`: full-text search over archived calls with FTS5. The index
 * (`search_index.ts`, its own file) holds each call's command text and a
 * bounded sample of its output (see `searchSample` in `commit.ts`): every
 * byte of streams up to 128 KiB, the first and last 64 KiB of longer ones.
 * A search first indexes every call still pending, when it can write (the
 * commit paths never index, so that tokenising stays out of `yarp run` and
 * `yarp result-reduce`; one search after N new calls pays for N). Results
 * come newest first, which FTS5 serves by walking its index backwards, so
 * cost does not depend on how many calls match.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { indexPendingCalls, openSearchIndex } from "./search_index.ts";
import { queryPhrases, snippetAround } from "./snippet.ts";

/** One search result. */
export interface SearchHit {
  readonly id: string;
  readonly createdMs: number;
  readonly command: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** A short excerpt around the match, matched terms between `«` and `»`. */
  readonly snippet: string;
}

/** Most results one search returns. */
export const MAX_SEARCH_LIMIT = 1000;

/**
 * The FTS5 query for free text: each whitespace-separated word becomes a
 * quoted phrase (so no character is FTS syntax) and all must match.
 * Undefined when `text` has no word.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { ftsQuery } from "./search.ts";
 * equal(ftsQuery('error "x" foo.ts'), '"error" """x""" "foo.ts"');
 * equal(ftsQuery("   "), undefined);
 * ```
 */
export function ftsQuery(text: string): string | undefined {
  const words = text.split(/\s+/).filter((word) => word !== "");
  if (words.length === 0) return undefined;
  return words.map((word) => `"${word.replaceAll('"', '""')}"`).join(" ");
}

/**
 * The newest calls (at most `limit`, 1 to {@link MAX_SEARCH_LIMIT}) whose
 * command or indexed output contains every word of `text`, with snippets.
 * A query with no word gives no hits. FTS5 picks the calls; each snippet is
 * cut from the call's indexed output (else its command) by
 * {@link snippetAround}, in time linear in the text, one row at a time.
 */
export function searchCalls(db: DatabaseSync, text: string, limit: number): SearchHit[] {
  const query = ftsQuery(text);
  if (query === undefined) return [];
  indexPendingCalls(db);
  const index = openSearchIndex(db, "read");
  if (index === undefined) return [];
  const phrases = queryPhrases(text);
  const wanted = Math.max(1, Math.min(MAX_SEARCH_LIMIT, Math.trunc(limit)));
  const facts = db.prepare(
    "SELECT id, created_ms, command, exit_code, signal FROM calls WHERE seq = ?",
  );
  const hits: SearchHit[] = [];
  try {
    const rows = index.prepare(
      `SELECT rowid AS seq, command AS indexed_command, output AS indexed_output
         FROM call_text WHERE call_text MATCH ? ORDER BY rowid DESC`,
    ).iterate(query) as IterableIterator<{
      seq: number;
      indexed_command: string;
      indexed_output: string;
    }>;
    for (const row of rows) {
      const call = facts.get(row.seq) as {
        id: string;
        created_ms: number;
        command: string;
        exit_code: number | null;
        signal: string | null;
      } | undefined;
      if (call === undefined) continue; // left the archive; its index row goes later
      const snippet = snippetAround(row.indexed_output, phrases) ??
        snippetAround(row.indexed_command, phrases) ?? "";
      hits.push({
        id: call.id,
        createdMs: call.created_ms,
        command: call.command,
        exitCode: call.exit_code,
        signal: call.signal,
        snippet: snippet.replace(/\s+/g, " ").trim(),
      });
      if (hits.length >= wanted) {
        rows.return?.();
        break;
      }
    }
  } finally {
    index.close();
  }
  return hits;
}
