/**
 * The shell parser and planner robustness run (docs/architecture.md: the
 * parser never crashes, whatever the source), shared by `bench/shell_robustness.ts` (every
 * corpus command plus 10,000 generated ones) and the sampled version in
 * `tests/shell_robustness_test.ts`.
 *
 * `robustnessRun` parses and plans each source, counts crashes (a throw from
 * either is a crash; the contract says there are none) and tallies outcomes
 * by reason code: `accept:<family>:<confidence>`, `plan:<reason>` or
 * `parse:<reason>`. Reports hold counts only, never command text.
 *
 * @module
 */
import fc from "fast-check";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser, planResult } from "../lib/shell/mod.ts";

/** Counts of one robustness run. */
export interface RobustnessReport {
  readonly sources: number;
  readonly crashes: number;
  /** Outcome code → count, sorted by code. */
  readonly outcomes: Readonly<Record<string, number>>;
}

/** Parses and plans every source; never throws (a throw is counted as a crash). */
export async function robustnessRun(sources: Iterable<string>): Promise<RobustnessReport> {
  const parser = await loadShellParser();
  const registry = createRuleRegistry([builtinRuleSource()]);
  const counts = new Map<string, number>();
  let total = 0;
  let crashes = 0;
  for (const source of sources) {
    total += 1;
    let code: string;
    try {
      const parsed = parser.parse(source);
      if (!parsed.ok) code = `parse:${parsed.reason}`;
      else {
        const outcome = planResult(parsed.program, registry);
        code = outcome.ok
          ? `accept:${outcome.plan.family}:${outcome.plan.statusConfidence}`
          : `plan:${outcome.reason}`;
      }
    } catch {
      crashes += 1;
      code = "crash";
    }
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  const outcomes: Record<string, number> = {};
  for (const key of [...counts.keys()].sort()) outcomes[key] = counts.get(key)!;
  return { sources: total, crashes, outcomes };
}

/** Acceptance and rejection totals of a report, then counts by reason, one per line. */
export function formatReport(title: string, report: RobustnessReport): string {
  const sum = (prefix: string) =>
    Object.entries(report.outcomes).filter(([key]) => key.startsWith(prefix))
      .reduce((total, [, n]) => total + n, 0);
  const lines = [
    `${title}: ${report.sources} sources, ${report.crashes} crashes, ` +
    `${sum("accept:")} planned, ${sum("plan:")} planner pass-through, ` +
    `${sum("parse:")} parser rejections`,
  ];
  for (const [key, n] of Object.entries(report.outcomes)) lines.push(`  ${key}: ${n}`);
  return lines.join("\n");
}

/** The variable naming the directory of the recorded corpora (docs/corpus.md). */
export const CORPUS_DIR_VARIABLE = "YARP_CORPUS_DIR";

/**
 * `$YARP_CORPUS_DIR/NAME.jsonl.gz`, a recorded corpus of `yarp corpus
 * import` records (`runs` by default, or `agent-calls`; docs/corpus.md),
 * when the variable is set and that file exists; undefined otherwise.
 */
export function corpusPath(name = "runs"): string | undefined {
  const dir = Deno.env.get(CORPUS_DIR_VARIABLE);
  if (!dir) return undefined;
  const path = `${dir.replace(/\/+$/, "")}/${name}.jsonl.gz`;
  try {
    return Deno.statSync(path).isFile ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every `command` of the gzip JSON-lines corpus at `path`, in file order,
 * read at run time (never copied anywhere).
 */
export async function corpusCommands(path: string): Promise<string[]> {
  const file = await Deno.open(path);
  const text = file.readable.pipeThrough(new DecompressionStream("gzip"))
    .pipeThrough(new TextDecoderStream());
  const commands: string[] = [];
  let rest = "";
  const take = (line: string) => {
    if (line.trim() === "") return;
    const record = JSON.parse(line) as { command?: unknown };
    if (typeof record.command === "string") commands.push(record.command);
  };
  for await (const chunk of text) {
    rest += chunk;
    let newline: number;
    while ((newline = rest.indexOf("\n")) !== -1) {
      take(rest.slice(0, newline));
      rest = rest.slice(newline + 1);
    }
  }
  take(rest);
  return commands;
}

const programs = fc.constantFrom(
  "cargo",
  "rg",
  "grep",
  "git",
  "find",
  "ls",
  "npm",
  "pytest",
  "go",
  "make",
  "tsc",
  "head",
  "tail",
  "sort",
  "uniq",
  "tee",
  "cat",
  "cd",
  "set",
  "echo",
  "jq",
  "xargs",
  "sed",
);
const bareWord = fc.stringMatching(/^[A-Za-z0-9_.\/:=,+-]{1,12}$/);
const option = fc.constantFrom(
  "-n",
  "-c",
  "-z",
  "-50",
  "--json",
  "-o",
  "pipefail",
  "--stat",
  "test",
  "diff",
  "-rn",
  "-type",
  "f",
  "-print0",
  "-0",
  "--count",
  "-A",
  "-f",
);
const word = fc.oneof(
  { weight: 4, arbitrary: bareWord },
  { weight: 4, arbitrary: option },
  { weight: 2, arbitrary: bareWord.map((s) => `'${s} x'`) },
  { weight: 2, arbitrary: bareWord.map((s) => `"${s} y"`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((s) => `'${s.replaceAll("'", "")}'`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((s) => `"${s}"`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }).map((s) => `\\${s}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "$HOME",
      "${X:-y}",
      "$(pwd)",
      "`date`",
      "$((1+2))",
      "<(ls)",
      "$'a\\tb'",
      "*.ts",
      "~/x",
      "{a,b}",
      "a\\ b",
      "#comment",
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 6_000 }).map((n) => "w".repeat(n)) },
);
const redirect = fc.constantFrom(
  "",
  "",
  "",
  " 2>&1",
  " >/dev/null",
  " 2>/dev/null",
  " &>/dev/null",
  " >&2",
  " > out.txt",
  " < in.txt",
  " <<< here",
  " 3>&1",
);
const command = fc.tuple(programs, fc.array(word, { maxLength: 5 }), redirect).map((
  [program, words, redir],
) => [program, ...words].join(" ") + redir);
const operator = fc.constantFrom(" | ", " | ", " && ", " || ", "; ", "\n", " |& ", " & ");
const wrapped = fc.oneof(
  { weight: 8, arbitrary: command },
  { weight: 1, arbitrary: command.map((c) => `(${c})`) },
  { weight: 1, arbitrary: command.map((c) => `{ ${c}; }`) },
  { weight: 1, arbitrary: command.map((c) => `${c} <<EOF\nline $X\nEOF`) },
  { weight: 1, arbitrary: command.map((c) => `if ${c}; then true; fi`) },
  { weight: 1, arbitrary: command.map((c) => `FOO=1 ${c}`) },
);

/** Generated shell sources of real shapes; the same `seed` gives the same sources. */
export const shellSourceArbitrary: fc.Arbitrary<string> = fc.tuple(
  wrapped,
  fc.array(fc.tuple(operator, wrapped), { maxLength: 5 }),
  fc.oneof(
    { weight: 6, arbitrary: fc.constant("") },
    { weight: 1, arbitrary: fc.constantFrom(" |", " &&", " '", ' "', " $(", " \\", " # note") },
  ),
).map(([first, rest, tail]) => first + rest.map(([op, c]) => op + c).join("") + tail);

/** `count` generated sources from `seed`. */
export function generatedSources(count: number, seed: number): string[] {
  return fc.sample(shellSourceArbitrary, { numRuns: count, seed });
}
