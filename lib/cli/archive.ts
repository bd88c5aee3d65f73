/**
 * `yarp archive stats|prune|forget|put`: looking after the archive.
 *
 * - `stats [--json]`: location, call count, raw bytes, file size, oldest
 *   and newest call, retention limits.
 * - `prune [--max-bytes N] [--older-than D] [--json]`: removes the oldest
 *   calls until the total is at most N bytes (suffix K, M or G for KiB, MiB,
 *   GiB) and none is older than D (`30d`, `12h`, `45m`, `90s`); the
 *   configured limits when not given; then returns free pages to the disk.
 * - `forget ID`: removes one call (id or unique prefix).
 * - `check [--json]`: verifies every stored stream against its size and
 *   SHA-256 and SQLite's `integrity_check`; prints one line per damaged
 *   stream and a summary, exit 1 when anything is damaged. Read-only.
 * - `put --command SRC [--exit-code N] [--cwd DIR] [--json]`: archives the
 *   bytes on stdin as one combined `output` stream, for a host that
 *   archives a finished result itself (the Pi extension). Prints the new id
 *   (or `{"id":…}`) only after the commit.
 *
 * Exit: 0 on success, 1 on an archive problem or a missing call, 2 for a
 * malformed argument. Bad arguments change nothing.
 *
 * @module
 */
import { operands, parseArgs } from "./_args.ts";
import { isoTime, putFinishedResult, withArchive } from "./_archive.ts";
import type { TextIo } from "./io.ts";
import { printableText, quotedArg } from "../base/printable_text.ts";
import type { DatabaseSync } from "node:sqlite";
import { findOrphans } from "../archive/retention.ts";

const USAGE = `usage:
  yarp archive stats [--json]
  yarp archive prune [--max-bytes N] [--older-than D] [--json]
  yarp archive forget ID
  yarp archive check [--json]
  yarp archive put --command SRC [--exit-code N] [--cwd DIR] [--json] < OUTPUT
`;

/** Runs `yarp archive …` with the arguments after `archive`; returns the exit status. */
export async function archiveCommand(args: string[], io: TextIo): Promise<number> {
  const [action, ...rest] = args;
  switch (action) {
    case "stats":
      return await stats(rest, io);
    case "prune":
      return await prune(rest, io);
    case "forget":
      return await forget(rest, io);
    case "put":
      return await put(rest, io);
    case "check":
      return await check(rest, io);
    case "--help":
    case "-h":
      io.out(USAGE);
      return 0;
    case undefined:
      io.err(`yarp archive: missing action (stats, prune, forget, check or put)\n`);
      return 2;
    default:
      io.err(
        `yarp archive: unknown action '${
          quotedArg(action)
        }' (stats, prune, forget, check or put)\n`,
      );
      return 2;
  }
}

function usageError(io: TextIo, action: string, message: string): number {
  io.err(`yarp archive ${action}: ${message}\n`);
  return 2;
}

/**
 * A byte count: digits with an optional K, M or G suffix (powers of 1024,
 * optional trailing `iB`/`B`). Undefined when malformed or not positive.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { parseByteSize } from "./archive.ts";
 * equal(parseByteSize("512M"), 536870912);
 * equal(parseByteSize("1GiB"), 1073741824);
 * equal(parseByteSize("0"), 0);
 * equal(parseByteSize("-1"), undefined);
 * ```
 */
export function parseByteSize(text: string): number | undefined {
  const match = /^(\d+)(?:([KMG])(?:i?B)?|B)?$/i.exec(text);
  if (match === null) return undefined;
  const scale = { K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[match[2]?.toUpperCase() as "K"] ?? 1;
  const value = Number(match[1]) * scale;
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * A duration: digits and one unit, `s`, `m`, `h` or `d`, in milliseconds.
 * Undefined when malformed.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { parseDuration } from "./archive.ts";
 * equal(parseDuration("7d"), 604800000);
 * equal(parseDuration("90s"), 90000);
 * equal(parseDuration("7"), undefined);
 * ```
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)([smhd])$/.exec(text);
  if (match === null) return undefined;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as "s"];
  const value = Number(match[1]) * unit;
  return Number.isSafeInteger(value) ? value : undefined;
}

function bytesText(n: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${n} bytes` : `${value.toFixed(1)} ${units[unit]} (${n} bytes)`;
}

function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Call files no row names, older than the orphan bound (a crash between a
 * file and its rows): how many and their bytes. Scans every call file.
 */
function orphanTotals(db: DatabaseSync): { files: number; bytes: number } {
  const found = findOrphans(db, Date.now());
  return { files: found.length, bytes: found.reduce((sum, orphan) => sum + orphan.size, 0) };
}

async function stats(args: string[], io: TextIo): Promise<number> {
  const parsed = parseArgs(args, { flags: ["--json"] });
  if ("error" in parsed) return usageError(io, "stats", parsed.error);
  const extra = operands(parsed);
  if (extra.length > 0) {
    return usageError(io, "stats", `unexpected argument '${quotedArg(extra[0])}'`);
  }
  const { archiveTotals } = await import("../archive/mod.ts");
  return await withArchive("archive stats", "read", io, (db, settings) => {
    const totals = archiveTotals(db);
    const orphans = orphanTotals(db);
    // The database, its WAL, the search index, the call files (their sizes are in the rows), orphans.
    const fileBytes = fileSize(settings.path) + fileSize(`${settings.path}-wal`) +
      fileSize(`${settings.path}-search`) + fileSize(`${settings.path}-search-wal`) +
      totals.bytes + orphans.bytes;
    if (parsed.flags.has("--json")) {
      io.out(
        JSON.stringify({
          path: settings.path,
          calls: totals.calls,
          bytes: totals.bytes,
          file_bytes: fileBytes,
          oldest: totals.oldestMs === null ? null : new Date(totals.oldestMs).toISOString(),
          newest: totals.newestMs === null ? null : new Date(totals.newestMs).toISOString(),
          max_bytes: settings.maxBytes,
          max_age_days: settings.maxAgeMs / 86_400_000,
          min_age_minutes: settings.minAgeMs / 60_000,
          orphan_files: orphans.files,
          orphan_bytes: orphans.bytes,
        }) + "\n",
      );
      return 0;
    }
    io.out(
      [
        `archive: ${printableText(settings.path)}`,
        `calls: ${totals.calls}`,
        `stored output: ${bytesText(totals.bytes)}`,
        `file size: ${bytesText(fileBytes)}`,
        `oldest: ${totals.oldestMs === null ? "-" : isoTime(totals.oldestMs)}`,
        `newest: ${totals.newestMs === null ? "-" : isoTime(totals.newestMs)}`,
        `retention: ${bytesText(settings.maxBytes)}, ${settings.maxAgeMs / 86_400_000} days`,
        `minimum age: ${
          settings.minAgeMs / 60_000
        } minutes (the size limit removes no younger call)`,
        `orphan call files: ${orphans.files} (${bytesText(orphans.bytes)})`,
      ].join("\n") + "\n",
    );
    return 0;
  });
}

async function prune(args: string[], io: TextIo): Promise<number> {
  const parsed = parseArgs(args, { flags: ["--json"], options: ["--max-bytes", "--older-than"] });
  if ("error" in parsed) return usageError(io, "prune", parsed.error);
  const extra = operands(parsed);
  if (extra.length > 0) {
    return usageError(io, "prune", `unexpected argument '${quotedArg(extra[0])}'`);
  }
  const maxBytesText = parsed.values.get("--max-bytes");
  const maxBytes = maxBytesText === undefined ? undefined : parseByteSize(maxBytesText);
  if (maxBytesText !== undefined && maxBytes === undefined) {
    return usageError(
      io,
      "prune",
      `--max-bytes: expected a byte count like 500M, got '${quotedArg(maxBytesText)}'`,
    );
  }
  const olderText = parsed.values.get("--older-than");
  const maxAgeMs = olderText === undefined ? undefined : parseDuration(olderText);
  if (olderText !== undefined && maxAgeMs === undefined) {
    return usageError(
      io,
      "prune",
      `--older-than: expected a duration like 7d or 12h, got '${quotedArg(olderText)}'`,
    );
  }
  const { archiveTotals, pruneArchive, removeOrphanFiles } = await import("../archive/mod.ts");
  return await withArchive("archive prune", "write", io, (db, settings) => {
    // An explicit prune is the user's choice: no minimum age.
    const removed = pruneArchive(db, {
      maxBytes: maxBytes ?? settings.maxBytes,
      maxAgeMs: maxAgeMs ?? settings.maxAgeMs,
      sizeRule: maxBytes === undefined ? undefined : "yarp archive prune --max-bytes",
      ageRule: maxAgeMs === undefined ? undefined : "yarp archive prune --older-than",
    }, Date.now());
    removeOrphanFiles(db, Date.now());
    const left = archiveTotals(db);
    if (parsed.flags.has("--json")) {
      io.out(
        JSON.stringify({
          removed_calls: removed.calls,
          removed_bytes: removed.bytes,
          calls: left.calls,
          bytes: left.bytes,
        }) + "\n",
      );
    } else {
      io.out(
        `removed ${removed.calls} calls (${bytesText(removed.bytes)}); ` +
          `kept ${left.calls} calls (${bytesText(left.bytes)})\n`,
      );
    }
    return 0;
  });
}

async function forget(args: string[], io: TextIo): Promise<number> {
  const parsed = parseArgs(args, {});
  if ("error" in parsed) return usageError(io, "forget", parsed.error);
  const words = operands(parsed);
  if (words.length !== 1) {
    return usageError(
      io,
      "forget",
      words.length === 0 ? "missing ID" : `unexpected argument '${quotedArg(words[1])}'`,
    );
  }
  const id = words[0];
  const { findCall, forgetCall, isCallIdPrefix } = await import("../archive/mod.ts");
  if (!isCallIdPrefix(id)) {
    return usageError(io, "forget", `'${quotedArg(id)}' is not a call id (4 to 16 hex digits)`);
  }
  return await withArchive("archive forget", "write", io, (db) => {
    const lookup = findCall(db, id);
    if (lookup.kind !== "found") {
      io.err(
        lookup.kind === "missing"
          ? `yarp archive forget: no archived call '${quotedArg(id)}'\n`
          : `yarp archive forget: '${
            quotedArg(id)
          }' matches more than one call; give more digits\n`,
      );
      return 1;
    }
    forgetCall(db, lookup.call.seq);
    io.out(`forgot ${lookup.call.id}\n`);
    return 0;
  });
}

async function put(args: string[], io: TextIo): Promise<number> {
  const parsed = parseArgs(args, {
    flags: ["--json"],
    options: ["--command", "--exit-code", "--cwd"],
  });
  if ("error" in parsed) return usageError(io, "put", parsed.error);
  const extra = operands(parsed);
  if (extra.length > 0) {
    return usageError(io, "put", `unexpected argument '${quotedArg(extra[0])}'`);
  }
  const command = parsed.values.get("--command");
  if (command === undefined || command === "") return usageError(io, "put", "--command: required");
  const codeText = parsed.values.get("--exit-code");
  if (codeText !== undefined && (!/^\d{1,3}$/.test(codeText) || Number(codeText) > 255)) {
    return usageError(io, "put", `--exit-code: expected 0 to 255, got '${quotedArg(codeText)}'`);
  }
  let cwd = parsed.values.get("--cwd");
  if (cwd === undefined) {
    try {
      cwd = Deno.cwd();
    } catch {
      cwd = "";
    }
  }
  const createdMs = Date.now();
  return await withArchive("archive put", "write", io, async (db, settings) => {
    const stored = await putFinishedResult(db, settings, Deno.stdin.readable, {
      createdMs,
      cwd: cwd!,
      command,
      exitCode: codeText === undefined ? null : Number(codeText),
    });
    if ("error" in stored) {
      io.err(`yarp archive put: ${stored.error}; nothing was archived\n`);
      return 1;
    }
    io.out(
      parsed.flags.has("--json") ? JSON.stringify({ id: stored.id }) + "\n" : `${stored.id}\n`,
    );
    return 0;
  });
}

async function check(args: string[], io: TextIo): Promise<number> {
  const parsed = parseArgs(args, { flags: ["--json"] });
  if ("error" in parsed) return usageError(io, "check", parsed.error);
  const extra = operands(parsed);
  if (extra.length > 0) {
    return usageError(io, "check", `unexpected argument '${quotedArg(extra[0])}'`);
  }
  const { DamagedStreamError, findCall, verifiedChunks } = await import("../archive/mod.ts");
  return await withArchive("archive check", "read", io, async (db) => {
    const integrity = (db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[])
      .map((row) => row.integrity_check).join("; ");
    const ids = (db.prepare("SELECT id FROM calls ORDER BY seq").all() as { id: string }[])
      .map((row) => row.id);
    const damaged: { id: string; stream: string; reason: string }[] = [];
    let bytes = 0;
    for (const id of ids) {
      const lookup = findCall(db, id);
      if (lookup.kind !== "found") continue; // pruned meanwhile
      for (const stream of lookup.call.streams) {
        try {
          for await (const chunk of verifiedChunks(db, lookup.call, stream)) bytes += chunk.length;
        } catch (error) {
          if (!(error instanceof DamagedStreamError)) throw error;
          damaged.push({ id, stream: stream.name, reason: error.message });
        }
      }
    }
    const orphans = orphanTotals(db);
    if (parsed.flags.has("--json")) {
      io.out(
        JSON.stringify({
          calls: ids.length,
          bytes,
          integrity,
          damaged: damaged.map((d) => ({ id: d.id, stream: d.stream })),
          orphan_files: orphans.files,
          orphan_bytes: orphans.bytes,
        }) + "\n",
      );
    } else {
      let text = "";
      for (const d of damaged) text += `${d.id}: ${d.reason}\n`;
      if (integrity !== "ok") text += `database: integrity_check: ${integrity}\n`;
      if (orphans.files > 0) {
        text += `orphan call files: ${orphans.files} (${bytesText(orphans.bytes)}) that no call ` +
          "names, left by a crash; the next run or 'yarp archive prune' removes them\n";
      }
      text += `checked ${ids.length} calls (${bytesText(bytes)}): ${damaged.length} damaged` +
        `${integrity === "ok" ? "" : ", database damaged"}\n`;
      io.out(text);
    }
    return damaged.length === 0 && integrity === "ok" ? 0 : 1;
  });
}
