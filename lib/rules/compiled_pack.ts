/**
 * The `.yrp` compiled-pack format (docs/architecture.md, "Compiled pack"): a pure writer,
 * {@linkcode encodeCompiledPack}, and a lazy, verifying reader,
 * {@linkcode openCompiledPack}. The byte layout, digests, reader checks and
 * error codes are specified in `docs/compiled-pack.md`.
 *
 * Contract: the writer is deterministic (same pack, same bytes; rule order in
 * the pack does not matter). The reader treats its input as hostile: every
 * size, offset, count, sort order, reference and the header-and-index digest
 * is checked before anything is used, each rule record is digest-checked and
 * validated when first selected, and every failure is a
 * {@linkcode PackFormatError}; no other error type escapes.
 *
 * Known misses: the reader cannot check the source digest (it has no
 * source); it keeps a reference to the bytes it was given, so the caller must
 * not modify them afterwards.
 *
 * @module
 */
import { Sha256, sha256, sha256Native, toHex } from "../bytes/sha256.ts";
import {
  LIMITS,
  type LinePattern,
  type OutputPolicy,
  type ReducerSpec,
  type Rule,
  type RuleAction,
  type RuleMatcher,
  type RulePack,
  type RuleSource,
  TYPED_REDUCER_KINDS,
} from "./model.ts";
import {
  isProgramNameShape,
  isSeparatedId,
  isValidPackId,
  PATTERN_CASES,
  PATTERN_KINDS,
  PATTERN_TRIMS,
  POLICY_RANGES,
  ruleProblem,
  utf8Length,
} from "./rule_checks.ts";

/** The compiled-format version this build writes and reads. */
export const COMPILED_FORMAT_VERSION = 1;

/** The engine ABI of this build; a pack is usable when its ABI range contains it. */
export const ENGINE_ABI = 1;

/** Why a compiled pack was refused; stable names a user can look up in the docs. */
export type PackFormatErrorCode =
  | "too-small"
  | "too-large"
  | "bad-magic"
  | "unsupported-format"
  | "unsupported-abi"
  | "bad-header-length"
  | "bad-header"
  | "out-of-bounds"
  | "overlap"
  | "misaligned"
  | "bad-layout"
  | "bad-digest"
  | "bad-index"
  | "unsorted-index"
  | "duplicate-rule-id"
  | "bad-reference"
  | "bad-record-digest"
  | "bad-record"
  | "too-many-rules"
  | "changed";

/**
 * A compiled pack that cannot be written, read or trusted. `message` is one
 * line that starts with the pack's label (usually its path).
 */
export class PackFormatError extends Error {
  /** The machine-readable reason. */
  readonly code: PackFormatErrorCode;

  /** Creates the error; `message` must already be one line. */
  constructor(code: PackFormatErrorCode, message: string) {
    super(message);
    this.name = "PackFormatError";
    this.code = code;
  }
}

/** Options for {@linkcode openCompiledPack}. */
export interface OpenCompiledPackOptions {
  /** Names the pack in error messages; default `compiled pack`. */
  readonly label?: string;
}

/** The header-and-index digest computed ahead of opening, by {@linkcode openCompiledPackAsync}. */
interface PrecomputedDigest {
  /** SHA-256 of bytes [0, `end`) with the header digest field zeroed. */
  readonly digest: Uint8Array;
  readonly end: number;
}

/** What {@linkcode CompiledPack.verifyAll} proved about a pack. */
export interface CompiledPackSummary {
  readonly packId: string;
  readonly ruleCount: number;
  readonly programCount: number;
  /** Lowercase hex SHA-256 of the source sequence the pack was compiled from. */
  readonly sourceDigest: string;
  /** Lowercase hex SHA-256 of the complete compiled file. */
  readonly fileDigest: string;
}

// ---------------------------------------------------------------------------
// Layout (docs/compiled-pack.md)

const MAGIC = [0x59, 0x41, 0x52, 0x50, 0x50, 0x41, 0x43, 0x4b]; // "YARPPACK"
const DIGEST_BYTES = 32;
const H_FORMAT = 8;
const H_MIN_ABI = 12;
const H_MAX_ABI = 16;
const H_HEADER_LENGTH = 20;
const H_RULE_COUNT = 24;
const H_PROGRAM_COUNT = 28;
const H_CANDIDATE_COUNT = 32;
const H_INDEX_OFFSET = 36;
const H_INDEX_LENGTH = 40;
const H_RECORD_OFFSET = 44;
const H_RECORD_LENGTH = 48;
const H_PACK_ID_LENGTH = 52;
const H_SOURCE_DIGEST = 56;
const H_HEADER_DIGEST = 88;
const H_PACK_ID = 120;
/** Rule-id table entry: id offset, id length (string area), record offset, record length. */
const RULE_ENTRY = 16;
/** Program entry: name offset, name length (string area), first candidate, candidate count. */
const PROGRAM_ENTRY = 16;
/** Candidate: rule index, record offset, record length, action, prefix length, contains count, digest. */
const CANDIDATE_ENTRY = 24 + DIGEST_BYTES;
const C_DIGEST = 24;
const ACTIONS: readonly RuleAction[] = ["reduce", "transform", "passthrough"];
const REDUCER_KINDS: readonly ReducerSpec["kind"][] = [
  "head_tail",
  "line_filter",
  ...TYPED_REDUCER_KINDS,
];
const TRANSFORMS = ["line_preserving"] as const;
/** The smallest record: an id length, one id byte, an action, three counts. */
const MIN_RECORD_BYTES = 4 + 1 + 1 + 12;

function align4(value: number): number {
  return Math.ceil(value / 4) * 4;
}

/** The header-and-index digest: bytes [0, end) with the digest field read as zero. */
function headerIndexDigest(bytes: Uint8Array, end: number): Uint8Array {
  return new Sha256()
    .update(bytes.subarray(0, H_HEADER_DIGEST))
    .update(new Uint8Array(DIGEST_BYTES))
    .update(bytes.subarray(H_HEADER_DIGEST + DIGEST_BYTES, end))
    .digest();
}

// ---------------------------------------------------------------------------
// Writer

/** The three primitive writes a rule record is made of; one traversal serves sizing and writing. */
interface RecordSink {
  u8(value: number): void;
  u32(value: number): void;
  str(text: string): void;
}

class SizeSink implements RecordSink {
  size = 0;
  u8(): void {
    this.size += 1;
  }
  u32(): void {
    this.size += 4;
  }
  str(text: string): void {
    this.size += 4 + utf8Length(text);
  }
}

const encoder = new TextEncoder();

class ByteSink implements RecordSink {
  constructor(readonly bytes: Uint8Array, readonly view: DataView, public pos: number) {}
  u8(value: number): void {
    this.bytes[this.pos++] = value;
  }
  u32(value: number): void {
    this.view.setUint32(this.pos, value, true);
    this.pos += 4;
  }
  str(text: string): void {
    const { written } = encoder.encodeInto(text, this.bytes.subarray(this.pos + 4));
    this.u32(written);
    this.pos += written;
  }
}

function code<T>(values: readonly T[], value: T): number {
  return values.indexOf(value) + 1;
}

function writeStrings(sink: RecordSink, values: readonly string[]): void {
  sink.u32(values.length);
  for (const value of values) sink.str(value);
}

function writePatterns(sink: RecordSink, patterns: readonly LinePattern[]): void {
  sink.u32(patterns.length);
  for (const pattern of patterns) {
    sink.u8(code(PATTERN_KINDS, pattern.kind));
    sink.u8(code(PATTERN_CASES, pattern.caseMode));
    sink.u8(code(PATTERN_TRIMS, pattern.trim));
    sink.str(pattern.value);
  }
}

function writePolicy(sink: RecordSink, policy: OutputPolicy): void {
  for (const [key] of POLICY_RANGES) sink.u32(policy[key]);
}

/** Writes one validated rule as a record (layout in docs/compiled-pack.md). */
function writeRecord(sink: RecordSink, rule: Rule): void {
  sink.str(rule.id);
  sink.u8(code(ACTIONS, rule.action));
  writeStrings(sink, rule.match.programs);
  writeStrings(sink, rule.match.argvPrefix);
  writeStrings(sink, rule.match.argvContainsAll);
  if (rule.action === "transform") sink.u8(code(TRANSFORMS, rule.transform));
  if (rule.action !== "reduce") return;
  sink.u8(code(REDUCER_KINDS, rule.reducer.kind));
  if (rule.reducer.kind === "line_filter") {
    sink.u8(rule.reducer.stripAnsi ? 1 : 0);
    writePatterns(sink, rule.reducer.drop);
    writePatterns(sink, rule.reducer.keep);
  }
  writePolicy(sink, rule.success);
  writePolicy(sink, rule.failure);
}

function writeAscii(bytes: Uint8Array, at: number, text: string): void {
  for (let i = 0; i < text.length; i++) bytes[at + i] = text.charCodeAt(i);
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Throws when the pack cannot be compiled; returns the rules sorted by id. */
function checkedRules(pack: RulePack): readonly Rule[] {
  const label = `pack ${JSON.stringify(pack.id)}`;
  if (!isValidPackId(pack.id)) {
    throw new PackFormatError("bad-header", `${label}: the pack id is not valid`);
  }
  if (!/^[0-9a-f]{64}$/.test(pack.sourceDigest)) {
    throw new PackFormatError("bad-header", `${label}: the source digest is not 64 hex digits`);
  }
  if (pack.rules.length < 1 || pack.rules.length > LIMITS.rulesPerPack) {
    throw new PackFormatError(
      "too-many-rules",
      `${label}: ${pack.rules.length} rules; a pack holds 1 to ${LIMITS.rulesPerPack}`,
    );
  }
  for (const rule of pack.rules) {
    const problem = ruleProblem(rule);
    if (problem) {
      throw new PackFormatError(
        "bad-record",
        `${label}: rule ${JSON.stringify(rule.id)}: ${problem}`,
      );
    }
  }
  const sorted = [...pack.rules].sort((a, b) => compareIds(a.id, b.id));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].id === sorted[i - 1].id) {
      throw new PackFormatError(
        "duplicate-rule-id",
        `${label}: rule id ${sorted[i].id} is used twice`,
      );
    }
  }
  return sorted;
}

/**
 * Compiles a validated pack into `.yrp` bytes. Deterministic: the same pack
 * (in any rule order) gives the same bytes. Checks every rule with
 * {@linkcode ruleProblem}, duplicate ids and the 64 MiB limit (computed
 * exactly before any output is allocated) and throws a
 * {@linkcode PackFormatError} (`bad-header`, `too-many-rules`, `bad-record`,
 * `duplicate-rule-id`, `too-large`) instead of writing a pack the reader
 * would refuse.
 *
 * @example
 * ```ts ignore
 * const bytes = encodeCompiledPack(pack);
 * openCompiledPack(bytes).candidates("git");
 * ```
 */
export function encodeCompiledPack(pack: RulePack): Uint8Array {
  const rules = checkedRules(pack);
  const buckets = new Map<string, number[]>();
  rules.forEach((rule, index) => {
    for (const program of rule.match.programs) {
      const list = buckets.get(program);
      if (list) list.push(index);
      else buckets.set(program, [index]);
    }
  });
  const programs = [...buckets.keys()].sort(compareIds);
  const candidateCount = rules.reduce((n, rule) => n + rule.match.programs.length, 0);
  const recordSizes = rules.map((rule) => {
    const sizer = new SizeSink();
    writeRecord(sizer, rule);
    return sizer.size;
  });
  const stringBytes = rules.reduce((n, rule) => n + rule.id.length, 0) +
    programs.reduce((n, program) => n + program.length, 0);
  const headerLength = align4(H_PACK_ID + pack.id.length);
  const tablesLength = rules.length * RULE_ENTRY + programs.length * PROGRAM_ENTRY +
    candidateCount * CANDIDATE_ENTRY;
  const indexLength = align4(tablesLength + stringBytes);
  const recordLength = recordSizes.reduce((n, size) => n + size, 0);
  const total = headerLength + indexLength + recordLength;
  if (total > LIMITS.compiledPackBytes) {
    throw new PackFormatError(
      "too-large",
      `pack ${pack.id}: compiled size ${total} bytes exceeds ${LIMITS.compiledPackBytes}`,
    );
  }

  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  bytes.set(MAGIC, 0);
  const fields: readonly (readonly [number, number])[] = [
    [H_FORMAT, COMPILED_FORMAT_VERSION],
    [H_MIN_ABI, ENGINE_ABI],
    [H_MAX_ABI, ENGINE_ABI],
    [H_HEADER_LENGTH, headerLength],
    [H_RULE_COUNT, rules.length],
    [H_PROGRAM_COUNT, programs.length],
    [H_CANDIDATE_COUNT, candidateCount],
    [H_INDEX_OFFSET, headerLength],
    [H_INDEX_LENGTH, indexLength],
    [H_RECORD_OFFSET, headerLength + indexLength],
    [H_RECORD_LENGTH, recordLength],
    [H_PACK_ID_LENGTH, pack.id.length],
  ];
  for (const [at, value] of fields) view.setUint32(at, value, true);
  for (let i = 0; i < DIGEST_BYTES; i++) {
    bytes[H_SOURCE_DIGEST + i] = parseInt(pack.sourceDigest.slice(2 * i, 2 * i + 2), 16);
  }
  writeAscii(bytes, H_PACK_ID, pack.id);

  const recordBase = headerLength + indexLength;
  const recordOffsets: number[] = [];
  const recordDigests: Uint8Array[] = [];
  const sink = new ByteSink(bytes, view, recordBase);
  for (const rule of rules) {
    const start = sink.pos;
    recordOffsets.push(start - recordBase);
    writeRecord(sink, rule);
    recordDigests.push(sha256(bytes.subarray(start, sink.pos)));
  }

  const ruleTable = headerLength;
  const programTable = ruleTable + rules.length * RULE_ENTRY;
  const candidateTable = programTable + programs.length * PROGRAM_ENTRY;
  const strings = headerLength + tablesLength;
  let stringPos = 0;
  rules.forEach((rule, index) => {
    const at = ruleTable + index * RULE_ENTRY;
    view.setUint32(at, stringPos, true);
    view.setUint32(at + 4, rule.id.length, true);
    view.setUint32(at + 8, recordOffsets[index], true);
    view.setUint32(at + 12, recordSizes[index], true);
    writeAscii(bytes, strings + stringPos, rule.id);
    stringPos += rule.id.length;
  });
  let candidate = 0;
  programs.forEach((program, index) => {
    const members = buckets.get(program)!;
    const at = programTable + index * PROGRAM_ENTRY;
    view.setUint32(at, stringPos, true);
    view.setUint32(at + 4, program.length, true);
    view.setUint32(at + 8, candidate, true);
    view.setUint32(at + 12, members.length, true);
    writeAscii(bytes, strings + stringPos, program);
    stringPos += program.length;
    for (const ruleIndex of members) {
      const rule = rules[ruleIndex];
      const c = candidateTable + candidate * CANDIDATE_ENTRY;
      view.setUint32(c, ruleIndex, true);
      view.setUint32(c + 4, recordOffsets[ruleIndex], true);
      view.setUint32(c + 8, recordSizes[ruleIndex], true);
      view.setUint32(c + 12, code(ACTIONS, rule.action), true);
      view.setUint32(c + 16, rule.match.argvPrefix.length, true);
      view.setUint32(c + 20, rule.match.argvContainsAll.length, true);
      bytes.set(recordDigests[ruleIndex], c + C_DIGEST);
      candidate++;
    }
  });
  bytes.set(headerIndexDigest(bytes, headerLength + indexLength), H_HEADER_DIGEST);
  return bytes;
}

// ---------------------------------------------------------------------------
// Reader

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const EMPTY: readonly Rule[] = Object.freeze([]);

/** Compares `text` (any string) with ASCII bytes by code unit, without allocating. */
function compareTextWithBytes(text: string, bytes: Uint8Array, at: number, length: number): number {
  const shared = Math.min(text.length, length);
  for (let i = 0; i < shared; i++) {
    const diff = text.charCodeAt(i) - bytes[at + i];
    if (diff !== 0) return diff;
  }
  return text.length - length;
}

function compareByteRanges(
  bytes: Uint8Array,
  a: number,
  aLength: number,
  b: number,
  bLength: number,
): number {
  const shared = Math.min(aLength, bLength);
  for (let i = 0; i < shared; i++) {
    const diff = bytes[a + i] - bytes[b + i];
    if (diff !== 0) return diff;
  }
  return aLength - bLength;
}

function equalDigest(bytes: Uint8Array, a: number, digest: Uint8Array | null, b: number): boolean {
  const other = digest ?? bytes;
  for (let i = 0; i < DIGEST_BYTES; i++) if (bytes[a + i] !== other[b + i]) return false;
  return true;
}

/** Decodes ASCII index text that the open checks already proved valid. */
/** Decodes ASCII bytes one to one (ids and program names are ASCII, checked at open). */
const LATIN1 = new TextDecoder("latin1");

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/** A bounds-checked cursor over one rule record. */
class RecordReader {
  #pos = 0;
  readonly #view: DataView;
  constructor(readonly bytes: Uint8Array, readonly fail: (detail: string) => never) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  #need(count: number): number {
    const at = this.#pos;
    if (at + count > this.bytes.length) this.fail("ends early");
    this.#pos = at + count;
    return at;
  }
  u8(): number {
    return this.bytes[this.#need(1)];
  }
  u32(): number {
    return this.#view.getUint32(this.#need(4), true);
  }
  count(max: number, what: string): number {
    const count = this.u32();
    if (count > max) this.fail(`${what} count ${count} exceeds ${max}`);
    return count;
  }
  str(maxBytes: number, what: string): string {
    const length = this.count(maxBytes, `${what} byte`);
    const at = this.#need(length);
    try {
      return decoder.decode(this.bytes.subarray(at, at + length));
    } catch {
      return this.fail(`${what} is not valid UTF-8`);
    }
  }
  strings(max: number, maxBytes: number, what: string): string[] {
    const count = this.count(max, what);
    const values: string[] = [];
    for (let i = 0; i < count; i++) values.push(this.str(maxBytes, what));
    return values;
  }
  choice<T>(values: readonly T[], what: string): T {
    const value = values[this.u8() - 1];
    if (value === undefined) this.fail(`${what} code is unknown`);
    return value;
  }
  bool(what: string): boolean {
    const value = this.u8();
    if (value > 1) this.fail(`${what} is not 0 or 1`);
    return value === 1;
  }
  end(): void {
    if (this.#pos !== this.bytes.length) this.fail("has trailing bytes");
  }
}

const TOKEN_MAX_BYTES = LIMITS.tokenMaxScalars * 4;

function readPatterns(reader: RecordReader, what: string): LinePattern[] {
  const count = reader.count(LIMITS.patternsPerReducer, what);
  const patterns: LinePattern[] = [];
  for (let i = 0; i < count; i++) {
    const kind = reader.choice(PATTERN_KINDS, "pattern kind");
    const caseMode = reader.choice(PATTERN_CASES, "pattern case");
    const trim = reader.choice(PATTERN_TRIMS, "pattern trim");
    patterns.push({
      kind,
      value: reader.str(LIMITS.patternValueMaxBytes, "pattern"),
      caseMode,
      trim,
    });
  }
  return patterns;
}

/** Reads the five policy fields in {@linkcode POLICY_RANGES} order (the order `writePolicy` uses). */
function readPolicy(reader: RecordReader): OutputPolicy {
  const policy: Record<string, number> = {};
  for (const [key] of POLICY_RANGES) policy[key] = reader.u32();
  return policy as Record<keyof OutputPolicy, number>;
}

function readReducer(reader: RecordReader): ReducerSpec {
  const kind = reader.choice(REDUCER_KINDS, "reducer kind");
  if (kind !== "line_filter") return { kind };
  const stripAnsi = reader.bool("strip_ansi");
  return {
    kind,
    stripAnsi,
    drop: readPatterns(reader, "drop"),
    keep: readPatterns(reader, "keep"),
  };
}

/** Decodes one record (structure only; the caller validates semantics). */
function readRecord(reader: RecordReader): Rule {
  const id = reader.str(LIMITS.idMaxBytes, "rule id");
  const action = reader.choice(ACTIONS, "action");
  const match: RuleMatcher = {
    programs: reader.strings(LIMITS.programsPerRule, LIMITS.programNameMaxBytes, "program"),
    argvPrefix: reader.strings(LIMITS.tokensPerField, TOKEN_MAX_BYTES, "argv_prefix"),
    argvContainsAll: reader.strings(LIMITS.tokensPerField, TOKEN_MAX_BYTES, "argv_contains_all"),
  };
  let rule: Rule;
  if (action === "passthrough") rule = { id, action, match };
  else if (action === "transform") {
    rule = { id, action, match, transform: reader.choice(TRANSFORMS, "transform") };
  } else {
    const reducer = readReducer(reader);
    rule = { id, action, match, reducer, success: readPolicy(reader), failure: readPolicy(reader) };
  }
  reader.end();
  return rule;
}

/** The validated section geometry the open checks produce. */
interface Geometry {
  readonly ruleCount: number;
  readonly programCount: number;
  readonly ruleTable: number;
  readonly programTable: number;
  readonly candidateTable: number;
  readonly strings: number;
  readonly recordBase: number;
}

/**
 * One opened `.yrp` pack: a {@linkcode RuleSource} answering from the
 * program index. Construction (through {@linkcode openCompiledPack}) checks
 * the header, the section layout, the header-and-index digest and every index
 * table; records are decoded, digest-checked and validated only when a bucket
 * that holds them is first asked for, then cached.
 */
export class CompiledPack implements RuleSource {
  /** Always `external`: a compiled pack is never a built-in. */
  readonly origin = "external" as const;
  /** The pack id from the header. */
  readonly packId: string;
  /** Lowercase hex source digest from the header. */
  readonly sourceDigest: string;
  /** The label errors start with. */
  readonly label: string;
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly #geometry: Geometry;
  readonly #records: (Rule | undefined)[];
  /** Per rule, the candidate whose digest verified its cached record, or -1. */
  readonly #verifiedBy: Int32Array;
  readonly #buckets: (readonly Rule[] | undefined)[];
  #ruleIds: readonly string[] | undefined;
  #programs: readonly string[] | undefined;
  #fileDigest: string | undefined;
  #decodedRecords = 0;

  readonly #precomputed: PrecomputedDigest | undefined;
  #stringArea: string | undefined;

  /** Opens `bytes` as a pack; see {@linkcode openCompiledPack}. */
  constructor(
    bytes: Uint8Array,
    options: OpenCompiledPackOptions = {},
    precomputed?: PrecomputedDigest,
  ) {
    this.label = options.label ?? "compiled pack";
    this.#bytes = bytes;
    this.#precomputed = precomputed;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#geometry = this.#checkHeader();
    this.#checkIndex();
    const { ruleCount, programCount } = this.#geometry;
    const idLength = this.#u32(H_PACK_ID_LENGTH);
    this.packId = ascii(bytes, H_PACK_ID, idLength);
    this.sourceDigest = toHex(bytes.subarray(H_SOURCE_DIGEST, H_SOURCE_DIGEST + DIGEST_BYTES));
    this.#records = new Array(ruleCount);
    this.#verifiedBy = new Int32Array(ruleCount).fill(-1);
    this.#buckets = new Array(programCount);
  }

  /** Number of rules (records) in the pack. */
  get ruleCount(): number {
    return this.#geometry.ruleCount;
  }

  /** Number of distinct program names in the index. */
  get programCount(): number {
    return this.#geometry.programCount;
  }

  /** How many records have been decoded and verified so far (diagnostics and tests). */
  get decodedRecords(): number {
    return this.#decodedRecords;
  }

  /** Every rule id, sorted by code unit, unique (decoded from the index on first use). */
  get ruleIds(): readonly string[] {
    if (this.#ruleIds === undefined) {
      const { ruleCount, ruleTable, strings } = this.#geometry;
      const ids: string[] = [];
      for (let i = 0; i < ruleCount; i++) {
        const at = ruleTable + i * RULE_ENTRY;
        ids.push(this.#indexString(strings + this.#u32(at), this.#u32(at + 4)));
      }
      this.#ruleIds = Object.freeze(ids);
    }
    return this.#ruleIds;
  }

  /** Every program name in the index, in its (code-unit) order, decoded on first use. */
  get programs(): readonly string[] {
    if (this.#programs === undefined) {
      const { programCount, programTable, strings } = this.#geometry;
      const names: string[] = [];
      for (let i = 0; i < programCount; i++) {
        const at = programTable + i * PROGRAM_ENTRY;
        names.push(this.#indexString(strings + this.#u32(at), this.#u32(at + 4)));
      }
      this.#programs = Object.freeze(names);
    }
    return this.#programs;
  }

  /** Lowercase hex SHA-256 of the complete file bytes (computed once, on first use). */
  get fileDigest(): string {
    this.#fileDigest ??= toHex(sha256(this.#bytes));
    return this.#fileDigest;
  }

  /** {@linkcode CompiledPack.fileDigest}, computed by the native SHA-256 (much faster on large packs). */
  async fileDigestAsync(): Promise<string> {
    this.#fileDigest ??= toHex(await sha256Native(this.#bytes));
    return this.#fileDigest;
  }

  /**
   * The rules filed under exactly `program`, sorted by rule id; an unknown
   * program gives an empty list. Binary-searches the program index and
   * decodes, digest-checks and validates only that bucket's records, once.
   * Throws {@linkcode PackFormatError} (`bad-record-digest`, `bad-record`,
   * `bad-reference`) when one of them fails.
   */
  candidates(program: string): readonly Rule[] {
    const { programCount, programTable, strings } = this.#geometry;
    let low = 0;
    let high = programCount - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const at = programTable + mid * PROGRAM_ENTRY;
      const order = compareTextWithBytes(
        program,
        this.#bytes,
        strings + this.#u32(at),
        this.#u32(at + 4),
      );
      if (order === 0) return this.#buckets[mid] ?? this.#loadBucket(mid, program);
      if (order < 0) high = mid - 1;
      else low = mid + 1;
    }
    return EMPTY;
  }

  /** Every rule sorted by rule id, after {@linkcode CompiledPack.verifyAll}. */
  allRules(): readonly Rule[] {
    this.verifyAll();
    return this.#records as Rule[];
  }

  /**
   * Decodes and verifies every record and every cross-reference: each
   * candidate's digest, action and counts against its record, and each rule
   * filed under exactly the programs it names. What `yarp rules verify` runs.
   */
  verifyAll(): CompiledPackSummary {
    const { ruleCount, programCount, programTable, candidateTable, strings } = this.#geometry;
    for (let p = 0; p < programCount; p++) {
      if (this.#buckets[p] !== undefined) continue;
      const at = programTable + p * PROGRAM_ENTRY;
      this.#loadBucket(p, this.#indexString(strings + this.#u32(at), this.#u32(at + 4)));
    }
    const filed = new Uint8Array(ruleCount);
    const candidateCount = this.#u32(H_CANDIDATE_COUNT);
    for (let c = 0; c < candidateCount; c++) {
      filed[this.#u32(candidateTable + c * CANDIDATE_ENTRY)]++;
    }
    for (let r = 0; r < ruleCount; r++) {
      const rule = this.#records[r];
      if (rule === undefined || filed[r] !== rule.match.programs.length) {
        this.#fail("bad-reference", `rule #${r} is not filed under exactly the programs it names`);
      }
    }
    return {
      packId: this.packId,
      ruleCount,
      programCount,
      sourceDigest: this.sourceDigest,
      fileDigest: this.fileDigest,
    };
  }

  /** An ASCII string of the index string area (checked at open), decoded once as a whole. */
  #indexString(at: number, length: number): string {
    const { strings, recordBase } = this.#geometry;
    this.#stringArea ??= LATIN1.decode(this.#bytes.subarray(strings, recordBase));
    return this.#stringArea.slice(at - strings, at - strings + length);
  }

  #u32(at: number): number {
    return this.#view.getUint32(at, true);
  }

  #fail(code: PackFormatErrorCode, detail: string): never {
    throw new PackFormatError(code, `${this.label}: ${detail}`);
  }

  #loadBucket(p: number, program: string): readonly Rule[] {
    const at = this.#geometry.programTable + p * PROGRAM_ENTRY;
    const first = this.#u32(at + 8);
    const count = this.#u32(at + 12);
    const rules: Rule[] = [];
    for (let c = first; c < first + count; c++) rules.push(this.#ruleFor(c, program));
    const bucket = Object.freeze(rules);
    this.#buckets[p] = bucket;
    return bucket;
  }

  /** The record candidate `c` refers to, verified against `c` and filed under `program`. */
  #ruleFor(c: number, program: string): Rule {
    const bytes = this.#bytes;
    const { candidateTable, ruleTable, strings, recordBase } = this.#geometry;
    const at = candidateTable + c * CANDIDATE_ENTRY;
    const r = this.#u32(at);
    let rule = this.#records[r];
    if (rule === undefined) {
      const start = recordBase + this.#u32(at + 4);
      const record = bytes.subarray(start, start + this.#u32(at + 8));
      if (!equalDigest(bytes, at + C_DIGEST, sha256(record), 0)) {
        this.#fail("bad-record-digest", `record of rule #${r} does not match its digest`);
      }
      rule = readRecord(
        new RecordReader(
          record,
          (detail) => this.#fail("bad-record", `record of rule #${r} ${detail}`),
        ),
      );
      const problem = ruleProblem(rule);
      if (problem) this.#fail("bad-record", `record of rule #${r}: ${problem}`);
      const entry = ruleTable + r * RULE_ENTRY;
      if (
        compareTextWithBytes(rule.id, bytes, strings + this.#u32(entry), this.#u32(entry + 4)) !== 0
      ) {
        this.#fail("bad-reference", `record of rule #${r} holds id ${rule.id}, not the indexed id`);
      }
      this.#records[r] = rule;
      this.#verifiedBy[r] = c;
      this.#decodedRecords++;
    } else {
      const verifiedAt = candidateTable + this.#verifiedBy[r] * CANDIDATE_ENTRY + C_DIGEST;
      if (!equalDigest(bytes, at + C_DIGEST, null, verifiedAt)) {
        this.#fail("bad-record-digest", `candidates of rule ${rule.id} disagree on its digest`);
      }
    }
    if (
      this.#u32(at + 12) !== code(ACTIONS, rule.action) ||
      this.#u32(at + 16) !== rule.match.argvPrefix.length ||
      this.#u32(at + 20) !== rule.match.argvContainsAll.length ||
      !rule.match.programs.includes(program)
    ) {
      this.#fail(
        "bad-reference",
        `candidate for rule ${rule.id} under ${JSON.stringify(program)} disagrees with its record`,
      );
    }
    return rule;
  }

  /** Header and section checks, in the order documented; returns the geometry. */
  #checkHeader(): Geometry {
    const bytes = this.#bytes;
    const size = bytes.length;
    if (size < H_PACK_ID + 4) {
      this.#fail("too-small", `${size} bytes is too small for a compiled pack`);
    }
    if (size > LIMITS.compiledPackBytes) {
      this.#fail("too-large", `${size} bytes exceeds the ${LIMITS.compiledPackBytes} byte limit`);
    }
    if (MAGIC.some((byte, i) => bytes[i] !== byte)) {
      this.#fail("bad-magic", "not a YARP compiled pack");
    }
    const format = this.#u32(H_FORMAT);
    if (format !== COMPILED_FORMAT_VERSION) {
      this.#fail(
        "unsupported-format",
        `compiled format ${format} is not supported by this YARP build`,
      );
    }
    const minAbi = this.#u32(H_MIN_ABI);
    const maxAbi = this.#u32(H_MAX_ABI);
    if (minAbi > ENGINE_ABI || maxAbi < ENGINE_ABI) {
      const range = minAbi === maxAbi ? `${minAbi}` : `${minAbi}-${maxAbi}`;
      this.#fail("unsupported-abi", `engine ABI ${range} is not supported by this YARP build`);
    }
    const idLength = this.#u32(H_PACK_ID_LENGTH);
    if (idLength < 1 || idLength > LIMITS.idMaxBytes) {
      this.#fail("bad-header", `pack id length ${idLength} is outside 1 to ${LIMITS.idMaxBytes}`);
    }
    const headerLength = this.#u32(H_HEADER_LENGTH);
    if (headerLength !== align4(H_PACK_ID + idLength)) {
      this.#fail("bad-header-length", `header length ${headerLength} does not fit its pack id`);
    }
    if (headerLength > size) this.#fail("out-of-bounds", `header ends past the end of the file`);
    for (let i = H_PACK_ID + idLength; i < headerLength; i++) {
      if (bytes[i] !== 0) this.#fail("bad-header", "header padding is not zero");
    }
    if (!isSeparatedId((i) => bytes[H_PACK_ID + i], idLength, false)) {
      this.#fail("bad-header", "the pack id is not valid");
    }
    const ruleCount = this.#u32(H_RULE_COUNT);
    const programCount = this.#u32(H_PROGRAM_COUNT);
    const candidateCount = this.#u32(H_CANDIDATE_COUNT);
    if (ruleCount < 1 || ruleCount > LIMITS.rulesPerPack) {
      this.#fail("bad-header", `rule count ${ruleCount} is outside 1 to ${LIMITS.rulesPerPack}`);
    }
    if (
      candidateCount < ruleCount || candidateCount > ruleCount * LIMITS.programsPerRule ||
      programCount < 1 || programCount > candidateCount
    ) {
      this.#fail(
        "bad-header",
        `program count ${programCount} and candidate count ${candidateCount} are impossible`,
      );
    }

    const indexOffset = this.#u32(H_INDEX_OFFSET);
    const indexLength = this.#u32(H_INDEX_LENGTH);
    const recordOffset = this.#u32(H_RECORD_OFFSET);
    const recordLength = this.#u32(H_RECORD_LENGTH);
    const indexEnd = indexOffset + indexLength; // exact: both below 2^32, sum below 2^53
    const recordEnd = recordOffset + recordLength;
    for (
      const [name, offset, end] of [["program index", indexOffset, indexEnd], [
        "rule records",
        recordOffset,
        recordEnd,
      ]] as const
    ) {
      if (end > size) {
        this.#fail(
          "out-of-bounds",
          `${name} (offset ${offset}, ends at ${end}) runs past the end of the file (${size} bytes)`,
        );
      }
    }
    if (
      indexOffset < headerLength || recordOffset < headerLength ||
      (recordOffset < indexEnd && indexOffset < recordEnd)
    ) {
      this.#fail("overlap", "the header, program index and rule records overlap");
    }
    if (indexOffset % 4 !== 0 || indexLength % 4 !== 0 || recordOffset % 4 !== 0) {
      this.#fail("misaligned", "a section offset or the index length is not a multiple of 4");
    }
    if (indexOffset !== headerLength || recordOffset !== indexEnd || recordEnd !== size) {
      this.#fail("bad-layout", "sections are not header, index, records in order without gaps");
    }
    const tablesLength = ruleCount * RULE_ENTRY + programCount * PROGRAM_ENTRY +
      candidateCount * CANDIDATE_ENTRY;
    if (tablesLength > indexLength) {
      this.#fail("out-of-bounds", "index tables exceed the index length");
    }
    if (recordLength < ruleCount * MIN_RECORD_BYTES) {
      this.#fail("out-of-bounds", "rule records are too short for the rule count");
    }
    const precomputed = this.#precomputed;
    const digest = precomputed !== undefined && precomputed.end === indexEnd
      ? precomputed.digest
      : headerIndexDigest(bytes, indexEnd);
    if (!equalDigest(bytes, H_HEADER_DIGEST, digest, 0)) {
      this.#fail("bad-digest", "header-and-index digest does not match");
    }
    const programTable = indexOffset + ruleCount * RULE_ENTRY;
    return {
      ruleCount,
      programCount,
      ruleTable: indexOffset,
      programTable,
      candidateTable: programTable + programCount * PROGRAM_ENTRY,
      strings: indexOffset + tablesLength,
      recordBase: recordOffset,
    };
  }

  /** Checks the rule-id table, program table and candidates against each other. */
  #checkIndex(): void {
    const bytes = this.#bytes;
    const {
      ruleCount,
      programCount,
      ruleTable,
      programTable,
      candidateTable,
      strings,
      recordBase,
    } = this.#geometry;
    const stringsLength = recordBase - strings;
    const recordLength = this.#u32(H_RECORD_LENGTH);
    const candidateCount = this.#u32(H_CANDIDATE_COUNT);
    const checkName = (at: number, index: number, isRule: boolean): void => {
      const what = () => `${isRule ? "rule" : "program"} #${index}`;
      const offset = this.#u32(at);
      const length = this.#u32(at + 4);
      if (offset + length > stringsLength) {
        this.#fail("out-of-bounds", `${what()} name runs past the string area`);
      }
      const start = strings + offset;
      const codeAt = (i: number) => bytes[start + i];
      if (isRule ? !isSeparatedId(codeAt, length, true) : !isProgramNameShape(codeAt, length)) {
        this.#fail("bad-index", `${what()} name is not valid`);
      }
    };
    const order = (a: number, b: number): number =>
      compareByteRanges(
        bytes,
        strings + this.#u32(a),
        this.#u32(a + 4),
        strings + this.#u32(b),
        this.#u32(b + 4),
      );

    let nextRecord = 0;
    for (let r = 0; r < ruleCount; r++) {
      const at = ruleTable + r * RULE_ENTRY;
      checkName(at, r, true);
      if (r > 0) {
        const cmp = order(at - RULE_ENTRY, at);
        if (cmp === 0) {
          this.#fail(
            "duplicate-rule-id",
            `rule id ${ascii(bytes, strings + this.#u32(at), this.#u32(at + 4))} appears twice`,
          );
        }
        if (cmp > 0) this.#fail("unsorted-index", `rule-id table is not sorted at entry ${r}`);
      }
      const offset = this.#u32(at + 8);
      const length = this.#u32(at + 12);
      if (offset !== nextRecord || length < MIN_RECORD_BYTES) {
        this.#fail(
          "bad-reference",
          `record of rule #${r} does not directly follow the previous one`,
        );
      }
      nextRecord = offset + length;
    }
    if (nextRecord !== recordLength) {
      this.#fail("bad-reference", "rule records do not fill the record section");
    }

    let nextCandidate = 0;
    for (let p = 0; p < programCount; p++) {
      const at = programTable + p * PROGRAM_ENTRY;
      checkName(at, p, false);
      if (p > 0 && order(at - PROGRAM_ENTRY, at) >= 0) {
        this.#fail("unsorted-index", `program index is not sorted at entry ${p}`);
      }
      const first = this.#u32(at + 8);
      const count = this.#u32(at + 12);
      if (first !== nextCandidate || count < 1 || first + count > candidateCount) {
        this.#fail("bad-reference", `program #${p} does not own the next candidate list`);
      }
      nextCandidate = first + count;
      let previousRule = -1;
      for (let c = first; c < nextCandidate; c++) {
        const entry = candidateTable + c * CANDIDATE_ENTRY;
        const r = this.#u32(entry);
        if (r >= ruleCount) {
          this.#fail("bad-reference", `candidate #${c} refers to no rule`);
        }
        const ruleEntry = ruleTable + r * RULE_ENTRY;
        if (
          this.#u32(entry + 4) !== this.#u32(ruleEntry + 8) ||
          this.#u32(entry + 8) !== this.#u32(ruleEntry + 12)
        ) {
          this.#fail("bad-reference", `candidate #${c} does not point at the record of rule #${r}`);
        }
        if (r <= previousRule) {
          this.#fail("unsorted-index", `candidates of program #${p} are not sorted by rule id`);
        }
        previousRule = r;
        const action = this.#u32(entry + 12);
        if (
          action < 1 || action > ACTIONS.length || this.#u32(entry + 16) > LIMITS.tokensPerField ||
          this.#u32(entry + 20) > LIMITS.tokensPerField
        ) {
          this.#fail("bad-index", `candidate #${c} has an unknown action or impossible counts`);
        }
      }
    }
    if (nextCandidate !== candidateCount) {
      this.#fail("bad-reference", "program buckets do not cover every candidate");
    }
  }
}

/**
 * Opens compiled-pack bytes. Checks size, magic, format, ABI, header length,
 * every section offset and length, the header-and-index digest, then the
 * rule-id table, program index and candidate references, before anything
 * is used; records are left for {@linkcode CompiledPack.candidates} and
 * {@linkcode CompiledPack.verifyAll}. Throws only {@linkcode PackFormatError}.
 * Keeps a reference to `bytes`; do not modify them afterwards.
 *
 * @example
 * ```ts ignore
 * const pack = openCompiledPack(bytes, { label: "team.yrp" });
 * pack.candidates("cargo");
 * ```
 */
export function openCompiledPack(
  bytes: Uint8Array,
  options: OpenCompiledPackOptions = {},
): CompiledPack {
  return new CompiledPack(bytes, options);
}

/**
 * {@linkcode openCompiledPack} with the header-and-index digest computed by
 * the platform's native SHA-256 first, so a large index opens in a fraction
 * of the time. Same checks, same errors (only {@linkcode PackFormatError}).
 */
export async function openCompiledPackAsync(
  bytes: Uint8Array,
  options: OpenCompiledPackOptions = {},
): Promise<CompiledPack> {
  const declaredEnd = bytes.length >= H_RECORD_OFFSET + 4
    ? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(
      H_RECORD_OFFSET,
      true,
    )
    : 0;
  const message = bytes.slice(0, Math.min(declaredEnd, bytes.length));
  message.fill(0, H_HEADER_DIGEST, Math.min(H_HEADER_DIGEST + DIGEST_BYTES, message.length));
  const digest = await sha256Native(message);
  return new CompiledPack(bytes, options, { digest, end: message.length });
}
