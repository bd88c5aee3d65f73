/**
 * Evidence class 3 of the typed engine (lib/reduce/typed.ts,
 * lib/reduce/_term_samples.ts): the search kind keeps one sample row for
 * every source term of the command, on success and on failure, in any case
 * when the command ignores case; without terms its output is what it was.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createStreamReducer, NO_TERMS, type SourceTerms } from "../lib/reduce/mod.ts";
import type { OutputPolicy, ReductionRule } from "../lib/rules/model.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

const SUCCESS: OutputPolicy = {
  headLines: 100,
  tailLines: 20,
  maxLineBytes: 512,
  maxOutputBytes: 16384,
  minSavingsBytes: 512,
};
const FAILURE: OutputPolicy = {
  ...SUCCESS,
  tailLines: 40,
  maxLineBytes: 1024,
  minSavingsBytes: 256,
};
const SEARCH: ReductionRule = {
  id: "search/grep",
  action: "reduce",
  match: { programs: ["grep"], argvPrefix: [], argvContainsAll: [] },
  reducer: { kind: "search" },
  success: SUCCESS,
  failure: FAILURE,
};

function reduce(input: Uint8Array[], terms: SourceTerms | undefined, code = 0): Uint8Array {
  const reducer = createStreamReducer(SEARCH, terms);
  for (const chunk of input) reducer.push(chunk);
  return reducer.finish({ code }, { kind: "archived", id: "a1b2c3" }).bytes;
}

/** 60 files of `parse` matches, one `lexer` match in file 40, then the rest. */
function lateTermInput(lexer = "lexer"): string {
  let text = "";
  for (let f = 0; f < 60; f++) {
    for (let i = 1; i <= 20; i++) {
      text += `src/file${f}.ts:${i}:  const node = parse(tokens, ${i}); // parse the next node\n`;
      if (f === 40 && i === 10) text += `src/file${f}.ts:${i}:  ${lexer}.next();\n`;
    }
  }
  return text;
}

const TERMS: SourceTerms = { terms: ["parse", "lexer"], ignoreCase: false };

Deno.test("a term found only in a late file keeps its one sample, on success and on failure", () => {
  const input = enc.encode(lateTermInput());
  for (const code of [0, 1]) {
    const out = dec.decode(reduce([input], TERMS, code));
    assert.ok(out.includes("src/file40.ts:10:  lexer.next();\n"), `exit ${code}: ${out}`);
    assert.ok(out.includes("src/file0.ts:1:  const node = parse("), `exit ${code}`);
    assert.ok(out.includes("[yarp: 1,201 matches in "), `exit ${code}: the key summary stays`);
    // Without the terms the late row is one of 1,201 and not shown.
    assert.ok(!dec.decode(reduce([input], undefined, code)).includes("lexer.next()"));
  }
});

Deno.test("an ignore-case term matches its row in any ASCII case; a case-sensitive one does not", () => {
  const input = enc.encode(lateTermInput("LeXeR"));
  const folded = dec.decode(reduce([input], { terms: ["parse", "lexer"], ignoreCase: true }));
  assert.ok(folded.includes("src/file40.ts:10:  LeXeR.next();\n"), folded);
  const exact = dec.decode(reduce([input], TERMS));
  assert.ok(!exact.includes("LeXeR"), exact);
});

Deno.test("rows with ANSI colour and rows across chunks find their terms too", () => {
  const input = enc.encode(lateTermInput("\x1b[01;31mlexer\x1b[m"));
  const cut = dec.decode(input).indexOf("lexer"); // ASCII: a string offset is a byte offset
  for (const chunks of [[input], [input.subarray(0, cut + 2), input.subarray(cut + 2)]]) {
    const out = dec.decode(reduce(chunks, TERMS));
    assert.ok(out.includes("src/file40.ts:10:  lexer.next();\n"), out);
  }
});

Deno.test("no terms, or terms no row holds, leave the output as it was", () => {
  const input = enc.encode(lateTermInput());
  for (const code of [0, 1]) {
    const before = reduce([input], undefined, code);
    assert.deepEqual(reduce([input], NO_TERMS, code), before);
    assert.deepEqual(
      reduce([input], { terms: ["absent", "nowhere"], ignoreCase: true }, code),
      before,
    );
  }
});

Deno.test("property: bounded, chunking-invariant, and every short term a row holds is shown", () => {
  const word = fc.string({ minLength: 2, maxLength: 4, unit: fc.constantFrom("a", "b", "c", "D") });
  const row = fc.tuple(
    fc.integer({ min: 0, max: 30 }),
    fc.string({ maxLength: 40, unit: fc.constantFrom("a", "b", "c", "d", "D", " ", "(", ")") }),
  );
  fc.assert(
    fc.property(
      fc.array(row, { minLength: 1, maxLength: 400 }),
      fc.uniqueArray(word, { maxLength: 2 }),
      fc.boolean(),
      fc.constantFrom(0, 1),
      fc.array(fc.nat(), { maxLength: 6 }),
      (rows, terms, ignoreCase, code, cuts) => {
        const lines = rows.map(([file, text]) => `src/f${file}.ts:${text}`);
        const input = enc.encode(lines.map((l) => l + "\n").join(""));
        const sourceTerms = { terms, ignoreCase };
        const whole = reduce([input], sourceTerms, code);
        const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
        const parts = [0, ...points].map((at, i) =>
          input.subarray(at, [...points, input.length][i])
        );
        assert.deepEqual(reduce(parts, sourceTerms, code), whole, "chunking changed the output");
        const limit = code === 0 ? SUCCESS.maxOutputBytes : FAILURE.maxOutputBytes;
        assert.ok(whole.length <= limit);
        const fold = (s: string) => ignoreCase ? s.toLowerCase() : s;
        const shown = fold(dec.decode(whole));
        for (const term of terms) {
          if (lines.some((l) => fold(l).includes(fold(term)))) {
            assert.ok(shown.includes(fold(term)), `${term} not shown`);
          }
        }
      },
    ),
    { numRuns: 300 },
  );
});
