/**
 * Writes the WebAssembly files the shell parser loads, byte for byte from the
 * pinned npm packages in deno.json: web-tree-sitter's runtime
 * (`lib/shell/_tree-sitter.generated.wasm`) and the bash grammar
 * (`lib/shell/_tree-sitter-bash.generated.wasm`). Raw files rather than base64
 * in JSON or TypeScript: the parser reads them with a `type: "bytes"` import
 * (which `deno bundle` inlines, keeping `dist/yarp.js` self-contained) or,
 * without `--unstable-raw-imports`, as files beside `lib/shell/_runtime.ts`;
 * either costs well under a millisecond against ≈ 10 ms to import and decode
 * 1.9 MB of base64 JSON.
 *
 * The bytes come from the npm packages through raw imports, so the script
 * needs `--unstable-raw-imports`. With `--check` it writes nothing and exits 1
 * when a committed file is missing or differs.
 *
 * Usage: deno task generate | deno task check
 */
import { join } from "node:path";
import { bytesEqual } from "../lib/bytes/byte_search.ts";

const ROOT = join(import.meta.dirname!, "..");

/** Each generated file and the pinned package file it copies. */
export const SHELL_WASM_FILES: readonly { readonly output: string; readonly source: string }[] = [
  { output: "lib/shell/_tree-sitter.generated.wasm", source: "web-tree-sitter/tree-sitter.wasm" },
  {
    output: "lib/shell/_tree-sitter-bash.generated.wasm",
    source: "tree-sitter-bash/tree-sitter-bash.wasm",
  },
];

async function bytesOf(specifier: string): Promise<Uint8Array> {
  const module = await import(specifier, { with: { type: "bytes" } });
  return module.default as Uint8Array;
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  let stale = false;
  for (const { output, source } of SHELL_WASM_FILES) {
    const bytes = await bytesOf(source);
    const path = join(ROOT, output);
    if (check) {
      let current = new Uint8Array();
      try {
        current = await Deno.readFile(path);
      } catch {
        // missing counts as stale
      }
      if (!bytesEqual(current, bytes)) {
        console.error(`${output} is stale: run \`deno task generate\``);
        stale = true;
      }
    } else {
      await Deno.writeFile(path, bytes);
      console.log(`wrote ${output}`);
    }
  }
  if (stale) Deno.exit(1);
}
