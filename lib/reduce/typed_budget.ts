/**
 * The sizes of the typed reducer engine (`typed.ts`): its success budget,
 * record counts and line caps, and the state bound they give, kept apart
 * so `budget.ts` can bound a typed rule without importing the engine.
 *
 * @module
 */
import { PARSER_STATE_BYTES } from "./kinds/family.ts";
import { RECORD_META_BYTES } from "./_records.ts";
import { WINDOW_TABLE_BYTES } from "./_line_content.ts";
import { MAX_CANDIDATES } from "./_word_candidates.ts";
import { MAX_TERM_BYTES, MAX_TERMS } from "./source_terms.ts";

/** The success budget of a typed result (512 bytes, measured against 384 and 704: docs/rules.md). */
export const SUCCESS_BUDGET_BYTES = 512;

/** Lines after a failure kept as its context. */
export const CONTEXT_LINES = 3;
/** Content bytes shown of an example, structural or fill line on success. */
export const SUCCESS_LINE_BYTES = 160;
/** Content bytes kept of an example, structural or fill line. */
export const ROW_BYTES = 512;
export const KEY_BYTES = 96;
export const MAX_KEYS = 48;
export const MAX_KEYS2 = 16;
export const HEAD_LINES = 48;
export const TAIL_LINES = 24;
export const SUMMARY_HEAD = 8;
export const SUMMARY_TAIL = 16;
export const MANDATORY_RECORDS = 64;
export const DIAGNOSTIC_RECORDS = 1024;
export const STRUCTURE_RECORDS = 128;

/**
 * The most state of the source-term samples (`_term_samples.ts`): a record
 * of {@link ROW_BYTES} and the term's bytes per term, and the lead-byte table.
 */
export const TERM_SAMPLES_BYTES = MAX_TERMS * (ROW_BYTES + RECORD_META_BYTES + MAX_TERM_BYTES + 4) +
  256 * 2;

/**
 * A conservative bound on a typed reducer's state for the envelope `env`,
 * beyond the fixed state every reducer counts (`FIXED_STATE_BYTES`); `env`
 * is a `StreamEnvelope` (`budget.ts`).
 */
export function typedStateBytes(
  env: { readonly rawBytes: number; readonly lineBytes: number; readonly outputBytes: number },
): number {
  const recordBytes = (records: number) => records * RECORD_META_BYTES;
  return env.rawBytes + env.lineBytes + env.lineBytes + WINDOW_TABLE_BYTES +
    PARSER_STATE_BYTES + 4 * MAX_CANDIDATES +
    env.outputBytes + recordBytes(MANDATORY_RECORDS) + // mandatory
    env.outputBytes + recordBytes(DIAGNOSTIC_RECORDS) + // failures
    env.outputBytes + recordBytes(DIAGNOSTIC_RECORDS) + // warnings
    SUMMARY_HEAD * (env.lineBytes + RECORD_META_BYTES) +
    SUMMARY_TAIL * (env.lineBytes + RECORD_META_BYTES) +
    STRUCTURE_RECORDS * (ROW_BYTES + RECORD_META_BYTES) +
    MAX_KEYS * 4 * (ROW_BYTES + RECORD_META_BYTES) +
    (MAX_KEYS + MAX_KEYS2) * (KEY_BYTES + 64 + 48) + // keys, hash slots (≤ 8 per key), fingerprints
    HEAD_LINES * (ROW_BYTES + RECORD_META_BYTES) + TAIL_LINES * (ROW_BYTES + RECORD_META_BYTES) +
    TERM_SAMPLES_BYTES +
    2 * env.outputBytes; // rendering
}
