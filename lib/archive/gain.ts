/**
 * What YARP saved, per host and per rule (`yarp gain`): pure aggregation
 * over the archive's `reductions` rows (one per result YARP changed), and
 * the host names a caller may give.
 *
 * "Before" is the characters of the result the agent's own command
 * produced, as YARP received it: the text a host handed to `result-reduce`
 * (after any `| head -50` the agent wrote, so a limit the agent set itself
 * is never credited), or the child's stdout and stderr in `yarp run`.
 * "After" is what YARP printed in its place, markers included. Saved is
 * `before - after`, signed: a result that grew counts negative.
 *
 * @module
 */

/** The hosts a reduction can come from; `cli` is a person or script calling yarp directly. */
export const HOSTS = ["pi", "claude-code", "codex", "gemini", "opencode", "cli"] as const;

/** One of {@link HOSTS}. */
export type Host = typeof HOSTS[number];

/** The rule name recorded for a result cut by the global output cap rather than a rule. */
export const OUTPUT_CAP_RULE = "output-cap";

/**
 * The host named by `text`, or undefined when it names none of
 * {@link HOSTS} (exact, case-sensitive).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { hostName } from "./gain.ts";
 * equal(hostName("codex"), "codex");
 * equal(hostName("Codex"), undefined);
 * ```
 */
export function hostName(text: string): Host | undefined {
  return (HOSTS as readonly string[]).includes(text) ? text as Host : undefined;
}

/**
 * The host of a call: `flag` (a `--host` value) when given, else the
 * `YARP_HOST` value `env` when set and not empty, else `cli`; `{ error }`
 * with one line naming the argument or variable when either names no host.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { callHost } from "./gain.ts";
 * deepEqual(callHost(undefined, "pi"), { host: "pi" });
 * deepEqual(callHost("codex", "pi"), { host: "codex" });
 * deepEqual(callHost(undefined, undefined), { host: "cli" });
 * deepEqual(callHost(undefined, "vim"), {
 *   error: "YARP_HOST: expected pi, claude-code, codex, gemini, opencode or cli, got 'vim'",
 * });
 * ```
 */
export function callHost(
  flag: string | undefined,
  env: string | undefined,
): { host: Host } | { error: string } {
  const [name, text] = flag !== undefined
    ? ["--host", flag]
    : env !== undefined && env !== ""
    ? ["YARP_HOST", env]
    : ["", "cli"];
  const host = hostName(text);
  return host === undefined ? { error: `${name}: expected ${HOST_LIST}, got '${text}'` } : { host };
}

/** The host names as a sentence: `pi, claude-code, codex, gemini, opencode or cli`. */
export const HOST_LIST = `${HOSTS.slice(0, -1).join(", ")} or ${HOSTS.at(-1)}`;

/** The rows of one host and rule, summed (what the archive query returns). */
export interface GainGroup {
  readonly host: string;
  readonly rule: string;
  readonly calls: number;
  readonly charsBefore: number;
  readonly charsAfter: number;
}

/** One line of the report: a group with its signed saving. */
export interface GainLine extends GainGroup {
  /** `charsBefore - charsAfter`: negative when YARP's result was the longer. */
  readonly saved: number;
}

/** Per host: its total and its rules, most characters saved first. */
export interface HostGain {
  readonly total: GainLine;
  readonly rules: readonly GainLine[];
}

/** The whole report: every host (most saved first) and the grand total. */
export interface GainReport {
  readonly hosts: readonly HostGain[];
  readonly total: GainLine;
}

function line(host: string, rule: string, groups: readonly GainGroup[]): GainLine {
  let calls = 0, charsBefore = 0, charsAfter = 0;
  for (const group of groups) {
    calls += group.calls;
    charsBefore += group.charsBefore;
    charsAfter += group.charsAfter;
  }
  return { host, rule, calls, charsBefore, charsAfter, saved: charsBefore - charsAfter };
}

/** Most saved first, then by name, so the order never depends on the query's. */
function bySaving(a: GainLine, b: GainLine): number {
  return b.saved - a.saved || (a.host < b.host ? -1 : a.host > b.host ? 1 : 0) ||
    (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0);
}

/**
 * Sums `groups` per host and per rule (groups naming the same host and rule
 * are merged) into a {@link GainReport}: totals are exact sums, savings
 * signed, order most saved first.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { gainReport } from "./gain.ts";
 * const report = gainReport([
 *   { host: "pi", rule: "git.log", calls: 2, charsBefore: 9000, charsAfter: 1000 },
 *   { host: "codex", rule: "output-cap", calls: 1, charsBefore: 100, charsAfter: 150 },
 * ]);
 * equal(report.total.saved, 7950);
 * equal(report.hosts[1].total.saved, -50);
 * ```
 */
export function gainReport(groups: readonly GainGroup[]): GainReport {
  const byHost = new Map<string, Map<string, GainGroup[]>>();
  for (const group of groups) {
    const rules = byHost.get(group.host) ?? new Map<string, GainGroup[]>();
    byHost.set(group.host, rules);
    rules.set(group.rule, [...(rules.get(group.rule) ?? []), group]);
  }
  const hosts: HostGain[] = [...byHost].map(([host, rules]) => {
    const lines = [...rules].map(([rule, parts]) => line(host, rule, parts)).sort(bySaving);
    return { total: line(host, "", lines), rules: lines };
  });
  hosts.sort((a, b) => bySaving(a.total, b.total));
  return { hosts, total: line("", "", hosts.map((h) => h.total)) };
}

/** `n` with thousands separators (`12,345`, `-50`). */
function figure(n: number): string {
  return n.toLocaleString("en-US");
}

/** The saving as a share of `before`: `87.5%`, `-50.0%`, or `-` when nothing came before. */
function share(entry: GainLine): string {
  return entry.charsBefore === 0 ? "-" : `${(100 * entry.saved / entry.charsBefore).toFixed(1)}%`;
}

/**
 * The report as text: one line per host, its rules indented below it, then
 * the total; `empty` is printed when there is nothing to report.
 */
export function renderGain(report: GainReport, empty: string): string {
  if (report.hosts.length === 0) return `${empty}\n`;
  const row = (label: string, e: GainLine) =>
    `${label}: ${figure(e.calls)} ${e.calls === 1 ? "call" : "calls"}, ${figure(e.charsBefore)} → ${
      figure(e.charsAfter)
    } characters, saved ${figure(e.saved)} (${share(e)})\n`;
  let text = "";
  for (const host of report.hosts) {
    text += row(host.total.host, host.total);
    for (const rule of host.rules) text += row(`  ${rule.rule}`, rule);
  }
  return text + row("total", report.total);
}
