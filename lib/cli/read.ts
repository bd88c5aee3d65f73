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
      words.length === 0 ? "missing ID" : `unexpected argument '${words[1]}'`,
    );
  }
  const [{ isCallIdPrefix }, { DamagedStreamError, findCall, verifiedChunks }] = await Promise.all(
    [import("../archive/ids.ts"), import("../archive/read.ts")],
  );
  const id = words[0];
  if (!isCallIdPrefix(id)) return usageError(io, `'${id}' is not a call id (4 to 16 hex digits)`);
  const wanted = parsed.values.get("--stream");
  if (wanted !== undefined && !(STREAM_NAMES as readonly string[]).includes(wanted)) {
    return usageError(io, `--stream: expected stdout, stderr or output, got '${wanted}'`);
  }
  if (parsed.flags.has("--json") && parsed.flags.has("--verify-only")) {
    return usageError(io, "--json and --verify-only cannot be combined");
  }
  return await withArchive("read", "read", io, async (db) => {
    const lookup = findCall(db, id);
    if (lookup.kind === "missing") {
      io.err(`yarp read: no archived call '${id}' (see 'yarp search')\n`);
      return 1;
    }
    if (lookup.kind === "ambiguous") {
      io.err(`yarp read: '${id}' matches more than one call; give more digits\n`);
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
        if (!put(encode.push(piece))) return 0;
      }
    }
    if (!put(`${encode.finish()}"}`)) return 0;
  }
  put("}}\n");
  return 0;
}

/** An incremental encoder: `push` returns the output for a chunk, `finish` the rest. */
interface PieceEncoder {
  push(chunk: Uint8Array): string;
  finish(): string;
}

/**
 * The inside of a JSON string for valid UTF-8 arriving in pieces: a code
 * point cut between chunks is held until its end arrives.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { jsonTextPieces } from "./read.ts";
 * const pieces = jsonTextPieces();
 * const bytes = new TextEncoder().encode('é"\n');
 * equal(pieces.push(bytes.subarray(0, 1)) + pieces.push(bytes.subarray(1)) + pieces.finish(),
 *   JSON.stringify('é"\n').slice(1, -1));
 * ```
 */
export function jsonTextPieces(): PieceEncoder {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const escape = (text: string) => JSON.stringify(text).slice(1, -1);
  return {
    push: (chunk) => escape(decoder.decode(chunk, { stream: true })),
    finish: () => escape(decoder.decode()),
  };
}

/**
 * Standard padded base64 of bytes arriving in pieces: the same text as
 * encoding them whole, holding at most two bytes between pieces.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { base64Pieces } from "./read.ts";
 * const pieces = base64Pieces();
 * const out = pieces.push(new Uint8Array([1, 2])) + pieces.push(new Uint8Array([3, 4])) +
 *   pieces.finish();
 * equal(out, new Uint8Array([1, 2, 3, 4]).toBase64());
 * ```
 */
export function base64Pieces(): PieceEncoder {
  let held = new Uint8Array(0);
  return {
    push(chunk) {
      const all = new Uint8Array(held.length + chunk.length);
      all.set(held);
      all.set(chunk, held.length);
      const cut = all.length - (all.length % 3);
      held = all.slice(cut);
      return all.subarray(0, cut).toBase64();
    },
    finish: () => held.toBase64(),
  };
}

function usageError(io: TextIo, message: string): number {
  io.err(`yarp read: ${message}\n`);
  return 2;
}
