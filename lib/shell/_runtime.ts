/**
 * Starts the shell parser once per process: compiles
 * `_bash_parser.generated.wasm` (tree-sitter and the bash grammar in one
 * static module, built by scripts/build_shell_wasm.ts) and instantiates it
 * through the binding in `bash_parser.ts`. No network access; imported
 * lazily so that only commands that parse pay for it.
 *
 * The bytes come from a `type: "bytes"` import when the process runs with
 * `--unstable-raw-imports` (bin/yarp does; `deno bundle` inlines them, so
 * dist/yarp.js needs nothing beside it), otherwise from reading the file
 * beside this module (`deno test`, plain `deno run`).
 *
 * @module
 */
import { type BashParser, instantiateBashParser } from "./bash_parser.ts";

let loading: Promise<BashParser> | undefined;

/** The process-wide bash parser; rejects when the module cannot start. */
export function loadBashTreeParser(): Promise<BashParser> {
  return loading ??= shellWasmBytes().then((bytes) =>
    instantiateBashParser(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>))
  );
}

/** The parser module's WebAssembly bytes, by whichever route this process allows. */
export async function shellWasmBytes(): Promise<Uint8Array> {
  try {
    const module = await import("./_bash_parser.generated.wasm", { with: { type: "bytes" } });
    return module.default;
  } catch {
    // Raw imports are unstable in Deno 2.9 and refused without the flag.
    return await Deno.readFile(new URL("./_bash_parser.generated.wasm", import.meta.url));
  }
}
