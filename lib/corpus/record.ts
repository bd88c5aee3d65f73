/**
 * The corpus record (docs/architecture.md, "Corpus and measurement"): one JSON object a
 * line, the one schema every reader emits and every analysis reads.
 *
 * ```json
 * {"id": "…", "source": "…", "command": "…", "exit_code": 1,
 *  "stream_mode": "separate", "stdout": "…", "stderr": "…"}
 * ```
 *
 * - `stream_mode: "separate"` carries `stdout` and `stderr` (or
 *   `stdout_b64` / `stderr_b64` when the bytes are not UTF-8);
 *   `"combined"` carries one interleaved `output` (or `output_b64`), as an
 *   agent host shows it.
 * - `exit_code` is 0–255, or null when the source did not record it.
 * - `prior_reduction` names what already changed the text before it was
 *   recorded (`"pi-truncation"`, `"yarp"`, `"other"`); such a record is
 *   counted, never analysed as raw output.
 * - Other fields (`cwd`, `signal`, `duration_ms`, `capped`, …) are kept by
 *   readers that have them and ignored here.
 *
 * @module
 */

import type { PriorReduction, RecordedStreams } from "../hosts/session.ts";

export type { PriorReduction } from "../hosts/session.ts";

/** One recorded shell result, decoded to bytes. */
export interface CorpusRecord {
  readonly id: string;
  readonly source: string;
  readonly command: string;
  /** 0–255, or null when unknown. */
  readonly exitCode: number | null;
  readonly streams: RecordedStreams;
  readonly priorReduction: PriorReduction | null;
}

const PRIOR: readonly string[] = ["pi-truncation", "yarp", "other"];

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true });

function decodeBase64(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.fromBase64(text);
  } catch {
    return undefined;
  }
}

/** Reads stream `name` (text or `name_b64`) of `object`; absent means empty. */
function streamBytes(
  object: Record<string, unknown>,
  name: string,
): Uint8Array | { error: string } {
  const text = object[name];
  const b64 = object[`${name}_b64`];
  if (text !== undefined && text !== null && b64 !== undefined && b64 !== null) {
    return { error: `both '${name}' and '${name}_b64' are set` };
  }
  if (typeof b64 === "string") {
    return decodeBase64(b64) ?? { error: `'${name}_b64' is not base64` };
  }
  if (b64 !== undefined && b64 !== null) return { error: `'${name}_b64' is not a string` };
  if (text === undefined || text === null) return new Uint8Array(0);
  if (typeof text !== "string") return { error: `'${name}' is not a string` };
  return encoder.encode(text);
}

/**
 * Decodes one record from a parsed JSON value; returns `{ error }` naming
 * the field when it does not fit the schema. Never throws.
 */
export function recordFromJson(value: unknown): CorpusRecord | { error: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: "not a JSON object" };
  }
  const object = value as Record<string, unknown>;
  for (const field of ["id", "source", "command"] as const) {
    if (typeof object[field] !== "string") return { error: `'${field}' is not a string` };
  }
  const code = object.exit_code;
  if (
    code !== null && code !== undefined &&
    !(typeof code === "number" && Number.isInteger(code) && code >= 0 && code <= 255)
  ) {
    return { error: "'exit_code' is not an integer from 0 to 255 or null" };
  }
  const prior = object.prior_reduction;
  if (prior !== undefined && prior !== null && !PRIOR.includes(prior as string)) {
    return { error: `'prior_reduction' is not one of ${PRIOR.join(", ")}` };
  }
  const mode = object.stream_mode;
  let streams: CorpusRecord["streams"];
  if (mode === "separate") {
    const stdout = streamBytes(object, "stdout");
    if ("error" in stdout) return stdout;
    const stderr = streamBytes(object, "stderr");
    if ("error" in stderr) return stderr;
    streams = { mode, stdout, stderr };
  } else if (mode === "combined") {
    const output = streamBytes(object, "output");
    if ("error" in output) return output;
    streams = { mode, output };
  } else {
    return { error: '\'stream_mode\' is not "separate" or "combined"' };
  }
  return {
    id: object.id as string,
    source: object.source as string,
    command: object.command as string,
    exitCode: typeof code === "number" ? code : null,
    streams,
    priorReduction: (prior ?? null) as PriorReduction | null,
  };
}

/** Decodes one JSONL line; `{ error }` for malformed JSON or a schema mismatch. */
export function parseRecordLine(line: string): CorpusRecord | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { error: "not valid JSON" };
  }
  return recordFromJson(value);
}

function putStream(object: Record<string, unknown>, name: string, bytes: Uint8Array): void {
  try {
    object[name] = strictDecoder.decode(bytes);
  } catch {
    object[`${name}_b64`] = bytes.toBase64();
  }
}

/**
 * Encodes `record` as one JSON line (no newline): text fields when the bytes
 * are UTF-8, `_b64` fields otherwise, so `parseRecordLine` gives back the
 * same bytes.
 */
export function recordToLine(record: CorpusRecord): string {
  const object: Record<string, unknown> = {
    id: record.id,
    source: record.source,
    command: record.command,
    exit_code: record.exitCode,
    stream_mode: record.streams.mode,
  };
  if (record.streams.mode === "separate") {
    putStream(object, "stdout", record.streams.stdout);
    putStream(object, "stderr", record.streams.stderr);
  } else {
    putStream(object, "output", record.streams.output);
  }
  if (record.priorReduction !== null) object.prior_reduction = record.priorReduction;
  return JSON.stringify(object);
}

/** The bytes an agent host shows for `record`: the combined output, or stdout then stderr. */
export function visibleBytes(record: CorpusRecord): Uint8Array {
  if (record.streams.mode === "combined") return record.streams.output;
  const { stdout, stderr } = record.streams;
  if (stderr.length === 0) return stdout;
  if (stdout.length === 0) return stderr;
  const joined = new Uint8Array(stdout.length + stderr.length);
  joined.set(stdout);
  joined.set(stderr, stdout.length);
  return joined;
}
