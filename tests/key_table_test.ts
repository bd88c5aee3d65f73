/**
 * The typed engine's key table (lib/reduce/_key_table.ts): counts equal a
 * map's, keys beyond the bound go to `otherRows`, and keys that share their
 * last eight bytes (one fingerprint) stay apart.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { KeyTable } from "../lib/reduce/_key_table.ts";
import { OTHER_KEYS } from "../lib/reduce/typed_budget.ts";

const enc = new TextEncoder();

/** Keys drawn from a small alphabet with shared tails, so fingerprints collide often. */
const key = fc.tuple(
  fc.stringMatching(/^[ab\/.]{0,12}$/),
  fc.constantFrom("", ".ts", "/src/lib", "12345678", "x"),
).map(([head, tail]) => head + tail);

Deno.test("property: KeyTable counts as a map does, within its bound", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(key, fc.boolean()), { maxLength: 300 }),
      fc.integer({ min: 1, max: 24 }),
      fc.nat(5),
      (rows, max, offset) => {
        const table = new KeyTable(max);
        const counts = new Map<string, [number, number]>();
        let other = 0;
        for (const [text, minus] of rows) {
          // The key sits inside a larger buffer, as a line's range does.
          const buffer = new Uint8Array(offset + text.length + 3);
          buffer.set(enc.encode(text), offset);
          const index = table.count(buffer, offset, text.length, minus);
          const known = counts.get(text);
          if (known === undefined && counts.size >= max) {
            assert.equal(index, -1);
            other++;
            continue;
          }
          const entry = known ?? [0, 0];
          entry[minus ? 1 : 0]++;
          counts.set(text, entry);
          assert.equal(new TextDecoder().decode(table.keys[index]), text);
        }
        assert.equal(table.otherRows, other);
        assert.deepEqual(
          table.keys.map((k, i) => [new TextDecoder().decode(k), table.counts[i], table.minus[i]]),
          [...counts].map(([text, [plus, minus]]) => [text, plus, minus]),
        );
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("KeyTable: two long keys with the same last eight bytes are two keys", () => {
  const table = new KeyTable(4);
  const a = enc.encode("alpha/src/lib12345678");
  const b = enc.encode("omega/src/lib12345678");
  assert.equal(table.count(a, 0, a.length, false), 0);
  assert.equal(table.count(b, 0, b.length, false), 1);
  assert.equal(table.count(a, 0, a.length, false), 0);
  assert.deepEqual([...table.counts.subarray(0, table.keys.length)], [2, 1]);
});

Deno.test("property: KeyTable.distinct is the exact number of distinct keys, beyond its bound too", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(key, fc.boolean()), { maxLength: 300 }),
      fc.integer({ min: 1, max: 8 }),
      (rows, max) => {
        const table = new KeyTable(max);
        for (const [text, register] of rows) {
          const bytes = enc.encode(text);
          if (register) table.register(bytes, 0, bytes.length);
          else table.count(bytes, 0, bytes.length, false);
        }
        assert.equal(table.distinct, new Set(rows.map(([text]) => text)).size);
        assert.ok(table.otherKeysExact);
        // register() counts no row.
        const counted = rows.filter(([, register]) => !register).length;
        let sum = table.otherRows;
        for (let i = 0; i < table.keys.length; i++) sum += table.counts[i];
        assert.equal(sum, counted);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("KeyTable: past OTHER_KEYS further keys the count is a lower bound, marked not exact", () => {
  const table = new KeyTable(2);
  for (let i = 0; i < OTHER_KEYS + 10; i++) {
    const bytes = enc.encode(`dir/${i}`);
    table.count(bytes, 0, bytes.length, false);
  }
  assert.equal(table.distinct, 2 + OTHER_KEYS);
  assert.equal(table.otherKeysExact, false);
  assert.equal(table.otherRows, OTHER_KEYS + 8);
});
