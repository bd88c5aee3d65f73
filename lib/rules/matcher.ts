/**
 * The argv matcher: decides whether one rule's `match` conditions hold for
 * one normalised argument vector (docs/architecture.md, "Command matching").
 *
 * Contract: pure, total and allocation-free. A rule matches when the program
 * is one of its `programs` (exact, case-sensitive), its `argvPrefix` equals
 * the start of the tail token for token, and every `argvContainsAll` token is
 * one of the normalised tokens (complete tokens, never substrings).
 *
 * Known misses: there are no OR groups, negations or patterns; alternatives
 * are separate rules. Everything argv normalisation misses is missed here.
 *
 * @module
 */

import type { Rule } from "./model.ts";
import type { NormalizedArgv } from "./argv.ts";

/**
 * True when `rule` matches `argv`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { matchesRule } from "./matcher.ts";
 * import { normalizeArgv } from "./argv.ts";
 * const rule = {
 *   id: "git/status-guard",
 *   action: "passthrough",
 *   match: { programs: ["git"], argvPrefix: ["status"], argvContainsAll: ["-z"] },
 * } as const;
 * assert.ok(matchesRule(rule, normalizeArgv(["git", "status", "-sbz"])!));
 * ```
 */
export function matchesRule(rule: Rule, argv: NormalizedArgv): boolean {
  const { programs, argvPrefix, argvContainsAll } = rule.match;
  if (!programs.includes(argv.program)) return false;
  if (argvPrefix.length > argv.tail.length) return false;
  for (let index = 0; index < argvPrefix.length; index += 1) {
    if (argvPrefix[index] !== argv.tail[index]) return false;
  }
  for (let index = 0; index < argvContainsAll.length; index += 1) {
    if (!argv.tokens.has(argvContainsAll[index])) return false;
  }
  return true;
}
