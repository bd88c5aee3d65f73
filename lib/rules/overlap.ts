/**
 * Finds pairs of rules in one pack that could both select the same argv
 * without a guard deciding between them. Matchers have no negation, so two
 * reduce or transform rules overlap exactly when they share a program and one
 * `argv_prefix` is a prefix of the other: the argv made of the longer prefix
 * followed by every required token of both rules satisfies both. Guards never
 * overlap in this sense: a guard always wins.
 *
 * @module
 */
import type { Rule } from "./model.ts";

/** Two rules that can select the same argv; `exact` when their matchers are identical. */
export interface RuleOverlap {
  readonly first: string;
  readonly second: string;
  readonly program: string;
  readonly exact: boolean;
}

function isPrefixOf(shorter: readonly string[], longer: readonly string[]): boolean {
  return shorter.length <= longer.length && shorter.every((token, i) => token === longer[i]);
}

function sameTokens(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return a.length === b.length && b.every((token) => set.has(token));
}

/**
 * Returns every overlapping pair of selecting (non-guard) rules, sorted by
 * rule ids, one entry per pair (on the first shared program name). Work is
 * quadratic only within one program's bucket.
 */
export function findRuleOverlaps(rules: readonly Rule[]): RuleOverlap[] {
  const buckets = new Map<string, Rule[]>();
  for (const rule of rules) {
    if (rule.action === "passthrough") continue;
    for (const program of rule.match.programs) {
      const bucket = buckets.get(program) ?? [];
      bucket.push(rule);
      buckets.set(program, bucket);
    }
  }
  const found = new Map<string, RuleOverlap>();
  for (const program of [...buckets.keys()].sort()) {
    const bucket = buckets.get(program)!;
    for (let i = 0; i < bucket.length; i++) {
      for (let j = i + 1; j < bucket.length; j++) {
        const [a, b] = [bucket[i], bucket[j]].sort((x, y) => x.id < y.id ? -1 : 1);
        const key = `${a.id}\0${b.id}`;
        if (found.has(key)) continue;
        const [pa, pb] = [a.match.argvPrefix, b.match.argvPrefix];
        if (!isPrefixOf(pa, pb) && !isPrefixOf(pb, pa)) continue;
        const exact = pa.length === pb.length &&
          sameTokens(a.match.argvContainsAll, b.match.argvContainsAll);
        found.set(key, { first: a.id, second: b.id, program, exact });
      }
    }
  }
  return [...found.values()].sort((x, y) =>
    x.first === y.first ? (x.second < y.second ? -1 : 1) : (x.first < y.first ? -1 : 1)
  );
}
