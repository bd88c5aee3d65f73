/**
 * `yarp read ID [--stream stdout|stderr|output] [--json] [--verify-only]`
 * and its targeted forms (`--lines A:B`, `--head N`, `--tail N`, `--grep
 * TEXT [-i]`, `-n`, `--max-bytes N [--max-lines N]`, `--bytes A:B`,
 * `--stat`; see {@link READ_HELP} and `lib/archive/slice.ts`):
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
import type { DatabaseSync } from "node:sqlite";
import type { StoredCall, StoredStream } from "../archive/read.ts";
import * as slice from "../archive/slice.ts";
import type { LineGrep, LineRange, SliceRequest } from "../archive/slice.ts";
import {
  formatCount,
  plural,
  RECOVERY_PAGE_LINES,
  RECOVERY_PAGE_SPELLING,
} from "../reduce/marker.ts";
import { operands, parseArgs, type ParsedArgs } from "./_args.ts";
import { withArchive } from "./_archive.ts";
import { type TextIo, writeToReader } from "./io.ts";

/** `yarp read --help`: every form, how they combine, what a line and a page are. */
export const READ_HELP =
  `usage: yarp read ID [--stream stdout|stderr|output] [--json] [--verify-only]
       yarp read ID [--stream S] [--lines A:B] [--grep TEXT [-i]] [--head N | --tail N] [-n]
                    [--max-bytes N [--max-lines N]]
       yarp read ID [--stream S] --bytes A:B
       yarp read ID [--stream S] --stat [--grep TEXT [-i]]

Plain 'yarp read ID' writes the call's exact bytes, each stream to its own
(stdout, stderr; a host's combined output to stdout); --stream writes one.

Targeted forms write exact whole lines to stdout. They read the view: the
call's streams one after another (stdout, stderr, output), or the one named by
--stream. A line is its bytes up to and including an LF; a stream's bytes
after its last LF are a final line without LF. Lines are numbered from 1
through the view. Invalid UTF-8, NUL and CR are written as stored.

  --lines A:B     lines A to B (A: to the end, :B from line 1, A just line A)
  --grep TEXT     lines whose bytes contain TEXT literally (no regex)
  -i              with --grep: fold ASCII A-Z
  --head N        the first N lines that --lines and --grep keep
  --tail N        the last N of them
  -n              prefix each line with its number and ':'
  --max-bytes N   page: whole lines within N bytes (40000, 40k, 1m), at most
                  --max-lines lines (default ${formatCount(RECOVERY_PAGE_LINES)}), then one line
                  '[yarp: page of ... · next: COMMAND]' or '[yarp: ... · end]'
  --max-lines N   page by lines (alone, or with --max-bytes)
  --bytes A:B     bytes A to B of the view (1-based, inclusive), not whole lines
  --stat          sizes, line counts, final LF and SHA-256 per stream (with
                  --grep: how many lines contain TEXT)

Steps apply in the order --lines, --grep, --head/--tail, -n, page. The next
page's command repeats the request from the next line (--lines K:B, --head
reduced). A line longer than --max-bytes is never cut: its page shows no
line and names '--lines K:K' (the whole line) and '--bytes S:E' (its first
N bytes). Markers name '--max-bytes ${RECOVERY_PAGE_SPELLING}' for results larger than a host shows.
Exit 0; 1 for a missing or damaged call (discard what was written); 2 for a
bad argument.
`;
const STREAM_NAMES = ["stdout", "stderr", "output"] as const;

/** Options that make `yarp read` write a targeted form instead of the whole output. */
const SLICE_OPTIONS: readonly string[] = [
  "--lines",
  "--grep",
  "--head",
  "--tail",
  "--max-bytes",
  "--max-lines",
];

/** Runs `yarp read` with the arguments after `read`; returns the exit status. */
export async function readCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(READ_HELP);
    return 0;
  }
  const parsed = parseArgs(negativeValues(args), {
    flags: ["--json", "--verify-only", "--line-numbers", "--ignore-case", "--stat"],
    options: ["--stream", "--bytes", ...SLICE_OPTIONS],
    aliases: { "-n": "--line-numbers", "-i": "--ignore-case" },
  });
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
  const form = readForm(parsed);
  if ("error" in form) return usageError(io, form.error);
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
      if (form.kind !== "whole") return await writeForm(db, call, streams, wanted, form, io);
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

/**
 * `args` with a negative number after a value option joined to it
 * (`--max-bytes -5` → `--max-bytes=-5`), so the error names the bad value
 * instead of a missing one.
 */
function negativeValues(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if ([...SLICE_OPTIONS, "--bytes"].includes(args[i]) && /^-[0-9]/.test(args[i + 1] ?? "")) {
      out.push(`${args[i]}=${args[++i]}`);
    } else {
      out.push(args[i]);
    }
    if (args[i] === "--") {
      out.push(...args.slice(i + 1));
      break;
    }
  }
  return out;
}

/** What `yarp read` writes, from its options. */
type ReadForm =
  | { readonly kind: "whole" }
  | { readonly kind: "slice"; readonly request: SliceRequest }
  | { readonly kind: "bytes"; readonly range: LineRange }
  | { readonly kind: "stat"; readonly grep?: LineGrep };

/**
 * The form the options ask for, or one line naming the argument at fault.
 * Values are checked here, before the archive is opened.
 */
function readForm(parsed: ParsedArgs): ReadForm | { error: string } {
  const value = (name: string) => parsed.values.get(name);
  const has = (name: string) => parsed.flags.has(name) || parsed.values.has(name);
  const { parseByteSize, parseCount, parseGrepText, parseRange } = slice;
  const sliced = SLICE_OPTIONS.filter(has);
  if (has("--line-numbers")) sliced.push("-n");
  const targeted = [...sliced, ...["--bytes", "--stat"].filter(has)];
  for (const whole of ["--json", "--verify-only"]) {
    if (has(whole) && targeted.length > 0) {
      return { error: `${whole} cannot be combined with ${targeted[0]}` };
    }
  }
  if (has("--ignore-case") && !has("--grep")) return { error: "-i needs --grep" };
  if (has("--head") && has("--tail")) return { error: "--head and --tail cannot be combined" };
  let grep: LineGrep | undefined;
  if (has("--grep")) {
    const text = parseGrepText(value("--grep")!);
    if ("error" in text) return text;
    grep = { text: text.value, ignoreCase: has("--ignore-case") };
  }
  if (has("--bytes")) {
    if (targeted.length > 1) {
      return { error: `--bytes cannot be combined with ${targeted.find((o) => o !== "--bytes")}` };
    }
    const range = parseRange("--bytes", value("--bytes")!);
    return "error" in range ? range : { kind: "bytes", range: range.value };
  }
  if (has("--stat")) {
    const other = sliced.find((o) => o !== "--grep");
    if (other !== undefined) return { error: `--stat cannot be combined with ${other}` };
    return grep === undefined ? { kind: "stat" } : { kind: "stat", grep };
  }
  if (sliced.length === 0) return { kind: "whole" };
  const numbers: Record<string, number> = {};
  for (const name of ["--head", "--tail", "--max-lines"]) {
    if (!has(name)) continue;
    const count = parseCount(name, value(name)!);
    if ("error" in count) return count;
    numbers[name] = count.value;
  }
  let lines: LineRange | undefined;
  if (has("--lines")) {
    const range = parseRange("--lines", value("--lines")!);
    if ("error" in range) return range;
    lines = range.value;
  }
  let page: SliceRequest["page"];
  if (has("--max-bytes") || has("--max-lines")) {
    const words: string[] = [];
    let maxBytes = Number.MAX_SAFE_INTEGER;
    if (has("--max-bytes")) {
      const size = parseByteSize("--max-bytes", value("--max-bytes")!);
      if ("error" in size) return size;
      maxBytes = size.value;
      words.push("--max-bytes", value("--max-bytes")!);
    }
    if (has("--max-lines")) words.push("--max-lines", value("--max-lines")!);
    page = { maxBytes, maxLines: numbers["--max-lines"] ?? RECOVERY_PAGE_LINES, words };
  }
  return {
    kind: "slice",
    request: {
      lines,
      grep,
      head: numbers["--head"],
      tail: numbers["--tail"],
      numbered: has("--line-numbers"),
      page,
    },
  };
}

/**
 * Writes a targeted form of `streams` of `call` to stdout (`--stat` as
 * text). Throws a DamagedStreamError like the whole form.
 */
async function writeForm(
  db: DatabaseSync,
  call: StoredCall,
  streams: readonly StoredStream[],
  wanted: string | undefined,
  form: Exclude<ReadForm, { kind: "whole" }>,
  io: TextIo,
): Promise<number> {
  const { CallSliceSource } = await import("../archive/slice_source.ts");
  const source = new CallSliceSource(db, call, streams);
  const emit = (bytes: Uint8Array) => writeToReader(Deno.stdout, bytes);
  try {
    if (form.kind === "slice") {
      const command = `yarp read ${call.id}${wanted === undefined ? "" : ` --stream ${wanted}`}`;
      await slice.writeSlice(source, form.request, emit, command);
      return 0;
    }
    if (form.kind === "bytes") {
      // Verified before any byte is written: a damaged stream writes nothing.
      await slice.streamStats(source);
      slice.writeByteRange(source, form.range.from, form.range.to, emit);
      return 0;
    }
    const stats = await slice.streamStats(source, form.grep);
    const lines = stats.reduce((sum, stat) => sum + stat.lines, 0);
    const bytes = stats.reduce((sum, stat) => sum + stat.bytes, 0);
    let text = `call ${call.id}: ${plural(streams.length, "stream")}, ${plural(bytes, "byte")}, ${
      plural(lines, "line")
    }\n`;
    for (const [index, stream] of streams.entries()) {
      const stat = stats[index];
      text += `${stream.name}: ${plural(stat.bytes, "byte")}, ${plural(stat.lines, "line")}${
        stat.endsWithLf ? "" : ", no LF at end"
      }, sha256 ${stream.sha256}\n`;
    }
    if (form.grep !== undefined) {
      const matches = stats.reduce((sum, stat) => sum + stat.matches, 0);
      text += `grep${form.grep.ignoreCase ? " -i" : ""} ${slice.shellWord(form.grep.text)}: ${
        formatCount(matches)
      } of ${plural(lines, "line")}\n`;
    }
    io.out(text);
    return 0;
  } finally {
    source.close();
  }
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
