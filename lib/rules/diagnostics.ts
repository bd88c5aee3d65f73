/**
 * Source diagnostics: one finding about one place in one source file (a pack
 * manifest, a rule file or a fixture). Validators return them as data; the
 * CLI prints each with {@link formatDiagnostic}. Every code is listed, with
 * its meaning, in `docs/rule-errors.md`.
 *
 * @module
 */

/** A 1-based line and column (column counted in UTF-16 code units). */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/** One validation finding, located by file, JSON pointer and position. */
export interface SourceDiagnostic {
  /** Stable kebab-case code, e.g. `unknown-field` (see `docs/rule-errors.md`). */
  readonly code: string;
  /** The file, relative to the pack directory (e.g. `rules/git/status.json`). */
  readonly file: string;
  /** RFC 6901 pointer to the offending value; `""` is the whole document. */
  readonly pointer: string;
  /** 1-based line of the offending token (1 when the whole file is at fault). */
  readonly line: number;
  /** 1-based column of the offending token (1 when the whole file is at fault). */
  readonly column: number;
  /** A short human sentence without the location or the code. */
  readonly message: string;
}

// Control characters (C0, DEL, C1) and the Unicode line and paragraph separators.
// deno-lint-ignore no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function escapeUnprintable(text: string): string {
  return text.replace(
    UNPRINTABLE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Formats a diagnostic as exactly one line without a trailing newline:
 * `FILE:LINE:COLUMN: POINTER: MESSAGE [CODE]`, where the root pointer prints as
 * `(root)`. Control characters anywhere in the parts are escaped as `\uXXXX`,
 * so the result never contains a line break.
 *
 * @example
 * ```ts
 * import { formatDiagnostic } from "./diagnostics.ts";
 * const line = formatDiagnostic({
 *   code: "limit-out-of-range",
 *   file: "rules/git/status.json",
 *   pointer: "/success/max_output_bytes",
 *   line: 4,
 *   column: 17,
 *   message: "must be at least 1024",
 * });
 * if (line !== "rules/git/status.json:4:17: /success/max_output_bytes: must be at least 1024 [limit-out-of-range]") {
 *   throw new Error(line);
 * }
 * ```
 */
export function formatDiagnostic(d: SourceDiagnostic): string {
  const pointer = d.pointer === "" ? "(root)" : d.pointer;
  return escapeUnprintable(`${d.file}:${d.line}:${d.column}: ${pointer}: ${d.message} [${d.code}]`);
}
