/**
 * Validation of source-pack text (docs/architecture.md, "Manifest fields" and "Rule
 * fields"; docs/rules.md): a `pack.json` manifest or one rule file, given as text,
 * becomes the validated model or the complete list of diagnostics for that
 * file. Pure: no file system access (see `source_pack.ts` for loading).
 *
 * Snake-case source fields map to the camel-case model in `model.ts`. Every
 * error in a file is reported, not only the first. Known miss: a policy whose
 * fixed output could fill its whole budget is the compiler's check, not this
 * module's.
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
  type RuleAction,
  type RuleMatcher,
  TYPED_REDUCER_KINDS,
} from "./model.ts";
import type { SourceDiagnostic, SourcePosition } from "./diagnostics.ts";
import {
  type JsonField,
  type JsonReader,
  parseStrictJson,
  positionOf,
  q,
  readArray,
  readBoolean,
  readEnum,
  readInteger,
  readObject,
  readString,
  report,
  sortDiagnostics,
} from "./strict_json.ts";
import { isValidPackId, isValidProgramName, isValidRuleId } from "./rule_checks.ts";

/** A validated `pack.json`. */
export interface PackManifest {
  readonly schemaVersion: 1;
  readonly id: string;
  /** Rule file paths relative to the pack root, in manifest order. */
  readonly rules: readonly string[];
}

/** The outcome of {@link validateManifestText}. */
export type ManifestResult =
  | {
    readonly ok: true;
    readonly manifest: PackManifest;
    /** Where each `rules` entry is written, parallel to `manifest.rules`. */
    readonly rulePositions: readonly SourcePosition[];
  }
  | { readonly ok: false; readonly diagnostics: SourceDiagnostic[] };

/** The outcome of {@link validateRuleText}. */
export type RuleResult =
  | {
    readonly ok: true;
    readonly rule: Rule;
    /** Findings that do not make the rule invalid (`failure-below-success`). */
    readonly warnings: SourceDiagnostic[];
    /** Where the rule's `id` value is written. */
    readonly idPosition: SourcePosition;
  }
  | { readonly ok: false; readonly diagnostics: SourceDiagnostic[] };

const encoder = new TextEncoder();

/**
 * Why `path` is not a valid manifest rule path (relative, `/`-separated, no
 * empty, `.` or `..` segment, no backslash or NUL, ending in `.json`), or
 * `undefined` when it is valid. Says nothing about the file system.
 */
export function rulePathProblem(path: string): string | undefined {
  if (path === "") return "must not be empty";
  if (path.includes("\0")) return "must not contain a NUL character";
  if (path.includes("\\")) return "must use / as separator, not a backslash";
  if (path.startsWith("/")) return "must be relative to the pack root, not absolute";
  for (const segment of path.split("/")) {
    if (segment === "") return "must not contain an empty segment";
    if (segment === "." || segment === "..") return `must not contain a ${q(segment)} segment`;
  }
  if (!path.endsWith(".json")) return 'must end in ".json"';
  return undefined;
}

/**
 * Validates the text of a `pack.json` manifest: exactly the fields
 * `schema_version` (the integer 1), `id` and `rules` (1–10,000 unique valid
 * paths). Returns the manifest, or every diagnostic. Never throws.
 *
 * @example
 * ```ts
 * import { validateManifestText } from "./rule_source.ts";
 * const result = validateManifestText(
 *   "pack.json",
 *   '{"schema_version": 1, "id": "team-ci", "rules": ["rules/a.json"]}',
 * );
 * if (!result.ok || result.manifest.rules[0] !== "rules/a.json") throw new Error();
 * ```
 */
export function validateManifestText(file: string, text: string): ManifestResult {
  const parsed = parseStrictJson(file, text);
  if (!parsed.ok) return parsed;
  const { reader, root } = parsed;
  const fields = readObject(reader, root, ["schema_version", "id", "rules"], [
    "schema_version",
    "id",
    "rules",
  ]);
  const version = fields?.get("schema_version");
  if (version !== undefined) checkVersion(reader, version);
  const idField = fields?.get("id");
  const id = idField && readString(reader, idField);
  if (idField && id !== undefined && !isValidPackId(id)) {
    report(
      reader,
      idField.node,
      idField.pointer,
      "invalid-pack-id",
      `invalid pack id ${
        q(id)
      }: use 1-128 of a-z 0-9 . _ -, a letter or digit at both ends, no two separators in a row`,
    );
  }
  const rulesField = fields?.get("rules");
  const entries = rulesField && readArray(reader, rulesField);
  const rules: string[] = [];
  const rulePositions: SourcePosition[] = [];
  if (rulesField && entries) {
    checkCount(reader, rulesField, entries.length, 1, LIMITS.rulesPerPack, "too-many-rules");
    const seen = new Set<string>();
    for (const entry of entries) {
      const path = readString(reader, entry);
      if (path === undefined) continue;
      const problem = rulePathProblem(path);
      if (problem !== undefined) {
        report(
          reader,
          entry.node,
          entry.pointer,
          "invalid-path",
          `rule path ${q(path)} ${problem}`,
        );
      } else if (seen.has(path)) {
        report(
          reader,
          entry.node,
          entry.pointer,
          "duplicate-path",
          `rule path ${q(path)} is listed twice`,
        );
      }
      seen.add(path);
      rules.push(path);
      rulePositions.push(positionOf(entry.node));
    }
  }
  if (reader.diagnostics.length > 0) {
    return { ok: false, diagnostics: sortDiagnostics(reader.diagnostics) };
  }
  return { ok: true, manifest: { schemaVersion: 1, id: id as string, rules }, rulePositions };
}

function checkVersion(reader: JsonReader, field: JsonField): void {
  const { node } = field;
  const raw = node.range === undefined ? "" : reader.text.slice(node.range[0], node.range[1]);
  if (node.type !== "Number" || raw !== "1") {
    report(
      reader,
      node,
      field.pointer,
      "invalid-version",
      `unsupported schema version ${truncate(raw)}; the only supported version is the integer 1`,
    );
  }
}

/** Reports an empty list (`empty-list`) or one longer than `max` (`tooMany`). */
function checkCount(
  reader: JsonReader,
  field: JsonField,
  count: number,
  min: 0 | 1,
  max: number,
  tooMany: string,
): void {
  if (count < min) report(reader, field.node, field.pointer, "empty-list", "must not be empty");
  if (count > max) {
    report(
      reader,
      field.node,
      field.pointer,
      tooMany,
      `has ${count} items; at most ${max} allowed`,
    );
  }
}

const RULE_FIELDS = ["id", "match", "action", "transform", "reducer", "success", "failure"];
const ACTIONS: readonly RuleAction[] = ["reduce", "transform", "passthrough"];
const REDUCE_ONLY = ["reducer", "success", "failure"] as const;

/**
 * Validates the text of one rule file (docs/architecture.md, "Rule fields"). Returns the
 * model rule plus warnings (a failure policy smaller than the success policy
 * in any field is `failure-below-success`), or every diagnostic. Never throws.
 *
 * @example
 * ```ts
 * import { validateRuleText } from "./rule_source.ts";
 * const result = validateRuleText(
 *   "rules/git/show.json",
 *   '{"id": "git/show", "match": {"program": ["git"], "argv_prefix": ["show"]}, "action": "passthrough"}',
 * );
 * if (!result.ok || result.rule.match.argvPrefix[0] !== "show") throw new Error();
 * ```
 */
export function validateRuleText(file: string, text: string): RuleResult {
  const parsed = parseStrictJson(file, text);
  if (!parsed.ok) return parsed;
  const { reader, root } = parsed;
  const fields = readObject(reader, root, RULE_FIELDS, ["id", "match", "action"]);
  if (fields === undefined) return { ok: false, diagnostics: reader.diagnostics };
  const idField = fields.get("id");
  const id = idField && readString(reader, idField);
  if (idField && id !== undefined && !isValidRuleId(id)) {
    report(
      reader,
      idField.node,
      idField.pointer,
      "invalid-rule-id",
      `invalid rule id ${
        q(id)
      }: use 1-128 of a-z 0-9 . _ - /, a letter or digit at both ends, no two separators in a row`,
    );
  }
  const matchField = fields.get("match");
  const match = matchField && readMatcher(reader, matchField);
  const actionField = fields.get("action");
  const action = actionField && readEnum(reader, actionField, ACTIONS);
  const transformField = fields.get("transform");
  if (transformField) readEnum(reader, transformField, ["line_preserving"]);
  const reducerField = fields.get("reducer");
  const reducer = reducerField && readReducer(reader, reducerField);
  const successField = fields.get("success");
  const success = successField && readPolicy(reader, successField);
  const failureField = fields.get("failure");
  const failure = failureField && readPolicy(reader, failureField);

  if (action !== undefined) {
    const required = action === "reduce"
      ? REDUCE_ONLY
      : action === "transform"
      ? ["transform"]
      : [];
    for (const name of required) {
      if (!fields.has(name)) {
        report(
          reader,
          root.node,
          `/${name}`,
          "missing-field",
          `required when action is ${q(action)}`,
        );
      }
    }
    const forbidden = [
      ...(action === "transform" ? [] : ["transform"]),
      ...(action === "reduce" ? [] : REDUCE_ONLY),
    ];
    for (const name of forbidden) {
      const present = fields.get(name);
      if (present) {
        report(
          reader,
          present.node,
          present.pointer,
          "forbidden-field",
          `not allowed when action is ${q(action)}`,
        );
      }
    }
  }
  const warnings = success && failure && failureField
    ? policyWarnings(reader.file, failureField, success, failure)
    : [];
  if (
    reader.diagnostics.length > 0 || id === undefined || match === undefined || action === undefined
  ) {
    return { ok: false, diagnostics: sortDiagnostics(reader.diagnostics) };
  }
  const idPosition = positionOf((idField as JsonField).node);
  const base = { id, match };
  switch (action) {
    case "reduce":
      return {
        ok: true,
        rule: {
          ...base,
          action,
          reducer: reducer as ReducerSpec,
          success: success as OutputPolicy,
          failure: failure as OutputPolicy,
        },
        warnings,
        idPosition,
      };
    case "transform":
      return {
        ok: true,
        rule: { ...base, action, transform: "line_preserving" },
        warnings,
        idPosition,
      };
    case "passthrough":
      return { ok: true, rule: { ...base, action }, warnings, idPosition };
  }
}

function readMatcher(reader: JsonReader, field: JsonField): RuleMatcher | undefined {
  const fields = readObject(reader, field, ["program", "argv_prefix", "argv_contains_all"], [
    "program",
  ]);
  if (fields === undefined) return undefined;
  const before = reader.diagnostics.length;
  const programField = fields.get("program");
  const programs = programField
    ? readUniqueList(reader, programField, {
      min: 1,
      max: LIMITS.programsPerRule,
      tooMany: "too-many-programs",
      invalid: "invalid-program",
      duplicate: "duplicate-program",
      problem: programProblem,
    })
    : undefined;
  const tokenList = {
    min: 0,
    max: LIMITS.tokensPerField,
    tooMany: "too-many-tokens",
    invalid: "invalid-token",
    duplicate: "duplicate-token",
    problem: tokenProblem,
  } as const;
  const prefixField = fields.get("argv_prefix");
  const argvPrefix = prefixField ? readUniqueList(reader, prefixField, tokenList) : [];
  const containsField = fields.get("argv_contains_all");
  const argvContainsAll = containsField ? readUniqueList(reader, containsField, tokenList) : [];
  if (reader.diagnostics.length > before || !programs || !argvPrefix || !argvContainsAll) {
    return undefined;
  }
  return { programs, argvPrefix, argvContainsAll };
}

interface UniqueListSpec {
  readonly min: 0 | 1;
  readonly max: number;
  readonly tooMany: string;
  readonly invalid: string;
  readonly duplicate: string;
  readonly problem: (item: string) => string | undefined;
}

/** Reads a list of unique, individually valid strings. */
function readUniqueList(
  reader: JsonReader,
  field: JsonField,
  spec: UniqueListSpec,
): string[] | undefined {
  const elements = readArray(reader, field);
  if (elements === undefined) return undefined;
  checkCount(reader, field, elements.length, spec.min, spec.max, spec.tooMany);
  const items: string[] = [];
  for (const element of elements) {
    const item = readString(reader, element);
    if (item === undefined) continue;
    const problem = spec.problem(item);
    if (problem !== undefined) {
      report(
        reader,
        element.node,
        element.pointer,
        spec.invalid,
        `${q(truncate(item))} ${problem}`,
      );
    } else if (items.includes(item)) {
      report(
        reader,
        element.node,
        element.pointer,
        spec.duplicate,
        `${q(truncate(item))} is listed twice`,
      );
    }
    items.push(item);
  }
  return items;
}

function truncate(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}

function programProblem(name: string): string | undefined {
  if (name === "") return "must not be empty";
  if (name.length > LIMITS.programNameMaxBytes) {
    return `is longer than ${LIMITS.programNameMaxBytes} bytes`;
  }
  if (!isValidProgramName(name)) {
    return "must be printable ASCII without whitespace, /, \\ or shell metacharacters";
  }
  return undefined;
}

function tokenProblem(token: string): string | undefined {
  if (token === "") return "must not be empty";
  if (token.includes("\0")) return "must not contain a NUL character";
  let scalars = 0;
  for (const _ of token) scalars++;
  if (scalars > LIMITS.tokenMaxScalars) {
    return `is longer than ${LIMITS.tokenMaxScalars} Unicode scalar values`;
  }
  return undefined;
}

const REDUCER_KINDS = ["head_tail", "line_filter", ...TYPED_REDUCER_KINDS] as const;

function readReducer(reader: JsonReader, field: JsonField): ReducerSpec | undefined {
  if (field.node.type !== "Object") {
    readObject(reader, field, [], []); // reports wrong-type
    return undefined;
  }
  const kindMember = field.node.members.find((member) =>
    (member.name.type === "String" ? member.name.value : member.name.name) === "kind"
  );
  const kindField = kindMember && { node: kindMember.value, pointer: `${field.pointer}/kind` };
  const kind = kindField && readEnum(reader, kindField, REDUCER_KINDS);
  if (kindField === undefined) {
    report(reader, field.node, `${field.pointer}/kind`, "missing-field", "missing required field");
  }
  if (kind === undefined) return undefined;
  if (kind !== "line_filter") {
    return readObject(reader, field, ["kind"], ["kind"]) && { kind };
  }
  const fields = readObject(reader, field, ["kind", "strip_ansi", "drop", "keep"], ["kind"]);
  if (fields === undefined) return undefined;
  const before = reader.diagnostics.length;
  const stripField = fields.get("strip_ansi");
  const stripAnsi = stripField ? readBoolean(reader, stripField) : false;
  const dropField = fields.get("drop");
  const drop = dropField ? readPatterns(reader, dropField) : [];
  const keepField = fields.get("keep");
  const keep = keepField ? readPatterns(reader, keepField) : [];
  if (drop && keep && drop.length + keep.length > LIMITS.patternsPerReducer) {
    report(
      reader,
      field.node,
      field.pointer,
      "too-many-patterns",
      `has ${
        drop.length + keep.length
      } drop and keep patterns; at most ${LIMITS.patternsPerReducer} allowed`,
    );
  }
  if (reader.diagnostics.length > before || stripAnsi === undefined || !drop || !keep) {
    return undefined;
  }
  return { kind, stripAnsi, drop, keep };
}

const PATTERN_KINDS: readonly PatternKind[] = ["exact", "prefix", "suffix", "contains"];
const PATTERN_CASES: readonly PatternCase[] = ["sensitive", "ascii_insensitive"];
const PATTERN_TRIMS: readonly PatternTrim[] = ["none", "start", "both"];

function readPatterns(reader: JsonReader, field: JsonField): LinePattern[] | undefined {
  const elements = readArray(reader, field);
  if (elements === undefined) return undefined;
  checkCount(reader, field, elements.length, 0, LIMITS.patternsPerReducer, "too-many-patterns");
  const patterns: LinePattern[] = [];
  for (const element of elements) {
    const pattern = readPattern(reader, element);
    if (pattern) patterns.push(pattern);
  }
  return patterns;
}

function readPattern(reader: JsonReader, field: JsonField): LinePattern | undefined {
  const fields = readObject(reader, field, ["kind", "value", "case", "trim"], ["kind", "value"]);
  if (fields === undefined) return undefined;
  const kindField = fields.get("kind");
  const kind = kindField && readEnum(reader, kindField, PATTERN_KINDS);
  const valueField = fields.get("value");
  const value = valueField && readString(reader, valueField);
  const problem = value === undefined ? undefined : patternValueProblem(value);
  if (valueField && problem !== undefined) {
    report(reader, valueField.node, valueField.pointer, "invalid-pattern", problem);
  }
  const caseField = fields.get("case");
  const caseMode = caseField ? readEnum(reader, caseField, PATTERN_CASES) : "sensitive";
  const trimField = fields.get("trim");
  const trim = trimField ? readEnum(reader, trimField, PATTERN_TRIMS) : "none";
  if (!kind || value === undefined || problem !== undefined || !caseMode || !trim) return undefined;
  return { kind, value, caseMode, trim };
}

function patternValueProblem(value: string): string | undefined {
  if (value === "") return "pattern value must not be empty";
  if (value.includes("\0")) return "pattern value must not contain a NUL character";
  const bytes = encoder.encode(value).length;
  if (bytes > LIMITS.patternValueMaxBytes) {
    return `pattern value has ${bytes} UTF-8 bytes; at most ${LIMITS.patternValueMaxBytes} allowed`;
  }
  return undefined;
}

const POLICY_FIELDS: readonly [
  source: string,
  model: keyof OutputPolicy,
  min: number,
  max: number,
][] = [
  ["head_lines", "headLines", 0, LIMITS.headTailLinesMax],
  ["tail_lines", "tailLines", 0, LIMITS.headTailLinesMax],
  ["max_line_bytes", "maxLineBytes", LIMITS.maxLineBytesMin, LIMITS.maxLineBytesMax],
  ["max_output_bytes", "maxOutputBytes", LIMITS.maxOutputBytesMin, LIMITS.maxOutputBytesMax],
  ["min_savings_bytes", "minSavingsBytes", 0, LIMITS.minSavingsBytesMax],
];
const POLICY_NAMES = POLICY_FIELDS.map(([source]) => source);

function readPolicy(reader: JsonReader, field: JsonField): OutputPolicy | undefined {
  const fields = readObject(reader, field, POLICY_NAMES, POLICY_NAMES);
  if (fields === undefined) return undefined;
  const policy: Partial<Record<keyof OutputPolicy, number>> = {};
  let complete = true;
  for (const [source, model, min, max] of POLICY_FIELDS) {
    const valueField = fields.get(source);
    const value = valueField && readInteger(reader, valueField, min, max);
    if (value === undefined) complete = false;
    else policy[model] = value;
  }
  return complete ? policy as OutputPolicy : undefined;
}

function policyWarnings(
  file: string,
  failureField: JsonField,
  success: OutputPolicy,
  failure: OutputPolicy,
): SourceDiagnostic[] {
  const warnings: SourceDiagnostic[] = [];
  const fields = failureField.node.type === "Object" ? failureField.node.members : [];
  for (const [source, model] of POLICY_FIELDS) {
    // A smaller savings threshold on failure loses no evidence.
    if (model === "minSavingsBytes" || failure[model] >= success[model]) continue;
    const member = fields.find((m) => m.name.type === "String" && m.name.value === source);
    const position = member ? positionOf(member.value) : positionOf(failureField.node);
    warnings.push({
      code: "failure-below-success",
      file,
      pointer: `${failureField.pointer}/${source}`,
      ...position,
      message: `failure limit ${failure[model]} is below the success limit ${
        success[model]
      }; add a fixture proving failure evidence survives`,
    });
  }
  return warnings;
}
