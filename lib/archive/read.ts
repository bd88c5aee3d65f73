/**
 * Finding a stored call by id or unique prefix and reading its exact bytes
 * back, verified against the stored SHA-256, so `yarp read` never hands
 * back wrong bytes without saying so and never holds more than
 * {@link VERIFY_AHEAD_BYTES} (a small stream, verified before any of it is
 * given out) or one 1 MiB chunk (a larger one, verified as it streams).
 *
 * Bytes come from the call's file (schema 2, `call_bytes.ts`) or, for a
 * call stored by schema 1, from its chunk rows.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { sha256Native, toHex } from "../bytes/sha256.ts";
import { bytesEqual } from "../bytes/byte_search.ts";
import { NotACallFileError, openCallFile } from "./call_bytes.ts";
import { type CallFacts, CHUNK_BYTES, type StreamName } from "./commit.ts";
import { databasePath } from "./store.ts";

/** Streams up to this size (4 MiB) are read whole and verified before any byte is given out. */
export const VERIFY_AHEAD_BYTES = 4 * 1024 * 1024;

/** A stored stream whose bytes do not match its row: missing, short, or a different digest. */
export class DamagedStreamError extends Error {
  override name = "DamagedStreamError";
}

/** One stored stream's facts. */
export interface StoredStream {
  readonly name: StreamName;
  readonly size: number;
  /** Lowercase hex SHA-256 of the exact bytes. */
  readonly sha256: string;
  readonly chunkCount: number;
  /** Offset in the call file (schema 2), or null when the bytes are chunk rows (schema 1). */
  readonly blobOffset: number | null;
}

/** One stored call's facts (not its bytes). */
export interface StoredCall extends CallFacts {
  readonly seq: number;
  readonly id: string;
  readonly totalBytes: number;
  /** In a fixed order: stdout, stderr, output. */
  readonly streams: readonly StoredStream[];
}

/** The outcome of looking a call up. */
export type CallLookup =
  | { readonly kind: "found"; readonly call: StoredCall }
  | { readonly kind: "missing" }
  | { readonly kind: "ambiguous" };

const STREAM_ORDER: Record<StreamName, number> = { stdout: 0, stderr: 1, output: 2 };

interface CallRow {
  seq: number;
  id: string;
  created_ms: number;
  cwd: string;
  source: "run" | "put";
  command: string;
  argv: string | null;
  exit_code: number | null;
  signal: string | null;
  rule_id: string | null;
  total_bytes: number;
}

/**
 * Finds the call whose id is `prefix` or starts with it (lower-cased
 * first). Two or more matches are `ambiguous`; none is `missing`. Uses the
 * id index: cost does not grow with the archive.
 */
export function findCall(db: DatabaseSync, prefix: string): CallLookup {
  const low = prefix.toLowerCase();
  const rows = db.prepare(
    "SELECT * FROM calls WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
  ).all(low, low + "g") as unknown as CallRow[];
  if (rows.length === 0) return { kind: "missing" };
  const exact = rows.find((row) => row.id === low);
  if (rows.length > 1 && exact === undefined) return { kind: "ambiguous" };
  return { kind: "found", call: toCall(db, exact ?? rows[0]) };
}

function toCall(db: DatabaseSync, row: CallRow): StoredCall {
  // `*`: a schema-1 archive opened read-only has no blob_offset column.
  const streams = (db.prepare("SELECT * FROM streams WHERE call_seq = ?").all(
    row.seq,
  ) as unknown as {
    name: StreamName;
    size: number;
    sha256: string;
    chunk_count: number;
    blob_offset?: number | null;
  }[])
    .map((s) => ({
      name: s.name,
      size: s.size,
      sha256: s.sha256,
      chunkCount: s.chunk_count,
      blobOffset: s.blob_offset ?? null,
    }))
    .sort((a, b) => STREAM_ORDER[a.name] - STREAM_ORDER[b.name]);
  return {
    seq: row.seq,
    id: row.id,
    createdMs: row.created_ms,
    cwd: row.cwd,
    source: row.source,
    command: row.command,
    argv: row.argv === null ? null : JSON.parse(row.argv),
    exitCode: row.exit_code,
    signal: row.signal,
    ruleId: row.rule_id,
    totalBytes: row.total_bytes,
    streams,
  };
}

function damaged(stream: StoredStream, why: string): DamagedStreamError {
  return new DamagedStreamError(`${stream.name} is damaged in the archive (${why})`);
}

/**
 * Yields the stored bytes of `stream` of `call` in order, at most 1 MiB at
 * a time, without checking the digest: a yielded array is valid only until
 * the next step (the buffer is reused). Throws a {@link DamagedStreamError}
 * when the bytes are missing or do not add up to the recorded size.
 */
export function* rawChunks(
  db: DatabaseSync,
  call: StoredCall,
  stream: StoredStream,
): Generator<Uint8Array> {
  if (stream.size === 0) return;
  if (stream.blobOffset === null) {
    yield* chunkRows(db, call, stream);
    return;
  }
  let file: Deno.FsFile;
  try {
    file = openCallFile(databasePath(db), call.id);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw damaged(stream, "its file is missing");
    if (error instanceof NotACallFileError) throw damaged(stream, error.message);
    throw error;
  }
  try {
    file.seekSync(stream.blobOffset, Deno.SeekMode.Start);
    const buffer = new Uint8Array(Math.min(CHUNK_BYTES, stream.size));
    let done = 0;
    while (done < stream.size) {
      const n = file.readSync(buffer.subarray(0, Math.min(buffer.length, stream.size - done)));
      if (n === null) throw damaged(stream, `${done} of ${stream.size} bytes`);
      done += n;
      yield buffer.subarray(0, n);
    }
  } finally {
    file.close();
  }
}

/** The chunk rows of a schema-1 stream, in order; throws when one is missing. */
function* chunkRows(
  db: DatabaseSync,
  call: StoredCall,
  stream: StoredStream,
): Generator<Uint8Array> {
  const rows = db.prepare(
    "SELECT n, data FROM chunks WHERE call_seq = ? AND stream = ? ORDER BY n",
  ).iterate(call.seq, stream.name);
  let expected = 0;
  let bytes = 0;
  for (const row of rows as Iterable<{ n: number; data: Uint8Array }>) {
    if (row.n !== expected || bytes + row.data.length > stream.size) break;
    expected += 1;
    bytes += row.data.length;
    yield row.data;
  }
  if (expected !== stream.chunkCount || bytes !== stream.size) {
    throw damaged(stream, `${bytes} of ${stream.size} bytes`);
  }
}

/**
 * Yields the exact bytes of `stream` of `call`, verified against its
 * stored size and SHA-256, and throws a {@link DamagedStreamError}
 * (`stdout is damaged in the archive (digest mismatch)`) when they differ.
 * A stream of at most {@link VERIFY_AHEAD_BYTES} is verified before its
 * one yield; a larger one is yielded 1 MiB at a time and verified at its
 * end, so bytes already taken must be discarded when it throws. A yielded
 * array is valid only until the next step.
 */
export async function* verifiedChunks(
  db: DatabaseSync,
  call: StoredCall,
  stream: StoredStream,
): AsyncGenerator<Uint8Array> {
  if (stream.size <= VERIFY_AHEAD_BYTES) {
    const whole = new Uint8Array(stream.size);
    let at = 0;
    for (const chunk of rawChunks(db, call, stream)) {
      whole.set(chunk, at);
      at += chunk.length;
    }
    if (toHex(await sha256Native(whole)) !== stream.sha256) {
      throw damaged(stream, "digest mismatch");
    }
    if (whole.length > 0) yield whole;
    return;
  }
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256");
  for (const chunk of rawChunks(db, call, stream)) {
    hash.update(chunk);
    yield chunk;
  }
  if (hash.digest("hex") !== stream.sha256) throw damaged(stream, "digest mismatch");
}

/**
 * The call named by `prefix` (an id or an unambiguous prefix) when it holds
 * exactly `input`: its streams add up to `input.length` and one of them has
 * that size, the SHA-256 of `input`, and bytes equal to it as read back.
 * Otherwise undefined (missing, ambiguous, different or damaged), so a
 * host's `--archive-id` can never point a marker at unrelated bytes.
 */
export async function findStoredResult(
  db: DatabaseSync,
  prefix: string,
  input: Uint8Array,
): Promise<StoredCall | undefined> {
  const lookup = findCall(db, prefix);
  if (lookup.kind !== "found" || lookup.call.totalBytes !== input.length) return undefined;
  const call = lookup.call;
  const stream = call.streams.find((s) => s.size === input.length);
  if (stream === undefined || stream.sha256 !== toHex(await sha256Native(input))) return undefined;
  let at = 0;
  try {
    for (const chunk of rawChunks(db, call, stream)) {
      if (!bytesEqual(chunk, input.subarray(at, at + chunk.length))) return undefined;
      at += chunk.length;
    }
  } catch (error) {
    if (error instanceof DamagedStreamError) return undefined;
    throw error;
  }
  return at === input.length ? call : undefined;
}
