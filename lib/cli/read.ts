/**
 * `yarp read ID [--stream stdout|stderr|output] [--json]`: writes the exact
 * archived bytes of a call back out. Without `--stream`, each stream goes
 * to the stream it came from (stdout to stdout, stderr to stderr, a host's
 * combined `output` to stdout); with `--stream`, that one stream goes to
 * stdout. Bytes are written as stored, chunk by chunk (≤ 1 MiB held),
 * invalid UTF-8 and NUL included. `--json` prints one JSON object with the
 * call's facts and each stream as `text` (valid UTF-8) or `base64`, plus
 * its size and SHA-256; it holds the streams in memory.
 *
 * Exit: 0 when written; 1 when the call or archive is missing or damaged;
 * 2 for a malformed argument. A reader that closes the pipe early ends the
 * output silently with 0.
 *
 * @module
 */
import { operands, parseArgs } from "./_args.ts";
import { withArchive } from "./_archive.ts";
import { type TextIo, writeToReader } from "./io.ts";

const USAGE = "usage: yarp read ID [--stream stdout|stderr|output] [--json]\n";
const STREAM_NAMES = ["stdout", "stderr", "output"] as const;

/** Runs `yarp read` with the arguments after `read`; returns the exit status. */
export async function readCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  const parsed = parseArgs(args, { flags: ["--json"], options: ["--stream"] });
  if ("error" in parsed) return usageError(io, parsed.error);
  const words = operands(parsed);
  if (words.length !== 1) {
    return usageError(
      io,
      words.length === 0 ? "missing ID" : `unexpected argument '${words[1]}'`,
    );
  }
  const [{ isCallIdPrefix }, { findCall, streamChunks }] = await Promise.all([
    import("../archive/ids.ts"),
    import("../archive/read.ts"),
  ]);
  const id = words[0];
  if (!isCallIdPrefix(id)) return usageError(io, `'${id}' is not a call id (4 to 16 hex digits)`);
  const wanted = parsed.values.get("--stream");
  if (wanted !== undefined && !(STREAM_NAMES as readonly string[]).includes(wanted)) {
    return usageError(io, `--stream: expected stdout, stderr or output, got '${wanted}'`);
  }
  const json = parsed.flags.has("--json");
  return await withArchive("read", "read", io, (db) => {
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
    if (json) {
      const record: Record<string, unknown> = {
        id: call.id,
        created: new Date(call.createdMs).toISOString(),
        cwd: call.cwd,
        source: call.source,
        command: call.command,
        argv: call.argv,
        exit_code: call.exitCode,
        signal: call.signal,
        rule_id: call.ruleId,
      };
      const out: Record<string, unknown> = {};
      for (const stream of streams) {
        const bytes = new Uint8Array(stream.size);
        let at = 0;
        for (const chunk of streamChunks(db, call, stream)) {
          bytes.set(chunk, at);
          at += chunk.length;
        }
        let text: string | undefined;
        try {
          text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
        } catch {
          text = undefined;
        }
        out[stream.name] = {
          size: stream.size,
          sha256: stream.sha256,
          ...(text === undefined ? { base64: bytes.toBase64() } : { text }),
        };
      }
      record.streams = out;
      io.out(JSON.stringify(record) + "\n");
      return 0;
    }
    for (const stream of streams) {
      const file = wanted === undefined && stream.name === "stderr" ? Deno.stderr : Deno.stdout;
      for (const chunk of streamChunks(db, call, stream)) {
        if (!writeToReader(file, chunk)) return 0;
      }
    }
    return 0;
  });
}

function usageError(io: TextIo, message: string): number {
  io.err(`yarp read: ${message}\n`);
  return 2;
}
