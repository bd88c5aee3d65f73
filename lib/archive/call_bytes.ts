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
 * gone. A crash between the two steps leaves an orphan file (no row), never
 * the reverse.
 *
 * Orphans are found two ways. Before a commit creates a call file, and
 * before retention deletes a call's rows, an empty **pending mark**
 * `<database>-bytes/pending/<id>` is made; it is removed once the rows and
 * the file agree again. A crash leaves the mark, so the next run's
 * retention finds its orphan by reading one small directory
 * ({@link crashLeftovers}), not every call file. `archive stats`, `check`
 * and `prune` also scan every file ({@link orphanCallFiles}), which finds
 * orphans with no mark (left by an older YARP). Either way a file is an
 * orphan only once it is older than {@link ORPHAN_AGE_MS}.
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

/** The pending mark of call `id` (see the module comment). */
function pendingMarkPath(dbPath: string, id: string): string {
  return `${callBytesDir(dbPath)}/${PENDING_DIR}/${id}`;
}

const PENDING_DIR = "pending";

/** Pending marks {@link crashLeftovers} looks at per call, so a run's cost stays bounded. */
export const PENDING_SCAN_LIMIT = 64;

/**
 * Makes the pending mark of `id` (an empty file, 0600, its directory 0700)
 * before a step that a crash could leave half done. Throws the file-system
 * error when it cannot (the step must then not start).
 */
export function markPending(dbPath: string, id: string): void {
  const path = pendingMarkPath(dbPath, id);
  const options = { write: true, create: true, mode: 0o600 } as const;
  try {
    Deno.openSync(path, options).close();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true, mode: 0o700 });
    Deno.openSync(path, options).close();
  }
}

/** Removes the pending mark of `id` once its file and rows agree; never throws. */
export function clearPending(dbPath: string, id: string): void {
  try {
    Deno.removeSync(pendingMarkPath(dbPath, id));
  } catch {
    // gone already; a leftover mark only costs the next run one look
  }
}

/**
 * The ids of pending marks older than {@link ORPHAN_AGE_MS} before `nowMs`
 * (a commit or removal that crashed), at most `limit` marks looked at, in
 * name order. Never throws: no directory means none.
 */
export function crashLeftovers(
  dbPath: string,
  nowMs: number,
  limit = PENDING_SCAN_LIMIT,
): string[] {
  const dir = `${callBytesDir(dbPath)}/${PENDING_DIR}`;
  const found: string[] = [];
  try {
    let looked = 0;
    for (const entry of Deno.readDirSync(dir)) {
      if (looked++ >= limit) break;
      try {
        const info = Deno.statSync(`${dir}/${entry.name}`);
        if (nowMs - (info.mtime?.getTime() ?? nowMs) > ORPHAN_AGE_MS) found.push(entry.name);
      } catch {
        // removed meanwhile
      }
    }
  } catch {
    // no marks
  }
  return found.sort();
}

/** The size of the call file of `id`, or undefined when there is none. */
export function callFileSize(dbPath: string, id: string): number | undefined {
  try {
    return Deno.statSync(callBytesPath(dbPath, id)).size;
  } catch {
    return undefined;
  }
}

/**
 * Opens the call file of `id` for reading. Throws `Deno.errors.NotFound`
 * when it is absent and {@link NotACallFileError} when the name is not a
 * regular file: opening a FIFO would wait for a writer forever, a device
 * could stream without end. (A swap between the check and the open is not
 * caught; the state directory is the user's own.)
 */
export function openCallFile(dbPath: string, id: string): Deno.FsFile {
  const path = callBytesPath(dbPath, id);
  const info = Deno.lstatSync(path);
  if (!info.isFile) throw new NotACallFileError("its file is not a regular file");
  return Deno.openSync(path, { read: true });
}

/** A call's file name holds something other than a regular file (a FIFO, a link, a directory). */
export class NotACallFileError extends Error {
  override name = "NotACallFileError";
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
 * The call files under the archive at `dbPath` that are not among the ids
 * `knownIn(fan)` gives for their fan directory (asked once per directory,
 * so a caller holds one directory's ids at a time) and whose modification
 * time is more than {@link ORPHAN_AGE_MS} before `nowMs`, with their
 * sizes, in name order. Never throws: an unreadable or missing directory
 * has no orphans.
 */
export function orphanCallFiles(
  dbPath: string,
  knownIn: (fan: string) => ReadonlySet<string>,
  nowMs: number,
): { readonly id: string; readonly path: string; readonly size: number }[] {
  const root = callBytesDir(dbPath);
  const found: { id: string; path: string; size: number }[] = [];
  let fans: string[];
  try {
    fans = [...Deno.readDirSync(root)].filter((e) => e.isDirectory && e.name !== PENDING_DIR)
      .map((e) => e.name).sort();
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
    const known = names.length === 0 ? new Set<string>() : knownIn(fan);
    for (const id of names) {
      if (known.has(id)) continue;
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
