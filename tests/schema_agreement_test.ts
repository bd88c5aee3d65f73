/**
 * The JSON Schemas in `rules/schema/` agree with the strict validators on a
 * committed corpus: every file under `tests/data/schema_corpus/KIND/VERDICT/`
 * gets the same verdict from both, and that verdict is its directory's name.
 * The corpus holds only cases both can judge (no duplicate keys, byte-length
 * limits or file-system facts; those are in the validators' unit tests).
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { validateFixtureText } from "../lib/rules/fixture.ts";
import { validateManifestText, validateRuleText } from "../lib/rules/rule_source.ts";
import { formatDiagnostic, type SourceDiagnostic } from "../lib/rules/diagnostics.ts";

const CORPUS = new URL("./data/schema_corpus/", import.meta.url);
const SCHEMAS = new URL("../rules/schema/", import.meta.url);

type Validate = (file: string, text: string) => { ok: boolean; diagnostics?: SourceDiagnostic[] };
const validators: Record<string, Validate> = {
  pack: validateManifestText,
  rule: validateRuleText,
  fixture: validateFixtureText,
};

// strictRequired and strictTuples are off: conditional `required` in if/then
// and a one-item `prefixItems` are intended.
const ajv = new Ajv2020({
  strict: true,
  strictRequired: false,
  strictTuples: false,
  allErrors: true,
});

function corpusFiles(kind: string): { verdict: string; name: string; text: string }[] {
  const files = [];
  for (const verdict of ["valid", "invalid"]) {
    const dir = new URL(`${kind}/${verdict}/`, CORPUS);
    const names = [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
    for (const name of names) {
      files.push({ verdict, name, text: Deno.readTextFileSync(new URL(name, dir)) });
    }
  }
  return files;
}

let total = 0;
for (const kind of Object.keys(validators)) {
  Deno.test(`schema agreement: ${kind}`, () => {
    const schema = JSON.parse(Deno.readTextFileSync(new URL(`${kind}.schema.json`, SCHEMAS)));
    const schemaValid = ajv.compile(schema);
    const files = corpusFiles(kind);
    assert.ok(
      files.some((f) => f.verdict === "valid") && files.some((f) => f.verdict === "invalid"),
    );
    for (const { verdict, name, text } of files) {
      const label = `${kind}/${verdict}/${name}`;
      const result = validators[kind](label, text);
      const ajvVerdict = schemaValid(JSON.parse(text)) ? "valid" : "invalid";
      const ours = result.ok ? "valid" : "invalid";
      assert.equal(
        ours,
        verdict,
        `${label}: validator says ${ours}: ${
          (result.diagnostics ?? []).map(formatDiagnostic).join("; ")
        }`,
      );
      assert.equal(
        ajvVerdict,
        verdict,
        `${label}: schema says ${ajvVerdict}: ${ajv.errorsText(schemaValid.errors)}`,
      );
    }
    total += files.length;
  });
}

Deno.test("schema agreement: the corpus has at least 60 files", () => {
  assert.ok(total >= 60, `only ${total} corpus files`);
});

Deno.test("schemas: every object forbids additional properties and every property is described", () => {
  for (const kind of Object.keys(validators)) {
    const schema = JSON.parse(Deno.readTextFileSync(new URL(`${kind}.schema.json`, SCHEMAS)));
    const visit = (node: unknown, path: string): void => {
      if (typeof node !== "object" || node === null) return;
      const record = node as Record<string, unknown>;
      if (record.type === "object") {
        assert.equal(record.additionalProperties, false, `${kind}${path}: additionalProperties`);
      }
      for (const [key, value] of Object.entries(record)) visit(value, `${path}/${key}`);
    };
    visit(schema, "");
    assert.equal(typeof schema.description, "string");
  }
});
