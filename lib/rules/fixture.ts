/**
 * The rule fixture format (docs/architecture.md, "Rule fixtures"): one JSON object per
 * file recording an argv, its exit code and exact input bytes, the expected
 * outcome and the exact expected output. This module validates a fixture's
 * text and decodes its byte fields; it does not run it. Pure.
 *
 * Byte fields are either a UTF-8 JSON string or
 * `{"encoding": "base64", "data": "…"}` with canonical, padded, standard
 * base64 (RFC 4648 section 4).
 *
 * @module
 */

import type { SourceDiagnostic } from "./diagnostics.ts";
import { isValidRuleId } from "./rule_checks.ts";
import {
  type JsonField,
  type JsonReader,
  parseStrictJson,
  q,
  readArray,
  readEnum,
  readInteger,
  readObject,
  readString,
  report,
  sortDiagnostics,
} from "./strict_json.ts";

/** What a fixture expects YARP to decide for its argv. */
export type FixtureOutcome = "reduce" | "guarded" | "ambiguous" | "unsupported" | "transform";

/** A count per output stream. */
export interface StreamCounts {
  readonly stdout: number;
  readonly stderr: number;
}

/** A validated fixture with its byte fields decoded. */
export interface RuleFixture {
  /** Unique fixture id, same syntax as a rule id (`id`). */
  readonly id: string;
  /** The exact argument vector; `argv[0]` is the program (`argv`). */
  readonly argv: readonly string[];
  readonly outcome: FixtureOutcome;
  /**
   * The selected rule id (`reduce`, `transform`) or the winning guard's id
   * (`guarded`); absent for `ambiguous` and `unsupported` (`rule`).
   */
  readonly rule?: string;
  /** 0 to 255 (`exit_code`). */
  readonly exitCode: number;
  readonly stdout: Uint8Array;
  readonly stderr: Uint8Array;
  /** (`expected_stdout`) */
  readonly expectedStdout: Uint8Array;
  /** (`expected_stderr`) */
  readonly expectedStderr: Uint8Array;
  /** (`expected_omitted_lines`) */
  readonly expectedOmittedLines: StreamCounts;
  /** (`expected_truncated_lines`) */
  readonly expectedTruncatedLines: StreamCounts;
}

/** The outcome of {@link validateFixtureText}. */
export type FixtureResult =
  | { readonly ok: true; readonly fixture: RuleFixture }
  | { readonly ok: false; readonly diagnostics: SourceDiagnostic[] };

/** Most arguments a fixture's argv may hold. */
export const FIXTURE_ARGV_MAX = 4_096;

const OUTCOMES: readonly FixtureOutcome[] = [
  "reduce",
  "guarded",
  "ambiguous",
  "unsupported",
  "transform",
];
const NEEDS_RULE: readonly FixtureOutcome[] = ["reduce", "guarded", "transform"];
const BYTE_FIELDS = ["stdout", "stderr", "expected_stdout", "expected_stderr"] as const;
const COUNT_FIELDS = ["expected_omitted_lines", "expected_truncated_lines"] as const;
const FIELDS = ["id", "argv", "outcome", "rule", "exit_code", ...BYTE_FIELDS, ...COUNT_FIELDS];
const REQUIRED = FIELDS.filter((name) => name !== "rule");
// Canonical padded base64: the bits a padded group leaves unused must be zero.
const BASE64 =
  /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$/;
const encoder = new TextEncoder();

/**
 * Validates one fixture file's text: exactly the documented fields, `rule`
 * required for `reduce`, `guarded` and `transform` and forbidden otherwise,
 * byte fields decoded. Returns the fixture or every diagnostic. Never throws.
 *
 * @example
 * ```ts
 * import { validateFixtureText } from "./fixture.ts";
 * const result = validateFixtureText("fixtures/true.json", JSON.stringify({
 *   id: "true/empty", argv: ["true"], outcome: "unsupported", exit_code: 0,
 *   stdout: "", stderr: { encoding: "base64", data: "" },
 *   expected_stdout: "", expected_stderr: "",
 *   expected_omitted_lines: { stdout: 0, stderr: 0 },
 *   expected_truncated_lines: { stdout: 0, stderr: 0 },
 * }));
 * if (!result.ok || result.fixture.stdout.length !== 0) throw new Error();
 * ```
 */
export function validateFixtureText(file: string, text: string): FixtureResult {
  const parsed = parseStrictJson(file, text);
  if (!parsed.ok) return parsed;
  const { reader, root } = parsed;
  const fields = readObject(reader, root, FIELDS, REQUIRED);
  if (fields === undefined) return { ok: false, diagnostics: reader.diagnostics };
  const get = (name: string) => fields.get(name);

  const idField = get("id");
  const id = idField && readString(reader, idField);
  if (idField && id !== undefined && !isValidRuleId(id)) {
    report(
      reader,
      idField.node,
      idField.pointer,
      "invalid-fixture-id",
      `invalid fixture id ${q(id)}: use the rule id syntax`,
    );
  }
  const argvField = get("argv");
  const argv = argvField && readArgv(reader, argvField);
  const outcomeField = get("outcome");
  const outcome = outcomeField && readEnum(reader, outcomeField, OUTCOMES);
  const ruleField = get("rule");
  const rule = ruleField && readString(reader, ruleField);
  if (ruleField && rule !== undefined && !isValidRuleId(rule)) {
    report(
      reader,
      ruleField.node,
      ruleField.pointer,
      "invalid-rule-id",
      `invalid rule id ${q(rule)}`,
    );
  }
  if (outcome !== undefined) {
    if (NEEDS_RULE.includes(outcome) && !ruleField) {
      report(reader, root.node, "/rule", "missing-field", `required when outcome is ${q(outcome)}`);
    }
    if (!NEEDS_RULE.includes(outcome) && ruleField) {
      const message = `not allowed when outcome is ${q(outcome)}`;
      report(reader, ruleField.node, ruleField.pointer, "forbidden-field", message);
    }
  }
  const exitField = get("exit_code");
  const exitCode = exitField && readInteger(reader, exitField, 0, 255);
  const bytes = BYTE_FIELDS.map((name) => {
    const field = get(name);
    return field && readBytes(reader, field);
  });
  const counts = COUNT_FIELDS.map((name) => {
    const field = get(name);
    return field && readCounts(reader, field);
  });
  if (reader.diagnostics.length > 0) {
    return { ok: false, diagnostics: sortDiagnostics(reader.diagnostics) };
  }
  const [stdout, stderr, expectedStdout, expectedStderr] = bytes as Uint8Array[];
  const [expectedOmittedLines, expectedTruncatedLines] = counts as StreamCounts[];
  return {
    ok: true,
    fixture: {
      id: id as string,
      argv: argv as string[],
      outcome: outcome as FixtureOutcome,
      ...(rule === undefined ? {} : { rule }),
      exitCode: exitCode as number,
      stdout,
      stderr,
      expectedStdout,
      expectedStderr,
      expectedOmittedLines,
      expectedTruncatedLines,
    },
  };
}

function readArgv(reader: JsonReader, field: JsonField): string[] | undefined {
  const elements = readArray(reader, field);
  if (elements === undefined) return undefined;
  if (elements.length === 0) {
    report(reader, field.node, field.pointer, "empty-list", "must not be empty");
  }
  if (elements.length > FIXTURE_ARGV_MAX) {
    const message = `has ${elements.length} arguments; at most ${FIXTURE_ARGV_MAX} allowed`;
    report(reader, field.node, field.pointer, "too-many-arguments", message);
  }
  const argv: string[] = [];
  for (const [index, element] of elements.entries()) {
    const argument = readString(reader, element);
    if (argument === undefined) continue;
    if (argument.includes("\0")) {
      const message = "must not contain a NUL character";
      report(reader, element.node, element.pointer, "invalid-argument", message);
    } else if (index === 0 && argument === "") {
      report(
        reader,
        element.node,
        element.pointer,
        "invalid-argument",
        "program must not be empty",
      );
    }
    argv.push(argument);
  }
  return argv;
}

function readBytes(reader: JsonReader, field: JsonField): Uint8Array | undefined {
  if (field.node.type === "String") return encoder.encode(field.node.value);
  if (field.node.type !== "Object") {
    const message = 'must be a string or {"encoding": "base64", "data": "…"}';
    report(reader, field.node, field.pointer, "wrong-type", message);
    return undefined;
  }
  const fields = readObject(reader, field, ["encoding", "data"], ["encoding", "data"]);
  const encodingField = fields?.get("encoding");
  const encoding = encodingField && readEnum(reader, encodingField, ["base64"]);
  const dataField = fields?.get("data");
  const data = dataField && readString(reader, dataField);
  if (dataField === undefined || data === undefined || encoding === undefined) return undefined;
  if (!BASE64.test(data)) {
    const message = "must be canonical padded base64 (A-Z a-z 0-9 + /)";
    report(reader, dataField.node, dataField.pointer, "invalid-base64", message);
    return undefined;
  }
  return Uint8Array.from(atob(data), (char) => char.charCodeAt(0));
}

function readCounts(reader: JsonReader, field: JsonField): StreamCounts | undefined {
  const fields = readObject(reader, field, ["stdout", "stderr"], ["stdout", "stderr"]);
  const stdoutField = fields?.get("stdout");
  const stdout = stdoutField && readInteger(reader, stdoutField, 0, Number.MAX_SAFE_INTEGER);
  const stderrField = fields?.get("stderr");
  const stderr = stderrField && readInteger(reader, stderrField, 0, Number.MAX_SAFE_INTEGER);
  if (stdout === undefined || stderr === undefined) return undefined;
  return { stdout, stderr };
}
