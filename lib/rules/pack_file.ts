/**
 * The file edge of the `.yrp` format: writing a compiled pack atomically with
 * owner-only permissions, and reading one with its file identity kept so a
 * later caller can prove the file was not replaced or modified in between
 * (docs/architecture.md, "Writes and permissions" and "Rewrite and run agreement").
 *
 * Known misses: the parent directory is not fsynced after the rename, so a
 * crash right after a write may leave the previous file; identity compares
 * (dev, ino, size, mtime, ctime), so an in-place rewrite within one timestamp
 * tick that keeps the size is caught only by the content digests.
 *
 * @module
 */
import {
  type CompiledPack,
  openCompiledPack,
  openCompiledPackAsync,
  PackFormatError,
} from "./compiled_pack.ts";
import { LIMITS } from "./model.ts";
import { firstLine } from "../base/error_message.ts";

/** Why a pack file could not be read or written. */
export type PackFileErrorCode = "not-found" | "not-a-file" | "unreadable" | "write-failed";

/** A pack file I/O failure; `message` is one line naming the path. */
export class PackFileError extends Error {
  /** The machine-readable reason. */
  readonly code: PackFileErrorCode;

  /** Creates the error; `message` must already be one line. */
  constructor(code: PackFileErrorCode, message: string) {
    super(message);
    this.name = "PackFileError";
    this.code = code;
  }
}

/** The stat fields that identify one version of a file. */
export interface PackFileIdentity {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  /** Modification time in milliseconds since the epoch, or null when unknown. */
  readonly mtimeMs: number | null;
  /** Status-change time in milliseconds since the epoch, or null when unknown. */
  readonly ctimeMs: number | null;
}

function identityOf(info: Deno.FileInfo): PackFileIdentity {
  return {
    dev: info.dev,
    ino: info.ino ?? -1,
    size: info.size,
    mtimeMs: info.mtime?.getTime() ?? null,
    ctimeMs: info.ctime?.getTime() ?? null,
  };
}

function sameIdentity(a: PackFileIdentity, b: PackFileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs;
}

/** A short reason for an I/O error, without the path Deno repeats in its messages. */
function reason(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "not found";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (error instanceof Deno.errors.IsADirectory) return "is a directory";
  if (error instanceof Deno.errors.NotADirectory) return "a parent is not a directory";
  if (error instanceof Deno.errors.AlreadyExists) return "already exists";
  return firstLine(error).replace(/:\s.*$/, "");
}

/** A compiled pack read from a file, with the identity of the version read. */
export class LoadedPackFile {
  /** Creates the record; use {@linkcode openCompiledPackFile}. */
  constructor(
    /** The path as given. */
    readonly path: string,
    /** The opened pack (header and index verified). */
    readonly pack: CompiledPack,
    /** The identity of the file version the bytes came from. */
    readonly identity: PackFileIdentity,
  ) {}

  /**
   * Re-stats the path and throws `PackFormatError` with code `changed` when
   * it is gone or is no longer the same file version (replaced, rewritten,
   * resized or touched) since it was read. Resolves when unchanged.
   */
  async assertUnchanged(): Promise<void> {
    let now: Deno.FileInfo;
    try {
      now = await Deno.stat(this.path);
    } catch (error) {
      throw new PackFormatError(
        "changed",
        `${this.path}: compiled pack changed (${reason(error)})`,
      );
    }
    if (!sameIdentity(this.identity, identityOf(now))) {
      throw new PackFormatError("changed", `${this.path}: compiled pack changed since it was read`);
    }
  }
}

function readExactly(file: Deno.FsFile, size: number, path: string): Uint8Array {
  const bytes = new Uint8Array(size);
  let filled = 0;
  while (filled < size) {
    const read = file.readSync(bytes.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  const extra = filled === size ? file.readSync(new Uint8Array(1)) : 0;
  if (filled !== size || extra !== null) {
    throw new PackFormatError("changed", `${path}: compiled pack changed while it was read`);
  }
  return bytes;
}

/**
 * Reads and opens a compiled pack like {@linkcode openCompiledPackFileSync},
 * hashing with the platform's native SHA-256 ({@linkcode openCompiledPackAsync}),
 * which is much faster on a large index. The read itself stays synchronous:
 * a local file read gains nothing from async I/O.
 *
 * @example
 * ```ts ignore
 * const loaded = await openCompiledPackFile("team.yrp");
 * loaded.pack.candidates("npm");
 * await loaded.assertUnchanged();
 * ```
 */
export async function openCompiledPackFile(path: string): Promise<LoadedPackFile> {
  const { bytes, info } = readPackFile(path);
  const pack = await openCompiledPackAsync(bytes, { label: path });
  return new LoadedPackFile(path, pack, identityOf(info));
}

/**
 * Reads and opens a compiled pack with {@linkcode openCompiledPack} and the
 * path as label. Throws `PackFileError` for I/O failures and
 * `PackFormatError` for a bad, oversized or concurrently changed pack.
 */
export function openCompiledPackFileSync(path: string): LoadedPackFile {
  const { bytes, info } = readPackFile(path);
  return new LoadedPackFile(path, openCompiledPack(bytes, { label: path }), identityOf(info));
}

/**
 * Stats `path` (a regular file of at most 64 MiB), opens it, re-checks the
 * opened file's identity and reads exactly its size. Throws `PackFileError`
 * for I/O failures and `PackFormatError` for an oversized pack.
 */
function readPackFile(path: string): { bytes: Uint8Array; info: Deno.FileInfo } {
  const check = (info: Deno.FileInfo): void => {
    if (!info.isFile) {
      throw new PackFileError("not-a-file", `${path}: compiled pack is not a regular file`);
    }
    if (info.size > LIMITS.compiledPackBytes) {
      throw new PackFormatError(
        "too-large",
        `${path}: ${info.size} bytes exceeds the ${LIMITS.compiledPackBytes} byte limit`,
      );
    }
  };
  let file: Deno.FsFile | undefined;
  try {
    check(Deno.statSync(path));
    file = Deno.openSync(path, { read: true });
    const info = file.statSync();
    check(info);
    return { bytes: readExactly(file, info.size, path), info };
  } catch (error) {
    if (error instanceof PackFormatError || error instanceof PackFileError) throw error;
    const code = error instanceof Deno.errors.NotFound ? "not-found" : "unreadable";
    throw new PackFileError(code, `${path}: cannot read compiled pack: ${reason(error)}`);
  } finally {
    file?.close();
  }
}

/**
 * Writes `bytes` to `path` atomically: a uniquely named temporary file
 * beside it, created with mode 0600, written fully, synced, then renamed over
 * `path`. The temporary file is removed on any failure; the parent directory
 * is never created or chmod-ed. Throws `PackFileError` (`write-failed`).
 *
 * @example
 * ```ts ignore
 * await writeCompiledPackFile("team.yrp", encodeCompiledPack(pack));
 * ```
 */
export async function writeCompiledPackFile(path: string, bytes: Uint8Array): Promise<void> {
  // A sibling of `path`, so the rename stays on one file system. String work
  // only: importing node:path would cost the short-lived process ~10 ms.
  const slash = path.lastIndexOf("/");
  const temp = `${path.slice(0, slash + 1)}.${path.slice(slash + 1)}.${crypto.randomUUID()}.tmp`;
  let file: Deno.FsFile | undefined;
  let created = false;
  try {
    file = await Deno.open(temp, { write: true, createNew: true, mode: 0o600 });
    created = true;
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.sync();
    file.close();
    file = undefined;
    await Deno.rename(temp, path);
  } catch (error) {
    file?.close();
    if (created) await Deno.remove(temp).catch(() => {});
    throw new PackFileError(
      "write-failed",
      `${path}: cannot write compiled pack: ${reason(error)}`,
    );
  }
}
