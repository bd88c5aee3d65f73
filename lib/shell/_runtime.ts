/**
 * Loads web-tree-sitter and the bash grammar once per process, from the
 * WebAssembly bytes embedded in `_wasm.generated.json` (no file or network
 * access). Everything is imported lazily so that only commands that parse
 * pay for it.
 *
 * @module
 */
import type { Parser } from "web-tree-sitter";

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return (Uint8Array as unknown as { fromBase64(text: string): Uint8Array<ArrayBuffer> })
    .fromBase64(text);
}

let loading: Promise<Parser> | undefined;

/** The process-wide tree-sitter parser for bash; rejects when the runtime cannot start. */
export function loadBashTreeParser(): Promise<Parser> {
  return loading ??= initialise();
}

async function initialise(): Promise<Parser> {
  const [{ Parser, Language }, wasm] = await Promise.all([
    import("web-tree-sitter"),
    import("./_wasm.generated.json", { with: { type: "json" } }),
  ]);
  const runtime = new WebAssembly.Module(fromBase64(wasm.default.runtime));
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
  const language = await Language.load(fromBase64(wasm.default.grammar));
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
