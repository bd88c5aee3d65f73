/**
 * Opening the archive database and keeping its schema (see docs/archive.md,
 * "Schema"). One SQLite file through `node:sqlite`, WAL journal,
 * `synchronous=NORMAL`, a 10 s busy timeout, incremental auto-vacuum. The
 * file is created 0600 (SQLite gives its -wal and -shm files the same mode)
 * in a directory created 0700. The stream bytes of schema-2 rows live in
 * call files beside it (`call_bytes.ts`).
 *
 * Reading never writes: `read` mode opens the file read-only, and where
 * SQLite cannot create or map its -shm file (a read-only directory, a full
 * disk) it reads the database file into memory (at most
 * {@link MEMORY_COPY_LIMIT} bytes) and opens that copy, which sees the file
 * as it is (commits still only in a -wal file are then not visible). It
 * never hands SQLite a `file:` URI: Deno resolves one as a path relative to
 * the working directory unless the process has every permission, which
 * YARP's sandbox never grants. The -wal/-shm stubs the failed attempt
 * created are removed, so a read leaves the directory as it found it.
 *
 * `node:sqlite` is imported on first open, never at module load, so code
 * that never archives never pays for it.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { firstLine } from "../base/error_message.ts";

/** The schema version this build writes (`PRAGMA user_version`). */
export const SCHEMA_VERSION = 3;

/** Milliseconds a connection waits for another writer before failing. */
export const BUSY_TIMEOUT_MS = 10_000;

/** An archive failure with a one-line, user-facing message (no stack trace needed). */
export class ArchiveError extends Error {
  override name = "ArchiveError";
}

/**
 * The bounded record of pruned ids (retention.ts keeps its newest rows), so
 * `yarp read` of a pruned id says when and why. Created with the schema, by
 * the migration to version 3, and on a write open of an archive that lacks
 * it; a reader treats its absence as empty.
 */
const PRUNED_TABLE = `CREATE TABLE IF NOT EXISTS pruned (
  seq        INTEGER PRIMARY KEY,
  id         TEXT    NOT NULL,
  created_ms INTEGER NOT NULL,
  pruned_ms  INTEGER NOT NULL,
  reason     TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS pruned_by_id ON pruned (id);`;

/**
 * Schema 3: one row per result YARP changed, for `yarp gain` (no text, only
 * sizes). `call_seq` names the archived call; rows outlive its retention.
 */
const REDUCTIONS = `
CREATE TABLE reductions (
  call_seq     INTEGER NOT NULL,
  created_ms   INTEGER NOT NULL,
  host         TEXT    NOT NULL,
  rule         TEXT    NOT NULL,
  chars_before INTEGER NOT NULL,
  chars_after  INTEGER NOT NULL
);
CREATE INDEX reductions_by_time ON reductions (created_ms);
`;

const SCHEMA = `
CREATE TABLE calls (
  seq         INTEGER PRIMARY KEY,
  id          TEXT    NOT NULL UNIQUE,
  created_ms  INTEGER NOT NULL,
  cwd         TEXT    NOT NULL,
  source      TEXT    NOT NULL CHECK (source IN ('run', 'put')),
  command     TEXT    NOT NULL,
  argv        TEXT,
  exit_code   INTEGER,
  signal      TEXT,
  rule_id     TEXT,
  total_bytes INTEGER NOT NULL
);
CREATE INDEX calls_by_time ON calls (created_ms);
CREATE TABLE streams (
  call_seq    INTEGER NOT NULL,
  name        TEXT    NOT NULL CHECK (name IN ('stdout', 'stderr', 'output')),
  size        INTEGER NOT NULL,
  sha256      TEXT    NOT NULL,
  chunk_count INTEGER NOT NULL,
  blob_offset INTEGER,
  PRIMARY KEY (call_seq, name)
) WITHOUT ROWID;
-- Stream bytes of schema-1 rows (blob_offset NULL); schema 2 writes call files.
CREATE TABLE chunks (
  call_seq INTEGER NOT NULL,
  stream   TEXT    NOT NULL,
  n        INTEGER NOT NULL,
  data     BLOB    NOT NULL,
  PRIMARY KEY (call_seq, stream, n)
);
CREATE TABLE archive_totals (
  one      INTEGER PRIMARY KEY CHECK (one = 1),
  calls    INTEGER NOT NULL,
  bytes    INTEGER NOT NULL,
  last_seq INTEGER NOT NULL DEFAULT 0
);
INSERT INTO archive_totals (one, calls, bytes) VALUES (1, 0, 0);
${PRUNED_TABLE}
${REDUCTIONS}
PRAGMA user_version = ${SCHEMA_VERSION};
`;

/** The directory part of `path`: everything before its last `/`, or `/` for a top-level name. */
export function parentDir(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}

/** How to open: `write` creates the directory and file when missing; `read` requires them. */
export type OpenMode = "write" | "read";

/**
 * Creates `dir` (and missing parents) with mode 0700 when absent. Throws
 * the file-system error when it cannot.
 */
export function ensurePrivateDir(dir: string): void {
  try {
    if (Deno.statSync(dir).isDirectory) return;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Opens the archive at `path` and brings its schema to
 * {@link SCHEMA_VERSION}. In `write` mode a missing directory is created
 * 0700 and a missing file 0600, and a schema-1 archive is upgraded in
 * place. In `read` mode nothing is written: a missing or empty file is an
 * {@link ArchiveError} ("no archive at PATH"), and the file is opened
 * read-only, else copied into memory (see the module comment). A file that is not a
 * YARP archive, a corrupt one, or one from a newer YARP is an ArchiveError
 * with one line naming the path. The caller closes the returned database.
 */
export async function openArchive(path: string, mode: OpenMode): Promise<DatabaseSync> {
  if (mode === "write") {
    try {
      ensurePrivateDir(parentDir(path));
      Deno.openSync(path, { read: true, write: true, create: true, mode: 0o600 }).close();
    } catch (error) {
      throw new ArchiveError(`archive ${path}: ${firstLine(error)}`);
    }
  } else {
    let size: number;
    try {
      size = Deno.statSync(path).size;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) size = 0;
      else throw new ArchiveError(`archive ${path}: ${firstLine(error)}`);
    }
    if (size === 0) throw new ArchiveError(`no archive at ${path} (nothing has been archived yet)`);
  }
  const { DatabaseSync } = await import("node:sqlite");
  Database = DatabaseSync;
  let db: DatabaseSync | undefined;
  try {
    if (mode === "read") return openForReading(DatabaseSync, path, checkReadableVersion);
    db = new DatabaseSync(path);
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    prepareSchema(db);
    db.exec("PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 67108864");
    return db;
  } catch (error) {
    try {
      db?.close();
    } catch {
      // already failing; the first error is the one to report
    }
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError(`archive ${path}: ${firstLine(error)}`);
  }
}

let Database: typeof DatabaseSync | undefined;

/**
 * Opens another SQLite file of the archive (its search index) in `mode`
 * with the archive's settings; `read` opens it read-only, else as a copy in
 * memory, like the archive. Synchronous: callable only once {@link openArchive}
 * has loaded `node:sqlite` in this process (it throws otherwise). A
 * missing file in `read` mode throws. A `write` open that fails (a full
 * disk) removes the empty file and the stubs it created.
 */
export function openCompanion(path: string, mode: OpenMode): DatabaseSync {
  if (Database === undefined) throw new Error("openCompanion: node:sqlite is not loaded");
  if (mode === "read") return openForReading(Database, path, () => {});
  const created = absent([path, `${path}-wal`, `${path}-shm`]);
  let db: DatabaseSync | undefined;
  try {
    Deno.openSync(path, { read: true, write: true, create: true, mode: 0o600 }).close();
    db = new Database(path);
    // auto_vacuum takes effect only on a new file, before WAL mode writes its header.
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA auto_vacuum = INCREMENTAL`);
    walMode(db);
    db.exec("PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 67108864");
    return db;
  } catch (error) {
    db?.close();
    removeStubs(created);
    throw error;
  }
}

/** Errors that say SQLite could not create or use its -shm or -wal file here. */
const CANNOT_SHARE =
  /unable to open|disk I\/O error|readonly|read-only|disk is full|locking protocol/i;

/** Opens `path` read-only, falling back to a copy in memory; checks the schema version. */
function openForReading(
  Database: typeof DatabaseSync,
  path: string,
  check: (db: DatabaseSync, path: string) => void,
): DatabaseSync {
  const stubs = absent([`${path}-wal`, `${path}-shm`]);
  let db: DatabaseSync | undefined;
  try {
    db = new Database(path, { readOnly: true });
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    check(db, path);
    return db;
  } catch (error) {
    try {
      db?.close();
    } catch {
      // replaced below
    }
    if (error instanceof ArchiveError || !CANNOT_SHARE.test(firstLine(error))) throw error;
  }
  removeStubs(stubs);
  return openMemoryCopy(Database, path, check);
}

/** Largest database file a read copies into memory when SQLite cannot share it in place (128 MiB). */
export const MEMORY_COPY_LIMIT = 128 * 1024 * 1024;

/** The file each in-memory copy was read from (see {@link databasePath}). */
const copiedFrom = new WeakMap<DatabaseSync, string>();

/**
 * The path of the database file `db` was opened from: its location, or for
 * a read-only copy in memory (see the module comment) the file it was read
 * from. The archive's call files and search index are found from it.
 */
export function databasePath(db: DatabaseSync): string {
  return copiedFrom.get(db) ?? db.location()!;
}

/** The file-format byte (18 and 19 of the header) that marks a WAL database; 1 is rollback. */
const WAL_FORMAT = 2;

/**
 * Reads `path` whole into an in-memory database (query-only), marking the
 * copy's header as a rollback-journal file so SQLite looks for no -wal or
 * -shm. Refuses a file over {@link MEMORY_COPY_LIMIT} with one line.
 */
function openMemoryCopy(
  Database: typeof DatabaseSync,
  path: string,
  check: (db: DatabaseSync, path: string) => void,
): DatabaseSync {
  const size = Deno.statSync(path).size;
  if (size > MEMORY_COPY_LIMIT) {
    throw new ArchiveError(
      `archive ${path}: cannot be read here: SQLite cannot create its -shm file (a read-only ` +
        `or full disk) and the database (${mebibytes(size)}) is over the ` +
        `${mebibytes(MEMORY_COPY_LIMIT)} a read copies into memory`,
    );
  }
  const bytes = Deno.readFileSync(path);
  if (bytes.length >= 20 && bytes[18] === WAL_FORMAT && bytes[19] === WAL_FORMAT) {
    bytes[18] = 1;
    bytes[19] = 1;
  }
  const db = new Database(":memory:");
  try {
    if (bytes.length > 0) db.deserialize(bytes);
    db.exec("PRAGMA query_only = 1");
    check(db, path);
    copiedFrom.set(db, path);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function mebibytes(bytes: number): string {
  return `${Math.ceil(bytes / (1024 * 1024))} MiB`;
}

/** The paths among `paths` that do not exist now. */
function absent(paths: readonly string[]): string[] {
  return paths.filter((path) => {
    try {
      Deno.lstatSync(path);
      return false;
    } catch {
      return true;
    }
  });
}

/** Size of SQLite's first -shm region: a live connection's -shm is never smaller. */
const SHM_REGION_BYTES = 32 * 1024;

/**
 * Removes each of `paths` that is a regular file smaller than one -shm
 * region: a stub a failed open created (SQLite could not size it). Never
 * throws.
 */
function removeStubs(paths: readonly string[]): void {
  for (const path of paths) {
    try {
      const info = Deno.lstatSync(path);
      if (info.isFile && info.size < SHM_REGION_BYTES) Deno.removeSync(path);
    } catch {
      // absent, or not ours to remove
    }
  }
}

function checkReadableVersion(db: DatabaseSync, path: string): void {
  const version = userVersion(db);
  if (version > SCHEMA_VERSION) {
    throw new ArchiveError(
      `archive ${path}: schema version ${version} is newer than this yarp's (${SCHEMA_VERSION})`,
    );
  }
  if (version === 0) {
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number };
    throw new ArchiveError(
      Number(tables.n) === 0
        ? `no archive at ${path} (nothing has been archived yet)`
        : `archive ${path}: not a YARP archive (unknown tables)`,
    );
  }
}

function userVersion(db: DatabaseSync): number {
  return Number((db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version);
}

/** Switches to WAL and creates the schema once; concurrent first opens are serialised. */
function prepareSchema(db: DatabaseSync): void {
  const version = userVersion(db); // also detects "file is not a database"
  if (version === SCHEMA_VERSION) {
    walMode(db);
    const has = db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'pruned'")
      .get() as { n: number };
    if (Number(has.n) === 0) db.exec(PRUNED_TABLE);
    return;
  }
  if (version > SCHEMA_VERSION) {
    throw new ArchiveError(
      `archive ${db.location()}: schema version ${version} is newer than this yarp's (${SCHEMA_VERSION})`,
    );
  }
  // auto_vacuum takes effect only before the first table exists.
  db.exec("PRAGMA auto_vacuum = INCREMENTAL");
  walMode(db);
  db.exec("BEGIN IMMEDIATE");
  try {
    const now = userVersion(db);
    if (now === 1) {
      // Schema 1 -> 2: bytes move to call files (old rows keep their chunks),
      // the search index moves to its own database (search_index.ts), and
      // seq values are never reused (the index follows them).
      db.exec(`ALTER TABLE streams ADD COLUMN blob_offset INTEGER;
        ALTER TABLE archive_totals ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0;
        UPDATE archive_totals SET last_seq = (SELECT coalesce(max(seq), 0) FROM calls);
        DROP TABLE call_text;`);
    }
    if (now === 1 || now === 2) {
      // Schema 2 -> 3: the reductions table for `yarp gain` (older calls have no rows), and the
      // pruned-id record where a version-2 archive has none yet.
      db.exec(`${PRUNED_TABLE}
        ${REDUCTIONS} PRAGMA user_version = ${SCHEMA_VERSION}`);
    } else if (now === 0) {
      const tables = db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number };
      if (Number(tables.n) !== 0) {
        throw new ArchiveError(`archive ${db.location()}: not a YARP archive (unknown tables)`);
      }
      db.exec(SCHEMA);
    } else if (now !== SCHEMA_VERSION) {
      throw new ArchiveError(
        `archive ${db.location()}: unsupported schema version ${now} (expected ${SCHEMA_VERSION})`,
      );
    }
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

/** Sets WAL mode, retrying briefly: the switch needs a moment of exclusive access. */
function walMode(db: DatabaseSync): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  while (true) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (error) {
      if (!/locked|busy/i.test(firstLine(error)) || Date.now() > deadline) throw error;
    }
  }
}

/** Where {@link writeTransaction} reports its timing, in milliseconds. */
export interface TransactionTiming {
  /** Waiting for the write lock (`BEGIN IMMEDIATE`). */
  waitMs: number;
  /** From holding the lock to `COMMIT` returning. */
  holdMs: number;
}

/**
 * Runs `work` inside `BEGIN IMMEDIATE … COMMIT` (waiting up to the busy
 * timeout for the write lock); rolls back and rethrows when it throws.
 * Fills `timing` when given (the benchmarks report it).
 */
export function writeTransaction<T>(
  db: DatabaseSync,
  work: () => T,
  timing?: TransactionTiming,
): T {
  const asked = performance.now();
  db.exec("BEGIN IMMEDIATE");
  const held = performance.now();
  try {
    const result = work();
    db.exec("COMMIT");
    if (timing !== undefined) {
      timing.waitMs = held - asked;
      timing.holdMs = performance.now() - held;
    }
    return result;
  } catch (error) {
    try {
      db.exec("ROLLBACK");
    } catch {
      // the transaction may already be gone; the first error matters
    }
    throw error;
  }
}
