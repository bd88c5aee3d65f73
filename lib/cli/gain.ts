/**
 * `yarp gain [--host H] [--since D] [--json]`: what YARP saved, per host
 * and per rule, from the archive's reductions (`lib/archive/gain.ts` for
 * what is counted). `--host` keeps one host (`pi`, `claude-code`, `codex`,
 * `cli`); `--since` keeps reductions from D ago (`7d`, `12h`, `30m`, `90s`)
 * or from a UTC date (`2026-12-01`, or a full ISO time). `--json` prints one
 * object: `{"since","hosts":[{"host","calls","chars_before","chars_after",
 * "saved","rules":[{"rule",…}]}],"total":{…}}`.
 *
 * Exit 0 with a report (an archive with nothing recorded yet, or none at
 * all, reports nothing saved), 1 when the archive cannot be read, 2 for a
 * malformed argument. Reads only; never writes the archive.
 *
 * @module
 */
import { operands, parseArgs } from "./_args.ts";
import type { TextIo } from "./io.ts";
import { parseDuration } from "./archive.ts";
import { firstLine } from "../base/error_message.ts";
import {
  type GainGroup,
  type GainLine,
  gainReport,
  HOST_LIST,
  hostName,
  renderGain,
} from "../archive/gain.ts";

const USAGE = "usage: yarp gain [--host H] [--since D] [--json]\n";

/**
 * The start of `--since TEXT` in ms since the epoch, relative to `nowMs`:
 * a duration back from now, or a UTC date or ISO time; undefined when
 * malformed.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { sinceMs } from "./gain.ts";
 * equal(sinceMs("1d", 86_400_000 * 3), 86_400_000 * 2);
 * equal(sinceMs("2026-12-01", 0), Date.UTC(2026, 11, 1));
 * equal(sinceMs("yesterday", 0), undefined);
 * ```
 */
export function sinceMs(text: string, nowMs: number): number | undefined {
  const back = parseDuration(text);
  if (back !== undefined) return nowMs - back;
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(text)) return undefined;
  const ms = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  return Number.isNaN(ms) ? undefined : ms;
}

function usageError(io: TextIo, message: string): number {
  io.err(`yarp gain: ${message}\n`);
  return 2;
}

function jsonLine(entry: GainLine) {
  return {
    calls: entry.calls,
    chars_before: entry.charsBefore,
    chars_after: entry.charsAfter,
    saved: entry.saved,
  };
}

/** Runs `yarp gain` with the arguments after `gain`; returns the exit status. */
export async function gainCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  const parsed = parseArgs(args, { flags: ["--json"], options: ["--host", "--since"] });
  if ("error" in parsed) return usageError(io, parsed.error);
  const stray = operands(parsed)[0];
  if (stray !== undefined) return usageError(io, `unexpected argument '${stray}'`);
  const hostText = parsed.values.get("--host");
  if (hostText !== undefined && hostName(hostText) === undefined) {
    return usageError(io, `--host: expected ${HOST_LIST}, got '${hostText}'`);
  }
  const sinceText = parsed.values.get("--since");
  const since = sinceText === undefined ? undefined : sinceMs(sinceText, Date.now());
  if (sinceText !== undefined && since === undefined) {
    return usageError(
      io,
      `--since: expected a duration like 7d or 12h, or a date like 2026-12-01, got '${sinceText}'`,
    );
  }
  const groups = await readGroups(io, { host: hostText, sinceMs: since });
  if (groups === undefined) return 1;
  const report = gainReport(groups);
  if (parsed.flags.has("--json")) {
    io.out(
      JSON.stringify({
        since: since === undefined ? null : new Date(since).toISOString(),
        hosts: report.hosts.map((host) => ({
          host: host.total.host,
          ...jsonLine(host.total),
          rules: host.rules.map((rule) => ({ rule: rule.rule, ...jsonLine(rule) })),
        })),
        total: jsonLine(report.total),
      }) + "\n",
    );
  } else io.out(renderGain(report, "yarp gain: nothing reduced yet"));
  return 0;
}

/** The archive's reductions per host and rule; none without an archive; undefined (after one line) when it cannot be read. */
async function readGroups(
  io: TextIo,
  filter: { host?: string; sinceMs?: number },
): Promise<GainGroup[] | undefined> {
  const { archiveLocation } = await import("./_archive.ts");
  const settings = await archiveLocation();
  if ("error" in settings) {
    io.err(`yarp gain: ${settings.error}\n`);
    return undefined;
  }
  const [{ ArchiveError, openArchive }, { gainGroups }] = await Promise.all([
    import("../archive/store.ts"),
    import("../archive/reductions.ts"),
  ]);
  let db;
  try {
    db = await openArchive(settings.path, "read");
  } catch (error) {
    if (error instanceof ArchiveError && error.message.startsWith("no archive at ")) return [];
    io.err(`yarp gain: ${firstLine(error)}\n`);
    return undefined;
  }
  try {
    return gainGroups(db, filter);
  } catch (error) {
    io.err(`yarp gain: ${firstLine(error)}\n`);
    return undefined;
  } finally {
    db.close();
  }
}
