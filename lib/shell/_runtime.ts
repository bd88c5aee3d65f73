/**
 * Starts the shell parser once per process: compiles
 * `_bash_parser.generated.wasm` (tree-sitter and the bash grammar in one
 * static module, built by scripts/build_shell_wasm.ts) and instantiates it
 * through the binding in `bash_parser.ts`. No network access; imported
 * lazily so that only commands that parse pay for it.
 *
 * From source (bin/yarp, `deno test`) the bytes are read from the file
 * beside this module in one synchronous read: about 1.9 ms here against
 * 3.2 ms for the same file through a `type: "bytes"` import (fresh
 * processes, 1.2 MB). The single-file bundle has no file beside it:
 * `deno bundle --unstable-raw-imports` inlines the `type: "bytes"` import,
 * so dist/yarp.js needs nothing beside it.
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

/** True when this code runs as `lib/shell/_runtime.ts` itself, not inside a bundle. */
const FROM_SOURCE = import.meta.url.endsWith("/lib/shell/_runtime.ts");

/**
 * The parser module's WebAssembly bytes: read from the file beside this
 * module when running from source, else from the inlined `type: "bytes"`
 * import (the bundle). Rejects when neither is there.
 */
export async function shellWasmBytes(): Promise<Uint8Array> {
  const beside = new URL("./_bash_parser.generated.wasm", import.meta.url);
  if (FROM_SOURCE) return Deno.readFileSync(beside);
  const module = await import("./_bash_parser.generated.wasm", { with: { type: "bytes" } });
  return module.default;
}
