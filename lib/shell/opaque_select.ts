/**
 * Rule selection for a command with opaque words (docs/shell.md, "Opaque
 * operands"): `cmake --build $BUILD_DIR`, `cargo build --manifest-path
 * "$ROOT/Cargo.toml"`. An opaque word is a glob or a parameter expansion
 * whose text is unknown until bash runs; unquoted, it may split into any
 * number of words, none included, and a glob may match names that start
 * with `-`. So the command is selected only when every argv it can expand
 * to selects the same reduction rule:
 *
 * - the program is a literal word, and the first opaque word sits in the
 *   argument tail (never in a program-level option or its value), never as
 *   the subcommand (tail index 0);
 * - with each opaque word replaced by a word no rule names, exactly one
 *   reduction rule selects, and every `argv_contains_all` token it needs
 *   is already given by the literal words before the first opaque word
 *   (a `--` or a value-taking option spliced in later cannot take it away);
 * - no other rule of the program (guard, transform or reduction, in any
 *   pack) has an `argv_prefix` whose positions before the first opaque word
 *   the literal words satisfy: whatever words the expansion puts at and
 *   after it, no second rule can then match, so the selection can be
 *   neither guarded nor ambiguous.
 *
 * The matcher holds only positive conditions (program, prefix, tokens
 * present), so words added after the prefix can only add matches, which
 * the last condition rules out, and can never take the selected rule's
 * match away. Pure; never throws (a failing pack is undecided).
 *
 * Known misses (each fails safe, as undecided): a quoted expansion, which
 * is exactly one word, is judged as if it could split; a rule-free
 * program's operands are never opened; a value-taking option's opaque
 * value (`tail -n "$N"`) is judged like any operand.
 *
 * @module
 */
import { normalizeArgv } from "../rules/argv.ts";
import type { ReductionRule } from "../rules/model.ts";
import type { RuleRegistry } from "../rules/registry.ts";
import type { LiteralWord } from "./model.ts";

/** Stands for an opaque word while selecting: NUL never occurs in a real argument. */
const UNKNOWN_WORD = "\u0000";

/**
 * The one reduction rule that every expansion of `words` selects (see the
 * module contract), or undefined when that cannot be shown. `words` must
 * hold at least one opaque word and a literal program.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { selectOverOpaqueWords } from "./opaque_select.ts";
 * import { builtinRuleSource, createRuleRegistry } from "../rules/registry.ts";
 * const registry = createRuleRegistry([builtinRuleSource()]);
 * const literal = (text: string) => ({ text, start: 0, end: 0 });
 * const opaque = { text: "", start: 0, end: 0, opaque: true } as const;
 * // `cargo test $ARGS` may expand to `cargo test --message-format=json`, a guarded form.
 * assert.equal(selectOverOpaqueWords([literal("cargo"), literal("test"), opaque], registry), undefined);
 * ```
 */
export function selectOverOpaqueWords(
  words: readonly LiteralWord[],
  registry: RuleRegistry,
): ReductionRule | undefined {
  try {
    return selectUnsafe(words, registry);
  } catch {
    return undefined;
  }
}

function selectUnsafe(
  words: readonly LiteralWord[],
  registry: RuleRegistry,
): ReductionRule | undefined {
  const first = words.findIndex((word) => word.opaque === true);
  if (first < 1 || words.some((word) => word.substitutes === true)) return undefined;
  const probe = words.map((word) => word.opaque === true ? UNKNOWN_WORD : word.text);
  const normalized = normalizeArgv(probe);
  if (normalized === undefined) return undefined;
  const tailIndex = first - 1 - normalized.skipped.length;
  if (tailIndex < 1 || normalized.tail[tailIndex] !== UNKNOWN_WORD) return undefined;
  const selection = registry.select(probe);
  if (selection.outcome !== "reduce") return undefined;
  const selected = selection.match.rule;
  const before = normalizeArgv(probe.slice(0, first));
  if (before === undefined) return undefined;
  if (!selected.match.argvContainsAll.every((token) => before.tokens.has(token))) return undefined;
  for (const source of registry.sources) {
    for (const rule of source.candidates(normalized.program)) {
      if (rule.id === selected.id) continue;
      // Positions from `tailIndex` on are the expansion's: any token may stand there.
      const prefix = rule.match.argvPrefix.slice(0, tailIndex);
      if (prefix.every((token, index) => normalized.tail[index] === token)) return undefined;
    }
  }
  return selected;
}
