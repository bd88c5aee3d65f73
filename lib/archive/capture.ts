/**
 * The archive as `yarp run` sees it: spool each stream while the child
 * runs, then commit everything in one transaction and hand back the id, or
 * say why no id exists. It has the shape of the runner's `RawCapture`
 * (`lib/run/runner.ts`) without importing it (sibling layers).
 *
 * Outcomes, in the order the checks happen (docs/archive.md, "Failure modes"):
 *
 * - the spool failed (could not be created, or a write failed): nothing is
 *   committed, `unarchived` → the reduced output says no exact copy exists;
 * - the database cannot be opened or the transaction fails: `failed` →
 *   the runner restores the exact bytes from the spool;
 * - otherwise `archived` with the committed id. Only then may output name it.
 *
 * After a commit, retention runs at bounded cost (see `retention.ts`) and
 * stray spools are cleaned; errors there are ignored (the call is safe).
 * The search index is filled by `yarp search` (`search_index.ts`), never in
 * the run's path.
 *
 * @module
 */
import { type CallFacts, commitCall, type StreamName } from "./commit.ts";
import { autoRetention, makeRoom } from "./retention.ts";
import type { ArchiveSettings } from "./settings.ts";
import { cleanStraySpools, RunSpool } from "./spool.ts";
import type { DatabaseSync } from "node:sqlite";
import { openArchive } from "./store.ts";
import { firstLine } from "../base/error_message.ts";
import { countChars } from "../bytes/count_chars.ts";
import { recordReduction } from "./reductions.ts";

/** The exit facts the runner reports at commit. */
export interface CaptureStatus {
  readonly code: number;
  readonly signal?: string;
}

/** What became of the raw bytes. */
export type CaptureOutcome =
  | { readonly kind: "archived"; readonly id: string }
  | { readonly kind: "unarchived"; readonly reason: string }
  | { readonly kind: "failed"; readonly reason: string };

/** The facts of a run known before the child starts. */
export interface RunFacts {
  readonly createdMs: number;
  readonly cwd: string;
  readonly command: string;
  readonly argv: readonly string[];
  readonly ruleId: string;
  /** Who ran it (`gain.ts`'s hosts), recorded with the reduction. */
  readonly host: string;
}

const STREAMS: readonly StreamName[] = ["stdout", "stderr"];

/** Spools a run's stdout and stderr and commits them to the archive at exit. */
export class ArchiveCapture {
  readonly #settings: ArchiveSettings;
  readonly #facts: RunFacts;
  readonly #spool: RunSpool;
  readonly #commit: typeof commitCall;
  /** The database, opened while the child runs, or why it could not be. */
  readonly #db: Promise<DatabaseSync | { readonly error: string }> | undefined;
  /** Characters of both raw streams so far (`yarp gain`'s "before"). */
  #chars = 0;
  /** The committed call's database and row, until {@link shown} records the reduction. */
  #committed: { readonly db: DatabaseSync; readonly seq: number } | undefined;

  /**
   * Opens the spool for a run and starts opening the database, so that the
   * commit after exit only writes; never throws (a spool that cannot be
   * created makes the capture report `unarchived`, a database that cannot
   * be opened `failed` at commit). `commit` is injectable so tests can make
   * the transaction fail.
   */
  constructor(settings: ArchiveSettings, facts: RunFacts, commit: typeof commitCall = commitCall) {
    this.#settings = settings;
    this.#facts = facts;
    this.#commit = commit;
    this.#spool = RunSpool.open(settings.spoolDir, STREAMS, facts.createdMs);
    // Loading node:sqlite and the schema check overlap the child's run; no lock is held after.
    this.#db = this.#spool.failure === undefined
      ? openArchive(settings.path, "write").catch((error) => ({ error: firstLine(error) }))
      : undefined;
  }

  /** Appends a chunk of `stream`'s raw bytes; never throws, never keeps `chunk`. */
  write(stream: "stdout" | "stderr", chunk: Uint8Array): void {
    this.#spool.write(stream, chunk);
    this.#chars += countChars(chunk);
  }

  /**
   * Commits the spooled bytes with `status`. Never throws; see the module
   * comment for the three outcomes. Call once, after the last write.
   */
  async commit(status: CaptureStatus): Promise<CaptureOutcome> {
    const spoolFailure = this.#spool.failure;
    if (spoolFailure !== undefined) return { kind: "unarchived", reason: spoolFailure };
    const facts: CallFacts = {
      createdMs: this.#facts.createdMs,
      cwd: this.#facts.cwd,
      source: "run",
      command: this.#facts.command,
      argv: this.#facts.argv,
      exitCode: status.code,
      signal: status.signal ?? null,
      ruleId: this.#facts.ruleId,
    };
    const db = await this.#db!;
    if ("error" in db) return { kind: "failed", reason: db.error };
    try {
      const sources = STREAMS.map((name) => this.#spool.source(name));
      const committed = await this.#commit(db, facts, sources).catch((error) => {
        if (!makeRoom(db, this.#settings, Date.now(), error)) throw error;
        return this.#commit(db, facts, sources); // the disk was full: once more, with room
      });
      autoRetention(db, this.#settings, Date.now(), committed.seq);
      try {
        cleanStraySpools(this.#settings.spoolDir);
      } catch {
        // best effort; the call itself is committed
      }
      this.#committed = { db, seq: committed.seq };
      return { kind: "archived", id: committed.id };
    } catch (error) {
      return { kind: "failed", reason: `archive ${this.#settings.path}: ${firstLine(error)}` };
    }
  }

  /**
   * Records, after an `archived` commit, that the run's output was shown
   * as `charsAfter` characters (both reduced streams with their markers),
   * for `yarp gain`. Best effort: never throws; does nothing without a
   * commit or when called again.
   */
  shown(charsAfter: number): void {
    const committed = this.#committed;
    if (committed === undefined) return;
    this.#committed = undefined;
    try {
      recordReduction(committed.db, {
        callSeq: committed.seq,
        createdMs: this.#facts.createdMs,
        host: this.#facts.host,
        rule: this.#facts.ruleId,
        charsBefore: this.#chars,
        charsAfter,
      });
    } catch {
      // the figures are best effort; the call is committed
    }
  }

  /**
   * Writes the exact spooled bytes of `stream` to `write`, in chunks of at
   * most 1 MiB. Throws what `write` throws, or an Error when the spool
   * cannot be read.
   */
  restore(stream: "stdout" | "stderr", write: (bytes: Uint8Array) => void): void {
    const source = this.#spool.source(stream);
    const buffer = new Uint8Array(Math.min(source.size, 1024 * 1024));
    for (let offset = 0; offset < source.size;) {
      const got = source.read(offset, buffer);
      if (got === 0) throw new Error(`spool ${stream}: ended at ${offset} of ${source.size} bytes`);
      write(buffer.subarray(0, got));
      offset += got;
    }
  }

  /** Releases the spool (its bytes vanish) and the database connection. Idempotent. */
  close(): void {
    this.#spool.close();
    this.#db?.then((db) => {
      try {
        if (!("error" in db) && db.isOpen) db.close();
      } catch {
        // closing cannot undo a commit
      }
    });
  }
}
