/**
 * The configurable success budget (config `budgets:`, docs/rules.md): strict
 * validation with one line naming the field, the kind's own budget winning
 * over the one for every kind, and the real launcher applying it to
 * `yarp run` and stating it in `yarp rules explain`.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import { parseConfig } from "../lib/config/config.ts";
import { SUCCESS_BUDGET_BYTES, successBudget } from "../lib/reduce/mod.ts";
import { SUCCESS_BUDGET_RANGE, TYPED_REDUCER_KINDS } from "../lib/rules/model.ts";
import { runYarp, withTempDir } from "./_process.ts";

Deno.test("property: budgets in range are accepted per kind and overall; the kind's own wins", async () => {
  const { min, max } = SUCCESS_BUDGET_RANGE;
  await fc.assert(
    fc.asyncProperty(
      fc.option(fc.integer({ min, max }), { nil: undefined }),
      fc.dictionary(fc.constantFrom(...TYPED_REDUCER_KINDS), fc.integer({ min, max })),
      async (all, kinds) => {
        if (all === undefined && Object.keys(kinds).length === 0) return; // `budgets:` needs a field
        const lines = ["budgets:"];
        if (all !== undefined) lines.push(`  success_bytes: ${all}`);
        const entries = Object.entries(kinds);
        if (entries.length > 0) lines.push("  kinds:");
        for (const [kind, bytes] of entries) lines.push(`    ${kind}: { success_bytes: ${bytes} }`);
        const parsed = await parseConfig(lines.join("\n") + "\n", "c.yaml", "/h");
        assert.ok(parsed.ok, JSON.stringify(parsed));
        for (const kind of TYPED_REDUCER_KINDS) {
          assert.equal(
            successBudget(parsed.config.budgets, kind),
            kinds[kind] ?? all ?? SUCCESS_BUDGET_BYTES,
          );
        }
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("property: a budget out of range or not an integer is one line naming the field", async () => {
  const { min, max } = SUCCESS_BUDGET_RANGE;
  const bad = fc.oneof(
    fc.integer({ min: -100_000, max: min - 1 }).map(String),
    fc.integer({ min: max + 1, max: 10_000_000 }).map(String),
    fc.constantFrom("1.5k", "true", "1024.5", "'1024'", "[1024]", "{a: 1}"),
  );
  await fc.assert(
    fc.asyncProperty(bad, fc.boolean(), async (value, perKind) => {
      const text = perKind
        ? `budgets:\n  kinds:\n    diff:\n      success_bytes: ${value}\n`
        : `budgets:\n  success_bytes: ${value}\n`;
      const parsed = await parseConfig(text, "c.yaml", "/h");
      assert.ok(!parsed.ok);
      const field = perKind ? "budgets.kinds.diff.success_bytes" : "budgets.success_bytes";
      assert.match(
        parsed.error,
        new RegExp(`^config c\\.yaml:\\d+: ${field.replaceAll(".", "\\.")}: `),
      );
      assert.ok(!parsed.error.includes("\n"));
    }),
    { numRuns: 60 },
  );
});

Deno.test("budgets: unknown fields and kinds are refused by name", async () => {
  const error = async (text: string) => {
    const parsed = await parseConfig(text, "c.yaml", "/h");
    assert.ok(!parsed.ok);
    return parsed.error;
  };
  assert.equal(
    await error("budgets:\n  succes_bytes: 1024\n"),
    "config c.yaml:2: unknown field 'budgets.succes_bytes'",
  );
  assert.match(
    await error("budgets:\n  kinds:\n    lint: { success_bytes: 1024 }\n"),
    /^config c\.yaml:3: unknown field 'budgets\.kinds\.lint' \(kinds: search, diff, /,
  );
  assert.equal(
    await error("budgets:\n  kinds:\n    diff: { failure_bytes: 1024 }\n"),
    "config c.yaml:3: unknown field 'budgets.kinds.diff.failure_bytes'",
  );
  assert.equal(await error("budgets: 1024\n"), "config c.yaml:1: budgets: expected a mapping");
});

Deno.test("the launcher applies the configured budget to yarp run and states it in rules explain", async () => {
  await withTempDir(async (dir) => {
    const lines = Array.from({ length: 3000 }, (_, i) => `src/file_${i % 300}.ts:${i}:match ${i}`);
    await Deno.writeTextFile(join(dir, "matches.txt"), lines.join("\n") + "\n");
    const config = join(dir, "config.yaml");
    const env = (bytes: number) => {
      Deno.writeTextFileSync(
        config,
        `budgets:\n  kinds:\n    search: { success_bytes: ${bytes} }\n`,
      );
      // The archive goes to the test's own store; HOME stays, with Deno's cache under it.
      return { XDG_STATE_HOME: join(dir, "state"), YARP_CONFIG: config };
    };
    const shown = async (bytes: number) => {
      const out = await runYarp(["run", "--", "grep", "match", "matches.txt"], {
        cwd: dir,
        env: env(bytes),
      });
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      return out.stdout.length;
    };
    const small = await shown(256);
    const large = await shown(4096);
    assert.ok(small <= 256 + 256 && large > 2048 && large <= 4096 + 256, `${small} ${large}`);
    const explained = await runYarp(["rules", "explain", "--", "grep", "match", "x"], {
      env: env(4096),
    });
    const text = new TextDecoder().decode(explained.stdout);
    assert.match(text, /then at most 4096 B of summary and examples/);
    assert.match(text, /^failure \(a non-zero exit\): everything ranked up to \d+ B/m);
    assert.match(text, /^output cap: none for the rule's own result/m);
    const json = await runYarp(["rules", "explain", "--json", "--", "grep", "match", "x"], {
      env: env(4096),
    });
    const parsed = JSON.parse(new TextDecoder().decode(json.stdout));
    assert.equal(parsed.success_budget_bytes, 4096);
    assert.equal(parsed.output_cap_bytes, 4096);
  });
});
