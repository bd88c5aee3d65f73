/**
 * Builds `lib/shell/_bash_parser.generated.wasm`, the shell parser's one
 * WebAssembly module: tree-sitter's C runtime (vendored in
 * npm:tree-sitter@0.25.1, byte-identical to web-tree-sitter@0.25.10's
 * `lib/`), tree-sitter-bash@0.25.1's generated `parser.c` and `scanner.c`,
 * and `scripts/shell_wasm/binding.c`, compiled and statically linked by
 * Debian's clang and lld against wasi-libc (docs/shell.md, "Parser
 * module").
 *
 * One change is made to the grammar's sources: the generated lexers (one
 * `switch` over every lexer state in one function, ≈ 160 KB of code) become
 * one small function per state behind a table (see {@link splitLexers}), so
 * V8's lazy compilation compiles only the states a parse reaches.
 *
 * Same inputs, same bytes: the packages come from `npm pack` and must match
 * the integrity pinned below (tree-sitter-bash's is the one in deno.lock);
 * paths are mapped out of the output and the toolchain version is pinned.
 *
 * Usage:
 *   deno run --allow-read --allow-write --allow-run --allow-env scripts/build_shell_wasm.ts
 *     installs clang, lld, wasi-libc and libclang-rt-dev-wasm32 with apt-get
 *     when missing (root only), then writes the module;
 *   … scripts/build_shell_wasm.ts --check
 *     (`deno task check`) builds into a temporary directory and exits 1 when
 *     the committed module differs; without the pinned toolchain it says so
 *     and exits 0, installing nothing.
 */
import { join } from "node:path";

const ROOT = join(import.meta.dirname!, "..");
/** The module this script writes. */
export const OUTPUT = "lib/shell/_bash_parser.generated.wasm";
const CLANG_VERSION = "Debian clang version 14.0.6";
const APT_PACKAGES = ["clang", "lld", "wasi-libc", "libclang-rt-dev-wasm32"];

/** The npm packages whose sources are compiled, with the integrity npm must report. */
const PACKAGES = {
  runtime: {
    spec: "tree-sitter@0.25.1",
    integrity:
      "sha512-mrcEdkYtHfrK1A6fs3O6FxkBo0Qig5XUXqHhxUOQu0bmPo00QF4XaSx4edpazdHwxnSCjlGKGgIqWdaN4dvTLA==",
  },
  grammar: {
    spec: "tree-sitter-bash@0.25.1",
    integrity:
      "sha512-7hMytuYIMoXOq24yRulgIxthE9YmggZIOHCyPTTuJcu6EU54tYD+4G39cUb28kxC6jMf/AbPfWGLQtgPTdh3xw==",
  },
} as const;

const LEXER_HEAD =
  /^static bool (ts_lex(?:_keywords)?)\(TSLexer \*lexer, TSStateId state\) \{\n {2}START_LEXER\(\);\n {2}eof = lexer->eof\(lexer\);\n {2}switch \(state\) \{\n/m;
const LEXER_TAIL = "    default:\n      return false;\n  }\n}\n";
const CASE = /^ {4}case (\d+):\n/gm;

/**
 * Macros for the per-state functions: each returns the next state shifted
 * left by one, with the low bit set for a skip, or -1 where the original
 * `END_STATE()` returned; `*result` carries the accepted-token flag across
 * states as the original local did.
 */
const STATE_MACROS = `
/* yarp: the lexers below are split one function per state (scripts/build_shell_wasm.ts). */
#undef ADVANCE
#define ADVANCE(state_value) { return (int32_t)(state_value) << 1; }
#undef SKIP
#define SKIP(state_value) { return ((int32_t)(state_value) << 1) | 1; }
#undef ADVANCE_MAP
#define ADVANCE_MAP(...)                                              \\
  {                                                                   \\
    static const uint16_t map[] = { __VA_ARGS__ };                    \\
    for (uint32_t i = 0; i < sizeof(map) / sizeof(map[0]); i += 2) {  \\
      if (map[i] == lookahead) return (int32_t)map[i + 1] << 1;        \\
    }                                                                 \\
  }
#undef ACCEPT_TOKEN
#define ACCEPT_TOKEN(symbol_value)     \\
  *result = true;                      \\
  lexer->result_symbol = symbol_value; \\
  lexer->mark_end(lexer);
#undef END_STATE
#define END_STATE() return -1;
typedef int32_t (*yarp_lex_state)(TSLexer *lexer, int32_t lookahead, bool eof, bool *result);
`;

/**
 * `parser.c` with its lexer functions (`ts_lex`, `ts_lex_keywords`) split
 * into one function per `case` and a loop that calls them through a table;
 * the loop advances, skips and stops exactly where the generated `goto`s
 * did, and an unknown state returns false as the generated `default` did.
 * Also drops the file's `#pragma clang optimize off` (kept there only for
 * compile time of the giant switch). Throws when the source does not have
 * the generated shape.
 */
export function splitLexers(source: string): string {
  const pragma = "#elif defined(__clang__)\n#pragma clang optimize off\n";
  if (!source.includes(pragma)) throw new Error("parser.c: optimize pragma not found");
  let out = source.replace(pragma, "#elif defined(__clang__)\n");
  let macrosAdded = false;
  for (let count = 0; count < 2; count += 1) {
    const head = LEXER_HEAD.exec(out);
    if (head === null) throw new Error(`parser.c: lexer ${count + 1} not found`);
    const name = head[1];
    const bodyStart = head.index + head[0].length;
    const bodyEnd = out.indexOf(LEXER_TAIL, bodyStart);
    if (bodyEnd < 0) throw new Error(`parser.c: end of ${name} not found`);
    const body = out.slice(bodyStart, bodyEnd);
    const cases = [...body.matchAll(CASE)];
    if (cases.length === 0 || cases[0].index !== 0) throw new Error(`parser.c: ${name} cases`);
    const functions: string[] = [];
    const table: string[] = [];
    cases.forEach((match, index) => {
      const end = index + 1 < cases.length ? cases[index + 1].index : body.length;
      const state = match[1];
      const fn = `${name}_state_${state}`;
      const lines = body.slice(match.index + match[0].length, end).replace(/^ {4}/gm, "");
      functions.push(
        `static int32_t ${fn}(TSLexer *lexer, int32_t lookahead, bool eof, bool *result) {\n` +
          `  (void)eof;\n${lines}}\n`,
      );
      table.push(`  [${state}] = ${fn},\n`);
    });
    const size = `${name.toUpperCase()}_STATES`;
    const replacement = (macrosAdded ? "" : STATE_MACROS) +
      functions.join("\n") +
      `\n#define ${size} ${Math.max(...cases.map((match) => Number(match[1]))) + 1}\n` +
      `static const yarp_lex_state ${name}_states[${size}] = {\n${table.join("")}};\n\n` +
      `static bool ${name}(TSLexer *lexer, TSStateId state) {\n` +
      `  bool result = false;\n` +
      `  for (;;) {\n` +
      `    if (state >= ${size} || ${name}_states[state] == NULL) return false;\n` +
      `    int32_t lookahead = lexer->lookahead;\n` +
      `    bool eof = lexer->eof(lexer);\n` +
      `    int32_t next = ${name}_states[state](lexer, lookahead, eof, &result);\n` +
      `    if (next < 0) return result;\n` +
      `    lexer->advance(lexer, (next & 1) != 0);\n` +
      `    state = (TSStateId)(next >> 1);\n` +
      `  }\n` +
      `}\n`;
    macrosAdded = true;
    out = out.slice(0, head.index) + replacement + out.slice(bodyEnd + LEXER_TAIL.length);
  }
  return out;
}

async function run(command: string, args: string[], cwd = ROOT): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(command, { args, cwd }).output();
  const text = new TextDecoder().decode(stdout);
  if (code !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed:\n${new TextDecoder().decode(stderr)}`);
  }
  return text;
}

/** The toolchain's problem, or undefined when the pinned clang, lld and wasi-libc are present. */
async function toolchainProblem(): Promise<string | undefined> {
  let version: string;
  try {
    version = await run("clang", ["--version"]);
    await run("wasm-ld", ["--version"]);
  } catch {
    return "clang or wasm-ld is not installed";
  }
  if (!version.startsWith(CLANG_VERSION)) {
    return `clang is ${version.split("\n")[0]}, the module is built with ${CLANG_VERSION}`;
  }
  try {
    await Deno.stat("/usr/lib/wasm32-wasi/libc.a");
  } catch {
    return "wasi-libc is not installed";
  }
  return undefined;
}

/** Fetches `spec` with `npm pack` into `dir`, checks its integrity and unpacks it; returns its root. */
async function fetchPackage(
  spec: string,
  integrity: string,
  dir: string,
): Promise<string> {
  const report = JSON.parse(
    await run("npm", ["pack", spec, "--json", "--pack-destination", dir], dir),
  ) as { integrity: string; filename: string }[];
  if (report[0]?.integrity !== integrity) {
    throw new Error(`${spec}: integrity ${report[0]?.integrity} is not the pinned ${integrity}`);
  }
  const into = join(dir, spec.replace(/[@/]/g, "_"));
  await Deno.mkdir(into);
  await run("tar", ["-xzf", join(dir, report[0].filename), "-C", into, "--strip-components=1"]);
  return into;
}

/** Builds the module in `dir` from the pinned packages and returns its bytes. */
export async function buildModule(dir: string): Promise<Uint8Array> {
  const runtime = await fetchPackage(PACKAGES.runtime.spec, PACKAGES.runtime.integrity, dir);
  const grammar = await fetchPackage(PACKAGES.grammar.spec, PACKAGES.grammar.integrity, dir);
  const lib = join(runtime, "vendor/tree-sitter/lib");
  const split = join(grammar, "src/parser_split.c");
  await Deno.writeTextFile(
    split,
    splitLexers(await Deno.readTextFile(join(grammar, "src/parser.c"))),
  );
  const out = join(dir, "parser.wasm");
  await run("clang", [
    "--target=wasm32-wasi",
    "-Oz",
    "-DNDEBUG",
    "-std=c11",
    "-mexec-model=reactor",
    `-ffile-prefix-map=${dir}=.`,
    `-ffile-prefix-map=${ROOT}=.`,
    "-I",
    join(lib, "include"),
    "-I",
    join(lib, "src"),
    "-I",
    join(grammar, "src"),
    "-w",
    join(lib, "src/lib.c"),
    split,
    join(grammar, "src/scanner.c"),
    join(ROOT, "scripts/shell_wasm/binding.c"),
    "-Wl,--strip-all",
    "-o",
    out,
  ]);
  return await Deno.readFile(out);
}

/** Installs the toolchain; apt-get's own error says when it needs root. */
async function install(): Promise<void> {
  await run("apt-get", ["update"]);
  await run("apt-get", ["install", "-y", "--no-install-recommends", ...APT_PACKAGES]);
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  let problem = await toolchainProblem();
  if (problem !== undefined && check) {
    console.log(`${OUTPUT}: not verified (${problem}; scripts/build_shell_wasm.ts installs it)`);
    Deno.exit(0);
  }
  if (problem !== undefined) {
    await install();
    problem = await toolchainProblem();
    if (problem !== undefined) throw new Error(problem);
  }
  const dir = await Deno.makeTempDir({ prefix: "yarp-shell-wasm-" });
  try {
    const bytes = await buildModule(dir);
    const path = join(ROOT, OUTPUT);
    if (check) {
      let current = new Uint8Array();
      try {
        current = await Deno.readFile(path);
      } catch {
        // missing counts as stale
      }
      if (!same(current, bytes)) {
        console.error(`${OUTPUT} is stale: run scripts/build_shell_wasm.ts`);
        Deno.exit(1);
      }
      console.log(`${OUTPUT}: the same bytes as a fresh build`);
    } else {
      await Deno.writeFile(path, bytes);
      console.log(`wrote ${OUTPUT} (${bytes.length} bytes)`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
