/**
 * `yarp corpus import PATH... --output FILE.jsonl.gz [--json]`: turns Pi,
 * Claude Code and Codex session files (files, or directories walked for
 * `*.jsonl`) into one gzip JSONL corpus of shell results (docs/corpus.md,
 * "Import"; the record schema is lib/corpus/record.ts).
 *
 * Prints one line on stderr per input problem (a path that cannot be read,
 * a file of no known format, the lines skipped in a file) and a one-line
 * summary on stderr; `--json` also prints the summary as one JSON object on
 * stdout. Exit: 0 when the output was written (even with skipped lines or
 * unreadable inputs), 1 when it cannot be written, 2 for a malformed
 * argument.
 *
 * @module
 */
import { operands, parseArgs } from "./_args.ts";
import type { TextIo } from "./io.ts";
import type { ImportSummary } from "../corpus/import.ts";

const USAGE = "usage: yarp corpus import PATH... --output FILE.jsonl.gz [--json]\n";

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The human summary line, without newline. */
function summaryLine(summary: ImportSummary): string {
  const perRuntime = Object.entries(summary.records).map(([name, n]) => `${name} ${n}`);
  const total = Object.values(summary.records).reduce((sum, n) => sum + n, 0);
  return `read ${plural(summary.filesRead, "file")}; wrote ${plural(total, "record")} (${
    perRuntime.join(", ")
  }); ${plural(summary.duplicates, "duplicate")} dropped; skipped ${
    plural(summary.skippedLines, "line")
  }; ${plural(summary.orphanCalls, "call")} without result; ${
    plural(summary.unreadableFiles, "path")
  } unreadable; ${plural(summary.unknownFiles, "file")} of unknown format; ${
    plural(summary.alreadyReduced, "result")
  } already reduced`;
}

/** The `--json` summary: snake_case keys, records by runtime name. */
function summaryJson(summary: ImportSummary): string {
  return JSON.stringify({
    files_read: summary.filesRead,
    records: summary.records,
    duplicates: summary.duplicates,
    skipped_lines: summary.skippedLines,
    orphan_calls: summary.orphanCalls,
    unreadable_files: summary.unreadableFiles,
    unknown_files: summary.unknownFiles,
    already_reduced: summary.alreadyReduced,
  });
}

/** Runs `yarp corpus import` with the arguments after `corpus import`; returns the exit status. */
export async function corpusImportCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  const parsed = parseArgs(args, {
    flags: ["--json"],
    options: ["--output"],
    aliases: { "-o": "--output" },
  });
  if ("error" in parsed) return usageError(io, parsed.error);
  const paths = operands(parsed);
  if (paths.length === 0) return usageError(io, "missing PATH");
  if (paths.includes("")) return usageError(io, "empty PATH");
  const output = parsed.values.get("--output");
  if (output === undefined || output === "") return usageError(io, "missing --output FILE");
  const { CorpusOutputError, importSessions } = await import("../corpus/import.ts");
  let summary: ImportSummary;
  try {
    summary = await importSessions(
      paths,
      output,
      (problem) => io.err(`yarp corpus import: ${problem}\n`),
    );
  } catch (error) {
    if (!(error instanceof CorpusOutputError)) throw error;
    io.err(`yarp corpus import: ${error.message}\n`);
    return 1;
  }
  io.err(`yarp corpus import: ${summaryLine(summary)}\n`);
  if (parsed.flags.has("--json")) io.out(summaryJson(summary) + "\n");
  return 0;
}

function usageError(io: TextIo, message: string): number {
  io.err(`yarp corpus import: ${message}\n`);
  return 2;
}
