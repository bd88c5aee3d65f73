/**
 * Side by side: the same corpus records through YARP's production engine,
 * through tokenjuice (pinned, installed by `_tokenjuice.ts`, built-in rules,
 * library API) and through Pi's default bash truncation (`_pi_truncation.ts`),
 * measured with the one tally of lib/corpus/metrics.ts, so every column
 * means the same thing for each.
 *
 * "Guarded" is a property of the record (a YARP guard rule selects its
 * command: an exact inspection such as `cat -n`, `git show REV:path`,
 * `--porcelain`), so each alternative is checked for byte-exactness on the
 * same records. Time per record is each reducer's own time in this process.
 *
 *   deno task compare CORPUS.jsonl.gz… [--json] [--no-tokenjuice] [--success-bytes N]
 *     [--cap BYTES[/HEAD/TAIL]|off] [--by-reason]
 *
 * `--success-bytes N` replays YARP under that success budget for every typed
 * kind (as config `budgets: {success_bytes: N}` does), to measure a budget.
 * `--cap` replays it under that global output cap (`_output_cap_arg.ts`).
 * `--by-reason` adds the characters removed per deciding reason code
 * (`_reason_table.ts`) for YARP alone and inside Pi.
 *
 * A corpus is what `yarp corpus import` writes (docs/corpus.md); without one
 * it says so in one line and exits 2. Aggregates only.
 *
 * @module
 */
import { bytesEqual } from "../lib/bytes/byte_search.ts";
import { createEngine } from "../lib/corpus/engine.ts";
import { readJsonlLines } from "../lib/corpus/jsonl.ts";
import { addSample, addSkipped, emptyTally, type TallyData } from "../lib/corpus/metrics.ts";
import { type CorpusRecord, parseRecordLine, visibleBytes } from "../lib/corpus/record.ts";
import { type CorpusSummary, percent, summarize } from "../lib/corpus/summary.ts";
import { hostNotices } from "../lib/corpus/host_notices.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import { piTruncate } from "./_pi_truncation.ts";
import { successBytesArg } from "./_success_bytes.ts";
import { outputCapArg } from "./_output_cap_arg.ts";
import { addReasonSample, emptyReasonTally, formatReasonTable } from "./_reason_table.ts";
import { loadTokenjuice, TOKENJUICE_VERSION } from "./_tokenjuice.ts";

const YARP = "yarp";
const YARP_IN_PI = "yarp inside pi";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** What one alternative shows the agent for a record, and the rule it names. */
type Contender = (record: CorpusRecord) => Promise<{ text: Uint8Array; rule: string | null }>;

function streamsText(record: CorpusRecord) {
  if (record.streams.mode === "combined") {
    const combined = decoder.decode(record.streams.output);
    return { stdout: combined, stderr: "", combined };
  }
  return {
    stdout: decoder.decode(record.streams.stdout),
    stderr: decoder.decode(record.streams.stderr),
    combined: null,
  };
}

async function main(): Promise<void> {
  const json = Deno.args.includes("--json");
  const withTokenjuice = !Deno.args.includes("--no-tokenjuice");
  const byReason = Deno.args.includes("--by-reason");
  const { budgets, rest: afterBudgets } = successBytesArg(Deno.args);
  const { cap, rest } = outputCapArg(afterBudgets);
  const flags = ["--json", "--no-tokenjuice", "--by-reason"];
  const files = rest.filter((arg) => !flags.includes(arg));
  if (files.length === 0) {
    console.error(
      "deno task compare: name a corpus file, e.g. deno task compare runs.jsonl.gz " +
        "(JSON Lines records, gzip allowed; `yarp corpus import` makes one: docs/corpus.md)",
    );
    Deno.exit(2);
  }
  const parser = await loadShellParser();
  const engine = createEngine(parser, createRuleRegistry([builtinRuleSource()]), {
    budgets,
    ...(cap === undefined ? {} : { cap }),
  });
  const reasons = emptyReasonTally();
  const tokenjuice = withTokenjuice ? await loadTokenjuice() : undefined;
  /** The alternatives; YARP itself runs first, once, and its outcome also says what is guarded. */
  const alternatives: Record<string, Contender> = {};
  if (tokenjuice !== undefined) {
    alternatives[`tokenjuice ${TOKENJUICE_VERSION}`] = async (record) => {
      const { stdout, stderr, combined } = streamsText(record);
      const result = await tokenjuice.reduce({
        command: record.command,
        stdout,
        stderr,
        combined,
        exitCode: record.exitCode,
      });
      return { text: encoder.encode(result.text), rule: result.rule };
    };
  }
  alternatives["pi truncation"] = (record) =>
    Promise.resolve({
      text: encoder.encode(piTruncate(decoder.decode(visibleBytes(record)))),
      rule: null,
    });
  const tallies: Record<string, TallyData> = { [YARP]: emptyTally(), [YARP_IN_PI]: emptyTally() };
  for (const name of Object.keys(alternatives)) tallies[name] = emptyTally();
  for (const file of files) {
    for await (const line of readJsonlLines(file)) {
      const record = parseRecordLine(line.text);
      if ("error" in record || record.priorReduction !== null) {
        for (const tally of Object.values(tallies)) addSkipped(tally, "not-raw");
        continue;
      }
      const before = visibleBytes(record);
      const yarpStarted = performance.now();
      const outcome = await engine(record);
      const results = [{
        name: YARP,
        text: outcome.after,
        rule: outcome.rule,
        micros: (performance.now() - yarpStarted) * 1000,
      }];
      for (const [name, contender] of Object.entries(alternatives)) {
        const started = performance.now();
        const { text, rule } = await contender(record);
        results.push({ name, text, rule, micros: (performance.now() - started) * 1000 });
      }
      // Inside Pi the extension replaces the visible text only when YARP changed it;
      // otherwise the agent sees Pi's own truncation of the whole output.
      const changed = !bytesEqual(outcome.after, before);
      results.push({
        name: YARP_IN_PI,
        text: changed ? outcome.after : encoder.encode(piTruncate(decoder.decode(before))),
        rule: outcome.rule,
        micros: results[0].micros,
      });
      const guarded = outcome.guarded;
      addReasonSample(
        reasons,
        outcome.reasons.at(-1) ?? "(none)",
        before,
        new Map(results.filter((r) => r.name.startsWith(YARP)).map((r) => [r.name, r.text])),
      );
      for (const { name, text } of results) {
        const notices = hostNotices(before);
        if (notices.length === 0) continue;
        const seen = noticesSeen[name] ??= { records: 0, kept: 0 };
        seen.records++;
        const after = decoder.decode(text);
        if (notices.every((notice) => after.includes(notice))) seen.kept++;
      }
      for (const { name, text, rule, micros } of results) {
        addSample(tallies[name], {
          rule,
          guarded,
          reduced: !bytesEqual(text, before),
          exitCode: record.exitCode,
          before,
          after: text,
          micros,
          reasons: [],
        });
      }
    }
  }
  const summaries = Object.entries(tallies).map(([name, tally]) => [name, summarize(tally)]);
  if (json) {
    console.log(
      JSON.stringify(
        {
          summaries: Object.fromEntries(summaries),
          hostNotices: noticesSeen,
          ...(byReason
            ? {
              byReason: {
                before: Object.fromEntries(reasons.reasons),
                after: Object.fromEntries(
                  [...reasons.after].map(([name, map]) => [name, Object.fromEntries(map)]),
                ),
              },
            }
            : {}),
        },
        null,
        2,
      ),
    );
    return;
  }
  console.log(formatTable(summaries as [string, CorpusSummary][], noticesSeen));
  if (byReason) console.log("\n" + formatReasonTable(reasons));
}

/** Records whose visible text holds a host truncation notice, and those where every notice line survives. */
const noticesSeen: Record<string, { records: number; kept: number }> = {};

/** `share` as a percentage with two decimals (diagnostic retention is judged at 99.5%). */
function percent2(share: number | null): string {
  return share === null ? "n/a" : `${(share * 100).toFixed(2)}%`;
}

/** The comparison table: one row per alternative. */
function formatTable(
  rows: readonly [string, CorpusSummary][],
  notices: Record<string, { records: number; kept: number }>,
): string {
  const header = [
    "reducer",
    "records",
    "changed",
    "chars removed",
    "grew",
    "guarded exact",
    "diag kept",
    "facts kept",
    "notices kept",
    "median µs",
    "p95 µs",
  ];
  const body = rows.map(([name, s]) => [
    name,
    String(s.records),
    String(s.changed),
    percent(s.removedShare),
    String(s.grew),
    `${s.guardedExact}/${s.guarded}`,
    `${s.diagnosticLinesKept}/${s.diagnosticLines} ${percent2(s.diagnosticRetention)}`,
    `${s.keyFactsKept}/${s.keyFacts}`,
    `${notices[name]?.kept ?? 0}/${notices[name]?.records ?? 0}`,
    s.microsMedian.toFixed(0),
    s.microsP95.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const format = (cells: string[]) =>
    cells.map((cell, i) => i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])).join("  ");
  return [format(header), ...body.map(format)].join("\n");
}

if (import.meta.main) await main();
