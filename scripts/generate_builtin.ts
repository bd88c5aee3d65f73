/**
 * Validates the built-in source pack under `rules/` and writes two tables:
 * `lib/rules/builtin.generated.json`, the pack as data, and
 * `lib/rules/builtin_programs.generated.json`, its program buckets sorted by
 * program, each listing rule indexes sorted by rule id. Two files, so that
 * `yarp run` of a program no built-in names reads only the small one; JSON,
 * not TypeScript literals, because a JSON module loads in about half the
 * time. The output depends only on the source bytes, so every run writes
 * identical bytes.
 *
 * Fails (exit 1, one line per problem) when a built-in is invalid, two
 * built-in selecting rules overlap, a rule's memory bound is over the limit,
 * or a rule has no fixture. With `--check`
 * it writes nothing and fails when a committed file is stale.
 *
 * Usage: deno task generate | deno task check
 */
import { join, relative } from "node:path";
import { formatDiagnostic } from "../lib/rules/diagnostics.ts";
import { validateFixtureText } from "../lib/rules/fixture.ts";
import type { RulePack } from "../lib/rules/model.ts";
import { loadSourcePack } from "../lib/rules/source_pack.ts";
import { packProblems } from "../lib/reduce/pack_problems.ts";

const ROOT = join(import.meta.dirname!, "..");
const PACK_OUTPUT = join(ROOT, "lib/rules/builtin.generated.json");
const PROGRAMS_OUTPUT = join(ROOT, "lib/rules/builtin_programs.generated.json");

/** Program buckets: sorted program names, each with rule indexes sorted by rule id. */
export function programIndex(pack: RulePack): [string, number[]][] {
  const buckets = new Map<string, number[]>();
  pack.rules.forEach((rule, index) => {
    for (const program of rule.match.programs) {
      const bucket = buckets.get(program) ?? [];
      bucket.push(index);
      buckets.set(program, bucket);
    }
  });
  const byId = (a: number, b: number) => pack.rules[a].id < pack.rules[b].id ? -1 : 1;
  return [...buckets.keys()].sort().map((program) => [program, buckets.get(program)!.sort(byId)]);
}

/**
 * The generated files for a validated pack, path → text: the pack (read by
 * `lib/rules/registry.ts`) and its program buckets (`builtin_programs.ts`).
 */
export function renderBuiltinTables(pack: RulePack): Map<string, string> {
  return new Map([
    [PACK_OUTPUT, `${JSON.stringify(pack, null, 2)}\n`],
    [PROGRAMS_OUTPUT, `${JSON.stringify(programIndex(pack))}\n`],
  ]);
}

function* fixtureFiles(dir: string): Generator<string> {
  const entries = [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* fixtureFiles(path);
    else if (entry.name.endsWith(".json")) yield path;
  }
}

/** Problems with fixture coverage: invalid fixtures and rules no fixture names. */
function fixtureProblems(pack: RulePack): string[] {
  const problems: string[] = [];
  const covered = new Set<string>();
  for (const file of fixtureFiles(join(ROOT, "fixtures"))) {
    const name = relative(ROOT, file);
    const result = validateFixtureText(name, Deno.readTextFileSync(file));
    if (!result.ok) problems.push(...result.diagnostics.map(formatDiagnostic));
    else if (result.fixture.rule !== undefined) covered.add(result.fixture.rule);
  }
  for (const rule of pack.rules) {
    if (!covered.has(rule.id)) problems.push(`rules: built-in rule '${rule.id}' has no fixture`);
  }
  return problems;
}

async function main(args: string[]): Promise<number> {
  const checkOnly = args.includes("--check");
  const loaded = await loadSourcePack(join(ROOT, "rules"));
  if (!loaded.ok) {
    for (const diagnostic of loaded.diagnostics) console.error(formatDiagnostic(diagnostic));
    return 1;
  }
  const problems = [
    ...packProblems(loaded.pack.rules).map((p) => `rules: built-in ${p.message} [${p.code}]`),
    ...fixtureProblems(loaded.pack),
  ];
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) return 1;
  const files = renderBuiltinTables(loaded.pack);
  if (checkOnly) {
    let stale = false;
    for (const [path, text] of files) {
      if (await Deno.readTextFile(path).catch(() => "") === text) continue;
      console.error(`${relative(ROOT, path)}: stale; run 'deno task generate'`);
      stale = true;
    }
    return stale ? 1 : 0;
  }
  for (const [path, text] of files) await Deno.writeTextFile(path, text);
  console.error(
    `wrote ${[...files.keys()].map((path) => relative(ROOT, path)).join(" and ")} ` +
      `(${loaded.pack.rules.length} rules)`,
  );
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
