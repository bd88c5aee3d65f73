/**
 * Byte-level building blocks shared by the reducers: the chunked line
 * splitter, byte search and counting, the ANSI-stripping state machine and
 * literal line patterns. None of them decodes text; each states its memory
 * bound.
 *
 * The per-line classes here and in `reduce/` use TypeScript `private`
 * fields rather than `#` fields: measured on Deno 2.9.6, the `#` brand
 * checks about doubled the cost of a short line.
 *
 * @module
 */
export {
  LINE_END_CRLF,
  LINE_END_LF,
  LINE_END_NONE,
  type LineEnding,
  LineSplitter,
} from "./line_splitter.ts";
export { ByteScanner, bytesEqual, byteText, countByte, indexOfByte } from "./byte_search.ts";
export { ANSI_MAX_SEQUENCE_BYTES, AnsiStripper, StrippedLines } from "./ansi.ts";
export { LineMatcher, linePatternRetainedBytes, LinePatternSet } from "./line_pattern.ts";
