/**
 * The runner's archive hook (`RawCapture` in `lib/run/runner.ts`), in
 * process with fake captures: every chunk reaches the capture, the marker
 * names an id only when the commit returned it, `unarchived` says no copy
 * exists, `failed` restores the exact raw bytes, and the status never moves.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { ReductionRule } from "../lib/rules/model.ts";
import {
  type ByteSink,
  type CaptureOutcome,
  NO_ARCHIVE,
  type RawCapture,
  runReduced,
} from "../lib/run/runner.ts";
import { concatBytes } from "./_bytes.ts";

const decoder = new TextDecoder();

function sink(): ByteSink & { bytes(): Uint8Array } {
  const parts: Uint8Array[] = [];
  return {
    write: (bytes) => void parts.push(bytes.slice()),
    bytes: () => concatBytes(parts),
  };
}

const POLICY = {
  headLines: 2,
  tailLines: 1,
  maxLineBytes: 256,
  maxOutputBytes: 1024,
  minSavingsBytes: 0,
};
const RULE: ReductionRule = {
  id: "test.capture",
  action: "reduce",
  match: { programs: ["sh"], argvPrefix: [], argvContainsAll: [] },
  reducer: { kind: "head_tail" },
  success: POLICY,
  failure: POLICY,
};

/** A capture that records what it is given and commits to `outcome`. */
function fakeCapture(outcome: CaptureOutcome) {
  const kept = { stdout: sink(), stderr: sink() };
  let closed = 0;
  let commits = 0;
  const shown: number[] = [];
  const capture: RawCapture = {
    write: (stream, chunk) => kept[stream].write(chunk),
    commit: () => {
      commits += 1;
      return Promise.resolve(outcome);
    },
    restore: (stream, write) => write(kept[stream].bytes()),
    shown: (chars) => void shown.push(chars),
    close: () => void (closed += 1),
  };
  return { capture, kept, closed: () => closed, commits: () => commits, shown };
}

const SCRIPT = (count: number, code: number) => [
  "sh",
  "-c",
  `i=1; while [ $i -le ${count} ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done; exit ${code}`,
];

async function run(count: number, code: number, capture?: RawCapture) {
  const out = sink(), err = sink();
  const status = await runReduced(SCRIPT(count, code), RULE, { stdout: out, stderr: err }, capture);
  return { status, stdout: decoder.decode(out.bytes()), stderr: decoder.decode(err.bytes()) };
}

function expectedRaw(prefix: string, count: number): string {
  let text = "";
  for (let i = 1; i <= count; i++) text += `${prefix} ${i}\n`;
  return text;
}

Deno.test("archived: every raw byte reached the capture and the markers name the id", async () => {
  const fake = fakeCapture({ kind: "archived", id: "8f2c1a0b" });
  const result = await run(200, 3, fake.capture);
  assert.equal(result.status, 3);
  assert.equal(decoder.decode(fake.kept.stdout.bytes()), expectedRaw("out", 200));
  assert.equal(decoder.decode(fake.kept.stderr.bytes()), expectedRaw("err", 200));
  assert.match(result.stdout, /· exact: yarp read 8f2c1a0b · --grep TEXT · --lines A:B\]/);
  assert.match(result.stderr, /· exact: yarp read 8f2c1a0b · --grep TEXT · --lines A:B\]/);
  assert.equal(fake.commits(), 1);
  assert.equal(fake.closed(), 1);
  assert.deepEqual(
    fake.shown,
    [result.stdout.length + result.stderr.length],
    "shown once, exactly",
  );
});

Deno.test("unarchived (archive off or spool failed): the markers say no exact copy was kept", async () => {
  for (
    const capture of [NO_ARCHIVE, fakeCapture({ kind: "unarchived", reason: "disk full" }).capture]
  ) {
    const result = await run(200, 0, capture);
    assert.equal(result.status, 0);
    assert.match(result.stdout, /· no exact copy was kept\]/);
    assert.doesNotMatch(result.stdout + result.stderr, /yarp read/);
  }
});

Deno.test("failed commit: the exact raw streams are restored, then one line says why", async () => {
  const fake = fakeCapture({ kind: "failed", reason: "archive /x.db: file is not a database" });
  const result = await run(200, 7, fake.capture);
  assert.equal(result.status, 7);
  assert.equal(result.stdout, expectedRaw("out", 200));
  assert.equal(
    result.stderr,
    expectedRaw("err", 200) +
      "yarp: archive /x.db: file is not a database; the output above is exact and was not archived\n",
  );
  assert.equal(fake.closed(), 1);
  assert.deepEqual(fake.shown, [], "nothing is recorded as shown without a commit");
});

Deno.test("a spawn failure still closes the capture and never commits", async () => {
  const fake = fakeCapture({ kind: "archived", id: "deadbeef" });
  const err = sink();
  const status = await runReduced(
    ["yarp-no-such-program-q"],
    RULE,
    { stdout: sink(), stderr: err },
    fake.capture,
  );
  assert.equal(status, 127);
  assert.equal(fake.commits(), 0);
  assert.equal(fake.closed(), 1);
});

Deno.test("property: the output names an id only when that id was committed", async () => {
  const outcome = fc.oneof(
    fc.record({ kind: fc.constant("archived" as const), id: fc.stringMatching(/^[0-9a-f]{8}$/) }),
    fc.record({ kind: fc.constant("unarchived" as const), reason: fc.constant("off") }),
    fc.record({ kind: fc.constant("failed" as const), reason: fc.constant("broken") }),
  );
  await fc.assert(
    fc.asyncProperty(
      outcome,
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 0, max: 3 }),
      async (o, count, code) => {
        const fake = fakeCapture(o);
        const result = await run(count, code, fake.capture);
        assert.equal(result.status, code);
        const named = [...(result.stdout + result.stderr).matchAll(/yarp read ([0-9a-f]+)/g)].map((
          m,
        ) => m[1]);
        if (o.kind === "archived") { for (const id of named) assert.equal(id, o.id); }
        else assert.deepEqual(named, []);
        if (o.kind === "failed") assert.equal(result.stdout, expectedRaw("out", count));
      },
    ),
    { numRuns: 40 },
  );
});

Deno.test("a capture opened after the spawn still receives every byte, and is closed once", async () => {
  const fake = fakeCapture({ kind: "archived", id: "0badcafe" });
  let opens = 0;
  const out = sink(), err = sink();
  const status = await runReduced(SCRIPT(3000, 4), RULE, { stdout: out, stderr: err }, () => {
    opens += 1;
    // Open slowly: the child has filled its pipes by now, and no chunk may be lost meanwhile.
    return new Promise((resolve) => setTimeout(() => resolve(fake.capture), 50));
  });
  assert.equal(status, 4);
  assert.equal(opens, 1);
  assert.equal(decoder.decode(fake.kept.stdout.bytes()), expectedRaw("out", 3000));
  assert.equal(decoder.decode(fake.kept.stderr.bytes()), expectedRaw("err", 3000));
  assert.match(
    decoder.decode(out.bytes()),
    /· exact: yarp read 0badcafe --max-bytes 28k · --grep TEXT · --lines A:B\]/,
  );
  assert.equal(fake.commits(), 1);
  assert.equal(fake.closed(), 1);
});

Deno.test("a capture that fails to open keeps nothing and names no id; a spawn failure never opens one", async () => {
  const out = sink(), err = sink();
  const status = await runReduced(
    SCRIPT(200, 0),
    RULE,
    { stdout: out, stderr: err },
    () => Promise.reject(new Error("no sqlite here")),
  );
  assert.equal(status, 0);
  assert.match(decoder.decode(out.bytes()), /· no exact copy was kept\]/);
  assert.doesNotMatch(decoder.decode(out.bytes()) + decoder.decode(err.bytes()), /yarp read/);
  let opens = 0;
  const missing = await runReduced(
    ["yarp-no-such-program-q"],
    RULE,
    { stdout: sink(), stderr: sink() },
    () => {
      opens += 1;
      return Promise.resolve(NO_ARCHIVE);
    },
  );
  assert.equal(missing, 127);
  assert.equal(opens, 0);
});

Deno.test("a reducer that cannot be created: each stream is relayed exactly, nothing is kept", async () => {
  // A malformed pattern (no validated pack holds one) makes the line filter's constructor throw.
  const broken = {
    ...RULE,
    reducer: { kind: "line_filter", drop: [null], keep: [], stripAnsi: false },
  } as unknown as ReductionRule;
  let opens = 0;
  const fake = fakeCapture({ kind: "archived", id: "feedf00d" });
  const out = sink(), err = sink();
  const status = await runReduced(SCRIPT(3000, 5), broken, { stdout: out, stderr: err }, () => {
    opens += 1;
    return Promise.resolve(fake.capture);
  });
  assert.equal(status, 5);
  assert.equal(decoder.decode(out.bytes()), expectedRaw("out", 3000));
  assert.equal(decoder.decode(err.bytes()), expectedRaw("err", 3000));
  assert.equal(fake.commits(), 0);
  assert.equal(decoder.decode(fake.kept.stdout.bytes()), "");
  assert.ok(opens <= 1);
  assert.equal(fake.closed(), opens);
});
