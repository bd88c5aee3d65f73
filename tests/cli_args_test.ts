/**
 * The shared CLI argument parser (lib/cli/_args.ts) as a specification: a
 * table of argv → parsed result or one-line error, and properties that it
 * never throws and returns everything after the first `--` verbatim.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ArgSpec, parseArgs } from "../lib/cli/_args.ts";

const SPEC: ArgSpec = {
  flags: ["--json"],
  options: ["--limit", "--output"],
  repeatable: ["--rule-pack"],
  aliases: { "-o": "--output" },
};

/** The parsed result as plain data, so a table row can state it. */
interface Plain {
  positionals?: string[];
  flags?: string[];
  values?: Record<string, string>;
  lists?: Record<string, string[]>;
  rest?: string[];
}

function plain(args: string[]): Plain | { error: string } {
  return plainOf(parseArgs(args, SPEC));
}

function plainOf(parsed: ReturnType<typeof parseArgs>): Plain | { error: string } {
  if ("error" in parsed) return parsed;
  const out: Plain = {};
  if (parsed.positionals.length > 0) out.positionals = [...parsed.positionals];
  if (parsed.flags.size > 0) out.flags = [...parsed.flags].sort();
  if (parsed.values.size > 0) out.values = Object.fromEntries(parsed.values);
  if (parsed.lists.size > 0) {
    out.lists = Object.fromEntries([...parsed.lists].map(([k, v]) => [k, [...v]]));
  }
  if (parsed.rest !== undefined) out.rest = [...parsed.rest];
  return out;
}

const TABLE: [string[], Plain | { error: string }][] = [
  [[], {}],
  [["a", "-", "b"], { positionals: ["a", "-", "b"] }],
  [["--json", "--json"], { flags: ["--json"] }],
  [["--limit", "3"], { values: { "--limit": "3" } }],
  [["--limit=3"], { values: { "--limit": "3" } }],
  [["--limit="], { values: { "--limit": "" } }],
  [["--limit", ""], { values: { "--limit": "" } }],
  [["--limit=-1"], { values: { "--limit": "-1" } }],
  [["--limit", "-1"], { values: { "--limit": "-1" } }], // a negative number is a value
  [["--limit", "-5x"], { values: { "--limit": "-5x" } }], // and left to the command's own check
  [["--limit=a=b"], { values: { "--limit": "a=b" } }],
  [["-o", "f.yrp"], { values: { "--output": "f.yrp" } }],
  [["-o=f.yrp"], { values: { "--output": "f.yrp" } }],
  [
    ["--rule-pack", "a", "x", "--rule-pack=b", "--rule-pack", "a"],
    { positionals: ["x"], lists: { "--rule-pack": ["a", "b", "a"] } },
  ],
  [["--"], { rest: [] }],
  [["a", "--", "--json", "--", "--bogus"], {
    positionals: ["a"],
    rest: ["--json", "--", "--bogus"],
  }],
  [["--json", "--", ""], { flags: ["--json"], rest: [""] }],
  [["--bogus"], { error: "unknown option '--bogus'" }],
  [["--bogus=1"], { error: "unknown option '--bogus'" }],
  [["-v"], { error: "unknown option '-v'" }],
  [["--Json"], { error: "unknown option '--Json'" }],
  [["--json=1"], { error: "option '--json' takes no value" }],
  [["--limit"], { error: "option '--limit' needs a value" }],
  [["--limit", "-x"], { error: "option '--limit' needs a value" }],
  [["--limit", "--", "x"], { error: "option '--limit' needs a value" }],
  [["-o"], { error: "option '-o' needs a value" }],
  [["--rule-pack", "--json"], { error: "option '--rule-pack' needs a value" }],
  [["--limit", "1", "--limit=2"], { error: "--limit: given more than once" }],
  [["-o", "a", "--output", "b"], { error: "--output: given more than once" }],
  [["--bogus", "--limit"], { error: "unknown option '--bogus'" }],
  [["--", "--bogus"], { rest: ["--bogus"] }],
];

Deno.test("parseArgs: table of argv → result or one-line error", () => {
  for (const [args, expected] of TABLE) {
    assert.deepEqual(plain(args), expected, JSON.stringify(args));
  }
});

Deno.test("parseArgs: an empty spec takes only positionals and --", () => {
  assert.deepEqual(parseArgs(["--json"], {}), { error: "unknown option '--json'" });
  const parsed = parseArgs(["a", "--", "-b"], {});
  assert.ok(!("error" in parsed));
  assert.deepEqual(parsed.positionals, ["a"]);
  assert.deepEqual(parsed.rest, ["-b"]);
});

Deno.test("parseArgs: dashOperands makes single-dash words positionals, never '--' words", () => {
  const spec = { flags: ["--json"], dashOperands: true };
  assert.deepEqual(plainOf(parseArgs(["-minus", "x", "--json", "-"], spec)), {
    positionals: ["-minus", "x", "-"],
    flags: ["--json"],
  });
  assert.deepEqual(parseArgs(["--bogus"], spec), { error: "unknown option '--bogus'" });
});

Deno.test("parseArgs: an unknown option is quoted on one line, cut at 80 characters", () => {
  assert.deepEqual(parseArgs(["--a\nb"], {}), { error: "unknown option '--a\\x0ab'" });
  const long = `--${"x".repeat(200)}`;
  assert.deepEqual(parseArgs([long], {}), {
    error: `unknown option '${long.slice(0, 80)}… (202 characters)'`,
  });
});

Deno.test("parseArgs: alias keys are own keys only", () => {
  assert.deepEqual(parseArgs(["-constructor"], SPEC), { error: "unknown option '-constructor'" });
  assert.deepEqual(parseArgs(["--__proto__"], SPEC), { error: "unknown option '--__proto__'" });
});

/** Words that look like what a user types: options, values, `--`, `-`, `=`. */
const word = fc.oneof(
  fc.constantFrom(
    "--",
    "-",
    "--json",
    "--json=",
    "--limit",
    "--limit=5",
    "--output",
    "-o",
    "--rule-pack",
    "--rule-pack=p",
    "--bogus",
    "-x",
    "",
    "=",
  ),
  fc.string({ maxLength: 6 }),
);

Deno.test("parseArgs: never throws, never changes args, and returns what follows the first -- verbatim", () => {
  fc.assert(
    fc.property(fc.array(word, { maxLength: 12 }), (args) => {
      const copy = [...args];
      const parsed = parseArgs(args, SPEC);
      assert.deepEqual(args, copy);
      if ("error" in parsed) {
        assert.equal(typeof parsed.error, "string");
        assert.ok(!parsed.error.includes("\n"));
        return;
      }
      const separator = args.indexOf("--");
      assert.deepEqual(parsed.rest, separator === -1 ? undefined : args.slice(separator + 1));
      for (const positional of parsed.positionals) {
        assert.ok(positional === "-" || !positional.startsWith("-"), positional);
      }
    }),
    { numRuns: 2000 },
  );
});

Deno.test("parseArgs: never throws on arbitrary strings and any spec", () => {
  const name = fc.string({ maxLength: 5 }).map((s) => `--${s}`);
  fc.assert(
    fc.property(
      fc.array(fc.string({ maxLength: 8 }), { maxLength: 10 }),
      fc.array(name, { maxLength: 3 }),
      fc.array(name, { maxLength: 3 }),
      fc.array(name, { maxLength: 3 }),
      (args, flags, options, repeatable) => {
        const parsed = parseArgs(args, { flags, options, repeatable });
        if ("error" in parsed) return;
        const separator = args.indexOf("--");
        assert.deepEqual(parsed.rest, separator === -1 ? undefined : args.slice(separator + 1));
      },
    ),
  );
});
