/**
 * `yarp search`: full-text search over archived calls with FTS5. The index
 * holds each call's command text and a bounded sample of its output (see
 * `searchSample` in `commit.ts`): every byte of streams up to 128 KiB, the
 * first and last 64 KiB of longer ones. Results come newest first, which
 * FTS5 serves by walking its index backwards, so cost does not depend on
 * how many calls match.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
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
  const phrases = queryPhrases(text);
  const rows = db.prepare(
    `SELECT c.id, c.created_ms, c.command, c.exit_code, c.signal,
            call_text.command AS indexed_command, call_text.output AS indexed_output
       FROM call_text JOIN calls c ON c.seq = call_text.rowid
      WHERE call_text MATCH ?
      ORDER BY call_text.rowid DESC
      LIMIT ?`,
  ).iterate(query, Math.max(1, Math.min(MAX_SEARCH_LIMIT, Math.trunc(limit)))) as Iterable<{
    id: string;
    created_ms: number;
    command: string;
    exit_code: number | null;
    signal: string | null;
    indexed_command: string;
    indexed_output: string;
  }>;
  const hits: SearchHit[] = [];
  for (const row of rows) {
    const snippet = snippetAround(row.indexed_output, phrases) ??
      snippetAround(row.indexed_command, phrases) ?? "";
    hits.push({
      id: row.id,
      createdMs: row.created_ms,
      command: row.command,
      exitCode: row.exit_code,
      signal: row.signal,
      snippet: snippet.replace(/\s+/g, " ").trim(),
    });
  }
  return hits;
}
