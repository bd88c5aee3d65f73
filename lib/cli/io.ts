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

/**
 * The lines of `stream` (UTF-8, without their `\n`; a last line without one
 * counts), or undefined for a line over `maxBytes`, after which it stops:
 * the request lines of a `--serve` process.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * const bytes = new TextEncoder().encode('"a"\n"b"\nlast');
 * const lines = [];
 * for await (const line of requestLines(ReadableStream.from([bytes]), 8)) lines.push(line);
 * deepEqual(lines, ['"a"', '"b"', "last"]);
 * ```
 */
export async function* requestLines(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): AsyncGenerator<string | undefined> {
  const decoder = new TextDecoder();
  // The unfinished line's chunks, joined only once its end arrives: a long line costs one copy.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const take = (last: Uint8Array): string => {
    pending.push(last);
    const line = new Uint8Array(pendingBytes + last.length);
    let offset = 0;
    for (const part of pending) {
      line.set(part, offset);
      offset += part.length;
    }
    pending = [];
    pendingBytes = 0;
    return decoder.decode(line);
  };
  for await (const chunk of stream) {
    let start = 0;
    for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, start)) {
      if (pendingBytes + at - start > maxBytes) break;
      yield take(chunk.subarray(start, at));
      start = at + 1;
    }
    const rest = chunk.slice(start);
    pending.push(rest);
    pendingBytes += rest.length;
    if (pendingBytes > maxBytes) {
      yield undefined;
      return;
    }
  }
  if (pendingBytes > 0) yield take(new Uint8Array(0));
}

/**
 * The loop of a `yarp COMMAND --serve` process: each line of stdin (at most
 * `maxBytes`) goes to `answer`, whose reply is printed as one line, in
 * order; 0 at the end of stdin. A line over the limit, or an `{ error }`
 * from `answer`, is one line `yarp COMMAND: --serve: ERROR` on stderr and 2.
 */
export async function serveRequests(
  command: string,
  maxBytes: number,
  answer: (line: string) => Promise<string | { readonly error: string }>,
  io: TextIo,
): Promise<number> {
  for await (const line of requestLines(Deno.stdin.readable, maxBytes)) {
    const reply = line === undefined
      ? { error: `a request line is over ${maxBytes} bytes` }
      : await answer(line);
    if (typeof reply !== "string") {
      io.err(`yarp ${command}: --serve: ${reply.error}\n`);
      return 2;
    }
    io.out(`${reply}\n`);
  }
  return 0;
}
