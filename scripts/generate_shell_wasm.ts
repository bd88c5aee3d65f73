/**
 * Writes `lib/shell/_wasm.generated.json`: the two WebAssembly files the shell
 * parser needs (web-tree-sitter's runtime `tree-sitter.wasm` and the bash
 * grammar `tree-sitter-bash.wasm`), base64-encoded, with their sizes and
 * SHA-256 digests. JSON rather than a TypeScript module: importing the 1.9 MB
 * of base64 as JSON costs ≈ 8 ms against ≈ 30 ms as TypeScript. Embedding the bytes in a module makes the parser work the
 * same from source, from the `deno bundle` artefact and from `deno compile`,
 * without file-system access or knowledge of the npm cache layout.
 *
 * The bytes come from the pinned npm packages in deno.json through raw
 * (`type: "bytes"`) imports, so the script needs `--unstable-raw-imports`.
 * The output depends only on those bytes. With `--check` it writes nothing
 * and exits 1 when the committed module is stale.
 *
 * Usage: deno task generate | deno task check
 */
import { join } from "node:path";
import { sha256, toHex } from "../lib/bytes/sha256.ts";

const ROOT = join(import.meta.dirname!, "..");
const OUTPUT = join(ROOT, "lib/shell/_wasm.generated.json");

async function bytesOf(specifier: string): Promise<Uint8Array> {
  const module = await import(specifier, { with: { type: "bytes" } });
  return module.default as Uint8Array;
}

function base64(bytes: Uint8Array): string {
  return (bytes as Uint8Array & { toBase64(): string }).toBase64();
}

/** Renders the generated JSON for the runtime and grammar bytes. */
export function renderWasmModule(runtime: Uint8Array, grammar: Uint8Array): string {
  return JSON.stringify(
    {
      generatedBy: "scripts/generate_shell_wasm.ts",
      sources: ["npm:web-tree-sitter@0.25.10", "npm:tree-sitter-bash@0.25.1"],
      runtimeBytes: runtime.length,
      runtimeSha256: toHex(sha256(runtime)),
      grammarBytes: grammar.length,
      grammarSha256: toHex(sha256(grammar)),
      runtime: base64(runtime),
      grammar: base64(grammar),
    },
    null,
    2,
  ) + "\n";
}

if (import.meta.main) {
  const text = renderWasmModule(
    await bytesOf("web-tree-sitter/tree-sitter.wasm"),
    await bytesOf("tree-sitter-bash/tree-sitter-bash.wasm"),
  );
  if (Deno.args.includes("--check")) {
    let current = "";
    try {
      current = await Deno.readTextFile(OUTPUT);
    } catch {
      // missing counts as stale
    }
    if (current !== text) {
      console.error("lib/shell/_wasm.generated.json is stale: run `deno task generate`");
      Deno.exit(1);
    }
  } else {
    await Deno.writeTextFile(OUTPUT, text);
    console.log("wrote lib/shell/_wasm.generated.json");
  }
}
