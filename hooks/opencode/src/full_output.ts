/**
 * Reads opencode's own copy of a bash output it cut (`metadata.outputPath`,
 * a file under `…/opencode/tool-output/`), the I/O edge of the plugin's
 * recovery of a cut result. The text is returned only when it is certainly
 * the whole, finished output opencode kept:
 *
 * - the path names a regular file directly under a `tool-output` directory,
 *   of at most {@link MAX_FULL_OUTPUT} bytes;
 * - the file did not change while it was read: the bytes read are as many as
 *   its size before, and its size and modification time after are the same
 *   (opencode appends to the file while the command runs and closes it
 *   before `tool.execute.after`; a file still growing is refused);
 * - it is UTF-8 (opencode writes text) and ends with the tail opencode
 *   showed the model (up to trailing white space).
 *
 * The returned text is exactly the bytes read, decoded, so what YARP
 * archives is what the plugin read. Anything else gives undefined (the
 * plugin then leaves the result as it was). Never throws.
 *
 * @module
 */
import { lstat, readFile } from "node:fs/promises";

/** Largest opencode full-output file read (bytes). */
export const MAX_FULL_OUTPUT = 64 * 1024 * 1024;

/** The file operations used, injectable for tests. */
export interface FullOutputFs {
  /** Size, kind and modification time of `path` (not following a final link). */
  readonly stat: (path: string) => Promise<{ isFile(): boolean; size: number; mtimeMs: number }>;
  /** Every byte of `path`. */
  readonly read: (path: string) => Promise<Uint8Array>;
}

const NODE_FS: FullOutputFs = { stat: (path) => lstat(path), read: (path) => readFile(path) };

/**
 * The whole text of opencode's full-output file at `path`, when it is
 * complete, stable and ends with `tail` (see the module comment); else
 * undefined.
 */
export async function readFullOutput(
  path: string,
  tail: string,
  fs: FullOutputFs = NODE_FS,
): Promise<string | undefined> {
  try {
    if (!/\/tool-output\/[^/]+$/.test(path)) return undefined;
    const before = await fs.stat(path);
    if (!before.isFile() || before.size > MAX_FULL_OUTPUT) return undefined;
    const bytes = await fs.read(path);
    const after = await fs.stat(path);
    if (
      bytes.length !== before.size || after.size !== before.size ||
      after.mtimeMs !== before.mtimeMs
    ) {
      return undefined;
    }
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    return text.trimEnd().endsWith(tail.trimEnd()) ? text : undefined;
  } catch {
    return undefined;
  }
}
