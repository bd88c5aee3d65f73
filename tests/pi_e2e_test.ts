/**
 * End to end: the YARP extension inside a real Pi (0.73.1 on Node 20 and
 * 1.6.0 on Node 22), driven by the scripted model server on 127.0.0.1,
 * asserting on what the model received (scenarios a–j). One Pi
 * process per scenario group; the Pi installs are shared in `.cache/`.
 *
 * Set `YARP_PI_E2E=off` to skip (e.g. offline without a cached install).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  FIXTURES,
  makeProject,
  ModelServer,
  pi073,
  pi16,
  type PiInstall,
  type PiRun,
  ROOT,
  runPi,
  sh,
  type Step,
  yarpIn,
} from "./_pi_e2e.ts";

const ENABLED = Deno.env.get("YARP_PI_E2E") !== "off";

const bash = (command: string): Step => ({
  tool_calls: [{ name: "bash", arguments: { command } }],
});

/** The main scenario script: (a), (b), (c), (d)+(i), (g), then `/yarp` (j). */
const MAIN_SCRIPT: Step[] = [
  bash("git log"),
  bash("yarp read {{marker_id}}"),
  bash("grep -rn needle . | head -500"),
  bash("seq 1 5"),
  bash("seq 1 100000"),
  bash("cd nt && npm test"),
  { tool_calls: [{ name: "exec_command", arguments: { cmd: "git log" } }] },
  bash("cat src/f1.txt"),
  bash("sed -n 1,5p src/f2.txt"),
  { text: "done" },
];

const MARKER = /\[yarp: kept [^\]\n]* · exact: yarp read ([0-9a-f]+)[ \]]/;

function markerId(text: string): string {
  const match = MARKER.exec(text);
  assert.ok(match !== null, `no YARP marker in: ${text.slice(-300)}`);
  return match[1];
}

interface Fixture {
  readonly scratch: string;
  readonly project: string;
  readonly server: ModelServer;
}

async function fixture(): Promise<Fixture> {
  const scratch = await Deno.makeTempDir({ prefix: "yarp-pi-e2e-" });
  const project = join(scratch, "project");
  await makeProject(project, 300);
  const server = await ModelServer.start(scratch);
  return { scratch, project, server };
}

/** Runs `body` with a new fixture; then stops its model server and removes its scratch directory. */
async function withFixture(body: (fx: Fixture) => Promise<void>): Promise<void> {
  const fx = await fixture();
  try {
    await body(fx);
  } finally {
    await fx.server.stop();
    await Deno.remove(fx.scratch, { recursive: true });
  }
}

/** Registers a Pi end-to-end test: ignored when YARP_PI_E2E=off, run without the resource and op sanitizers. */
function piTest(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, ignore: !ENABLED, sanitizeResources: false, sanitizeOps: false, fn });
}

const exec = join(FIXTURES, "exec_command_tool.ts");

/** Characters the model received, per scenario step, for the closing note. */
const measured: { label: string; withYarp: number[]; without: number[] }[] = [];

async function mainScenarios(pi: PiInstall, fx: Fixture): Promise<void> {
  const scratch = join(fx.scratch, pi.label.replaceAll(" ", "-"));
  const withYarp = await runPi({
    pi,
    server: fx.server,
    cwd: fx.project,
    script: MAIN_SCRIPT,
    scratch,
    extensions: [exec],
    more: ["/yarp", "/yarp doctor"],
  });
  assert.equal(withYarp.code, 0, withYarp.stderr);
  const without = await runPi({
    pi,
    server: fx.server,
    cwd: fx.project,
    script: MAIN_SCRIPT,
    scratch: `${scratch}-plain`,
    yarp: false,
    extensions: [exec],
  });
  assert.equal(without.code, 0, without.stderr);
  const got = withYarp.toolTexts.map(samePath);
  const raw = without.toolTexts.map(samePath);
  assert.equal(got.length, 9);
  measured.push({
    label: pi.label,
    withYarp: got.map((t) => t.length),
    without: raw.map((t) => t.length),
  });

  // (a) git log is rewritten and reduced; `yarp read ID` gives the exact bytes back, unreduced.
  const logId = markerId(got[0]);
  assert.ok(got[0].length < raw[0].length / 4, "git log reduced");
  const exactLog = new TextDecoder().decode(await yarpIn(scratch, fx.project, ["read", logId]));
  const gitLog = await sh(fx.project, "git log");
  assert.equal(exactLog, gitLog);
  assert.ok(!got[1].includes("[yarp:"), "yarp read is never reduced again");
  assert.equal(got[1], raw[0], "the model's yarp read got what plain git log shows, byte for byte");
  assert.ok(got[1].includes("change number 2: adjust the counter"));
  assert.ok(got[1].includes("initial project"));

  // (b) the pipeline is reduced through result-reduce, with an archived copy.
  const grepId = markerId(got[2]);
  assert.ok(got[2].length < raw[2].length);
  const exactGrep = new TextDecoder().decode(await yarpIn(scratch, fx.project, ["read", grepId]));
  assert.equal(exactGrep.trimEnd(), raw[2].trimEnd());

  // (c) an unknown command's small result reaches the model unchanged …
  assert.equal(got[3], raw[3]);
  // … and a large one gets the global cap with a recovery marker.
  markerId(got[4]);
  assert.ok(got[4].includes("\n1\n") || got[4].startsWith("1\n"), "head kept");
  assert.ok(got[4].includes("100000"), "tail kept");

  // (d) the failing test run keeps every failing test name and assertion line, and Pi's exit notice;
  // (i) its full output, which Pi named only in its notice, is archived in full.
  for (
    const line of ["not ok 601 - subtracts negative numbers", "not ok 602 - divides by zero safely"]
  ) {
    assert.ok(got[5].includes(line), line);
  }
  for (const line of ["expected: 7", "actual: 8", "expected: 0", "actual: Infinity"]) {
    assert.ok(got[5].includes(line), line);
  }
  assert.ok(got[5].endsWith("Command exited with code 1"));
  assert.ok(raw[5].includes("Full output: "), "Pi truncated the failing run");
  const testId = markerId(got[5]);
  const exactTest = new TextDecoder().decode(await yarpIn(scratch, fx.project, ["read", testId]));
  for (const n of [1, 300, 600]) {
    assert.ok(exactTest.includes(`ok ${n} - adds case ${n - 1}\n`), `case ${n}`);
  }
  assert.ok(exactTest.includes("> node --test"), "the head Pi dropped is archived");

  // (g) exec_command with `cmd` is rewritten too.
  const execId = markerId(got[6]);
  assert.ok(got[6].length < raw[6].length / 4);
  // A transform-only and a guarded command run exactly as written.
  assert.equal(got[7], raw[7]);
  assert.equal(got[8], raw[8]);

  // (j) /yarp reports the session.
  const report = withYarp.stderr;
  assert.match(report, /YARP 0\.1\.0: on/);
  assert.match(report, /commands rewritten to yarp run: 2/);
  // What /yarp says Pi saved is what `yarp gain --host pi` says for the same archive (this Pi's only).
  const shown =
    /\(yarp gain --host pi\): (\d+) results reduced, (\d+) → (\d+) characters, saved (-?\d+)\n/
      .exec(report);
  assert.ok(shown !== null, report);
  const gain = JSON.parse(
    new TextDecoder().decode(
      await yarpIn(scratch, fx.project, ["gain", "--json", "--host", "pi"]),
    ),
  ).total;
  assert.deepEqual(shown.slice(1).map(Number), [
    gain.calls,
    gain.chars_before,
    gain.chars_after,
    gain.saved,
  ]);
  assert.ok(gain.calls >= 5, "3 by result-reduce and 2 by yarp run --host pi");
  assert.ok(gain.saved > 0);
  assert.match(report, /result:yarp-command: 1/);
  assert.match(report, /result:wrapped: 2/);
  // Pass-through reasons by code: the extension's pre-check and YARP's own reason codes.
  assert.match(report, /rewrite:compound: 2/, "the pipeline and the && chain start no rewrite");
  assert.match(report, /rewrite:unknown-program: 2/, "yarp rewrite --json's reason for seq");
  // A decline that names its rule is YARP's reason, never a malformed reply.
  assert.match(report, /rewrite:transform-only: 1/, "cat");
  assert.match(report, /rewrite:guarded: 1/, "sed -n");
  assert.doesNotMatch(report, /malformed/);
  // Recent archive ids: the results yarp run reduced and those result-reduce reduced.
  const ids = /recent archive ids: (.*)\n/.exec(report)?.[1].split(", ") ?? [];
  for (const id of [logId, grepId, testId, execId]) assert.ok(ids.includes(id), `${id} in ${ids}`);
  assert.match(report, /archive: .*archive\.sqlite3/);
  assert.match(report, /yarp read ID/);
  assert.match(report, /binary: yarp on PATH: .*\/bin\/yarp\n/, "/yarp doctor names the binary");
}

piTest("pi e2e: scenarios a, b, c, d, g, i, j in Pi 0.73.1 and 1.6.0", async () => {
  await withFixture(async (fx) => {
    await mainScenarios(await pi073(), fx);
    await mainScenarios(await pi16(), fx);
    for (const m of measured) {
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      console.log(
        `${m.label}: model received ${sum(m.withYarp)} characters with YARP, ${
          sum(m.without)
        } without; per call with/without: ${
          m.withYarp.map((n, i) => `${n}/${m.without[i]}`).join(" ")
        }`,
      );
    }
  });
});

/** Runs `git log` twice and `seq 1 5` with the given binary setting. */
async function failOpenRun(pi: PiInstall, fx: Fixture, name: string, env: Record<string, string>) {
  return await runPi({
    pi,
    server: fx.server,
    cwd: fx.project,
    script: [bash("git log"), bash("seq 1 5"), bash("git log"), { text: "done" }],
    scratch: join(fx.scratch, name),
    env,
    more: ["/yarp"],
  });
}

/** Pi's full-output file names differ between runs; compare the texts without them. */
function samePath(text: string): string {
  return text.replace(/Full output: [^\]\n]+\]/g, "Full output: PATH]");
}

function notices(run: PiRun): string[] {
  return run.stderr.split("\n").filter((line) => line.startsWith("YARP disabled"));
}

piTest("pi e2e: a missing, a hanging and another version's yarp fail open (e, h)", async () => {
  await withFixture(async (fx) => {
    const pi = await pi073();
    const plain = await runPi({
      pi,
      server: fx.server,
      cwd: fx.project,
      script: [bash("git log"), bash("seq 1 5"), bash("git log"), { text: "done" }],
      scratch: join(fx.scratch, "plain"),
      yarp: false,
    });
    const real = join(ROOT, "bin/yarp");
    const missing = await failOpenRun(pi, fx, "missing", { YARP_PI_BINARY: "/nonexistent/yarp" });
    const hang = await failOpenRun(pi, fx, "hang", {
      YARP_PI_BINARY: join(FIXTURES, "yarp_hang.sh"),
    });
    const hangRewrite = await failOpenRun(pi, fx, "hang-rewrite", {
      YARP_PI_BINARY: join(FIXTURES, "yarp_hang_rewrite.sh"),
      YARP_REAL: real,
    });
    const other = await failOpenRun(pi, fx, "other-version", {
      YARP_PI_BINARY: join(FIXTURES, "yarp_other_version.sh"),
      YARP_REAL: real,
    });
    for (const run of [missing, hang, hangRewrite, other]) {
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(
        run.toolTexts.map(samePath),
        plain.toolTexts.map(samePath),
        "every command ran exactly as written",
      );
      assert.equal(notices(run).length, 1, run.stderr);
    }
    // (e) a hang costs one timeout (about 2 s), not one per call (three calls would cost 6 s or more;
    // the bound leaves room for a loaded machine).
    assert.ok(hang.ms - missing.ms < 5500, `hang cost ${hang.ms - missing.ms} ms`);
    assert.ok(
      hangRewrite.ms - missing.ms < 5500,
      `rewrite hang cost ${hangRewrite.ms - missing.ms} ms`,
    );
    // (h) a version mismatch disables reduction with one notice and shows in /yarp.
    assert.match(notices(other)[0], /version mismatch: extension 0\.1\.0, binary 9\.9\.9/);
    assert.match(other.stderr, /YARP 0\.1\.0: disabled: version mismatch/);
    assert.match(other.stderr, /rewrite:disabled: 3/);
  });
});

piTest("pi e2e: an untrusted project pack is ignored, a trusted one applies (f)", async () => {
  await withFixture(async (fx) => {
    const project = join(fx.scratch, "packed");
    await Deno.mkdir(join(project, ".yarp"), { recursive: true });
    await yarpIn(fx.scratch, project, [
      "rules",
      "compile",
      join(FIXTURES, "project_pack"),
      "--output",
      join(project, ".yarp/rules.yrp"),
    ]);
    const script = [bash("seq 1 3000"), { text: "done" }];
    for (const pi of [await pi073(), await pi16()]) {
      const scratch = join(fx.scratch, pi.label.replaceAll(" ", "-"));
      const untrusted = await runPi({ pi, server: fx.server, cwd: project, script, scratch });
      assert.equal(untrusted.code, 0, untrusted.stderr);
      assert.ok(!untrusted.toolTexts[0].startsWith("1\n2\n3\n[yarp:"), "untrusted pack ignored");
      await yarpIn(scratch, project, ["trust"]);
      /** The script with the pack in place, then `/yarp` for the extension's report. */
      const reported = () =>
        runPi({ pi, server: fx.server, cwd: project, script, scratch, more: ["/yarp"] });
      const trusted = await reported();
      assert.equal(trusted.code, 0, trusted.stderr);
      assert.match(trusted.toolTexts[0], /^1\n2\n3\n\[yarp: kept 5 of 3,000 lines/);
      assert.match(trusted.stderr, /project pack: passed: .*\.yarp\/rules\.yrp/);
      if (pi.label !== "pi 1.6.0") continue;
      // A changed pack is untrusted again (once: the check is the extension's, not Pi's).
      await Deno.writeFile(join(project, ".yarp/rules.yrp"), new Uint8Array([0]), {
        append: true,
      });
      const changed = await reported();
      assert.ok(!changed.toolTexts[0].startsWith("1\n2\n3\n[yarp:"), "changed pack ignored");
      assert.match(changed.stderr, /changed since 'yarp trust'/);
    }
  });
});

piTest(
  "pi e2e: without yarp on PATH, the checkout's sources run (doctor says so)",
  async () => {
    await withFixture(async (fx) => {
      const path = (Deno.env.get("PATH") ?? "").split(":").filter((dir) =>
        dir !== join(ROOT, "bin")
      );
      const run = await runPi({
        pi: await pi073(),
        server: fx.server,
        cwd: fx.project,
        script: [bash("git log"), bash("yarp read {{marker_id}}"), { text: "done" }],
        scratch: join(fx.scratch, "sources"),
        env: { PATH: path.join(":") },
        more: ["/yarp doctor"],
      });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /binary: sources of the checkout: .*\/bin\/yarp\n/);
      markerId(run.toolTexts[0]);
      assert.equal(run.toolTexts[1].trimEnd(), (await sh(fx.project, "git log")).trimEnd());
    });
  },
);

/** Pages of an archived result as the model received them, notes removed. */
function pageBodies(texts: readonly string[]): string {
  let joined = "";
  for (const text of texts) {
    assert.ok(!/\[Showing lines|Full output:/.test(text), `Pi cut a page: ${text.slice(-200)}`);
    const at = text.lastIndexOf("[yarp: page of ");
    assert.ok(at === 0 || text[at - 1] === "\n", "the note is the page's last line");
    joined += text.slice(0, at);
  }
  return joined;
}

piTest(
  "pi e2e: a 44 KB result Pi would cut reaches the model whole through the paged form",
  async () => {
    await withFixture(async (fx) => {
      const seq = await sh(fx.project, "seq 1 9000"); // 43,888 bytes in 9,000 lines
      const script: Step[] = [
        bash("seq 1 9000"),
        bash("yarp read {{marker_id}}"),
        bash("{{marker_recovery}}"),
        ...Array.from({ length: 12 }, () => ({ ...bash("{{next_page}}"), done: "done" })),
        { text: "done" },
      ];
      for (const pi of [await pi073(), await pi16()]) {
        const run = await runPi({
          pi,
          server: fx.server,
          cwd: fx.project,
          script,
          scratch: join(fx.scratch, `paged-${pi.label.replaceAll(" ", "-")}`),
        });
        assert.equal(run.code, 0, run.stderr);
        const [capped, plain, ...pages] = run.toolTexts;
        // The cap's marker names the paged form: the result is larger than one page.
        assert.match(
          capped,
          /· exact: yarp read [0-9a-f]+ --max-bytes 28k · --grep TEXT · --lines A:B\]/,
        );
        // Plain `yarp read ID` is the whole output, which Pi cuts to its last 2,000 lines.
        assert.match(plain, /\[Showing lines \d+-\d+ of 900\d\. Full output: /);
        assert.ok(!plain.startsWith("1\n"), "the head is not what the model got");
        // Each page reaches the model whole; together they are the exact output.
        assert.equal(pages.length, 9, "nine pages of 1,000 lines");
        assert.match(pages[0], /^1\n2\n/);
        assert.match(pages.at(-1)!, /· end\]\n?$/);
        assert.equal(pageBodies(pages), seq);
      }
    });
  },
);
