/**
 * Writing a corpus output (an imported corpus, an HTML report) so that a
 * reader never sees half a file: write a uniquely named temporary file
 * beside the target, then rename it over the target.
 *
 * @module
 */

/**
 * A unique temporary path in the same directory as `path` (so the final
 * rename stays on one file system): `DIR/.NAME.UUID.tmp`.
 */
export function siblingTempPath(path: string): string {
  const slash = path.lastIndexOf("/");
  return `${path.slice(0, slash + 1)}.${path.slice(slash + 1)}.${crypto.randomUUID()}.tmp`;
}

/**
 * Writes `text` to `path` through a sibling temporary file renamed over it.
 * On any failure the temporary file is removed and the error rethrown;
 * `path` is then left as it was.
 */
export async function writeTextAtomically(path: string, text: string): Promise<void> {
  const temp = siblingTempPath(path);
  try {
    await Deno.writeTextFile(temp, text, { createNew: true });
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}
