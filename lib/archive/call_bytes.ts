/**
 * Call byte files: the exact stream bytes of each call (schema version 2)
 * live in one file per call beside the database, so writing them never
 * holds SQLite's write lock (docs/archive.md, "Concurrency").
 *
 * Layout: `<database>-bytes/<first two id digits>/<id>`, created 0600 in
 * 0700 directories, holding the call's streams back to back in the order of
 * the stream rows (each row records its offset). A file is written and
 * closed before its row commits, created with `createNew` so two writers
 * can never share one, and removed only after the rows that name it are
 * gone. A crash between the two steps leaves an orphan file (no row), which
 * `yarp archive prune` removes after {@link ORPHAN_AGE_MS}; never the reverse.
 *
 * @module
 */

/** An orphan call file younger than this may belong to a commit in flight (60 s). */
export const ORPHAN_AGE_MS = 60 * 1000;

/** The directory holding the call files of the archive at `dbPath`. */
export function callBytesDir(dbPath: string): string {
  return `${dbPath}-bytes`;
}

/**
 * The call file of call `id` in the archive at `dbPath`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { callBytesPath } from "./call_bytes.ts";
 * equal(callBytesPath("/s/archive.sqlite3", "8f2c1a0b"), "/s/archive.sqlite3-bytes/8f/8f2c1a0b");
 * ```
 */
export function callBytesPath(dbPath: string, id: string): string {
  return `${callBytesDir(dbPath)}/${id.slice(0, 2)}/${id}`;
}

/**
 * Creates the call file for `id` (0600, directories 0700 as needed) and
 * returns it open for writing, or undefined when a file of that name
 * already exists (the caller picks another id). Throws other file-system
 * errors.
 */
export function createCallFile(dbPath: string, id: string): Deno.FsFile | undefined {
  const path = callBytesPath(dbPath, id);
  const options = { write: true, createNew: true, mode: 0o600 } as const;
  try {
    return Deno.openSync(path, options);
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return undefined;
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true, mode: 0o700 });
  try {
    return Deno.openSync(path, options);
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return undefined;
    throw error;
  }
}

/** Removes the call file of `id`; true when removed, false when absent or not removable. Never throws. */
export function removeCallFile(dbPath: string, id: string): boolean {
  try {
    Deno.removeSync(callBytesPath(dbPath, id));
    return true;
  } catch {
    return false;
  }
}

/**
 * The call files under the archive at `dbPath` whose id `isKnown` rejects
 * and whose modification time is more than {@link ORPHAN_AGE_MS} before
 * `nowMs`, with their sizes, in name order. Never throws: an unreadable or
 * missing directory has no orphans.
 */
export function orphanCallFiles(
  dbPath: string,
  isKnown: (id: string) => boolean,
  nowMs: number,
): { readonly id: string; readonly path: string; readonly size: number }[] {
  const root = callBytesDir(dbPath);
  const found: { id: string; path: string; size: number }[] = [];
  let fans: string[];
  try {
    fans = [...Deno.readDirSync(root)].filter((e) => e.isDirectory).map((e) => e.name).sort();
  } catch {
    return found;
  }
  for (const fan of fans) {
    let names: string[];
    try {
      names = [...Deno.readDirSync(`${root}/${fan}`)].filter((e) => e.isFile).map((e) => e.name)
        .sort();
    } catch {
      continue;
    }
    for (const id of names) {
      if (isKnown(id)) continue;
      const path = `${root}/${fan}/${id}`;
      try {
        const info = Deno.statSync(path);
        if (nowMs - (info.mtime?.getTime() ?? nowMs) <= ORPHAN_AGE_MS) continue;
        found.push({ id, path, size: info.size });
      } catch {
        // removed meanwhile
      }
    }
  }
  return found;
}
