/**
 * The unit suite measures YARP and nothing else: no test
 * reaches, through any chain of local imports, a module that installs
 * packages from the npm registry (tokenjuice, Pi) or starts npm, and the
 * coverage task leaves third-party code (the Deno npm cache, node_modules,
 * npm installs made by bench/) and the tests, benchmarks and scripts out of
 * its table while keeping lib/ and main.ts in it.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");

const IMPORT_PATTERN =
  /(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Local modules `file` imports, statically or dynamically (comments ignored). */
function localImports(file: string): string[] {
  const text = Deno.readTextFileSync(file).replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  return [...text.matchAll(IMPORT_PATTERN)]
    .map((match) => match[1] ?? match[2])
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => resolve(dirname(file), specifier));
}

/** Every local module reachable from `roots`, each with the chain that reached it. */
function reachable(roots: readonly string[]): Map<string, string[]> {
  const chains = new Map<string, string[]>();
  const queue = roots.map((root) => [root]);
  while (queue.length > 0) {
    const chain = queue.shift()!;
    const file = chain.at(-1)!;
    if (chains.has(file) || !file.endsWith(".ts")) continue;
    chains.set(file, chain);
    for (const next of localImports(file)) queue.push([...chain, next]);
  }
  return chains;
}

const testFiles = [...Deno.readDirSync(join(ROOT, "tests"))]
  .filter((entry) => entry.isFile && entry.name.endsWith("_test.ts"))
  .map((entry) => join(ROOT, "tests", entry.name))
  .sort();

/** Modules that download from the npm registry or run npm. */
const DOWNLOADERS = [join(ROOT, "bench/_npm.ts"), join(ROOT, "bench/_tokenjuice.ts")];

Deno.test("hygiene: no unit test reaches a module that installs npm packages", () => {
  const chains = reachable(testFiles);
  for (const downloader of DOWNLOADERS) {
    const chain = chains.get(downloader);
    assert.equal(
      chain,
      undefined,
      `${chain?.map((file) => relative(ROOT, file)).join(" -> ")} downloads from npm`,
    );
  }
});

/**
 * Test modules that start npm on purpose, each with its reason: the sandbox
 * test wraps a local project's `npm test` as the child YARP runs, with npm's
 * update check off; the end-to-end harness (`_pi_e2e.ts`, shared by the Pi,
 * Pi package and Claude Code/Codex end-to-end tests) installs the pinned
 * hosts once into the test cache and packs the Pi package with `npm pack`.
 */
const STARTS_NPM_ON_PURPOSE = new Set([
  join(ROOT, "tests/sandbox_test.ts"),
  join(ROOT, "tests/_pi_e2e.ts"),
]);

Deno.test("hygiene: no unit test or module it loads starts npm or npx", () => {
  for (const [file, chain] of reachable(testFiles)) {
    if (STARTS_NPM_ON_PURPOSE.has(file)) continue;
    const text = Deno.readTextFileSync(file);
    assert.doesNotMatch(
      text,
      /Deno\.Command\(\s*["'](?:npm|npx)["']/,
      chain.map((step) => relative(ROOT, step)).join(" -> "),
    );
  }
});

/** The `--exclude=` patterns of the `coverage` task in deno.json. */
function coverageExcludes(): RegExp[] {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  const task: string = config.tasks.coverage;
  return task.split(/\s+/).filter((word) => word.startsWith("--exclude="))
    .map((word) => new RegExp(word.slice("--exclude=".length)));
}

Deno.test("hygiene: coverage leaves out third-party code, tests, benchmarks and scripts", () => {
  const excludes = coverageExcludes();
  const excluded = (url: string) => excludes.some((pattern) => pattern.test(url));
  const outside = [
    "file:///root/.cache/deno/npm/registry.npmjs.org/yaml/2.9.1/dist/index.js",
    "file:///srv/deno-dir/npm/registry.npmjs.org/fast-check/4.11.0/lib/fast-check.js",
    "file:///tmp/yarp-npm/tokenjuice@0.7.0/node_modules/tokenjuice/dist/index.js",
    "file:///home/u/project/node_modules/web-tree-sitter/tree-sitter.js",
    `file://${ROOT}/tests/reduce_test.ts`,
    `file://${ROOT}/bench/_tokenjuice.ts`,
    `file://${ROOT}/scripts/fuzz.ts`,
    `file://${ROOT}/dist/yarp.js`,
  ];
  for (const url of outside) assert.ok(excluded(url), `${url} is counted in coverage`);
  const inside = [`file://${ROOT}/lib/reduce/head_tail.ts`, `file://${ROOT}/main.ts`];
  for (const url of inside) assert.ok(!excluded(url), `${url} is left out of coverage`);
});
