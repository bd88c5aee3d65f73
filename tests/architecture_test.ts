/**
 * The layers of docs/architecture.md, enforced: imports point down the
 * layers, no layer imports a sibling layer, nothing outside a folder imports
 * its `_` files, and the module graph under lib/ has no cycle.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");

/** Lower numbers sit lower; a module may import only strictly lower layers or its own. */
const LAYERS: Record<string, number> = {
  base: 0,
  bytes: 1,
  rules: 2,
  reduce: 3,
  config: 3,
  shell: 4,
  run: 4,
  archive: 4,
  // The hosts layer (lib/hosts/<host>/): session readers and hook logic per agent host, pure over
  // data; it may use everything below it, the corpus builds on its readers, and cli does the I/O.
  hosts: 5,
  corpus: 6,
  cli: 7,
};

const IMPORT_PATTERN =
  /(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function* walk(dir: string): Generator<string> {
  for (const entry of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** Source text without comments, so doc-comment examples are not imports. */
function code(file: string): string {
  return Deno.readTextFileSync(file).replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

function localImports(file: string): string[] {
  const text = code(file);
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT_PATTERN)) {
    const specifier = match[1] ?? match[2];
    if (specifier.startsWith(".")) found.push(resolve(dirname(file), specifier));
  }
  return found;
}

function layerOf(file: string): string {
  return relative(join(ROOT, "lib"), file).split("/")[0];
}

const libFiles = [...walk(join(ROOT, "lib"))];

Deno.test("every lib folder is a known layer", () => {
  for (const file of libFiles) {
    assert.ok(layerOf(file) in LAYERS, `${relative(ROOT, file)} is outside every layer`);
  }
});

Deno.test("imports point down the layers and never into another folder's _ files", () => {
  const violations: string[] = [];
  for (const file of libFiles) {
    const from = layerOf(file);
    for (const target of localImports(file)) {
      const name = relative(ROOT, file);
      if (!target.startsWith(join(ROOT, "lib") + "/")) {
        violations.push(`${name} imports ${relative(ROOT, target)} outside lib/`);
        continue;
      }
      const to = layerOf(target);
      if (to !== from && !(LAYERS[to] < LAYERS[from])) {
        violations.push(`${name} (${from}) imports ${relative(ROOT, target)} (${to})`);
      }
      const targetBase = target.split("/").at(-1)!;
      if (targetBase.startsWith("_") && dirname(target) !== dirname(file)) {
        violations.push(`${name} imports private ${relative(ROOT, target)}`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

Deno.test("the hosts layer sits above archive and below corpus and cli", () => {
  const hostFiles = libFiles.filter((file) => layerOf(file) === "hosts");
  assert.ok(hostFiles.some((file) => file.endsWith("/claude_code/session.ts")));
  const reached = new Set(hostFiles.flatMap((file) => localImports(file).map(layerOf)));
  for (const layer of reached) assert.ok(LAYERS[layer] <= LAYERS.hosts, `hosts imports ${layer}`);
  const importers = libFiles.filter((file) =>
    layerOf(file) !== "hosts" && localImports(file).some((target) => layerOf(target) === "hosts")
  ).map(layerOf);
  assert.deepEqual([...new Set(importers)].sort(), ["cli", "corpus"]);
});

Deno.test("main.ts imports only the CLI layer", () => {
  const targets = localImports(join(ROOT, "main.ts")).map((t) => relative(ROOT, t));
  assert.ok(targets.length > 0);
  for (const target of targets) assert.match(target, /^lib\/cli\//);
});

Deno.test("the lib module graph has no cycle", () => {
  const graph = new Map(libFiles.map((f) => [f, localImports(f)]));
  const state = new Map<string, "active" | "done">();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "active") {
      cycles.push(
        [...path.slice(path.indexOf(file)), file].map((f) => relative(ROOT, f)).join(" -> "),
      );
      return;
    }
    state.set(file, "active");
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, "done");
  };
  for (const file of libFiles) visit(file, []);
  assert.deepEqual(cycles, []);
});
