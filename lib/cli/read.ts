/**
 * `yarp read ID [--stream stdout|stderr|output] [--json] [--verify-only]`:
 * writes the exact archived bytes of a call back out, checked against the
 * SHA-256 stored with them. Without `--stream`, each stream goes to the
 * stream it came from (stdout to stdout, stderr to stderr, a host's
 * combined `output` to stdout); with `--stream`, that one stream goes to
 * stdout. Bytes are written as stored, invalid UTF-8 and NUL included.
 *
 * Memory is bounded whatever the size: a stream of at most 4 MiB is read
 * and verified before any of it is written; a larger one is written 1 MiB
 * at a time while it is hashed, and verified at its end. On a mismatch the
 * command prints one line (`yarp read ID: stdout is damaged in the archive
 * (digest mismatch)`) and exits 1: whatever was written must be discarded.
 *
 * `--json` prints one JSON object with the call's facts and each stream as
 * `text` (valid UTF-8) or `base64`, plus its size and SHA-256. Every stream
 * is verified (and its encoding decided) in a first pass before anything
 * is printed, then encoded and printed incrementally in a second pass, so
 * neither the bytes nor the JSON are ever held whole. `--verify-only`
 * checks the streams and prints one line per stream, and no bytes.
 *
 * Exit: 0 when written (or verified); 1 when the call or archive is missing
 * or damaged; 2 for a malformed argument. A reader that closes the pipe
 * early ends the output silently with 0.
 *
 * @module
 */
import { quotedArg } from "../base/printable_text.ts";
import type { StoredCall, StoredStream } from "../archive/read.ts";
import { operands, parseArgs } from "./_args.ts";
import { withArchive } from "./_archive.ts";
import { type TextIo, writeToReader } from "./io.ts";

const USAGE = "usage: yarp read ID [--stream stdout|stderr|output] [--json] [--verify-only]\n";
const STREAM_NAMES = ["stdout", "stderr", "output"] as const;

/** Runs `yarp read` with the arguments after `read`; returns the exit status. */
export async function readCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  const parsed = parseArgs(args, { flags: ["--json", "--verify-only"], options: ["--stream"] });
  if ("error" in parsed) return usageError(io, parsed.error);
  const words = operands(parsed);
  if (words.length !== 1) {
    return usageError(
      io,
      words.length === 0 ? "missing ID" : `unexpected argument '${quotedArg(words[1])}'`,
    );
  }
  const [{ isCallIdPrefix }, { DamagedStreamError, findCall, verifiedChunks }] = await Promise.all(
    [import("../archive/ids.ts"), import("../archive/read.ts")],
  );
  const id = words[0];
  if (!isCallIdPrefix(id)) {
    return usageError(io, `'${quotedArg(id)}' is not a call id (4 to 16 hex digits)`);
  }
  const wanted = parsed.values.get("--stream");
  if (wanted !== undefined && !(STREAM_NAMES as readonly string[]).includes(wanted)) {
    return usageError(
      io,
      `--stream: expected stdout, stderr or output, got '${quotedArg(wanted)}'`,
    );
  }
  if (parsed.flags.has("--json") && parsed.flags.has("--verify-only")) {
    return usageError(io, "--json and --verify-only cannot be combined");
  }
  return await withArchive("read", "read", io, async (db) => {
    const lookup = findCall(db, id);
    if (lookup.kind === "missing") {
      const { findPrunedCall } = await import("../archive/retention.ts");
      const { isoTime } = await import("./_archive.ts");
      const pruned = findPrunedCall(db, id);
      io.err(
        pruned === undefined
          ? `yarp read: no archived call '${quotedArg(id)}' (see 'yarp search')\n`
          : `yarp read: call ${pruned.id} was pruned at ${isoTime(pruned.prunedMs)} by ` +
            `${pruned.reason}; its bytes are gone (archived ${isoTime(pruned.createdMs)})\n`,
      );
      return 1;
    }
    if (lookup.kind === "ambiguous") {
      io.err(`yarp read: '${quotedArg(id)}' matches more than one call; give more digits\n`);
      return 1;
    }
    const call = lookup.call;
    const streams = wanted === undefined
      ? call.streams
      : call.streams.filter((stream) => stream.name === wanted);
    if (streams.length === 0) {
      io.err(`yarp read: call ${call.id} has no ${wanted} stream\n`);
      return 1;
    }
    const chunks = (stream: StoredStream) => verifiedChunks(db, call, stream);
    try {
      if (parsed.flags.has("--verify-only")) {
        for (const stream of streams) {
          for await (const _ of chunks(stream)) { /* verifying only */ }
          io.out(
            `${call.id} ${stream.name}: ${stream.size} bytes, sha256 ${stream.sha256}: intact\n`,
          );
        }
        return 0;
      }
      if (parsed.flags.has("--json")) return await writeJson(call, streams, chunks);
      for (const stream of streams) {
        const file = wanted === undefined && stream.name === "stderr" ? Deno.stderr : Deno.stdout;
        for await (const chunk of chunks(stream)) {
          if (!writeToReader(file, chunk)) return 0;
        }
      }
      return 0;
    } catch (error) {
      if (!(error instanceof DamagedStreamError)) throw error;
      io.err(`yarp read ${call.id}: ${error.message}\n`);
      return 1;
    }
  });
}

type ChunkSource = (stream: StoredStream) => AsyncIterable<Uint8Array>;

/**
 * Bytes decoded or encoded at a time for `--json` (32 KiB): the strings
 * made stay small enough for V8's young generation, where they die cheaply;
 * strings of a 1 MiB chunk would go to the large-object space, which only a
 * full collection frees, and the heap would grow with the stream.
 */
const JSON_PIECE_BYTES = 32 * 1024;

/** `chunk` in pieces of at most {@link JSON_PIECE_BYTES}. */
function* pieces(chunk: Uint8Array): Generator<Uint8Array> {
  for (let at = 0; at < chunk.length; at += JSON_PIECE_BYTES) {
    yield chunk.subarray(at, at + JSON_PIECE_BYTES);
  }
}

/**
 * Prints `call` as one JSON object in two passes: the first verifies every
 * stream and finds whether it is valid UTF-8, the second prints it as
 * `text` or `base64`, one chunk at a time. Throws a DamagedStreamError from
 * either pass.
 */
async function writeJson(
  call: StoredCall,
  streams: readonly StoredStream[],
  chunks: ChunkSource,
): Promise<number> {
  const isText = new Map<string, boolean>();
  for (const stream of streams) {
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    let valid = true;
    for await (const chunk of chunks(stream)) {
      if (!valid) continue;
      try {
        for (const piece of pieces(chunk)) decoder.decode(piece, { stream: true });
      } catch {
        valid = false;
      }
    }
    if (valid) {
      try {
        decoder.decode();
      } catch {
        valid = false;
      }
    }
    isText.set(stream.name, valid);
  }
  const encoder = new TextEncoder();
  const put = (text: string) => writeToReader(Deno.stdout, encoder.encode(text));
  const putBytes = (bytes: Uint8Array) => writeToReader(Deno.stdout, bytes);
  const facts = JSON.stringify({
    id: call.id,
    created: new Date(call.createdMs).toISOString(),
    cwd: call.cwd,
    source: call.source,
    command: call.command,
    argv: call.argv,
    exit_code: call.exitCode,
    signal: call.signal,
    rule_id: call.ruleId,
  });
  if (!put(`${facts.slice(0, -1)},"streams":{`)) return 0;
  for (const [index, stream] of streams.entries()) {
    const text = isText.get(stream.name)!;
    const head = `${index === 0 ? "" : ","}${JSON.stringify(stream.name)}:` +
      `{"size":${stream.size},"sha256":${JSON.stringify(stream.sha256)},` +
      `"${text ? "text" : "base64"}":"`;
    if (!put(head)) return 0;
    const encode = text ? jsonTextPieces() : base64Pieces();
    for await (const chunk of chunks(stream)) {
      for (const piece of pieces(chunk)) {
        if (!putBytes(encode.push(piece))) return 0;
      }
    }
    if (!putBytes(encode.finish()) || !put('"}')) return 0;
  }
  put("}}\n");
  return 0;
}

/**
 * An incremental encoder: `push` returns the output bytes for a piece of at
 * most {@link JSON_PIECE_BYTES} (a view of a buffer reused by the next
 * call), `finish` the rest.
 */
interface PieceEncoder {
  push(piece: Uint8Array): Uint8Array;
  finish(): Uint8Array;
}

const SHORT_ESCAPES: Record<number, number> = { 8: 0x62, 9: 0x74, 10: 0x6e, 12: 0x66, 13: 0x72 };
const HEX = new TextEncoder().encode("0123456789abcdef");

/**
 * The inside of a JSON string for bytes of valid UTF-8, byte by byte and
 * without making a string: quote, backslash and control characters are
 * escaped exactly as `JSON.stringify` escapes them, every other byte is
 * copied (valid UTF-8 has no lone surrogates, the only other thing it
 * escapes), so a code point cut between pieces needs no care.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { jsonTextPieces } from "./read.ts";
 * const pieces = jsonTextPieces();
 * const out = new TextDecoder().decode(pieces.push(new TextEncoder().encode('é"\n')));
 * equal(out, JSON.stringify('é"\n').slice(1, -1));
 * ```
 */
export function jsonTextPieces(): PieceEncoder {
  let out = new Uint8Array(0);
  return {
    push(piece) {
      if (out.length < piece.length * 6) out = new Uint8Array(piece.length * 6);
      let n = 0;
      for (const byte of piece) {
        if (byte >= 0x20 && byte !== 0x22 && byte !== 0x5c) {
          out[n++] = byte;
          continue;
        }
        out[n++] = 0x5c;
        const short = byte === 0x22 || byte === 0x5c ? byte : SHORT_ESCAPES[byte];
        if (short !== undefined) {
          out[n++] = short;
        } else {
          out.set([0x75, 0x30, 0x30, HEX[byte >> 4], HEX[byte & 15]], n);
          n += 5;
        }
      }
      return out.subarray(0, n);
    },
    finish: () => new Uint8Array(0),
  };
}

const BASE64 = new TextEncoder().encode(
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
);

/**
 * Standard padded base64 of bytes arriving in pieces, as bytes and without
 * making a string: the same text as `toBase64` of the whole, holding at
 * most two bytes between pieces.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { base64Pieces } from "./read.ts";
 * const pieces = base64Pieces();
 * const out = [pieces.push(new Uint8Array([1, 2])), pieces.push(new Uint8Array([3, 4])),
 *   pieces.finish()].map((b) => new TextDecoder().decode(b)).join("");
 * equal(out, new Uint8Array([1, 2, 3, 4]).toBase64());
 * ```
 */
export function base64Pieces(): PieceEncoder {
  const held = new Uint8Array(3);
  let heldCount = 0;
  let out = new Uint8Array(0);
  const encode = (a: number, b: number, c: number, at: number) => {
    const word = (a << 16) | (b << 8) | c;
    out[at] = BASE64[word >> 18];
    out[at + 1] = BASE64[(word >> 12) & 63];
    out[at + 2] = BASE64[(word >> 6) & 63];
    out[at + 3] = BASE64[word & 63];
  };
  return {
    push(piece) {
      const need = Math.ceil((piece.length + 2) / 3) * 4;
      if (out.length < need) out = new Uint8Array(need);
      let n = 0;
      let i = 0;
      while (heldCount > 0 && heldCount < 3 && i < piece.length) held[heldCount++] = piece[i++];
      if (heldCount === 3) {
        encode(held[0], held[1], held[2], n);
        n += 4;
        heldCount = 0;
      }
      for (; i + 3 <= piece.length; i += 3, n += 4) encode(piece[i], piece[i + 1], piece[i + 2], n);
      while (i < piece.length) held[heldCount++] = piece[i++];
      return out.subarray(0, n);
    },
    finish() {
      if (heldCount === 0) return new Uint8Array(0);
      const tail = new Uint8Array(4);
      const saved = out;
      out = tail;
      encode(held[0], heldCount > 1 ? held[1] : 0, 0, 0);
      out = saved;
      if (heldCount === 1) tail[2] = 0x3d;
      tail[3] = 0x3d;
      heldCount = 0;
      return tail;
    },
  };
}

function usageError(io: TextIo, message: string): number {
  io.err(`yarp read: ${message}\n`);
  return 2;
}
