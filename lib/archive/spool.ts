/**
 * The run spool: one file per captured stream under the spool directory,
 * created 0600 (directory 0700), written synchronously as chunks arrive and
 * read back through the same open descriptor at commit time.
 *
 * Each file is unlinked right after it is created: the open descriptor
 * keeps the bytes, and nothing is left on disk however YARP ends (SIGKILL
 * included). A YARP killed in the instant between create and unlink leaves
 * a stray file; {@link cleanStraySpools} removes strays at bounded cost.
 *
 * A failed write (disk full, `ulimit -f`, I/O error) marks the spool
 * failed and stops writing; the caller then says no exact copy exists.
 * While a spool is open, SIGXFSZ is handled, so exceeding `ulimit -f`
 * gives an EFBIG error instead of killing YARP.
 *
 * @module
 */
import type { StreamName, StreamSource } from "./commit.ts";
import { ensurePrivateDir } from "./store.ts";
import { firstLine } from "../base/error_message.ts";
import { writeAll } from "../base/write_all.ts";

/** Spool entries {@link cleanStraySpools} looks at per call. */
export const STRAY_SCAN_LIMIT = 64;
/**
 * A named spool file older than this is stray (60 s). A live run unlinks
 * its files microseconds after creating them, so any file still there
 * after the grace period belongs to a YARP that died in between. (A pid
 * check is not possible: the sandbox refuses `/proc` without --allow-all.)
 */
export const STRAY_AGE_MS = 60 * 1000;

const SPOOL_NAME = /^(\d+)-(\d+)-[0-9a-f]+\.(stdout|stderr|output)$/;

function ignoreXfsz(): void {}

/** Spooled streams of one run. Create with {@link RunSpool.open}; always {@link RunSpool.close}. */
export class RunSpool {
  readonly #files = new Map<StreamName, Deno.FsFile>();
  readonly #sizes = new Map<StreamName, number>();
  #failure: string | undefined;
  #xfsz = false;

  private constructor() {}

  /**
   * Creates the spool directory (0700) if needed and one unlinked 0600
   * file per name. Never throws: when the directory or a file cannot be
   * created, the spool is returned already failed (see {@link failure}).
   */
  static open(dir: string, names: readonly StreamName[], nowMs = Date.now()): RunSpool {
    const spool = new RunSpool();
    try {
      Deno.addSignalListener("SIGXFSZ", ignoreXfsz);
      spool.#xfsz = true;
    } catch {
      // not supported here; a write over the limit may then end the process
    }
    try {
      ensurePrivateDir(dir);
      const tag = `${nowMs}-${Deno.pid}-${randomHex()}`;
      for (const name of names) {
        const path = `${dir}/${tag}.${name}`;
        const file = Deno.openSync(path, {
          read: true,
          write: true,
          createNew: true,
          mode: 0o600,
        });
        spool.#files.set(name, file);
        spool.#sizes.set(name, 0);
        Deno.removeSync(path);
      }
    } catch (error) {
      spool.#fail(`spool ${dir}: ${firstLine(error)}`);
    }
    return spool;
  }

  /** Why the spool failed (one line), or undefined while every byte so far is kept. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /**
   * Appends `chunk` to stream `name`. Never throws: the first failure is
   * recorded, the files are closed and later writes are ignored. The chunk
   * is written before returning, so the caller may reuse its buffer.
   */
  write(name: StreamName, chunk: Uint8Array): void {
    if (this.#failure !== undefined) return;
    const file = this.#files.get(name);
    if (file === undefined) return this.#fail(`spool: no stream ${name}`);
    try {
      writeAll(file, chunk);
      this.#sizes.set(name, this.#sizes.get(name)! + chunk.length);
    } catch (error) {
      this.#fail(`spool ${name}: ${firstLine(error)}`);
    }
  }

  /** A readable view of stream `name` for commit or restoration; throws after a failure. */
  source(name: StreamName): StreamSource {
    const file = this.#files.get(name);
    if (this.#failure !== undefined || file === undefined) {
      throw new Error(this.#failure ?? `spool: no stream ${name}`);
    }
    const size = this.#sizes.get(name)!;
    return {
      name,
      size,
      read(offset, buffer) {
        file.seekSync(offset, Deno.SeekMode.Start);
        let got = 0;
        while (got < buffer.length) {
          const n = file.readSync(buffer.subarray(got));
          if (n === null) break;
          got += n;
        }
        return got;
      },
    };
  }

  /** Closes every file (their bytes disappear with them) and stops handling SIGXFSZ. Idempotent. */
  close(): void {
    for (const file of this.#files.values()) {
      try {
        file.close();
      } catch {
        // already closed
      }
    }
    this.#files.clear();
    if (this.#xfsz) {
      this.#xfsz = false;
      Deno.removeSignalListener("SIGXFSZ", ignoreXfsz);
    }
  }

  #fail(reason: string): void {
    this.#failure ??= reason;
    for (const file of this.#files.values()) {
      try {
        file.close();
      } catch {
        // already closed
      }
    }
    this.#files.clear();
  }
}

function randomHex(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Removes stray spool files in `dir` left by a YARP that died before
 * unlinking them: a file is stray when the time in its name is more than
 * {@link STRAY_AGE_MS} before `nowMs`. Looks at no more than
 * {@link STRAY_SCAN_LIMIT} entries; never throws; returns how many it removed.
 */
export function cleanStraySpools(dir: string, nowMs = Date.now()): number {
  let removed = 0;
  let seen = 0;
  try {
    for (const entry of Deno.readDirSync(dir)) {
      if (++seen > STRAY_SCAN_LIMIT) break;
      const match = SPOOL_NAME.exec(entry.name);
      if (match === null || !entry.isFile) continue;
      if (nowMs - Number(match[1]) <= STRAY_AGE_MS) continue;
      try {
        Deno.removeSync(`${dir}/${entry.name}`);
        removed += 1;
      } catch {
        // another run removed it first, or we may not; either way not ours
      }
    }
  } catch {
    // no spool directory yet, or unreadable: nothing to clean
  }
  return removed;
}
