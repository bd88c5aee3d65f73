/**
 * `yarp corpus import PATH… --output FILE.jsonl.gz` and
 * `yarp corpus analyze FILE… [--json] [--html REPORT.html] [--workers N]`
 * (docs/architecture.md, "Corpus and measurement"; docs/corpus.md).
 *
 * `analyze` replays every record through the production engine and prints
 * aggregates only: the text report (or `--json`, the same figures as one
 * object) on stdout, one line per unreadable file on stderr, a progress bar
 * on stderr when it is a terminal. `--html` also writes a self-contained
 * report page atomically. Exit 0 when at least one file was read, 1 when
 * none could be (then no report is printed or written) or the report cannot
 * be written, 2 for malformed arguments or a config file that does not
 * load. The config's `budgets:` apply to the replay, so a report measures
 * the success budgets a user configured.
 *
 * @module
 */
import { quotedArg } from "../base/printable_text.ts";
import { parseArgs } from "./_args.ts";
import type { TextIo } from "./io.ts";

const USAGE = `usage:
  yarp corpus import PATH... --output FILE.jsonl.gz [--json]
  yarp corpus analyze FILE... [--json] [--html REPORT.html] [--workers N]
`;

/** Parsed `corpus analyze` arguments. */
export interface AnalyzeArgs {
  readonly files: readonly string[];
  readonly json: boolean;
  readonly html: string | undefined;
  readonly workers: number | undefined;
}

/**
 * Parses the arguments after `corpus analyze` with the shared parser; one
 * error line when malformed: at least one file, no empty path, `--workers`
 * an integer from 0 (replay in the main thread) to 64.
 */
export function parseAnalyzeArgs(args: readonly string[]): AnalyzeArgs | { error: string } {
  const parsed = parseArgs(args, { flags: ["--json"], options: ["--html", "--workers"] });
  if ("error" in parsed) return parsed;
  const files = [...parsed.positionals, ...parsed.rest ?? []];
  if (files.length === 0) {
    return {
      error: "name a corpus file: JSON Lines records, gzip allowed " +
        "(`yarp corpus import` makes one; docs/corpus.md)",
    };
  }
  if (files.includes("")) return { error: "empty corpus file path" };
  const html = parsed.values.get("--html");
  if (html === "") return { error: "--html: missing path" };
  const workersText = parsed.values.get("--workers");
  if (workersText !== undefined && (!/^\d{1,2}$/.test(workersText) || Number(workersText) > 64)) {
    return { error: `--workers: expected 0 to 64, got '${quotedArg(workersText)}'` };
  }
  return {
    files,
    json: parsed.flags.has("--json"),
    html,
    workers: workersText === undefined ? undefined : Number(workersText),
  };
}

/** A progress display: `update` redraws at most every 100 ms, `clear` wipes it. */
export interface ProgressBar {
  update(records: number, bytesRead: number, totalBytes: number): void;
  clear(): void;
}

/**
 * A one-line progress bar written to `io.err` with carriage returns (for a
 * terminal): share of the corpus bytes read and records replayed, redrawn
 * at most every 100 ms of `now()`; `clear` blanks the line if anything was
 * drawn.
 */
export function progressBar(io: TextIo, now: () => number = () => performance.now()): ProgressBar {
  let last = -Infinity;
  let drawn = false;
  return {
    update(records, bytesRead, totalBytes) {
      const time = now();
      if (time - last < 100) return;
      last = time;
      const share = totalBytes === 0 ? 1 : Math.min(1, bytesRead / totalBytes);
      const filled = Math.round(share * 30);
      io.err(
        `\r[${"#".repeat(filled)}${" ".repeat(30 - filled)}] ${
          (share * 100).toFixed(0).padStart(3)
        }% ${records} records`,
      );
      drawn = true;
    },
    clear() {
      if (drawn) io.err(`\r${" ".repeat(60)}\r`);
    },
  };
}

async function analyzeCommand(args: string[], io: TextIo): Promise<number> {
  const options = parseAnalyzeArgs(args);
  if ("error" in options) {
    io.err(`yarp corpus analyze: ${options.error}\n`);
    return 2;
  }
  const { loadConfig, processEnv } = await import("../config/mod.ts");
  const loaded = await loadConfig(processEnv);
  if (!loaded.ok) {
    io.err(`yarp corpus analyze: ${loaded.error}\n`);
    return 2;
  }
  const { analyzeCorpus } = await import("../corpus/analyze.ts");
  const { SYNTAX_IDS } = await import("../shell/mod.ts");
  const { formatSummary, summarize } = await import("../corpus/summary.ts");
  const bar = Deno.stderr.isTerminal() ? progressBar(io) : undefined;
  const { tally, unreadable } = await analyzeCorpus({
    files: options.files,
    workers: options.workers,
    budgets: loaded.config.budgets,
    onProgress: bar && ((p) => bar.update(p.records, p.bytesRead, p.totalBytes)),
  });
  bar?.clear();
  for (const { path, reason } of unreadable) {
    io.err(`yarp corpus analyze: ${path}: cannot read: ${reason}\n`);
  }
  // A report of nothing would only hide the errors, and --html would overwrite a real one.
  if (unreadable.length === options.files.length) return 1;
  const summary = summarize(tally, SYNTAX_IDS);
  io.out(options.json ? JSON.stringify(summary, null, 2) + "\n" : formatSummary(summary));
  if (options.html !== undefined) {
    const { renderHtmlReport } = await import("../corpus/html.ts");
    const { writeTextAtomically } = await import("../corpus/output_file.ts");
    const { firstLine } = await import("../base/error_message.ts");
    try {
      await writeTextAtomically(options.html, renderHtmlReport(summary, "YARP corpus report"));
    } catch (error) {
      io.err(`yarp corpus analyze: ${options.html}: cannot write report: ${firstLine(error)}\n`);
      return 1;
    }
  }
  return 0;
}

/** Runs `yarp corpus SUBCOMMAND …`; see the module contract for exit statuses. */
export async function corpusCommand(args: string[], io: TextIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "--help" || sub === "-h") {
    io.out(USAGE);
    return 0;
  }
  if (sub === "analyze") return await analyzeCommand(rest, io);
  if (sub === "import") {
    return await (await import("./corpus_import.ts")).corpusImportCommand(rest, io);
  }
  io.err(
    `yarp corpus: ${
      sub === undefined ? "missing subcommand" : `unknown subcommand '${quotedArg(sub)}'`
    } (import or analyze; see 'yarp corpus --help')\n`,
  );
  return 2;
}
