/**
 * Shared plumbing of the archive subcommands (`read`, `search`, `archive`):
 * the archive location from config and environment, opening the database
 * with one-line errors, and raw byte output. Arguments are parsed by
 * `_args.ts`.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { ArchiveSettings } from "../archive/settings.ts";
import type { StreamSource } from "../archive/commit.ts";
import type { RunSpool } from "../archive/spool.ts";
import type { TextIo } from "./io.ts";
import { firstLine } from "../base/error_message.ts";

/**
 * The archive settings from the config file and environment, or one error
 * line: an invalid config, an invalid `YARP_ARCHIVE*` value, or
 * `YARP_ARCHIVE=off` (there is no archive to use).
 */
export async function archiveLocation(): Promise<ArchiveSettings | { error: string }> {
  const { loadConfig, processEnv } = await import("../config/mod.ts");
  const config = await loadConfig(processEnv);
  if (!config.ok) return { error: config.error };
  const { archiveSettings } = await import("../archive/settings.ts");
  const settings = archiveSettings(processEnv, config.config);
  if ("error" in settings) return settings;
  if (!settings.enabled) return { error: "the archive is off (YARP_ARCHIVE=off)" };
  return settings;
}

/**
 * Opens the archive for subcommand `name` and runs `work` with it, closing
 * it afterwards. Any archive problem (no archive yet, corrupt file, newer
 * schema, bad config) prints one `yarp NAME: …` line and returns 1.
 */
export async function withArchive(
  name: string,
  mode: "read" | "write",
  io: TextIo,
  work: (db: DatabaseSync, settings: ArchiveSettings) => Promise<number> | number,
): Promise<number> {
  const settings = await archiveLocation();
  if ("error" in settings) {
    io.err(`yarp ${name}: ${settings.error}\n`);
    return 1;
  }
  const { openArchive } = await import("../archive/store.ts");
  let db: DatabaseSync;
  try {
    db = await openArchive(settings.path, mode);
  } catch (error) {
    io.err(`yarp ${name}: ${firstLine(error)}\n`);
    return 1;
  }
  try {
    return await work(db, settings);
  } catch (error) {
    io.err(`yarp ${name}: ${firstLine(error)}\n`);
    return 1;
  } finally {
    db.close();
  }
}

/** `ms` since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (UTC, so output never depends on the zone). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The facts a host gives about a finished result it archives (`archive put`, `result-reduce`). */
export interface FinishedResultFacts {
  readonly createdMs: number;
  readonly cwd: string;
  /** The shell source as the host ran it. */
  readonly command: string;
  /** The shell status, or null when unknown. */
  readonly exitCode: number | null;
}

/**
 * Archives a finished result as one combined `output` stream: `input` held
 * in memory is committed from memory, a stream of chunks is spooled first
 * (bounded memory); the call is committed in one transaction, then pruned by
 * the configured retention (best effort). The search index is not filled
 * here: `yarp search` indexes every pending call before it queries
 * (docs/archive.md, "Concurrency"), so the host's result path never pays for
 * tokenising. Returns the new call id only after the commit, or one error
 * line when nothing was archived. Never throws.
 */
export async function putFinishedResult(
  db: DatabaseSync,
  settings: ArchiveSettings,
  input: Uint8Array | AsyncIterable<Uint8Array>,
  facts: FinishedResultFacts,
): Promise<{ id: string } | { error: string }> {
  const [{ commitCall, memorySource }, { autoRetention, makeRoom }] = await Promise.all([
    import("../archive/commit.ts"),
    import("../archive/retention.ts"),
  ]);
  let spool: RunSpool | undefined;
  try {
    let source: StreamSource;
    if (input instanceof Uint8Array) source = memorySource("output", input);
    else {
      const { RunSpool } = await import("../archive/spool.ts");
      try {
        spool = RunSpool.open(settings.spoolDir, ["output"], facts.createdMs);
      } catch (error) {
        return { error: firstLine(error) };
      }
      for await (const chunk of input) spool.write("output", chunk);
      if (spool.failure !== undefined) return { error: spool.failure };
      source = spool.source("output");
    }
    const callFacts = {
      createdMs: facts.createdMs,
      cwd: facts.cwd,
      source: "put",
      command: facts.command,
      argv: null,
      exitCode: facts.exitCode,
      signal: null,
      ruleId: null,
    } as const;
    const committed = await commitCall(db, callFacts, [source]).catch((error) => {
      if (!makeRoom(db, settings, Date.now(), error)) throw error;
      return commitCall(db, callFacts, [source]); // the disk was full: once more, with room
    });
    autoRetention(db, settings, Date.now(), committed.seq);
    return { id: committed.id };
  } catch (error) {
    return { error: firstLine(error) };
  } finally {
    spool?.close();
  }
}
