/**
 * Start-up plumbing of the shell parser: the WebAssembly bytes load without
 * `--unstable-raw-imports`, `yarp run` never reaches the parser, and the
 * bundle rewrites in scripts/build.ts keep their contract.
 */
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { shellWasmBytes } from "../lib/shell/_runtime.ts";
import fc from "fast-check";
import { escapeNonAscii, startupRewrite } from "../scripts/build.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");

Deno.test("the wasm bytes load from the file beside the runtime without raw imports", async () => {
  const bytes = await shellWasmBytes();
  assert.deepEqual([...bytes.subarray(0, 4)], [0, 0x61, 0x73, 0x6d]);
  const committed = await Deno.readFile(join(ROOT, "lib/shell/_bash_parser.generated.wasm"));
  assert.deepEqual(bytes, committed);
});

Deno.test("the parser module imports only the four WASI calls the binding stubs", async () => {
  const module = new WebAssembly.Module(await shellWasmBytes() as Uint8Array<ArrayBuffer>);
  const imports = WebAssembly.Module.imports(module).map((entry) =>
    `${entry.module}.${entry.name}`
  );
  assert.deepEqual(imports.sort(), [
    "wasi_snapshot_preview1.clock_time_get",
    "wasi_snapshot_preview1.fd_close",
    "wasi_snapshot_preview1.fd_seek",
    "wasi_snapshot_preview1.fd_write",
  ]);
});

Deno.test("yarp run's module graph, dynamic imports included, never reaches the parser", async () => {
  const { stdout, success } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", join(ROOT, "lib/cli/run.ts")],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(success);
  const graph = JSON.parse(new TextDecoder().decode(stdout)) as {
    modules: { specifier: string }[];
  };
  const specifiers = graph.modules.map((module) => module.specifier);
  assert.ok(specifiers.some((specifier) => specifier.endsWith("/lib/cli/run.ts")));
  for (const specifier of specifiers) {
    assert.ok(!/\/lib\/shell\/|tree-sitter/.test(specifier), `run loads ${specifier}`);
  }
});

const SHAPE = [
  'import { createRequire as __deno_internal_createRequire } from "node:module";',
  "var __require = __deno_internal_createRequire(import.meta.url);",
  "var __toBinary = /* @__PURE__ */ (() => {",
  "  var table = new Uint8Array(128);",
  "  return (base64) => table;",
  "})();",
  'import { parseArgs, inspect as show } from "node:util";',
  "var require_a = __commonJS({",
  '  "lib/a.wasm"(exports, module2) {',
  '    module2.exports = __toBinary("AGFzbQEAAAA=");',
  "  }",
  "});",
  "const m = await Promise.resolve().then(() => __toESM(require_a()));",
  "",
].join("\n");

Deno.test("startupRewrite makes node imports lazy and hands inlined bytes over as is", () => {
  const out = startupRewrite(SHAPE);
  assert.ok(!/^import /m.test(out), out);
  assert.match(out, /^var __require = \(id\) => globalThis\.process\.getBuiltinModule\(id\);$/m);
  assert.match(out, /^var __toBinary = \(base64\) => Uint8Array\.fromBase64\(base64\);$/m);
  assert.match(out, /^function parseArgs\(\.\.\.args\) \{$/m);
  assert.match(out, /getBuiltinModule\("node:util"\)\.inspect\(\.\.\.args\)/);
  assert.match(out, /^function show\(\.\.\.args\) \{$/m);
  assert.match(out, /then\(\(\) => \(\{ default: require_a\(\) \}\)\)/);
});

Deno.test("startupRewrite refuses bundler output of an unexpected shape", () => {
  assert.throws(() => startupRewrite("var x = 1;\n"), /createRequire shim not found/);
});

/** `text` as the body of a regular expression literal that matches exactly it. */
function literalPattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

Deno.test("escapeNonAscii leaves only ASCII and keeps what strings, regexes and comments mean", () => {
  const noLineEnd = fc.string({ unit: "binary" }).map((text) =>
    text.replace(/[\n\r\u2028\u2029]/g, "")
  );
  fc.assert(
    fc.property(noLineEnd, (text) => {
      const pattern = literalPattern(text);
      const source = `// ${text}\n/* ${text} */ return [${JSON.stringify(text)}, ` +
        `/^${pattern}$/u.test(${JSON.stringify(text)}), /^${pattern}$/.test(${
          JSON.stringify(text)
        })];`;
      const escaped = escapeNonAscii(source);
      assert.doesNotMatch(escaped, /[\u0080-\uffff]/);
      assert.deepEqual(new Function(escaped)(), [text, true, true]);
    }),
  );
});

Deno.test("escapeNonAscii keeps U+2028 and U+2029, which end a line comment", () => {
  const source = "// note\u2028return 1;";
  assert.equal(escapeNonAscii(source), source);
  assert.equal(new Function(escapeNonAscii(source))(), 1);
  assert.equal(escapeNonAscii("/[\u2713\u00b7]/"), "/[\\u2713\\u00b7]/");
});
