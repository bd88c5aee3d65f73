/**
 * Finding a stored call by id or unique prefix and reading its exact bytes
 * back chunk by chunk, so `yarp read` never holds more than one chunk.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { CallFacts, StreamName } from "./commit.ts";

/** One stored stream's facts. */
export interface StoredStream {
  readonly name: StreamName;
  readonly size: number;
  /** Lowercase hex SHA-256 of the exact bytes. */
  readonly sha256: string;
  readonly chunkCount: number;
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
  const streams = (db.prepare(
    "SELECT name, size, sha256, chunk_count FROM streams WHERE call_seq = ?",
  ).all(row.seq) as unknown as {
    name: StreamName;
    size: number;
    sha256: string;
    chunk_count: number;
  }[])
    .map((s) => ({ name: s.name, size: s.size, sha256: s.sha256, chunkCount: s.chunk_count }))
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

/**
 * Yields the exact bytes of `stream` of `call`, one stored chunk (≤ 1 MiB)
 * at a time, in order. Throws an Error naming the call when a chunk is
 * missing or the bytes do not add up to the recorded size (a damaged
 * archive), so a reader never mistakes a partial copy for the whole.
 */
export function* streamChunks(
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
    if (row.n !== expected) break;
    expected += 1;
    bytes += row.data.length;
    yield row.data;
  }
  if (expected !== stream.chunkCount || bytes !== stream.size) {
    throw new Error(
      `call ${call.id}: ${stream.name} is damaged in the archive (${bytes} of ${stream.size} bytes)`,
    );
  }
}
