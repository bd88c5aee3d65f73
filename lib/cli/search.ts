/**
 * `yarp search QUERY... [--limit N] [--json]`: finds archived calls whose
 * command or indexed output contains every word of QUERY (FTS5; see
 * docs/archive.md, "Search"), newest first, at most N (default 10, 1 to
 * 1000). Each hit prints `ID  TIME  STATUS  COMMAND` and an indented
 * snippet with the matched words between `«` and `»`; `--json` prints one
 * JSON array. Calls the search could not index first (an index it cannot
 * write) are not searched, and one line on stderr says how many. Exit: 0
 * with hits, 1 with none or on an archive error, 2 for a malformed argument.
 *
 * Archived text (command, snippet) and the echoed query go through
 * `printableText`, the JSON through `printableJson`, so no terminal control
 * sequence from the archive reaches the reader's terminal.
 *
 * @module
 */
import { operands, parseArgs } from "./_args.ts";
import { isoTime, withArchive } from "./_archive.ts";
import type { TextIo } from "./io.ts";
import { printableJson, printableText, quotedArg } from "../base/printable_text.ts";

const USAGE = "usage: yarp search QUERY... [--limit N] [--json]\n";
const DEFAULT_LIMIT = 10;

/** Runs `yarp search` with the arguments after `search`; returns the exit status. */
export async function searchCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  // A query word may start with '-' (`yarp search -Werror`); only '--' names an option.
  const parsed = parseArgs(args, { flags: ["--json"], options: ["--limit"], dashOperands: true });
  if ("error" in parsed) return usageError(io, parsed.error);
  const query = operands(parsed).join(" ");
  if (query.trim() === "") return usageError(io, "missing QUERY");
  const limitText = parsed.values.get("--limit");
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (limitText !== undefined && (!/^\d+$/.test(limitText) || limit < 1 || limit > 1000)) {
    return usageError(
      io,
      `--limit: expected an integer from 1 to 1000, got '${quotedArg(limitText)}'`,
    );
  }
  const { searchCalls } = await import("../archive/search.ts");
  const { unindexedCallCount } = await import("../archive/search_index.ts");
  return await withArchive("search", "read", io, (db) => {
    const hits = searchCalls(db, query, limit);
    const unindexed = unindexedCallCount(db);
    if (unindexed > 0) {
      io.err(
        `yarp search: ${unindexed} archived ${
          unindexed === 1 ? "call is not indexed and was" : "calls are not indexed and were"
        } not searched (the search index could not be written: a read-only or full disk, ` +
          "or another search held it); " +
          `'yarp read ID' still reads every call\n`,
      );
    }
    if (parsed.flags.has("--json")) {
      io.out(
        printableJson(JSON.stringify(hits.map((hit) => ({
          id: hit.id,
          created: new Date(hit.createdMs).toISOString(),
          command: hit.command,
          exit_code: hit.exitCode,
          signal: hit.signal,
          snippet: hit.snippet,
        })))) + "\n",
      );
      return hits.length > 0 ? 0 : 1;
    }
    if (hits.length === 0) {
      io.out(`no archived call matches '${quotedArg(query)}'\n`);
      return 1;
    }
    let text = "";
    for (const hit of hits) {
      const status = hit.signal === null
        ? `exit ${hit.exitCode ?? "?"}`
        : `${hit.signal} (${hit.exitCode})`;
      text += `${hit.id}  ${isoTime(hit.createdMs)}  ${status}  ${
        printableText(hit.command.replace(/\s+/g, " "))
      }\n`;
      if (hit.snippet !== "") text += `    ${printableText(hit.snippet)}\n`;
    }
    io.out(text + `read one exactly with: yarp read ID\n`);
    return 0;
  });
}

function usageError(io: TextIo, message: string): number {
  io.err(`yarp search: ${message}\n`);
  return 2;
}
