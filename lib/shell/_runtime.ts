/**
 * Loads web-tree-sitter and the bash grammar once per process, from the two
 * WebAssembly files `scripts/generate_shell_wasm.ts` copies beside this module
 * (no network access). Everything is imported lazily so that only commands
 * that parse pay for it.
 *
 * The bytes come from `type: "bytes"` imports when the process runs with
 * `--unstable-raw-imports` (bin/yarp does; `deno bundle` inlines them, so
 * dist/yarp.js needs nothing beside it), otherwise from reading the files
 * beside this module (`deno test`, plain `deno run`).
 *
 * @module
 */
import type { Parser } from "web-tree-sitter";

let loading: Promise<Parser> | undefined;

/** The process-wide tree-sitter parser for bash; rejects when the runtime cannot start. */
export function loadBashTreeParser(): Promise<Parser> {
  return loading ??= initialise();
}

/** The runtime and grammar WebAssembly bytes, by whichever route this process allows. */
export async function shellWasmBytes(): Promise<{ runtime: Uint8Array; grammar: Uint8Array }> {
  try {
    const [runtime, grammar] = await Promise.all([
      import("./_tree-sitter.generated.wasm", { with: { type: "bytes" } }),
      import("./_tree-sitter-bash.generated.wasm", { with: { type: "bytes" } }),
    ]);
    return { runtime: runtime.default, grammar: grammar.default };
  } catch {
    // Raw imports are unstable in Deno 2.9 and refused without the flag.
    const [runtime, grammar] = await Promise.all([
      Deno.readFile(new URL("./_tree-sitter.generated.wasm", import.meta.url)),
      Deno.readFile(new URL("./_tree-sitter-bash.generated.wasm", import.meta.url)),
    ]);
    return { runtime, grammar };
  }
}

async function initialise(): Promise<Parser> {
  const [{ Parser, Language }, wasm] = await Promise.all([
    import("web-tree-sitter"),
    shellWasmBytes(),
  ]);
  const runtime = new WebAssembly.Module(wasm.runtime as Uint8Array<ArrayBuffer>);
  // Emscripten treats a host with a Node-like `process` (Deno has one) as
  // Node and loads `node:module`, `node:fs` and `node:path` (≈ 25 ms, plus
  // ≈ 15 ms to materialise `process` itself) only to find files we already
  // hand it as bytes. Hiding `process` while it starts keeps it on the plain
  // path; the original property is restored right after.
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, "process");
  Object.defineProperty(globalThis, "process", {
    value: undefined,
    configurable: true,
    writable: true,
  });
  try {
    await initParser(Parser, runtime);
  } finally {
    if (descriptor === undefined) delete (globalThis as { process?: unknown }).process;
    else Object.defineProperty(globalThis, "process", descriptor);
  }
  const language = await Language.load(wasm.grammar);
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

function initParser(Parser: typeof import("web-tree-sitter").Parser, runtime: WebAssembly.Module) {
  return Parser.init({
    instantiateWasm(
      imports: WebAssembly.Imports,
      done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
    ) {
      const instance = new WebAssembly.Instance(runtime, imports);
      done(instance, runtime);
      return instance.exports;
    },
  });
}
