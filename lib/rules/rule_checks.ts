/**
 * The rule grammar (docs/rules.md) and limits of a validated rule as pure predicates:
 * ids, program names, argument tokens, patterns, reducers and policies.
 * Source validation reports with positions; the compiled-pack reader checks
 * decoded records; both use these so the two can never disagree.
 *
 * @module
 */
import {
  LIMITS,
  type LinePattern,
  type OutputPolicy,
  type PatternCase,
  type PatternKind,
  type PatternTrim,
  type ReducerSpec,
  type Rule,
  type RuleMatcher,
  TYPED_REDUCER_KINDS,
} from "./model.ts";

/** Reads the code unit (string) or byte (index bytes) at a position. */
export type CodeAt = (index: number) => number;

function isLowerAlnum(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
}

/** `. _ -`, and `/` when `slash` is set. */
function isIdSeparator(code: number, slash: boolean): boolean {
  return code === 0x2e || code === 0x5f || code === 0x2d || (slash && code === 0x2f);
}

/** Whether the codes form a pack id (or, with `slash`, a rule id). */
export function isSeparatedId(codeAt: CodeAt, length: number, slash: boolean): boolean {
  if (length < 1 || length > LIMITS.idMaxBytes) return false;
  let previousWasSeparator = true;
  for (let i = 0; i < length; i++) {
    const code = codeAt(i);
    if (isLowerAlnum(code)) previousWasSeparator = false;
    else if (isIdSeparator(code, slash) && !previousWasSeparator) previousWasSeparator = true;
    else return false;
  }
  return !previousWasSeparator;
}

function isProgramNameCode(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) || code === 0x2e || code === 0x5f || code === 0x2d ||
    code === 0x2b || code === 0x40 || code === 0x2c || code === 0x3a || code === 0x5e;
}

/** Whether the codes form a program name. */
export function isProgramNameShape(codeAt: CodeAt, length: number): boolean {
  if (length < 1 || length > LIMITS.programNameMaxBytes) return false;
  for (let i = 0; i < length; i++) if (!isProgramNameCode(codeAt(i))) return false;
  return true;
}

/**
 * True when `id` is a valid pack id: 1–128 bytes of `a-z 0-9 . _ -`, a letter
 * or digit at both ends, no two separators in a row.
 */
export function isValidPackId(id: string): boolean {
  return isSeparatedId((i) => id.charCodeAt(i), id.length, false);
}

/**
 * True when `id` is a valid rule id: like a pack id, with `/` as a further
 * separator (so no empty category segment).
 */
export function isValidRuleId(id: string): boolean {
  return isSeparatedId((i) => id.charCodeAt(i), id.length, true);
}

/**
 * True when `name` is a valid program name: 1–128 bytes drawn from
 * `A-Z a-z 0-9 . _ - + @ , : ^`, the set source validation accepts (so no
 * whitespace, `/`, `\`, NUL or shell metacharacter).
 */
export function isValidProgramName(name: string): boolean {
  return isProgramNameShape((i) => name.charCodeAt(i), name.length);
}

/** UTF-8 byte length of a well-formed string, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Unicode scalar count of a well-formed string. */
function scalarCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) i++;
    count++;
  }
  return count;
}

/**
 * True when `token` is a valid argument token: well-formed Unicode, no NUL,
 * 1 to 1,024 scalar values.
 */
export function isValidToken(token: string): boolean {
  return token !== "" && token.isWellFormed() && !token.includes("\0") &&
    scalarCount(token) <= LIMITS.tokenMaxScalars;
}

function matcherProblem(match: RuleMatcher): string | undefined {
  const { programs, argvPrefix, argvContainsAll } = match;
  if (programs.length < 1 || programs.length > LIMITS.programsPerRule) {
    return `match.program must list 1 to ${LIMITS.programsPerRule} names`;
  }
  for (let i = 0; i < programs.length; i++) {
    if (!isValidProgramName(programs[i])) return `match.program[${i}] is not a valid program name`;
    if (programs.indexOf(programs[i]) !== i) return `match.program[${i}] repeats a name`;
  }
  for (
    const [field, tokens] of [["argv_prefix", argvPrefix], [
      "argv_contains_all",
      argvContainsAll,
    ]] as const
  ) {
    if (tokens.length > LIMITS.tokensPerField) {
      return `match.${field} has more than ${LIMITS.tokensPerField} tokens`;
    }
    const bad = tokens.findIndex((token) => !isValidToken(token));
    if (bad >= 0) return `match.${field}[${bad}] is not a valid argument token`;
  }
  return undefined;
}

/** Pattern kinds, in their compiled code order. */
export const PATTERN_KINDS: readonly PatternKind[] = ["exact", "prefix", "suffix", "contains"];
/** Case modes, in their compiled code order. */
export const PATTERN_CASES: readonly PatternCase[] = ["sensitive", "ascii_insensitive"];
/** Trim modes, in their compiled code order. */
export const PATTERN_TRIMS: readonly PatternTrim[] = ["none", "start", "both"];

function patternProblem(pattern: LinePattern): string | undefined {
  if (!PATTERN_KINDS.includes(pattern.kind)) return "kind is not a pattern kind";
  if (!PATTERN_CASES.includes(pattern.caseMode)) return "case is not a case mode";
  if (!PATTERN_TRIMS.includes(pattern.trim)) return "trim is not a trim mode";
  const value = pattern.value;
  if (!value.isWellFormed() || value.includes("\0")) return "value is not NUL-free UTF-8";
  const bytes = utf8Length(value);
  if (bytes < 1 || bytes > LIMITS.patternValueMaxBytes) {
    return `value must be 1 to ${LIMITS.patternValueMaxBytes} bytes`;
  }
  return undefined;
}

function reducerProblem(reducer: ReducerSpec): string | undefined {
  if (reducer.kind === "head_tail") return undefined;
  if ((TYPED_REDUCER_KINDS as readonly string[]).includes(reducer.kind)) return undefined;
  if (reducer.kind !== "line_filter") return "reducer.kind is not a supported reducer";
  if (typeof reducer.stripAnsi !== "boolean") return "reducer.strip_ansi is not a boolean";
  if (reducer.drop.length + reducer.keep.length > LIMITS.patternsPerReducer) {
    return `reducer has more than ${LIMITS.patternsPerReducer} patterns`;
  }
  for (const [field, patterns] of [["drop", reducer.drop], ["keep", reducer.keep]] as const) {
    for (let i = 0; i < patterns.length; i++) {
      const problem = patternProblem(patterns[i]);
      if (problem) return `reducer.${field}[${i}].${problem}`;
    }
  }
  return undefined;
}

/** Policy fields: model key, source name, inclusive range; in compiled order. */
export const POLICY_RANGES: readonly (readonly [keyof OutputPolicy, string, number, number])[] = [
  ["headLines", "head_lines", 0, LIMITS.headTailLinesMax],
  ["tailLines", "tail_lines", 0, LIMITS.headTailLinesMax],
  ["maxLineBytes", "max_line_bytes", LIMITS.maxLineBytesMin, LIMITS.maxLineBytesMax],
  ["maxOutputBytes", "max_output_bytes", LIMITS.maxOutputBytesMin, LIMITS.maxOutputBytesMax],
  ["minSavingsBytes", "min_savings_bytes", 0, LIMITS.minSavingsBytesMax],
];

function policyProblem(name: string, policy: OutputPolicy): string | undefined {
  for (const [key, field, min, max] of POLICY_RANGES) {
    const value = policy[key];
    if (!Number.isInteger(value) || value < min || value > max) {
      return `${name}.${field} must be an integer from ${min} to ${max}`;
    }
  }
  return undefined;
}

/**
 * Checks one rule against the rule grammar and limits (id, programs,
 * tokens, reducer, patterns, policies) and returns the first problem as a
 * short phrase naming the source field, or `undefined` when the rule is valid.
 * It does not check cross-rule properties (duplicate ids, overlaps).
 */
export function ruleProblem(rule: Rule): string | undefined {
  if (!isValidRuleId(rule.id)) return "id is not a valid rule id";
  const matcher = matcherProblem(rule.match);
  if (matcher) return matcher;
  switch (rule.action) {
    case "passthrough":
      return undefined;
    case "transform":
      return rule.transform === "line_preserving" ? undefined : "transform is not supported";
    case "reduce":
      return reducerProblem(rule.reducer) ?? policyProblem("success", rule.success) ??
        policyProblem("failure", rule.failure);
    default:
      return "action is not supported";
  }
}
