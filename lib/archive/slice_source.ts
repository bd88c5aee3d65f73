/**
 * A stored call's streams as a {@link SliceSource} for targeted recovery
 * (`slice.ts`): `chunks` are {@link verifiedChunks} (a stream of at most 4
 * MiB verified before its one chunk, a larger one at its end), `readAt`
 * reads stored bytes at an offset: from the call file (schema 2), one
 * `pread`-like seek and read, or from the chunk row holding it (schema 1).
 * Holds one open file and at most one chunk row; call {@link
 * CallSliceSource.close} when done.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { callBytesPath } from "./call_bytes.ts";
import { DamagedStreamError, type StoredCall, type StoredStream, verifiedChunks } from "./read.ts";
import type { SliceSource } from "./slice.ts";

/** The view of `streams` of `call` (in the given order) in the archive `db`. */
export class CallSliceSource implements SliceSource {
  readonly sizes: readonly number[];
  #file: Deno.FsFile | undefined;
  #rows: Map<StoredStream, { n: number; start: number; end: number }[]> = new Map();
  #row: { stream: StoredStream; n: number; data: Uint8Array } | undefined;

  constructor(
    private readonly db: DatabaseSync,
    private readonly call: StoredCall,
    private readonly streams: readonly StoredStream[],
  ) {
    this.sizes = streams.map((stream) => stream.size);
  }

  chunks(index: number): AsyncIterable<Uint8Array> {
    return verifiedChunks(this.db, this.call, this.streams[index]);
  }

  readAt(index: number, offset: number, into: Uint8Array): number {
    const stream = this.streams[index];
    const want = Math.min(into.length, stream.size - offset);
    if (want <= 0) return 0;
    if (stream.blobOffset === null) return this.#readRow(stream, offset, into.subarray(0, want));
    this.#file ??= this.#open(stream);
    this.#file.seekSync(stream.blobOffset + offset, Deno.SeekMode.Start);
    return this.#file.readSync(into.subarray(0, want)) ?? 0;
  }

  /** Closes the call file, if one was opened. */
  close(): void {
    this.#file?.close();
    this.#file = undefined;
  }

  #open(stream: StoredStream): Deno.FsFile {
    try {
      return Deno.openSync(callBytesPath(this.db.location()!, this.call.id), { read: true });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new DamagedStreamError(
        `${stream.name} is damaged in the archive (its file is missing)`,
      );
    }
  }

  /** Schema 1: copies from the chunk row that holds `offset`. */
  #readRow(stream: StoredStream, offset: number, into: Uint8Array): number {
    let rows = this.#rows.get(stream);
    if (rows === undefined) {
      rows = [];
      let start = 0;
      const lengths = this.db.prepare(
        "SELECT n, length(data) AS size FROM chunks WHERE call_seq = ? AND stream = ? ORDER BY n",
      ).all(this.call.seq, stream.name) as unknown as { n: number; size: number }[];
      for (const { n, size } of lengths) {
        rows.push({ n, start, end: start + size });
        start += size;
      }
      this.#rows.set(stream, rows);
    }
    const row = rows.find((r) => r.start <= offset && offset < r.end);
    if (row === undefined) return 0;
    if (this.#row?.stream !== stream || this.#row.n !== row.n) {
      const found = this.db.prepare(
        "SELECT data FROM chunks WHERE call_seq = ? AND stream = ? AND n = ?",
      ).get(this.call.seq, stream.name, row.n) as { data: Uint8Array } | undefined;
      if (found === undefined) return 0;
      this.#row = { stream, n: row.n, data: found.data };
    }
    const part = this.#row.data.subarray(offset - row.start, offset - row.start + into.length);
    into.set(part);
    return part.length;
  }
}
