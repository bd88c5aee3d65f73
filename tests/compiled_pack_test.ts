/**
 * The `.yrp` format as a specification (docs/compiled-pack.md): deterministic
 * bytes, round trip, every boundary and corruption the reader must refuse
 * with a PackFormatError, and properties over arbitrary packs and bytes.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fc from "fast-check";
import {
  COMPILED_FORMAT_VERSION,
  encodeCompiledPack,
  ENGINE_ABI,
  openCompiledPack,
  openCompiledPackAsync,
  PackFormatError,
} from "../lib/rules/compiled_pack.ts";
import { ruleProblem } from "../lib/rules/rule_checks.ts";
import type { LinePattern, OutputPolicy, Rule, RulePack } from "../lib/rules/model.ts";

// Header offsets from docs/compiled-pack.md.
const FORMAT = 8;
const MIN_ABI = 12;
const MAX_ABI = 16;
const HEADER_LENGTH = 20;
const RULE_COUNT = 24;
const PROGRAM_COUNT = 28;
const CANDIDATE_COUNT = 32;
const INDEX_OFFSET = 36;
const INDEX_LENGTH = 40;
const RECORD_OFFSET = 44;
const RECORD_LENGTH = 48;
const PACK_ID_LENGTH = 52;
const SOURCE_DIGEST = 56;
const HEADER_DIGEST = 88;
const PACK_ID = 120;
const RULE_ENTRY = 16;
const PROGRAM_ENTRY = 16;
const CANDIDATE_ENTRY = 56;

const SOURCE = "0123456789abcdef".repeat(4);
const SUCCESS: OutputPolicy = {
  headLines: 12,
  tailLines: 10,
  maxLineBytes: 16_384,
  maxOutputBytes: 16_384,
  minSavingsBytes: 120,
};
const FAILURE: OutputPolicy = { ...SUCCESS, headLines: 18, tailLines: 18, maxOutputBytes: 32_768 };

function pattern(kind: LinePattern["kind"], value: string): LinePattern {
  return { kind, value, caseMode: "sensitive", trim: "none" };
}

const SMALL: RulePack = {
  id: "team-ci",
  sourceDigest: SOURCE,
  rules: [
    {
      id: "tests/example-test",
      action: "reduce",
      match: {
        programs: ["npm", "cargo"],
        argvPrefix: ["test"],
        argvContainsAll: ["--reporter=dot"],
      },
      reducer: {
        kind: "line_filter",
        stripAnsi: true,
        drop: [{
          kind: "prefix",
          value: "progress:",
          caseMode: "ascii_insensitive",
          trim: "start",
        }],
        keep: [pattern("contains", "\uFEFFtest résult 🦀"), pattern("exact", "ok")],
      },
      success: SUCCESS,
      failure: FAILURE,
    },
    {
      id: "build/make",
      action: "reduce",
      match: { programs: ["make"], argvPrefix: [], argvContainsAll: [] },
      reducer: { kind: "head_tail" },
      success: SUCCESS,
      failure: FAILURE,
    },
    {
      id: "pipe/grep",
      action: "transform",
      match: { programs: ["grep"], argvPrefix: [], argvContainsAll: ["-n"] },
      transform: "line_preserving",
    },
    {
      id: "guard/cargo-exact",
      action: "passthrough",
      match: { programs: ["cargo"], argvPrefix: ["test", "-", "ü"], argvContainsAll: [] },
    },
  ],
};

function u32(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getUint32(at, true);
}

function setU32(bytes: Uint8Array, at: number, value: number): void {
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(at, value, true);
}

function sha256(bytes: Uint8Array): Uint8Array {
  return createHash("sha256").update(bytes).digest();
}

/** Recomputes the header-and-index digest so a test reaches the checks behind it. */
function redigest(bytes: Uint8Array): Uint8Array {
  bytes.fill(0, HEADER_DIGEST, HEADER_DIGEST + 32);
  bytes.set(
    sha256(bytes.subarray(0, u32(bytes, INDEX_OFFSET) + u32(bytes, INDEX_LENGTH))),
    HEADER_DIGEST,
  );
  return bytes;
}

/** The error code `run` throws, `ok` when it returns; anything but PackFormatError fails the test. */
function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof PackFormatError) return error.code;
    throw error;
  }
  return "ok";
}

/** Opens, selects under every program of the original pack, and verifies everything. */
function useFully(bytes: Uint8Array, programs: readonly string[] = []): void {
  const pack = openCompiledPack(bytes);
  for (const program of programs) pack.candidates(program);
  pack.verifyAll();
}

function programsOf(pack: RulePack): string[] {
  return [...new Set(pack.rules.flatMap((rule) => rule.match.programs))].sort();
}

function expectedCandidates(pack: RulePack, program: string): Rule[] {
  return pack.rules.filter((rule) => rule.match.programs.includes(program))
    .sort((a, b) => a.id < b.id ? -1 : 1);
}

const candidateTable = (bytes: Uint8Array): number =>
  u32(bytes, INDEX_OFFSET) + u32(bytes, RULE_COUNT) * RULE_ENTRY +
  u32(bytes, PROGRAM_COUNT) * PROGRAM_ENTRY;

function manyRules(count: number): Rule[] {
  const rules: Rule[] = [];
  for (let i = 0; i < count; i++) {
    const n = String(i).padStart(5, "0");
    rules.push({
      id: `gen/rule-${n}`,
      action: "reduce",
      match: {
        programs: i < 2 ? ["solo"] : [`prog-${i % 100}`, `alt-${i % 7}`],
        argvPrefix: [`sub${i}`],
        argvContainsAll: [],
      },
      reducer: {
        kind: "line_filter",
        stripAnsi: false,
        drop: [pattern("prefix", `noise ${n}`)],
        keep: [],
      },
      success: SUCCESS,
      failure: FAILURE,
    });
  }
  return rules;
}

Deno.test("compilation is deterministic and independent of rule order", () => {
  const bytes = encodeCompiledPack(SMALL);
  assert.deepEqual(encodeCompiledPack(SMALL), bytes);
  assert.deepEqual(encodeCompiledPack({ ...SMALL, rules: [...SMALL.rules].reverse() }), bytes);
  // Pins format version 1: a change here is a format change and needs a version bump.
  assert.equal(
    createHash("sha256").update(bytes).digest("hex"),
    "0018ea793d4ec8a4ff628806b3fce7cf87755ef2fcc5f4d7a1527bbacbbe2961",
  );
});

Deno.test("the header carries the documented fields", () => {
  const bytes = encodeCompiledPack(SMALL);
  assert.equal(new TextDecoder().decode(bytes.subarray(0, 8)), "YARPPACK");
  assert.equal(u32(bytes, FORMAT), COMPILED_FORMAT_VERSION);
  assert.equal(u32(bytes, MIN_ABI), ENGINE_ABI);
  assert.equal(u32(bytes, MAX_ABI), ENGINE_ABI);
  assert.equal(u32(bytes, PACK_ID_LENGTH), 7);
  assert.equal(new TextDecoder().decode(bytes.subarray(PACK_ID, PACK_ID + 7)), "team-ci");
  assert.equal(u32(bytes, HEADER_LENGTH), 128);
  assert.equal(u32(bytes, INDEX_OFFSET), 128);
  assert.equal(u32(bytes, RULE_COUNT), 4);
  assert.equal(u32(bytes, PROGRAM_COUNT), 4);
  assert.equal(u32(bytes, CANDIDATE_COUNT), 5);
  assert.equal(u32(bytes, RECORD_OFFSET), 128 + u32(bytes, INDEX_LENGTH));
  assert.equal(u32(bytes, RECORD_OFFSET) + u32(bytes, RECORD_LENGTH), bytes.length);
  assert.equal(
    Buffer.from(bytes.subarray(SOURCE_DIGEST, SOURCE_DIGEST + 32)).toString("hex"),
    SOURCE,
  );
});

Deno.test("round trip: candidates give back the input rules, sorted by id", () => {
  const bytes = encodeCompiledPack(SMALL);
  const pack = openCompiledPack(bytes);
  assert.equal(pack.origin, "external");
  assert.equal(pack.packId, "team-ci");
  assert.equal(pack.sourceDigest, SOURCE);
  assert.deepEqual(pack.ruleIds, [
    "build/make",
    "guard/cargo-exact",
    "pipe/grep",
    "tests/example-test",
  ]);
  for (const program of programsOf(SMALL)) {
    assert.deepEqual(pack.candidates(program), expectedCandidates(SMALL, program), program);
  }
  assert.deepEqual(pack.candidates("cargo").map((r) => r.id), [
    "guard/cargo-exact",
    "tests/example-test",
  ]);
  assert.deepEqual(pack.candidates("carg"), []);
  assert.deepEqual(pack.candidates("cargoo"), []);
  assert.deepEqual(pack.candidates("égrep"), []);
  assert.deepEqual(pack.candidates(""), []);
  assert.equal(pack.candidates("cargo"), pack.candidates("cargo"), "bucket is cached");
  assert.deepEqual(pack.verifyAll(), {
    packId: "team-ci",
    ruleCount: 4,
    programCount: 4,
    sourceDigest: SOURCE,
    fileDigest: createHash("sha256").update(bytes).digest("hex"),
  });
});

Deno.test("the reader accepts a pack inside a larger buffer", () => {
  const bytes = encodeCompiledPack(SMALL);
  const padded = new Uint8Array(bytes.length + 3);
  padded.set(bytes, 3);
  const pack = openCompiledPack(padded.subarray(3), { label: "x.yrp" });
  assert.deepEqual(pack.candidates("make"), expectedCandidates(SMALL, "make"));
  assert.equal(pack.verifyAll().ruleCount, 4);
});

Deno.test("every truncation and an appended byte are refused", () => {
  const bytes = encodeCompiledPack(SMALL);
  const codes = new Set<string>();
  for (let length = 0; length < bytes.length; length++) {
    const code = codeOf(() => openCompiledPack(bytes.slice(0, length)));
    assert.notEqual(code, "ok", `prefix of ${length} bytes opened`);
    codes.add(code);
  }
  assert.deepEqual([...codes].sort(), ["out-of-bounds", "too-small"]);
  const longer = new Uint8Array(bytes.length + 1);
  longer.set(bytes);
  assert.equal(codeOf(() => openCompiledPack(longer)), "bad-layout");
});

Deno.test("every single-byte change is caught by open or full verification", () => {
  const bytes = encodeCompiledPack(SMALL);
  for (let at = 0; at < bytes.length; at++) {
    const copy = bytes.slice();
    copy[at] ^= 0xff;
    assert.notEqual(codeOf(() => useFully(copy)), "ok", `change at byte ${at} went unnoticed`);
  }
});

Deno.test("wrong magic, format, ABI and digests are refused with their codes", () => {
  const fresh = () => encodeCompiledPack(SMALL);
  const cases: [string, (b: Uint8Array) => void, string][] = [
    ["magic", (b) => void (b[0] = 0x78), "bad-magic"],
    ["format", (b) => setU32(b, FORMAT, 2), "unsupported-format"],
    ["ABI above", (b) => (setU32(b, MIN_ABI, 4), setU32(b, MAX_ABI, 4)), "unsupported-abi"],
    ["ABI below", (b) => setU32(b, MAX_ABI, 0), "unsupported-abi"],
    [
      "ABI range inverted",
      (b) => (setU32(b, MIN_ABI, 2), setU32(b, MAX_ABI, 1)),
      "unsupported-abi",
    ],
    ["header digest", (b) => void (b[HEADER_DIGEST + 5] ^= 1), "bad-digest"],
    ["source digest", (b) => void (b[SOURCE_DIGEST] ^= 1), "bad-digest"],
    ["index byte", (b) => void (b[u32(b, INDEX_OFFSET) + 3] ^= 1), "bad-digest"],
    ["pack id", (b) => void (b[PACK_ID] = 0x54), "bad-header"],
    ["header padding", (b) => void (b[PACK_ID + 7] = 1), "bad-header"],
    ["pack id length", (b) => setU32(b, PACK_ID_LENGTH, 0), "bad-header"],
    ["header length", (b) => setU32(b, HEADER_LENGTH, 132), "bad-header-length"],
    ["rule count zero", (b) => setU32(b, RULE_COUNT, 0), "bad-header"],
    ["rule count huge", (b) => setU32(b, RULE_COUNT, 0xffffffff), "bad-header"],
    ["candidate count", (b) => setU32(b, CANDIDATE_COUNT, 3), "bad-header"],
  ];
  for (const [name, mutate, code] of cases) {
    const bytes = fresh();
    mutate(bytes);
    assert.equal(codeOf(() => openCompiledPack(bytes)), code, name);
  }
  const abi = fresh();
  setU32(abi, MIN_ABI, 4);
  setU32(abi, MAX_ABI, 4);
  assert.throws(() => openCompiledPack(abi, { label: "example.yrp" }), {
    message: "example.yrp: engine ABI 4 is not supported by this YARP build",
  });
});

Deno.test("a changed record opens but is refused when selected", () => {
  const bytes = encodeCompiledPack(SMALL);
  bytes[bytes.length - 1] ^= 1; // the last record: tests/example-test (npm, cargo)
  const pack = openCompiledPack(bytes);
  assert.deepEqual(pack.candidates("make").map((r) => r.id), ["build/make"]);
  assert.equal(codeOf(() => pack.candidates("npm")), "bad-record-digest");
  assert.equal(codeOf(() => openCompiledPack(bytes).verifyAll()), "bad-record-digest");
});

Deno.test("section bounds, overflow, overlap, alignment and gaps are refused", () => {
  const cases: [string, (b: Uint8Array) => void, string][] = [
    ["record offset near 2^32", (b) => setU32(b, RECORD_OFFSET, 0xfffffff0), "out-of-bounds"],
    ["record length near 2^32", (b) => setU32(b, RECORD_LENGTH, 0xfffffffc), "out-of-bounds"],
    [
      "offset + length wraps u32",
      (b) => (setU32(b, INDEX_OFFSET, 0xfffffff0), setU32(b, INDEX_LENGTH, 0x20)),
      "out-of-bounds",
    ],
    ["index length near 2^32", (b) => setU32(b, INDEX_LENGTH, 0xfffffffc), "out-of-bounds"],
    ["header length near 2^32", (b) => setU32(b, HEADER_LENGTH, 0xfffffffc), "bad-header-length"],
    ["index inside header", (b) => setU32(b, INDEX_OFFSET, 64), "overlap"],
    ["records inside index", (b) => {
      const index = u32(b, INDEX_OFFSET);
      setU32(b, RECORD_OFFSET, index + 16);
      setU32(b, RECORD_LENGTH, b.length - index - 16);
    }, "overlap"],
    ["misaligned records", (b) => {
      setU32(b, INDEX_LENGTH, u32(b, INDEX_LENGTH) + 2);
      setU32(b, RECORD_OFFSET, u32(b, RECORD_OFFSET) + 2);
      setU32(b, RECORD_LENGTH, u32(b, RECORD_LENGTH) - 2);
    }, "misaligned"],
    ["gap after index", (b) => setU32(b, INDEX_LENGTH, u32(b, INDEX_LENGTH) - 4), "bad-layout"],
    [
      "records stop early",
      (b) => setU32(b, RECORD_LENGTH, u32(b, RECORD_LENGTH) - 1),
      "bad-layout",
    ],
    ["tables longer than index", (b) => setU32(b, CANDIDATE_COUNT, 100), "out-of-bounds"],
  ];
  for (const [name, mutate, code] of cases) {
    const bytes = encodeCompiledPack(SMALL);
    mutate(bytes);
    assert.equal(codeOf(() => openCompiledPack(redigest(bytes))), code, name);
  }
});

Deno.test("index sort order, duplicate ids and references are checked at open", () => {
  // Swaps the (offset, length) name references of entries 0 and 1, keeping the rest.
  const swapNames = (b: Uint8Array, at: number, size: number) => {
    const first = b.slice(at, at + 8);
    b.copyWithin(at, at + size, at + size + 8);
    b.set(first, at + size);
  };
  const ruleTable = (b: Uint8Array) => u32(b, INDEX_OFFSET);
  const programTable = (b: Uint8Array) => ruleTable(b) + u32(b, RULE_COUNT) * RULE_ENTRY;
  const cases: [string, (b: Uint8Array) => void, string][] = [
    [
      "program entries swapped",
      (b) => swapNames(b, programTable(b), PROGRAM_ENTRY),
      "unsorted-index",
    ],
    ["rule-id entries swapped", (b) => swapNames(b, ruleTable(b), RULE_ENTRY), "unsorted-index"],
    ["duplicate rule id", (b) => {
      setU32(b, ruleTable(b) + RULE_ENTRY, u32(b, ruleTable(b)));
      setU32(b, ruleTable(b) + RULE_ENTRY + 4, u32(b, ruleTable(b) + 4));
    }, "duplicate-rule-id"],
    ["rule id out of string area", (b) => setU32(b, ruleTable(b), 0xfffffff0), "out-of-bounds"],
    ["invalid program name", (b) => {
      const strings = candidateTable(b) + u32(b, CANDIDATE_COUNT) * CANDIDATE_ENTRY;
      b[strings + u32(b, programTable(b))] = 0x2f; // "/"
    }, "bad-index"],
    ["candidates out of order", (b) => {
      const table = candidateTable(b); // program 0 is cargo: rules #1 and #3
      const first = b.slice(table, table + CANDIDATE_ENTRY);
      b.copyWithin(table, table + CANDIDATE_ENTRY, table + 2 * CANDIDATE_ENTRY);
      b.set(first, table + CANDIDATE_ENTRY);
    }, "unsorted-index"],
    ["candidate rule index", (b) => setU32(b, candidateTable(b), 3), "bad-reference"],
    ["candidate rule index out of range", (b) => setU32(b, candidateTable(b), 4), "bad-reference"],
    ["candidate record offset", (b) => setU32(b, candidateTable(b) + 4, 4), "bad-reference"],
    ["candidate action", (b) => setU32(b, candidateTable(b) + 12, 9), "bad-index"],
    ["bucket start", (b) => setU32(b, programTable(b) + 8, 1), "bad-reference"],
    [
      "bucket past candidates",
      (b) => setU32(b, programTable(b) + PROGRAM_ENTRY * 3 + 12, 9),
      "bad-reference",
    ],
    ["record order", (b) => setU32(b, ruleTable(b) + 8, 4), "bad-reference"],
  ];
  for (const [name, mutate, code] of cases) {
    const bytes = encodeCompiledPack(SMALL);
    mutate(bytes);
    assert.equal(codeOf(() => openCompiledPack(redigest(bytes))), code, name);
  }
});

Deno.test("a well-digested but invalid record is refused as bad-record or bad-reference", () => {
  const one: RulePack = { ...SMALL, rules: [SMALL.rules[1]] }; // build/make, head_tail
  const reseal = (bytes: Uint8Array): Uint8Array => {
    const record = bytes.subarray(u32(bytes, RECORD_OFFSET));
    bytes.set(sha256(record), candidateTable(bytes) + 24);
    return redigest(bytes);
  };
  const cases: [string, (b: Uint8Array) => void, string][] = [
    ["policy out of range", (b) => setU32(b, b.length - 4, 2_000_000), "bad-record"],
    ["unknown reducer kind", (b) => void (b[b.length - 41] = 200), "bad-record"],
    [
      "record id differs from index",
      (b) => void (b[u32(b, RECORD_OFFSET) + 4] = 0x63),
      "bad-reference",
    ],
    ["invalid UTF-8 in id", (b) => void (b[u32(b, RECORD_OFFSET) + 4] = 0xff), "bad-record"],
    [
      "program count too large",
      (b) => setU32(b, u32(b, RECORD_OFFSET) + 4 + 10 + 1, 99),
      "bad-record",
    ],
    [
      "program renamed",
      (b) => void (b[u32(b, RECORD_OFFSET) + 4 + 10 + 1 + 8] = 0x6e),
      "bad-reference",
    ],
  ];
  for (const [name, mutate, code] of cases) {
    const bytes = encodeCompiledPack(one);
    mutate(bytes);
    const pack = openCompiledPack(reseal(bytes));
    assert.equal(codeOf(() => pack.candidates("make")), code, name);
  }
});

Deno.test("the writer refuses packs the reader would refuse", () => {
  const reduce = SMALL.rules[1];
  const cases: [string, RulePack, string][] = [
    ["pack id", { ...SMALL, id: "Team" }, "bad-header"],
    ["source digest", { ...SMALL, sourceDigest: "abc" }, "bad-header"],
    ["no rules", { ...SMALL, rules: [] }, "too-many-rules"],
    ["too many rules", { ...SMALL, rules: manyRules(10_001) }, "too-many-rules"],
    ["duplicate id", { ...SMALL, rules: [reduce, reduce] }, "duplicate-rule-id"],
    ["bad rule id", { ...SMALL, rules: [{ ...reduce, id: "a//b" }] }, "bad-record"],
    ["bad program", {
      ...SMALL,
      rules: [{ ...reduce, match: { ...reduce.match, programs: ["a b"] } }],
    }, "bad-record"],
    ["repeated program", {
      ...SMALL,
      rules: [{ ...reduce, match: { ...reduce.match, programs: ["a", "a"] } }],
    }, "bad-record"],
    ["NUL token", {
      ...SMALL,
      rules: [{ ...reduce, match: { ...reduce.match, argvPrefix: ["a\0"] } }],
    }, "bad-record"],
    ["policy", {
      ...SMALL,
      rules: [{ ...reduce, success: { ...SUCCESS, maxLineBytes: 1 } }] as Rule[],
    }, "bad-record"],
    ["empty pattern", {
      ...SMALL,
      rules: [{
        ...reduce,
        reducer: { kind: "line_filter", stripAnsi: false, drop: [pattern("exact", "")], keep: [] },
      }] as Rule[],
    }, "bad-record"],
  ];
  for (const [name, pack, code] of cases) {
    assert.equal(codeOf(() => encodeCompiledPack(pack)), code, name);
  }
});

Deno.test("the writer refuses a pack over 64 MiB before building it", () => {
  const big = "🦀".repeat(1_024); // 4,096 bytes, the pattern maximum
  const patterns = Array.from({ length: 256 }, () => pattern("contains", big));
  const rules: Rule[] = Array.from({ length: 70 }, (_, i) => ({
    id: `big/r${i}`,
    action: "reduce",
    match: { programs: ["big"], argvPrefix: [], argvContainsAll: [] },
    reducer: { kind: "line_filter", stripAnsi: false, drop: patterns, keep: [] },
    success: SUCCESS,
    failure: FAILURE,
  }));
  assert.equal(
    codeOf(() => encodeCompiledPack({ id: "big", sourceDigest: SOURCE, rules })),
    "too-large",
  );
});

Deno.test("a 10,000-rule pack verifies fully and a lookup touches one bucket", () => {
  const rules = manyRules(10_000);
  const bytes = encodeCompiledPack({ id: "many", sourceDigest: SOURCE, rules });
  const pack = openCompiledPack(bytes);
  assert.equal(pack.decodedRecords, 0);
  assert.deepEqual(pack.candidates("nothing"), []);
  assert.equal(pack.decodedRecords, 0);
  assert.deepEqual(pack.candidates("solo"), rules.slice(0, 2));
  assert.equal(pack.decodedRecords, 2);
  assert.equal(pack.candidates("prog-42").length, 100);
  assert.equal(pack.decodedRecords, 102);
  const summary = openCompiledPack(bytes).verifyAll();
  assert.equal(summary.ruleCount, 10_000);
  assert.equal(summary.programCount, 1 + 100 + 7);
  assert.equal(pack.ruleIds.length, 10_000);
  assert.equal(pack.ruleIds[9_999], "gen/rule-09999");
});

// ---------------------------------------------------------------------------
// Properties

const segment = fc.stringMatching(/^[a-z0-9]{1,6}$/);
const ruleIdArb = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/"));
const programArb = fc.constantFrom("git", "npm", "cargo", "make", "g++", "python3.12", "rg", "a");
const text = (minLength: number) =>
  fc.string({ unit: "binary", minLength, maxLength: 8 })
    .filter((value) => value.isWellFormed() && !value.includes("\0"));
const plain = { noNullPrototype: true };
const patternArb: fc.Arbitrary<LinePattern> = fc.record({
  kind: fc.constantFrom("exact", "prefix", "suffix", "contains"),
  value: text(1),
  caseMode: fc.constantFrom("sensitive", "ascii_insensitive"),
  trim: fc.constantFrom("none", "start", "both"),
}, plain);
const policyArb: fc.Arbitrary<OutputPolicy> = fc.record({
  headLines: fc.integer({ min: 0, max: 10_000 }),
  tailLines: fc.integer({ min: 0, max: 10_000 }),
  maxLineBytes: fc.integer({ min: 256, max: 1_048_576 }),
  maxOutputBytes: fc.integer({ min: 1_024, max: 16_777_216 }),
  minSavingsBytes: fc.integer({ min: 0, max: 1_048_576 }),
}, plain);
const matchArb = fc.record({
  programs: fc.uniqueArray(programArb, { minLength: 1, maxLength: 3 }),
  argvPrefix: fc.array(text(1), { maxLength: 3 }),
  argvContainsAll: fc.array(text(1), { maxLength: 3 }),
}, plain);
const ruleArb: fc.Arbitrary<Rule> = fc.oneof(
  fc.record({
    id: ruleIdArb,
    action: fc.constant("reduce"),
    match: matchArb,
    reducer: fc.oneof(
      fc.constant({ kind: "head_tail" as const }),
      fc.record({
        kind: fc.constant("line_filter"),
        stripAnsi: fc.boolean(),
        drop: fc.array(patternArb, { maxLength: 3 }),
        keep: fc.array(patternArb, { maxLength: 3 }),
      }, plain),
    ),
    success: policyArb,
    failure: policyArb,
  }, plain),
  fc.record({
    id: ruleIdArb,
    action: fc.constant("transform"),
    match: matchArb,
    transform: fc.constant("line_preserving"),
  }, plain),
  fc.record({ id: ruleIdArb, action: fc.constant("passthrough"), match: matchArb }, plain),
);
const packArb: fc.Arbitrary<RulePack> = fc.record({
  id: fc.stringMatching(/^[a-z0-9]{1,8}([.-][a-z0-9]{1,8}){0,2}$/),
  sourceDigest: fc.stringMatching(/^[0-9a-f]{64}$/),
  rules: fc.uniqueArray(ruleArb, { selector: (rule) => rule.id, minLength: 1, maxLength: 6 }),
});

Deno.test("property: generated rules are valid, compile deterministically and round-trip", () => {
  fc.assert(
    fc.property(packArb, (pack) => {
      for (const rule of pack.rules) assert.equal(ruleProblem(rule), undefined);
      const bytes = encodeCompiledPack(pack);
      assert.deepEqual(encodeCompiledPack({ ...pack, rules: [...pack.rules].reverse() }), bytes);
      const opened = openCompiledPack(bytes);
      for (const program of programsOf(pack)) {
        assert.deepEqual(opened.candidates(program), expectedCandidates(pack, program));
      }
      assert.equal(opened.verifyAll().ruleCount, pack.rules.length);
    }),
    { numRuns: 200 },
  );
});

Deno.test("property: arbitrary bytes give a pack or a PackFormatError, nothing else", () => {
  const header = encodeCompiledPack(SMALL).slice(0, PACK_ID + 8);
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), fc.boolean(), (tail, withHeader) => {
      const bytes = withHeader ? new Uint8Array([...header, ...tail]) : tail;
      codeOf(() => useFully(bytes, ["cargo", "a"]));
    }),
    { numRuns: 500 },
  );
});

Deno.test("property: mutations of a valid pack, resealed or not, never escape PackFormatError", () => {
  const small = encodeCompiledPack(SMALL);
  const programs = programsOf(SMALL);
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 4,
      }),
      fc.constantFrom("none", "header", "records"),
      (changes, reseal) => {
        const bytes = small.slice();
        for (const [at, value] of changes) bytes[at % bytes.length] = value;
        if (reseal === "records") {
          // Re-digest every record so the record decoder sees the mutated bytes.
          const table = candidateTable(small);
          const base = u32(small, RECORD_OFFSET);
          for (let c = 0; c < u32(small, CANDIDATE_COUNT); c++) {
            const entry = table + c * CANDIDATE_ENTRY;
            const start = base + u32(small, entry + 4);
            bytes.set(sha256(bytes.subarray(start, start + u32(small, entry + 8))), entry + 24);
          }
        }
        if (
          reseal !== "none" && u32(bytes, INDEX_OFFSET) + u32(bytes, INDEX_LENGTH) <= bytes.length
        ) {
          redigest(bytes);
        }
        codeOf(() => useFully(bytes, programs));
      },
    ),
    { numRuns: 2_000 },
  );
});

Deno.test("allRules gives every rule sorted by id after verifying every record", () => {
  const pack = openCompiledPack(encodeCompiledPack(SMALL));
  const expected = [...SMALL.rules].sort((a, b) => a.id < b.id ? -1 : 1);
  assert.deepEqual(pack.allRules(), expected);
  assert.equal(pack.decodedRecords, SMALL.rules.length);
});

/** The error code (or "ok") of opening with the native-digest path. */
async function asyncCodeOf(bytes: Uint8Array): Promise<string> {
  try {
    await openCompiledPackAsync(bytes);
    return "ok";
  } catch (error) {
    assert.ok(error instanceof PackFormatError, String(error));
    return error.code;
  }
}

Deno.test("property: the native-digest open agrees with the synchronous open", async () => {
  const small = encodeCompiledPack(SMALL);
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
      fc.nat({ max: small.length }),
      async (changes, keep) => {
        const bytes = small.slice(0, keep === 0 ? small.length : keep);
        for (const [at, value] of changes) bytes[at % bytes.length] = value;
        assert.equal(await asyncCodeOf(bytes), codeOf(() => openCompiledPack(bytes)));
      },
    ),
    { numRuns: 500 },
  );
  const pack = await openCompiledPackAsync(small);
  assert.equal(await pack.fileDigestAsync(), openCompiledPack(small).fileDigest);
});
