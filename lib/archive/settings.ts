/**
 * Where the archive lives and how much it keeps, from the environment and
 * the config file. Pure: reads nothing but its arguments.
 *
 * Precedence for the database path: `YARP_ARCHIVE_PATH`, then the config's
 * `archive.path`, then `<state dir>/archive.sqlite3`, where the state dir is
 * `$XDG_STATE_HOME/yarp` (absolute XDG_STATE_HOME only) else
 * `$HOME/.local/state/yarp`. Spools go to `<state dir>/spool/`, or beside
 * the database (`<db dir>/spool/`) when no state dir can be formed.
 *
 * @module
 */
import type { EnvReader, YarpConfig } from "../config/mod.ts";
import { parentDir } from "./store.ts";
import { stateDirectory as sandboxStateDirectory } from "../base/sandbox.ts";

/** Default retention: total raw bytes kept (1 GiB). */
export const DEFAULT_MAX_BYTES = 1024 * 1024 * 1024;
/** Default retention: days a call is kept (30). */
export const DEFAULT_MAX_AGE_DAYS = 30;

/** Default retention grace: minutes a call is safe from the size limit (60). */
export const DEFAULT_MIN_AGE_MINUTES = 60;

const DAY_MS = 24 * 60 * 60 * 1000;

/** A usable archive location and its retention limits. */
export interface ArchiveSettings {
  readonly enabled: true;
  /** Absolute path of the SQLite database. */
  readonly path: string;
  /** Directory for per-run spool files (created 0700 on first use). */
  readonly spoolDir: string;
  /** Retention: total raw stream bytes kept. */
  readonly maxBytes: number;
  /** Retention: age in milliseconds after which a call is removed. */
  readonly maxAgeMs: number;
  /**
   * Retention: age in milliseconds before which the size limit never
   * removes a call (so a marker just printed stays good), unless the disk
   * is full.
   */
  readonly minAgeMs: number;
}

/** The archive is off (`YARP_ARCHIVE=off`). */
export interface ArchiveDisabled {
  readonly enabled: false;
}

/** Result of resolving settings: settings, off, or one error line naming the variable. */
export type ArchiveSettingsResult = ArchiveSettings | ArchiveDisabled | { readonly error: string };

/** The state directory, resolved as the launcher resolves it (see `lib/base/sandbox.ts`). */
export function stateDirectory(env: EnvReader): string | undefined {
  return sandboxStateDirectory(env);
}

/**
 * Resolves the archive settings from `env` and `config`. `YARP_ARCHIVE`
 * may be unset, empty, `on` or `off`; anything else is an error, as is a
 * relative `YARP_ARCHIVE_PATH` or no way to form a path at all.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { EMPTY_CONFIG, envFromRecord } from "../config/mod.ts";
 * import { archiveSettings } from "./settings.ts";
 * deepEqual(archiveSettings(envFromRecord({ HOME: "/h" }), EMPTY_CONFIG), {
 *   enabled: true,
 *   path: "/h/.local/state/yarp/archive.sqlite3",
 *   spoolDir: "/h/.local/state/yarp/spool",
 *   maxBytes: 1073741824,
 *   maxAgeMs: 2592000000,
 *   minAgeMs: 3600000,
 * });
 * deepEqual(archiveSettings(envFromRecord({ YARP_ARCHIVE: "off" }), EMPTY_CONFIG), {
 *   enabled: false,
 * });
 * ```
 */
export function archiveSettings(env: EnvReader, config: YarpConfig): ArchiveSettingsResult {
  const mode = env("YARP_ARCHIVE");
  if (mode === "off") return { enabled: false };
  if (mode !== undefined && mode !== "" && mode !== "on") {
    return { error: `YARP_ARCHIVE: expected 'on' or 'off', got '${mode}'` };
  }
  const state = stateDirectory(env);
  const explicit = env("YARP_ARCHIVE_PATH");
  let path: string;
  if (explicit !== undefined && explicit !== "") {
    if (!explicit.startsWith("/")) {
      return { error: `YARP_ARCHIVE_PATH: expected an absolute path, got '${explicit}'` };
    }
    path = explicit;
  } else if (config.archive.path !== undefined) path = config.archive.path;
  else if (state !== undefined) path = `${state}/archive.sqlite3`;
  else {
    return { error: "archive: no state directory (set HOME, XDG_STATE_HOME or YARP_ARCHIVE_PATH)" };
  }
  return {
    enabled: true,
    path,
    spoolDir: state === undefined ? `${parentDir(path)}/spool` : `${state}/spool`,
    maxBytes: config.archive.maxBytes ?? DEFAULT_MAX_BYTES,
    maxAgeMs: (config.archive.maxAgeDays ?? DEFAULT_MAX_AGE_DAYS) * DAY_MS,
    minAgeMs: (config.archive.minAgeMinutes ?? DEFAULT_MIN_AGE_MINUTES) * 60_000,
  };
}
