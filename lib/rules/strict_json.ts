/**
 * Strict JSON for source files: parse text into a positioned tree with
 * `@humanwhocodes/momoa`, reject what RFC 8259 and I-JSON (RFC 7493) forbid
 * but a lenient parser lets through (raw control characters in strings,
 * unpaired surrogates, duplicate object keys at any depth), and read objects
 * against exact field sets so unknown fields are errors at every depth.
 *
 * Readers never throw on bad input: they record a {@link SourceDiagnostic} in
 * the {@link JsonReader} and return `undefined`, so one pass collects every
 * error in a file. Known miss: a document nested deeply enough to exhaust the
 * parser's stack is reported as one `invalid-json` finding at 1:1.
 *
 * @module
 */

import { type DocumentNode, parse, type ValueNode } from "@humanwhocodes/momoa";
import type { SourceDiagnostic, SourcePosition } from "./diagnostics.ts";

/** A positioned JSON value (momoa's value node: Object, Array, String, …). */
export type JsonNode = ValueNode;

/** A value together with its RFC 6901 pointer inside the document. */
export interface JsonField {
  readonly node: JsonNode;
  readonly pointer: string;
}

/** The file being read and the diagnostics collected so far. */
export interface JsonReader {
  readonly file: string;
  readonly text: string;
  readonly diagnostics: SourceDiagnostic[];
}

/** The outcome of {@link parseStrictJson}. */
export type StrictJsonResult =
  | { readonly ok: true; readonly root: JsonField; readonly reader: JsonReader }
  | { readonly ok: false; readonly diagnostics: SourceDiagnostic[] };

// deno-lint-ignore no-control-regex
const RAW_CONTROL = /[\u0000-\u001f]/;

/**
 * Appends one reference token to a JSON pointer, escaping `~` as `~0` and `/`
 * as `~1` (RFC 6901). The root pointer is `""`.
 *
 * @example
 * ```ts
 * import { pointerAppend } from "./strict_json.ts";
 * if (pointerAppend("/a", "b/c~d") !== "/a/b~1c~0d") throw new Error();
 * if (pointerAppend("", 3) !== "/3") throw new Error();
 * ```
 */
export function pointerAppend(pointer: string, token: string | number): string {
  return `${pointer}/${String(token).replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** Records one diagnostic located at `at` (a node or a position). */
export function report(
  reader: JsonReader,
  at: JsonNode | SourcePosition | { readonly loc: { readonly start: SourcePosition } },
  pointer: string,
  code: string,
  message: string,
): void {
  const position = "loc" in at ? at.loc.start : at;
  reader.diagnostics.push({
    code,
    file: reader.file,
    pointer,
    line: position.line,
    column: position.column,
    message,
  });
}

/** The 1-based start position of a node. */
export function positionOf(node: JsonNode): SourcePosition {
  return { line: node.loc.start.line, column: node.loc.start.column };
}

function failure(file: string, position: SourcePosition, message: string): StrictJsonResult {
  return {
    ok: false,
    diagnostics: [{ code: "invalid-json", file, pointer: "", ...position, message }],
  };
}

/**
 * Parses `text` as one strict JSON document (no comments, trailing commas,
 * byte-order mark or JSON5 forms). Returns the root field and a reader for
 * further checks, or every `invalid-json` and `duplicate-key` diagnostic found.
 * Never throws.
 *
 * @example
 * ```ts
 * import { parseStrictJson } from "./strict_json.ts";
 * const result = parseStrictJson("x.json", '{"a": 1, "a": 2}');
 * if (result.ok || result.diagnostics[0].code !== "duplicate-key") throw new Error();
 * ```
 */
export function parseStrictJson(file: string, text: string): StrictJsonResult {
  let document: DocumentNode;
  try {
    document = parse(text, { mode: "json", ranges: true });
  } catch (error) {
    const located = error as { message?: unknown; line?: unknown; column?: unknown };
    if (typeof located.line === "number" && typeof located.column === "number") {
      const message = String(located.message).replace(/ \(\d+:\d+\)$/, "");
      return failure(file, { line: located.line, column: located.column }, message);
    }
    return failure(file, { line: 1, column: 1 }, "JSON text is nested too deeply to parse");
  }
  const reader: JsonReader = { file, text, diagnostics: [] };
  const root: JsonField = { node: document.body, pointer: "" };
  const pending: JsonField[] = [root];
  for (let field = pending.pop(); field !== undefined; field = pending.pop()) {
    const { node, pointer } = field;
    if (node.type === "String") checkString(reader, node, pointer);
    if (node.type === "Array") {
      node.elements.forEach((element, index) => {
        pending.push({ node: element.value, pointer: pointerAppend(pointer, index) });
      });
    }
    if (node.type !== "Object") continue;
    const seen = new Set<string>();
    for (const member of node.members) {
      const name = member.name.type === "String" ? member.name.value : member.name.name;
      const memberPointer = pointerAppend(pointer, name);
      if (member.name.type === "String") checkString(reader, member.name, memberPointer);
      if (seen.has(name)) {
        report(reader, member.name, memberPointer, "duplicate-key", `duplicate key ${q(name)}`);
      }
      seen.add(name);
      pending.push({ node: member.value, pointer: memberPointer });
    }
  }
  if (reader.diagnostics.length > 0) {
    return { ok: false, diagnostics: sortDiagnostics(reader.diagnostics) };
  }
  return { ok: true, root, reader };
}

function checkString(
  reader: JsonReader,
  node: { value: string; range?: [number, number]; loc: { start: SourcePosition } },
  pointer: string,
): void {
  const raw = node.range === undefined ? "" : reader.text.slice(node.range[0], node.range[1]);
  if (RAW_CONTROL.test(raw)) {
    report(reader, node, pointer, "invalid-json", "string contains a raw control character");
  } else if (!node.value.isWellFormed()) {
    report(reader, node, pointer, "invalid-json", "string contains an unpaired surrogate");
  }
}

/** Sorts diagnostics by line, column, pointer and code, for stable output. */
export function sortDiagnostics(diagnostics: SourceDiagnostic[]): SourceDiagnostic[] {
  return diagnostics.sort((a, b) =>
    a.line - b.line || a.column - b.column || compareText(a.pointer, b.pointer) ||
    compareText(a.code, b.code)
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Quotes a user-supplied string for a message (JSON string syntax). */
export function q(text: string): string {
  return JSON.stringify(text);
}

/** The JSON type name of a node, for `wrong-type` messages. */
function typeName(node: JsonNode): string {
  switch (node.type) {
    case "Object":
      return "an object";
    case "Array":
      return "an array";
    case "String":
      return "a string";
    case "Number":
      return "a number";
    case "Boolean":
      return "a boolean";
    default:
      return "null";
  }
}

function wrongType(reader: JsonReader, field: JsonField, expected: string): undefined {
  const found = typeName(field.node);
  report(reader, field.node, field.pointer, "wrong-type", `must be ${expected}, found ${found}`);
  return undefined;
}

/**
 * Reads an object whose fields are exactly drawn from `known`. Reports
 * `wrong-type` for a non-object, `unknown-field` for each member not in
 * `known`, and `missing-field` for each name in `required` that is absent.
 * Returns the known members by name (unknown ones are left out), or
 * `undefined` when the value is not an object.
 */
export function readObject(
  reader: JsonReader,
  field: JsonField,
  known: readonly string[],
  required: readonly string[],
): Map<string, JsonField> | undefined {
  if (field.node.type !== "Object") return wrongType(reader, field, "an object");
  const members = new Map<string, JsonField>();
  for (const member of field.node.members) {
    const name = member.name.type === "String" ? member.name.value : member.name.name;
    const pointer = pointerAppend(field.pointer, name);
    if (!known.includes(name)) {
      report(reader, member.name, pointer, "unknown-field", `unknown field ${q(name)}`);
      continue;
    }
    members.set(name, { node: member.value, pointer });
  }
  for (const name of required) {
    if (!members.has(name)) {
      const pointer = pointerAppend(field.pointer, name);
      report(reader, field.node, pointer, "missing-field", "missing required field");
    }
  }
  return members;
}

/** Reads a string, or reports `wrong-type`. */
export function readString(reader: JsonReader, field: JsonField): string | undefined {
  if (field.node.type !== "String") return wrongType(reader, field, "a string");
  return field.node.value;
}

/** Reads a boolean, or reports `wrong-type`. */
export function readBoolean(reader: JsonReader, field: JsonField): boolean | undefined {
  if (field.node.type !== "Boolean") return wrongType(reader, field, "a boolean");
  return field.node.value;
}

/**
 * Reads an array's elements as fields, or reports `wrong-type`. Does not
 * check the element count; callers apply their own limits.
 */
export function readArray(reader: JsonReader, field: JsonField): JsonField[] | undefined {
  if (field.node.type !== "Array") return wrongType(reader, field, "an array");
  return field.node.elements.map((element, index) => ({
    node: element.value,
    pointer: pointerAppend(field.pointer, index),
  }));
}

/**
 * Reads an integer in `[min, max]`. The number must be written as an integer
 * (no fraction or exponent, so `1.0` and `1e3` are `not-an-integer`); a value
 * outside the range is `limit-out-of-range`; a non-number is `wrong-type`.
 */
export function readInteger(
  reader: JsonReader,
  field: JsonField,
  min: number,
  max: number,
): number | undefined {
  const { node, pointer } = field;
  if (node.type !== "Number") return wrongType(reader, field, "an integer");
  const raw = node.range === undefined ? "" : reader.text.slice(node.range[0], node.range[1]);
  if (/[.eE]/.test(raw)) {
    report(reader, node, pointer, "not-an-integer", `must be an integer, found ${raw}`);
    return undefined;
  }
  if (node.value < min) {
    report(reader, node, pointer, "limit-out-of-range", `must be at least ${min}`);
    return undefined;
  }
  if (node.value > max) {
    report(reader, node, pointer, "limit-out-of-range", `must be at most ${max}`);
    return undefined;
  }
  return node.value;
}

/** Reads a string that must be one of `values`, or reports `unknown-value`. */
export function readEnum<T extends string>(
  reader: JsonReader,
  field: JsonField,
  values: readonly T[],
): T | undefined {
  const text = readString(reader, field);
  if (text === undefined) return undefined;
  if ((values as readonly string[]).includes(text)) return text as T;
  const expected = values.map(q).join(", ");
  report(
    reader,
    field.node,
    field.pointer,
    "unknown-value",
    `unknown value ${q(text)}; expected one of ${expected}`,
  );
  return undefined;
}
