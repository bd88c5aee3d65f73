/**
 * What the extension did in one Pi session, as immutable data (pure): a
 * reducer over decision events and the `/yarp` report rendered from it.
 * Characters saved are not counted here: they come from `yarp gain` (the
 * archive's reductions under host `pi`), so `/yarp` and `yarp gain` agree.
 * The report never contains command or output text, only counts, codes and
 * archive ids.
 *
 * @module
 */
import type { GainFigures, PassReason } from "./decisions.ts";

/** One decision the extension made. */
export type SessionEvent =
  | { readonly kind: "rewritten"; readonly tool: string }
  /** A result `result-reduce` or `yarp run` reduced, with the archive id its marker names. */
  | { readonly kind: "reduced"; readonly archiveId: string }
  | {
    readonly kind: "pass";
    readonly stage: "rewrite" | "result";
    /** The extension's {@link PassReason}, or the reason code `yarp rewrite --json` gave. */
    readonly reason: PassReason | string;
  }
  | { readonly kind: "error"; readonly code: string; readonly detail: string };

/** Counts for one session. */
export interface SessionStats {
  readonly rewritten: number;
  /** Pass-through counts keyed `stage:reason`. */
  readonly passThrough: Readonly<Record<string, number>>;
  /** Error counts by code. */
  readonly errors: Readonly<Record<string, number>>;
  /** The last few error lines (at most {@link MAX_ERROR_LINES}). */
  readonly lastErrors: readonly string[];
  /** Archive ids of reduced results (`result-reduce` and `yarp run`), newest last (at most {@link MAX_IDS}). */
  readonly archiveIds: readonly string[];
}

/** How many error lines and archive ids a report keeps. */
export const MAX_ERROR_LINES = 5;
export const MAX_IDS = 5;

/** A session with nothing recorded yet. */
export const EMPTY_STATS: SessionStats = {
  rewritten: 0,
  passThrough: {},
  errors: {},
  lastErrors: [],
  archiveIds: [],
};

function bump(counts: Readonly<Record<string, number>>, key: string): Record<string, number> {
  return { ...counts, [key]: (counts[key] ?? 0) + 1 };
}

/**
 * Returns `stats` with `event` counted; never mutates `stats`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { EMPTY_STATS, recordEvent } from "./session_stats.ts";
 * const stats = recordEvent(EMPTY_STATS, { kind: "pass", stage: "rewrite", reason: "timeout" });
 * equal(stats.passThrough["rewrite:timeout"], 1);
 * ```
 */
export function recordEvent(stats: SessionStats, event: SessionEvent): SessionStats {
  switch (event.kind) {
    case "rewritten":
      return { ...stats, rewritten: stats.rewritten + 1 };
    case "reduced":
      return { ...stats, archiveIds: [...stats.archiveIds, event.archiveId].slice(-MAX_IDS) };
    case "pass":
      return { ...stats, passThrough: bump(stats.passThrough, `${event.stage}:${event.reason}`) };
    case "error":
      return {
        ...stats,
        errors: bump(stats.errors, event.code),
        lastErrors: [...stats.lastErrors, `${event.code}: ${event.detail}`].slice(-MAX_ERROR_LINES),
      };
  }
}

/** Facts about the extension's state shown with the counts. */
export interface ReportFacts {
  readonly extensionVersion: string;
  /** The binary in use, as `/yarp doctor` describes it; undefined when none was found. */
  readonly binary: string | undefined;
  /** `yarp --version`'s version, when known. */
  readonly binaryVersion: string | undefined;
  /** Why rewriting and reduction are disabled for this session, when they are. */
  readonly disabledReason: string | undefined;
  /** True after `/yarp off`. */
  readonly off: boolean;
  /** The project pack passed to YARP, or why none is. */
  readonly projectPack: string;
  /** Where the archive is, as YARP reports it. */
  readonly archive: string;
  /** What `yarp gain --json --host pi --since START` reported, or why it could not be asked. */
  readonly gain: GainFigures | { readonly error: string };
}

function sortedLines(counts: Readonly<Record<string, number>>): string[] {
  return Object.keys(counts).sort().map((key) => `  ${key}: ${counts[key]}`);
}

/**
 * Renders the `/yarp` report: state, counts, what `yarp gain` says Pi saved
 * (or one line saying why it is unknown), pass-through reasons by code,
 * errors, recovery.
 */
export function renderReport(stats: SessionStats, facts: ReportFacts): string {
  const state = facts.disabledReason !== undefined
    ? `disabled: ${facts.disabledReason}`
    : facts.off
    ? "off for this session (/yarp on turns it back on)"
    : "on";
  const lines = [
    `YARP ${facts.extensionVersion}: ${state}`,
    `binary: ${facts.binary ?? "none found"}${
      facts.binaryVersion === undefined ? "" : ` (yarp ${facts.binaryVersion})`
    }`,
    `project pack: ${facts.projectPack}`,
    `archive: ${facts.archive}`,
    `commands rewritten to yarp run: ${stats.rewritten}`,
    "error" in facts.gain
      ? `saved in Pi since this session started: unknown (yarp gain: ${facts.gain.error})`
      : `saved in Pi since this session started (yarp gain --host pi): ${facts.gain.calls} results reduced, ${facts.gain.charsBefore} → ${facts.gain.charsAfter} characters, saved ${facts.gain.saved}`,
  ];
  const passes = sortedLines(stats.passThrough);
  lines.push(
    passes.length === 0 ? "pass-through: none" : "pass-through (stage:reason):",
    ...passes,
  );
  const errors = sortedLines(stats.errors);
  lines.push(errors.length === 0 ? "errors: none" : "errors:", ...errors);
  for (const line of stats.lastErrors) lines.push(`  last: ${line}`);
  if (stats.archiveIds.length > 0) lines.push(`recent archive ids: ${stats.archiveIds.join(", ")}`);
  lines.push(
    "exact copy of any reduced result: run `yarp read ID` with the id its marker names",
    "(from the agent's bash tool too; that output is never reduced again)",
  );
  return lines.join("\n");
}
