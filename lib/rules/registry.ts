/**
 * The rule registry: the built-in rules and the explicitly loaded external
 * packs, in layer order, and rule selection over them (docs/architecture.md, "Registry
 * and matcher", "External pack loading").
 *
 * Contract:
 * - Construction checks that pack ids and rule ids are unique. An external
 *   pack whose pack id or any rule id is already used by an earlier enabled
 *   source is disabled as a whole and recorded in `disabled`; a built-in is
 *   never disabled.
 * - `select` follows the fixed algorithm: ask each enabled source only for
 *   the one program bucket, test every candidate, then return `guarded` when
 *   any pass-through rule matched, the single rule when exactly one reduce or
 *   transform rule matched, `ambiguous` when several did, else `unsupported`.
 *   A source that throws while answering makes the whole selection
 *   `invalid-pack`, so the caller passes the command through. `select` never
 *   throws and never picks one of several matching rules.
 * - Every list in a selection is sorted by pack layer, then rule id.
 *
 * Known misses: a pack disabled for a conflict does not block later packs
 * that only conflict with it. Argv forms that normalisation misses (see
 * `argv.ts`) are `unsupported`.
 *
 * @module
 */

import type {
  PassthroughRule,
  ReductionRule,
  Rule,
  RulePack,
  RuleSource,
  TransformRule,
} from "./model.ts";
import builtinPack from "./builtin.generated.json" with { type: "json" };
import { BUILTIN_PROGRAM_INDEX } from "./builtin_programs.ts";
import { normalizeArgv } from "./argv.ts";
import { matchesRule } from "./matcher.ts";
import { firstLine } from "../base/error_message.ts";

/**
 * The validated built-in pack, rules in manifest order, as
 * `scripts/generate_builtin.ts` wrote it. The generator validated it; the
 * cast only restores the literal types (`"reduce"`, `"prefix"`, …) that
 * JSON cannot carry.
 */
export const BUILTIN_PACK: RulePack = builtinPack as unknown as RulePack;

/** A rule together with the id of the pack it came from. */
export interface RuleRef<R extends Rule = Rule> {
  readonly packId: string;
  readonly rule: R;
}

/** Why no rule was selected for an argv. */
export type UnsupportedReason = "no-program" | "unknown-program" | "no-rule-matched";

/**
 * The outcome of selecting a rule for one argv:
 * - `reduce` / `transform`: exactly one non-guard rule matched and no guard did;
 * - `guarded`: at least one pass-through rule matched; it wins over every
 *   reduce or transform rule, which are listed as `shadowed`;
 * - `ambiguous`: two or more reduce or transform rules matched and no guard;
 * - `unsupported`: no program (empty argv or argv[0]), an unknown program
 *   (no candidates anywhere, including any argv[0] containing `/`), or
 *   candidates but no match;
 * - `invalid-pack`: a source failed while answering; the command passes through.
 */
export type Selection =
  | { readonly outcome: "reduce"; readonly match: RuleRef<ReductionRule> }
  | { readonly outcome: "transform"; readonly match: RuleRef<TransformRule> }
  | {
    readonly outcome: "guarded";
    readonly guards: readonly RuleRef<PassthroughRule>[];
    readonly shadowed: readonly RuleRef<ReductionRule | TransformRule>[];
  }
  | {
    readonly outcome: "ambiguous";
    readonly matches: readonly RuleRef<ReductionRule | TransformRule>[];
  }
  | { readonly outcome: "unsupported"; readonly reason: UnsupportedReason }
  | { readonly outcome: "invalid-pack"; readonly packId: string; readonly message: string };

/** An external pack that was not loaded because of an id conflict. */
export interface DisabledPack {
  readonly packId: string;
  readonly reason: "duplicate-pack-id" | "duplicate-rule-id";
  /** The earlier enabled pack that already holds the id. */
  readonly conflictingPackId: string;
  /** The smallest conflicting rule id, for `duplicate-rule-id`. */
  readonly conflictingRuleId?: string;
  /** One line for a person, naming both packs and the id. */
  readonly message: string;
}

const NO_RULES: readonly Rule[] = Object.freeze([]);
const NO_MATCHES: readonly RuleRef<ReductionRule | TransformRule>[] = Object.freeze([]);

function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** A selected rule list sorted in place by pack layer, then rule id. */
function sortRefs<R extends Rule>(
  refs: RuleRef<R>[],
  layers: ReadonlyMap<string, number>,
): readonly RuleRef<R>[] {
  if (refs.length < 2) return refs;
  return refs.sort((left, right) =>
    layers.get(left.packId)! - layers.get(right.packId)! ||
    compareCodeUnits(left.rule.id, right.rule.id)
  );
}

/** Rules from the built-in tables and the enabled external packs, in layer order. */
export class RuleRegistry {
  /** The enabled sources in layer order: built-ins first, then external packs. */
  readonly sources: readonly RuleSource[];
  /** External packs disabled by an id conflict, in the order they were given. */
  readonly disabled: readonly DisabledPack[];
  readonly #layers: ReadonlyMap<string, number>;

  /** Use `createRuleRegistry`, which checks for id conflicts. */
  constructor(sources: readonly RuleSource[], disabled: readonly DisabledPack[]) {
    this.sources = sources;
    this.disabled = disabled;
    this.#layers = new Map(sources.map((source, layer) => [source.packId, layer]));
  }

  /**
   * Every rule of every enabled source, in layer order and then by rule id.
   * Decodes every record of a compiled pack; throws its typed error when one
   * fails verification.
   */
  rules(): RuleRef[] {
    return this.sources.flatMap((source) =>
      source.allRules().map((rule) => ({ packId: source.packId, rule }))
    );
  }

  /**
   * Every program name some enabled source files a rule under, sorted by
   * code unit, without duplicates: `select` of an argv whose program (as
   * `ruleProgramName` names it) is not among them is `unknown-program`.
   */
  programs(): string[] {
    const names = new Set(this.sources.flatMap((source) => source.programs));
    return [...names].sort(compareCodeUnits);
  }

  /**
   * Selects the rule for an argument vector. Never throws.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { builtinRuleSource, createRuleRegistry } from "./registry.ts";
   * const registry = createRuleRegistry([builtinRuleSource()]);
   * assert.ok(registry.select([]).outcome === "unsupported");
   * ```
   */
  select(argv: readonly string[]): Selection {
    const normalized = normalizeArgv(argv);
    if (normalized === undefined) {
      const reason = argv.length === 0 || argv[0] === "" ? "no-program" : "unknown-program";
      return { outcome: "unsupported", reason };
    }
    let guards: RuleRef<PassthroughRule>[] | undefined;
    let matches: RuleRef<ReductionRule | TransformRule>[] | undefined;
    let candidateCount = 0;
    for (const source of this.sources) {
      let candidates: readonly Rule[];
      try {
        candidates = source.candidates(normalized.program);
      } catch (error) {
        return { outcome: "invalid-pack", packId: source.packId, message: firstLine(error) };
      }
      candidateCount += candidates.length;
      for (let index = 0; index < candidates.length; index += 1) {
        const rule = candidates[index];
        if (!matchesRule(rule, normalized)) continue;
        if (rule.action === "passthrough") {
          (guards ??= []).push({ packId: source.packId, rule });
        } else {
          (matches ??= []).push({ packId: source.packId, rule });
        }
      }
    }
    if (guards !== undefined) {
      return {
        outcome: "guarded",
        guards: sortRefs(guards, this.#layers),
        shadowed: matches === undefined ? NO_MATCHES : sortRefs(matches, this.#layers),
      };
    }
    if (matches === undefined) {
      return {
        outcome: "unsupported",
        reason: candidateCount === 0 ? "unknown-program" : "no-rule-matched",
      };
    }
    if (matches.length > 1) {
      return { outcome: "ambiguous", matches: sortRefs(matches, this.#layers) };
    }
    const only = matches[0];
    return only.rule.action === "reduce"
      ? { outcome: "reduce", match: { packId: only.packId, rule: only.rule } }
      : { outcome: "transform", match: { packId: only.packId, rule: only.rule } };
  }
}

/**
 * Builds a registry from sources in layer order (built-ins first, then
 * external packs in the order given). An external source whose pack id or
 * any rule id is already used by an earlier enabled source is disabled and
 * recorded; built-ins are never disabled. Throws a `TypeError` only when a
 * built-in source follows an external one (a caller bug).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuleRegistry, ruleSourceFromPack } from "./registry.ts";
 * const rule = {
 *   id: "search/rg-json",
 *   action: "passthrough",
 *   match: { programs: ["rg"], argvPrefix: [], argvContainsAll: ["--json"] },
 * } as const;
 * const pack = (id: string) => ({ id, sourceDigest: "", rules: [rule] });
 * const registry = createRuleRegistry([
 *   ruleSourceFromPack(pack("a"), "external"),
 *   ruleSourceFromPack(pack("b"), "external"),
 * ]);
 * assert.equal(registry.disabled[0].packId, "b");
 * assert.equal(registry.select(["rg", "--json", "x"]).outcome, "guarded");
 * ```
 */
export function createRuleRegistry(sources: readonly RuleSource[]): RuleRegistry {
  const enabled: RuleSource[] = [];
  const disabled: DisabledPack[] = [];
  let externalSeen = false;
  for (const source of sources) {
    if (source.origin === "external") {
      externalSeen = true;
      const conflict = findConflict(source, enabled);
      if (conflict !== undefined) {
        disabled.push(conflict);
        continue;
      }
    } else if (externalSeen) {
      throw new TypeError(`built-in source "${source.packId}" must come before external packs`);
    }
    enabled.push(source);
  }
  return new RuleRegistry(enabled, disabled);
}

/** The smallest id in both sorted, duplicate-free lists: a merge walk, no hashing. */
function firstCommonId(left: readonly string[], right: readonly string[]): string | undefined {
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const order = compareCodeUnits(left[i], right[j]);
    if (order === 0) return left[i];
    if (order < 0) i += 1;
    else j += 1;
  }
  return undefined;
}

/** Why `source` cannot join the `enabled` sources, naming the smallest clashing rule id. */
function findConflict(
  source: RuleSource,
  enabled: readonly RuleSource[],
): DisabledPack | undefined {
  const packId = source.packId;
  if (enabled.some((earlier) => earlier.packId === packId)) {
    return {
      packId,
      reason: "duplicate-pack-id",
      conflictingPackId: packId,
      message: `rule pack "${packId}" disabled: a pack with the same id is already loaded`,
    };
  }
  let clash: { ruleId: string; owner: string } | undefined;
  for (const earlier of enabled) {
    const ruleId = firstCommonId(source.ruleIds, earlier.ruleIds);
    if (
      ruleId !== undefined && (clash === undefined || compareCodeUnits(ruleId, clash.ruleId) < 0)
    ) {
      clash = { ruleId, owner: earlier.packId };
    }
  }
  if (clash === undefined) return undefined;
  return {
    packId,
    reason: "duplicate-rule-id",
    conflictingPackId: clash.owner,
    conflictingRuleId: clash.ruleId,
    message: `rule pack "${packId}" disabled: rule id "${clash.ruleId}" is already defined by ` +
      `pack "${clash.owner}"`,
  };
}

/**
 * A `RuleSource` over `rules`, whose program buckets `bucket` gives. The
 * id-sorted lists are built on first use: selection reads only the buckets,
 * so a pass-through `yarp run` never sorts the rules.
 */
function indexedRuleSource(
  packId: string,
  origin: "builtin" | "external",
  rules: readonly Rule[],
  programs: readonly string[],
  bucket: (program: string) => readonly Rule[] | undefined,
): RuleSource {
  let sorted: readonly Rule[] | undefined;
  let ids: readonly string[] | undefined;
  const allRules = () =>
    sorted ??= [...rules].sort((left, right) => compareCodeUnits(left.id, right.id));
  return {
    packId,
    origin,
    get ruleIds() {
      return ids ??= allRules().map((rule) => rule.id);
    },
    candidates: (program) => bucket(program) ?? NO_RULES,
    programs,
    allRules,
  };
}

/**
 * An in-memory `RuleSource` for a validated pack: each program maps to its
 * rules sorted by rule id. Throws a `TypeError` when the pack repeats a rule
 * id (validated packs never do).
 */
export function ruleSourceFromPack(pack: RulePack, origin: "builtin" | "external"): RuleSource {
  const ruleIds = pack.rules.map((rule) => rule.id).sort(compareCodeUnits);
  for (let index = 1; index < ruleIds.length; index += 1) {
    if (ruleIds[index] === ruleIds[index - 1]) {
      throw new TypeError(`pack "${pack.id}" repeats rule id "${ruleIds[index]}"`);
    }
  }
  const buckets = new Map<string, Rule[]>();
  for (const rule of pack.rules) {
    for (const program of rule.match.programs) {
      const bucket = buckets.get(program);
      if (bucket === undefined) buckets.set(program, [rule]);
      else bucket.push(rule);
    }
  }
  for (const bucket of buckets.values()) {
    bucket.sort((left, right) => compareCodeUnits(left.id, right.id));
  }
  const programs = [...buckets.keys()].sort(compareCodeUnits);
  return indexedRuleSource(
    pack.id,
    origin,
    pack.rules,
    programs,
    (program) => buckets.get(program),
  );
}

let builtinSource: RuleSource | undefined;

/**
 * The `RuleSource` of the generated built-in tables, built once per process
 * from `BUILTIN_PROGRAM_INDEX` as given (already sorted; nothing is re-sorted
 * but the flat id list `ruleIds`, and that only when asked for). A program's
 * bucket is built the first time it is asked for, so a run that selects for
 * one program never builds the others'.
 */
export function builtinRuleSource(): RuleSource {
  if (builtinSource === undefined) {
    const rules = BUILTIN_PACK.rules;
    const indexes = new Map<string, readonly number[]>(BUILTIN_PROGRAM_INDEX);
    const buckets = new Map<string, readonly Rule[]>();
    const programs = BUILTIN_PROGRAM_INDEX.map(([program]) => program);
    builtinSource = indexedRuleSource(BUILTIN_PACK.id, "builtin", rules, programs, (program) => {
      let bucket = buckets.get(program);
      if (bucket === undefined) {
        const found = indexes.get(program);
        if (found === undefined) return undefined;
        bucket = found.map((index) => rules[index]);
        buckets.set(program, bucket);
      }
      return bucket;
    });
  }
  return builtinSource;
}
