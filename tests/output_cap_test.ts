/**
 * The global output cap (lib/reduce/output_cap.ts) and where
 * `reduceFinishedResult` applies it (docs/shell.md, "Global output cap"):
 * properties of the renderer (bounded, never grows, kept lines are the
 * input's own lines in order, mandatory lines always survive, diagnostics up
 * to the bound) and a decision table of the host result path (unknown
 * programs capped, and sources with globs or expansions whose other words
 * show no exact form; guards, file reads (also run through `ssh`, `xargs`
 * or `docker exec`), exact programs, structured output, opaque programs or
 * arguments of a program with guards, small results, a missing exact copy
 * and a switched-off cap are not; host notices survive typed reductions).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { capOutput, DEFAULT_OUTPUT_CAP, type OutputCapPolicy } from "../lib/reduce/output_cap.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import { loadShellParser } from "../lib/shell/mod.ts";
import { reduceFinishedResult } from "../lib/shell/finished_result.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const archived = { kind: "archived", id: "0c0ffee0" } as const;
const small: OutputCapPolicy = {
  thresholdBytes: 64,
  headLines: 3,
  tailLines: 2,
  headBytes: 1 << 20,
  tailBytes: 1 << 20,
  evidenceLines: 4,
  contextLines: 4,
  maxLineBytes: 40,
  maxEvidenceLineBytes: 80,
};

const line = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 60 }).map((s) => s.replaceAll("\n", " ")) },
  { weight: 1, arbitrary: fc.constantFrom("error: boom", "FAILED x", "src/a.rs:1:2 warning") },
  { weight: 1, arbitrary: fc.constantFrom("... [12 lines truncated] ...", "Exit code 3") },
);

Deno.test("property: the cap is bounded, never grows, keeps input lines in order", () => {
  fc.assert(
    fc.property(fc.array(line, { maxLength: 200 }), (lines) => {
      const input = encoder.encode(lines.join("\n") + "\n");
      const capped = capOutput(input, small, archived);
      if (!capped.changed) {
        assert.equal(capped.bytes, input);
        return;
      }
      assert.ok(capped.bytes.length < input.length);
      const out = decoder.decode(capped.bytes).split("\n");
      assert.equal(out.pop(), "");
      assert.match(
        out.at(-1)!,
        /^\[yarp: kept \d+ of .* exact: yarp read 0c0ffee0 · --grep TEXT · --lines A:B\]$/,
      );
      // every kept line is an input line (or its cut prefix) in source order
      let at = 0;
      const mandatory = lines.filter((l) => /truncated\]|^Exit code/.test(l)).length;
      for (const kept of out.slice(0, -1)) {
        if (kept.startsWith("[yarp: … ")) continue;
        const plain = kept.replace(/…\[yarp: [\d,]+ bytes? of this line omitted\]$/, "");
        while (at < lines.length && !lines[at].startsWith(plain)) at++;
        assert.ok(at < lines.length, `not an input line in order: ${JSON.stringify(kept)}`);
        at++;
      }
      const body = out.slice(0, -1).filter((l) => !l.startsWith("[yarp: … "));
      assert.ok(body.length <= small.headLines + small.tailLines + small.evidenceLines + mandatory);
    }),
  );
});

Deno.test("property: host notices and exit notices always survive the cap", () => {
  fc.assert(
    fc.property(fc.array(line, { minLength: 20, maxLength: 300 }), (lines) => {
      const input = encoder.encode(lines.join("\n"));
      const out = decoder.decode(capOutput(input, small, archived).bytes).split("\n");
      for (const notice of lines.filter((l) => /truncated\] \.\.\.$|^Exit code 3$/.test(l))) {
        assert.ok(out.includes(notice), notice);
      }
    }),
  );
});

Deno.test("the cap keeps every diagnostic up to its bound, and counts what it omits", () => {
  const lines = Array.from({ length: 1000 }, (_, i) => `plain line ${i}`);
  for (let i = 100; i < 110; i++) lines[i * 5] = `error[E${i}]: mismatched types`;
  lines[700] = "\x1b[31mFAILED\x1b[0m tests::colour";
  const input = encoder.encode(lines.join("\n") + "\n");
  const text = decoder.decode(capOutput(input, DEFAULT_OUTPUT_CAP, archived).bytes);
  for (let i = 100; i < 110; i++) assert.ok(text.includes(`error[E${i}]: mismatched types\n`));
  assert.ok(text.includes("\x1b[31mFAILED\x1b[0m tests::colour\n"), "classified without ANSI");
  assert.ok(text.startsWith("plain line 0\n") && text.includes("plain line 999\n"));
  const { headLines, tailLines } = DEFAULT_OUTPUT_CAP;
  const kept = headLines + tailLines + 11;
  assert.ok(text.includes(`[yarp: kept ${kept} of 1,000 lines · omitted ${1000 - kept} lines `));
  const bounded = capOutput(input, { ...DEFAULT_OUTPUT_CAP, evidenceLines: 3 }, archived);
  assert.equal(bounded.keptLines, headLines + tailLines + 3);
  const under = encoder.encode("short\n");
  assert.equal(capOutput(under, DEFAULT_OUTPUT_CAP, archived).changed, false);
});

Deno.test("property: head and tail keep within their byte budgets, the first and last line always", () => {
  // Lines of x, q, digits and blanks: no diagnostic, summary or location, so only head and tail stay.
  const plain = fc.stringMatching(/^[xq0-9 ]{0,90}$/);
  fc.assert(
    fc.property(
      fc.array(plain, { minLength: 30, maxLength: 120 }),
      fc.integer({ min: 0, max: 400 }),
      fc.integer({ min: 0, max: 400 }),
      (lines, headBytes, tailBytes) => {
        const policy = { ...small, headLines: 8, tailLines: 8, headBytes, tailBytes };
        const input = encoder.encode(lines.join("\n") + "\n");
        const capped = capOutput(input, policy, archived);
        if (!capped.changed) return;
        const out = decoder.decode(capped.bytes).split("\n").slice(0, -2); // no marker, no end
        const gap = out.findIndex((l) => l.startsWith("[yarp: … "));
        assert.ok(gap > 0, "the first line is kept and a gap follows the head");
        const last = out.findLastIndex((l) => l.startsWith("[yarp: … "));
        const [head, tail] = [out.slice(0, gap), out.slice(last + 1)];
        assert.ok(tail.length >= 1 && tail.at(-1) === lines.at(-1), "the last line is kept");
        const size = (kept: string[]) =>
          kept.reduce((sum, l) => sum + encoder.encode(l).length + 1, 0);
        assert.ok(head.length <= 8 && tail.length <= 8);
        assert.ok(
          head.length === 1 || size(head) <= headBytes,
          `head ${size(head)} > ${headBytes}`,
        );
        assert.ok(
          tail.length === 1 || size(tail) <= tailBytes,
          `tail ${size(tail)} > ${tailBytes}`,
        );
        assert.equal(gap, last, "nothing is kept between head and tail");
      },
    ),
  );
});

Deno.test("context lines are bounded apart from diagnostics, which keep the whole evidence budget", () => {
  const lines = Array.from({ length: 600 }, (_, i) => `src/mod_${i}.ts:${i}: see here`);
  for (let i = 0; i < 5; i++) lines[200 + i * 50] = `error: failure ${i}`;
  const input = encoder.encode(lines.join("\n") + "\n");
  const policy = { ...DEFAULT_OUTPUT_CAP, headLines: 10, tailLines: 20, contextLines: 12 };
  const capped = capOutput(input, policy, archived);
  const text = decoder.decode(capped.bytes);
  for (let i = 0; i < 5; i++) assert.ok(text.includes(`error: failure ${i}\n`));
  assert.equal(capped.keptLines, 10 + 20 + 5 + 12);
  assert.ok(
    text.includes("src/mod_10.ts:10: see here\n"),
    "the first located lines are the ones kept",
  );
  assert.ok(!text.includes("src/mod_30.ts:30: see here\n"));
});

Deno.test("a long line is cut at a character boundary with the shared marker", () => {
  const input = encoder.encode("é".repeat(5000) + "\n" + "x\n".repeat(10));
  const out = decoder.decode(capOutput(input, small, archived).bytes);
  assert.ok(!out.includes("\uFFFD"));
  assert.match(out, /^(?:é){20}…\[yarp: 9,960 bytes of this line omitted\]\n/);
});

const parser = await loadShellParser();
const registry = createRuleRegistry([builtinRuleSource()]);

async function decide(
  command: string,
  text: string,
  options: { cap?: OutputCapPolicy | null; copy?: boolean } = {},
) {
  const { report, output } = await reduceFinishedResult(
    command,
    encoder.encode(text),
    1,
    parser,
    registry,
    {
      obtain: () =>
        Promise.resolve(options.copy === false ? { reason: "archive-off" } : { id: "0c0ffee0" }),
    },
    options.cap === undefined ? {} : { cap: options.cap },
  );
  return { reasons: report.reasons.join(","), output: decoder.decode(output) };
}

const BIG = Array.from({ length: 3000 }, (_, i) => `line ${i} of output`).join("\n") + "\n";

Deno.test("the host result path caps only results no rule reduces and no stage makes exact", async () => {
  const table: [string, string][] = [
    ["sbt -q test", "capped,unknown-program"],
    ["cd app && ./run_all.sh build", "capped,unknown-program"],
    ["timeout 60 terraform plan", "capped,unknown-program"],
    ["python3 script.py", "capped,no-rule-matched"],
    ["cat notes.txt", "transform-without-input"],
    ["echo start && sbt test", "guarded"],
    ["sed -n 1,3000p big.c", "guarded"],
    ["/usr/bin/sha256sum big.iso", "unknown-program"],
    ["kubectl get pods -o json", "guarded"],
    ["terraform show -json", "unknown-program"],
    ["shellcheck -f json1 lib.sh", "unknown-program"], // a format name as an option's value
    ["./lint -Fxml src", "unknown-program"],
    ["./lint -f compact src", "capped,unknown-program"],
    ["./find_refs -e json src", "unknown-program"], // read as a format: exact, the safe side
    ["gh pr list --json number", "guarded"],
    ["docker logs --follow web", "guarded"],
    ["sbt test | tail -100", "unknown-program"],
    ["sbt test && cat log.txt", "unknown-program"],
    ["PATH=/x:/y sbt test", "capped,unknown-program"],
    ["LD_PRELOAD=/x.so sbt test", "assignment-output"],
    ["git status --porcelain", "guarded"],
    ["sbt test $(x)", "capped,parse:expansion"],
    ["./gen.sh *.txt", "capped,parse:glob"],
    ["cd ~/app && ./gen.sh", "capped,parse:glob"],
    ["cat $LOG", "parse:expansion"],
    ["$CMD build", "parse:expansion"],
    ["ls *.txt", "parse:glob"],
    ["sudo ./gen.sh *.txt", "parse:glob"],
    ["LANG=C ./gen.sh $X", "parse:expansion"],
    ['bash -c "./gen.sh $X"', "parse:expansion"],
    ["./gen.sh --json *.txt", "parse:glob"],
    ["ssh $HOST cat big.log", "parse:expansion"],
    ["ssh host cat big.log", "unknown-program"],
    ["ssh host 'journalctl -u app | tail -50'", "unknown-program"],
    ["ssh host journalctl -u app", "capped,unknown-program"],
    ["ls | xargs cat", "unknown-program"],
    ["docker exec web cat /var/log/app.log", "no-rule-matched"],
    ["su - dev -c 'sed -n 1,9p x'", "guarded"], // the literal is planned: sed is exact
    ["bash -c 'sbt test'", "capped,unknown-program"],
    ["bash -c 'yarp read 1234'", "guarded"],
  ];
  const wrong: string[] = [];
  for (const [command, expected] of table) {
    const { reasons } = await decide(command, BIG);
    if (reasons !== expected) wrong.push(`${command}: ${reasons}, expected ${expected}`);
  }
  assert.deepEqual(wrong, []);
  assert.equal((await decide("sbt test", "small\n")).reasons, "unknown-program");
  assert.equal((await decide("sbt test", BIG, { cap: null })).reasons, "unknown-program");
  assert.equal(
    (await decide("sbt test", BIG, { copy: false })).reasons,
    "unknown-program,archive-off",
  );
  const capped = await decide("sbt test", BIG);
  // The built-in shape (docs/rules.md, "The global output cap's size"): the first 10 lines and
  // the last 20, nothing between them for a result with no diagnostics.
  const kept = capped.output.split("\n").filter((line) => line.startsWith("line "));
  assert.deepEqual(kept, [
    ...Array.from({ length: 10 }, (_, i) => `line ${i} of output`),
    ...Array.from({ length: 20 }, (_, i) => `line ${2980 + i} of output`),
  ]);
  // 3,000 lines: more than one page, so the marker names the paged form.
  assert.ok(
    capped.output.endsWith(
      "exact: yarp read 0c0ffee0 --max-bytes 28k · --grep TEXT · --lines A:B]\n",
    ),
  );
});

Deno.test("a typed reduction keeps the host's truncation notice, else the cap does", async () => {
  const lines = Array.from({ length: 4000 }, (_, i) => `test t${i} ... ok`);
  lines[2000] = "... [1200 lines truncated] ...";
  const { reasons, output } = await decide("cargo test", lines.join("\n") + "\n");
  assert.ok(output.includes("... [1200 lines truncated] ...\n"), reasons);
  assert.ok(reasons === "reduced,status:complete" || reasons === "capped,host-notice", reasons);
});

Deno.test("the cap is configurable: --output-cap BYTES|off and the config's output_cap", async () => {
  const { parseResultReduceArgs } = await import("../lib/cli/result_reduce.ts");
  const { parseConfig } = await import("../lib/config/config.ts");
  const args = (...extra: string[]) => parseResultReduceArgs(["--command", "sbt", ...extra]);
  assert.equal((args("--output-cap", "off") as { outputCap?: unknown }).outputCap, "off");
  assert.equal((args("--output-cap", "16384") as { outputCap?: unknown }).outputCap, 16384);
  assert.equal((args() as { outputCap?: unknown }).outputCap, undefined);
  assert.deepEqual(args("--output-cap", "0"), {
    error: "--output-cap: expected 'off' or a positive byte count, got '0'",
  });
  const config = await parseConfig(
    "output_cap:\n  enabled: false\n  threshold_bytes: 4096\n",
    "c",
    "/h",
  );
  assert.ok(config.ok);
  assert.deepEqual(config.config.outputCap, { enabled: false, thresholdBytes: 4096 });
  assert.deepEqual(await parseConfig("output_cap:\n  enabled: 3\n", "c", "/h"), {
    ok: false,
    error: "config c:2: output_cap.enabled: expected true or false",
  });
  assert.deepEqual(await parseConfig("output_cap:\n  size: 3\n", "c", "/h"), {
    ok: false,
    error: "config c:2: unknown field 'output_cap.size'",
  });
  const none = await parseConfig("rules:\n  packs: []\n", "c", "/h");
  assert.ok(none.ok && none.config.outputCap === undefined);
});
