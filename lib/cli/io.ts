/**
 * The text channels a subcommand writes to. Commands receive one so tests can
 * capture what they print; the real program passes `processTextIo`.
 *
 * @module
 */
import { type SyncWriter, writeAll } from "../base/write_all.ts";

/** Where a subcommand writes its human or JSON output and its errors. */
export interface TextIo {
  /** Writes text to standard output exactly as given. */
  out(text: string): void;
  /** Writes text to standard error exactly as given. */
  err(text: string): void;
}

const encoder = new TextEncoder();

/**
 * Writes all of `bytes` to `file` synchronously and returns true; returns
 * false, having written what it could, when the reader has gone away
 * (BrokenPipe: `yarp read ID | head -1`). Any other write error is thrown.
 */
export function writeToReader(file: SyncWriter, bytes: Uint8Array): boolean {
  try {
    writeAll(file, bytes);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.BrokenPipe) return false;
    throw error;
  }
}

/**
 * A text channel onto `file`, written synchronously. Once the reader has
 * gone away (see {@link writeToReader}), it drops this and every later text
 * without a word, so the command finishes and exits as it would have; any
 * other write error is thrown.
 */
export function textChannel(file: SyncWriter): (text: string) => void {
  let readerGone = false;
  return (text) => {
    if (!readerGone) readerGone = !writeToReader(file, encoder.encode(text));
  };
}

/** The process's own standard output and standard error (see {@link textChannel}). */
export const processTextIo: TextIo = {
  out: textChannel(Deno.stdout),
  err: textChannel(Deno.stderr),
};

/** A `TextIo` that records everything written, for tests and buffering. */
export function captureTextIo(): TextIo & { readonly stdout: string; readonly stderr: string } {
  let stdout = "";
  let stderr = "";
  return {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
}

/** A source of bytes read in turns, as `Deno.stdin` is: fills part of `buffer`, or null at the end. */
export interface ByteReader {
  read(buffer: Uint8Array): Promise<number | null>;
}

/** Bytes asked for per read. */
const READ_BYTES = 64 * 1024;

/**
 * Reads `reader` to its end into one byte array. Returns `undefined` as soon
 * as more than `limit` bytes have arrived (default: no limit), so a bounded
 * caller never holds more than `limit` plus one read. Reads `Deno.stdin`
 * directly rather than through its `readable` stream: the first use of
 * web streams costs 5–13 ms in a fresh process, a read loop 0.5–3 ms (40
 * KiB piped, this machine).
 */
export function readAllBytes(reader: ByteReader): Promise<Uint8Array>;
export function readAllBytes(reader: ByteReader, limit: number): Promise<Uint8Array | undefined>;
export async function readAllBytes(
  reader: ByteReader,
  limit = Infinity,
): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(READ_BYTES);
  let size = 0;
  for (let got = await reader.read(buffer); got !== null; got = await reader.read(buffer)) {
    size += got;
    if (size > limit) return undefined;
    chunks.push(buffer.slice(0, got));
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}
