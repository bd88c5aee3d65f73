/**
 * The rule model: the validated, immutable form of a rule that every other
 * part of YARP reads. Source validation produces it, the built-in generator
 * writes it as data, the compiled-pack reader decodes it, the matcher selects
 * it and the reducers run it. Field names are the TypeScript spellings of the
 * source-schema fields (docs/architecture.md, "Rule fields").
 *
 * This module holds types and limits only; it has no behaviour.
 *
 * @module
 */

/** What a rule does when it is selected. */
export type RuleAction = "reduce" | "transform" | "passthrough";

/** How a literal line pattern compares a line with its value. */
export type PatternKind = "exact" | "prefix" | "suffix" | "contains";

/** `ascii_insensitive` folds only the bytes `A`–`Z`; nothing else is folded. */
export type PatternCase = "sensitive" | "ascii_insensitive";

/** Which edges lose ASCII spaces and tabs before matching (never in output). */
export type PatternTrim = "none" | "start" | "both";

/** A literal, byte-level line pattern (source field names in comments). */
export interface LinePattern {
  readonly kind: PatternKind;
  /** Non-empty UTF-8 text of at most 4,096 bytes, no NUL (`value`). */
  readonly value: string;
  /** Default `sensitive` (`case`). */
  readonly caseMode: PatternCase;
  /** Default `none` (`trim`). */
  readonly trim: PatternTrim;
}

/** The typed reducer kinds: each takes no field but `kind` (docs/rules.md). */
export const TYPED_REDUCER_KINDS = [
  "search",
  "diff",
  "status",
  "test",
  "build",
  "install",
  "log",
  "list",
] as const;

/** One typed reducer kind. */
export type TypedReducerKind = typeof TYPED_REDUCER_KINDS[number];

/**
 * The success budgets a user configures (config `budgets:`): the bytes a
 * typed kind's successful result may use beyond its mandatory evidence, for
 * every typed kind and per kind (a kind's own wins). Absent: the built-in
 * budget (`SUCCESS_BUDGET_BYTES`, lib/reduce/typed_budget.ts).
 */
export interface SuccessBudgets {
  /** Every typed kind's success budget, in bytes. */
  readonly successBytes?: number;
  /** Per kind, in bytes. */
  readonly kinds: Readonly<Partial<Record<TypedReducerKind, number>>>;
}

/** The smallest and largest success budget a config may set, in bytes. */
export const SUCCESS_BUDGET_RANGE = { min: 256, max: 65_536 } as const;

/** The closed set of reducer kinds this build supports. */
export type ReducerKind = "head_tail" | "line_filter" | TypedReducerKind;

/** A typed reducer: its behaviour is the kind's module in `lib/reduce/kinds/`. */
export interface TypedReducer {
  readonly kind: TypedReducerKind;
}

/** Keep a bounded head and tail of the stream. */
export interface HeadTailReducer {
  readonly kind: "head_tail";
}

/** Strip ANSI, drop lines, keep lines, then keep a bounded head and tail. */
export interface LineFilterReducer {
  readonly kind: "line_filter";
  /** Default false (`strip_ansi`). */
  readonly stripAnsi: boolean;
  /** Checked first: a dropped line never reaches `keep` (`drop`). */
  readonly drop: readonly LinePattern[];
  /** When non-empty, lines matching none of these are omitted (`keep`). */
  readonly keep: readonly LinePattern[];
}

/** The reducer a `reduce` rule runs. */
export type ReducerSpec = HeadTailReducer | LineFilterReducer | TypedReducer;

/** Limits for one exit class (`success` or `failure`). All integers. */
export interface OutputPolicy {
  /** 0 to 10,000 (`head_lines`). */
  readonly headLines: number;
  /** 0 to 10,000 (`tail_lines`). */
  readonly tailLines: number;
  /** 256 to 1,048,576 (`max_line_bytes`). */
  readonly maxLineBytes: number;
  /** 1,024 to 16,777,216, markers included (`max_output_bytes`). */
  readonly maxOutputBytes: number;
  /** 0 to 1,048,576 (`min_savings_bytes`). */
  readonly minSavingsBytes: number;
}

/** Parsed-argument conditions of a rule (`match`). */
export interface RuleMatcher {
  /** 1 to 32 unique exact program names (`program`). */
  readonly programs: readonly string[];
  /** Exact tokens after reviewed program-level options (`argv_prefix`). */
  readonly argvPrefix: readonly string[];
  /** Normalised tokens that must all appear in the tail (`argv_contains_all`). */
  readonly argvContainsAll: readonly string[];
}

/** A rule that reduces a stream under success and failure policies. */
export interface ReductionRule {
  readonly id: string;
  readonly action: "reduce";
  readonly match: RuleMatcher;
  readonly reducer: ReducerSpec;
  readonly success: OutputPolicy;
  readonly failure: OutputPolicy;
}

/** A result-only rule carrying a typed result through a pipeline stage. */
export interface TransformRule {
  readonly id: string;
  readonly action: "transform";
  readonly match: RuleMatcher;
  readonly transform: "line_preserving";
}

/** A guard: the stream stays exact and broader reductions are blocked. */
export interface PassthroughRule {
  readonly id: string;
  readonly action: "passthrough";
  readonly match: RuleMatcher;
}

/** Any validated rule. */
export type Rule = ReductionRule | TransformRule | PassthroughRule;

/** A validated pack: its id, its rules in manifest order and source digest. */
export interface RulePack {
  readonly id: string;
  /** Lowercase hex SHA-256 of the domain-separated source sequence. */
  readonly sourceDigest: string;
  readonly rules: readonly Rule[];
}

/**
 * One loaded set of rules the registry can ask for candidates: the built-in
 * tables or one compiled pack. Implementations answer from an index; they
 * never scan every rule.
 */
export interface RuleSource {
  /** The pack id, for diagnostics and duplicate detection. */
  readonly packId: string;
  /** `builtin` for the embedded tables, else `external`. */
  readonly origin: "builtin" | "external";
  /** Every rule id in the source, sorted by code unit, without duplicates. */
  readonly ruleIds: readonly string[];
  /**
   * The rules filed under exactly this program name, in a stable order
   * (sorted by rule id). Unknown programs give an empty list. Throws a
   * typed error when a compiled record fails verification.
   */
  candidates(program: string): readonly Rule[];
  /**
   * Every program name some rule is filed under (the names `candidates`
   * answers for), sorted by code unit, without duplicates.
   */
  readonly programs: readonly string[];
  /**
   * Every rule, sorted by rule id. For a compiled pack this decodes and
   * verifies every record (as `yarp rules verify` does), so it is for
   * listing, never for selection.
   */
  allRules(): readonly Rule[];
}

/** The limits (docs/architecture.md, "Limits") every validator, compiler and reader enforces. */
export const LIMITS = {
  idMaxBytes: 128,
  rulesPerPack: 10_000,
  sourceFiles: 10_001,
  sourceFileBytes: 64 * 1024,
  sourceTotalBytes: 32 * 1024 * 1024,
  compiledPackBytes: 64 * 1024 * 1024,
  programsPerRule: 32,
  programNameMaxBytes: 128,
  tokensPerField: 64,
  tokenMaxScalars: 1_024,
  patternsPerReducer: 256,
  patternValueMaxBytes: 4_096,
  headTailLinesMax: 10_000,
  maxLineBytesMin: 256,
  maxLineBytesMax: 1_048_576,
  maxOutputBytesMin: 1_024,
  maxOutputBytesMax: 16_777_216,
  minSavingsBytesMax: 1_048_576,
  /** Retained state allowed per stream (docs/architecture.md, "Memory contract"). */
  streamMemoryBytesMax: 4 * 1024 * 1024,
} as const;
