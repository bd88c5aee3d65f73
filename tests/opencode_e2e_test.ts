/**
 * End to end with the real opencode 1.18.33 (pinned from npm), driven by the
 * scripted model server on 127.0.0.1 as an OpenAI-compatible provider: the
 * six scenarios of the Claude Code and Codex tests (tests/_hosts_e2e.ts)
 * without YARP and with YARP installed by `yarp setup opencode`, asserting
 * on what the model received and on what opencode stored (its SQLite
 * database, read-only), then the packed `@yarp/opencode` installed in one
 * step from a registry on 127.0.0.1.
 *
 * opencode itself sometimes loses the end of a long output (its shell tool
 * stops reading when the process exits; seen in about 1 run of 8 for the
 * 70 KB `git log --stat`, with or without YARP), and then its full-output
 * file is short too: the exact copy YARP keeps is compared with the file
 * opencode kept in the same session, which is what the plugin read.
 *
 * Set `YARP_HOSTS_E2E=off` to skip.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { servePiPackage, sh, yarpIn } from "./_pi_e2e.ts";
import { type Fixture, makeFixture } from "./_hosts_e2e.ts";
import {
  OC,
  opencode,
  OPENCODE_COMMANDS,
  OPENCODE_SCRIPT,
  type OpencodeRun,
  opencodeSession,
  type StoredCall,
  storedCalls,
} from "./_opencode_e2e.ts";
import { ROOT } from "./_pi_e2e.ts";

const { LOG, READ, NPM, GREP, CAT, DENY, ASK } = OC;
const ENABLED = Deno.env.get("YARP_HOSTS_E2E") !== "off";
const MARKER = /\[yarp: [^\]\n]* · exact: yarp read ([0-9a-f]+)[ \]]/;
const FULL = /Full output saved to: (\S+)\n/;
const decoder = new TextDecoder();

function e2e(name: string, fn: (fx: Fixture) => Promise<void>): void {
  Deno.test({
    name,
    ignore: !ENABLED,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const fx = await makeFixture();
      try {
        await fn(fx);
      } finally {
        await fx.server.stop();
        await Deno.remove(fx.scratch, { recursive: true });
      }
    },
  });
}

/** The whole output opencode kept in its full-output file for a call it cut (what the plugin read). */
async function hostFile(call: StoredCall): Promise<string> {
  const path = call.metadata?.outputPath;
  assert.ok(path !== undefined, `no full-output file for ${call.command}`);
  return await Deno.readTextFile(path);
}

/** `yarp read ID` in a session's YARP state. */
async function yarpRead(fx: Fixture, run: string, id: string): Promise<string> {
  return decoder.decode(await yarpIn(join(fx.scratch, run), fx.project, ["read", id]));
}

/** What every session shows, with or without YARP. */
function assertCommon(run: OpencodeRun, calls: StoredCall[], cat: string): void {
  assert.equal(run.code, 0, run.stderr.slice(-2000));
  assert.ok(run.urls.every((url) => url === "/v1/chat/completions"), run.urls.join());
  // Every command was asked for, in order (the model's `yarp read` names whatever id it saw).
  assert.deepEqual(
    calls.map((call, i) => i === READ ? call.command.split(" ").slice(0, 2) : call.command),
    OPENCODE_COMMANDS.map((command, i) => i === READ ? ["yarp", "read"] : command),
  );
  // The ask rule ends `opencode run` (no one to ask): the model never gets that result.
  assert.equal(run.results.length, ASK, run.stderr.slice(-2000));
  assert.equal(run.results[CAT], cat, "cat is exact");
  for (const index of [DENY, ASK]) assert.equal(calls[index].status, "error");
}

e2e(
  "opencode e2e: six scenarios with and without YARP: reduced, exact recovery, exit codes and permissions untouched",
  async (fx) => {
    const install = await opencode();
    const real = {
      log: await sh(fx.project, "git log --stat"),
      grep: await sh(fx.project, "grep -rn needle . | head -500"),
      cat: await Deno.readTextFile(join(fx.project, "src/f7.txt")),
    };
    const plain = await opencodeSession(install, fx, "plain", "none", OPENCODE_SCRIPT);
    const yarp = await opencodeSession(install, fx, "yarp", "setup", OPENCODE_SCRIPT);
    const plainCalls = storedCalls(plain);
    const yarpCalls = storedCalls(yarp);
    assertCommon(plain, plainCalls, real.cat);
    assertCommon(yarp, yarpCalls, real.cat);

    // Exit codes (opencode keeps them in metadata.exit, outside the text): the same with YARP.
    const exits = (calls: StoredCall[]) => calls.map((call) => call.metadata?.exit);
    assert.deepEqual(exits(yarpCalls), [0, 0, 1, 0, 0, undefined, undefined]);
    assert.deepEqual(
      exits(plainCalls).filter((_, i) => i !== READ),
      exits(yarpCalls).filter((_, i) => i !== READ),
    );
    assert.notEqual(plainCalls[READ].metadata?.exit, 0, "no id to read without YARP");
    // The deny and ask rules: refused with the same words, with or without YARP.
    assert.equal(yarp.results[DENY], plain.results[DENY]);
    assert.match(yarp.results[DENY], /rule which prevents you from using this specific tool call/);
    for (const index of [DENY, ASK]) assert.equal(yarpCalls[index].error, plainCalls[index].error);

    // git log --stat: opencode cuts it to its tail and keeps the whole in a file; YARP reduces
    // that whole, and `yarp read ID` gives back exactly the file opencode kept in this session.
    assert.match(plain.results[LOG], /^\.\.\.output truncated\.\.\./);
    assert.ok(!MARKER.test(plain.results[LOG]));
    const id = MARKER.exec(yarp.results[LOG])?.[1];
    assert.ok(id !== undefined, yarp.results[LOG].slice(-300));
    assert.ok(yarp.results[LOG].length < plain.results[LOG].length);
    const exact = await yarpRead(fx, "yarp", id);
    const kept = await hostFile(yarpCalls[LOG]);
    assert.equal(exact, kept, "yarp read is exactly the output opencode kept");
    const plainKept = await hostFile(plainCalls[LOG]);
    console.log(
      `opencode kept the whole git log: without YARP ${plainKept === real.log}, with ${
        kept === real.log
      }`,
    );
    // What opencode kept is always a prefix of the real output (it can only lose the end).
    assert.ok(real.log.startsWith(kept) && real.log.startsWith(plainKept));

    // The model's own `yarp read ID` is never reduced: opencode cuts it as it would the command.
    assert.ok(!MARKER.test(yarp.results[READ]));
    const readFile = FULL.exec(yarp.results[READ])?.[1];
    assert.ok(readFile !== undefined, yarp.results[READ].slice(0, 300));
    assert.equal(await Deno.readTextFile(readFile), exact);

    // The failing npm test: every failing test kept, the real exit status (1) beside it.
    for (const line of ["not ok 601 - subtracts negative numbers", "not ok 602 - divides"]) {
      assert.ok(yarp.results[NPM].includes(line), line);
    }
    assert.ok(MARKER.test(yarp.results[NPM]));
    // The pipeline: opencode shows it whole without YARP; reduced with, the whole read back.
    assert.equal(plain.results[GREP], real.grep);
    const grepId = MARKER.exec(yarp.results[GREP])?.[1];
    assert.ok(grepId !== undefined, yarp.results[GREP].slice(-300));
    assert.equal(await yarpRead(fx, "yarp", grepId), real.grep);

    // yarp gain counts them under host opencode.
    const gain = JSON.parse(
      decoder.decode(await yarpIn(join(fx.scratch, "yarp"), fx.project, ["gain", "--json"])),
    );
    assert.deepEqual(gain.hosts.map((h: { host: string }) => h.host), ["opencode"]);
    assert.ok(gain.total.saved > 0 && gain.total.calls >= 3, JSON.stringify(gain));

    // yarp corpus import reads the session opencode stored (its SQLite database), read-only.
    const db = join(yarp.dataDir, "opencode.db");
    const dbBefore = await Deno.readFile(db);
    const corpus = join(fx.scratch, "corpus.jsonl.gz");
    const summary = JSON.parse(decoder.decode(
      await yarpIn(join(fx.scratch, "yarp"), fx.project, [
        "corpus",
        "import",
        yarp.dataDir,
        "--output",
        corpus,
        "--json",
      ]),
    ));
    assert.equal(summary.records.opencode, 5, JSON.stringify(summary));
    assert.equal(summary.skipped_lines, 2, "the refused calls");
    assert.deepEqual(await Deno.readFile(db), dbBefore, "the database is untouched");
    const records = (await new Response(
      (await Deno.open(corpus)).readable.pipeThrough(new DecompressionStream("gzip")),
    ).text()).trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(
      records.map((r) => [r.command, r.exit_code, r.prior_reduction ?? null]),
      yarpCalls.slice(0, DENY).map((call, i) => [
        call.command,
        call.metadata?.exit,
        ([LOG, NPM, GREP] as number[]).includes(i) ? "yarp" : i === READ ? "other" : null,
      ]),
    );
    assert.equal(records[CAT].output, real.cat);

    const chars = (run: OpencodeRun) => run.results.join("").length;
    const each = (run: OpencodeRun) => run.results.map((r) => r.length).join("/");
    console.log(
      `opencode chars the model received: plain ${chars(plain)} (${each(plain)}), yarp ${
        chars(yarp)
      } (${each(yarp)}); session ms plain ${Math.round(plain.ms)} yarp ${Math.round(yarp.ms)}`,
    );
  },
);

e2e(
  "opencode e2e: the packed @yarp/opencode installs in one step from a registry and reduces",
  async (fx) => {
    const install = await opencode();
    const packed = (await sh(
      join(ROOT, "hooks/opencode"),
      `npm pack --silent --pack-destination "${fx.scratch}" 2>/dev/null`,
    )).trim().split("\n").at(-1)!;
    const tarball = join(fx.scratch, packed);
    const listing = (await sh(fx.scratch, `tar -tzf "${tarball}"`)).trim().split("\n").sort();
    assert.deepEqual(listing, [
      "package/LICENSE",
      "package/README.md",
      "package/index.js",
      "package/package.json",
    ]);
    // Self-contained: the bundle imports only Node built-ins; `npm pack` left no build behind.
    const bundle = await sh(fx.scratch, `tar -xzOf "${tarball}" package/index.js`);
    const imports = [...bundle.matchAll(/^import\b[^;]*?\bfrom\s+["']([^"']+)["']/gm)].map((m) =>
      m[1]
    );
    assert.ok(imports.length > 0 && imports.every((s) => s.startsWith("node:")), imports.join());
    assert.ok(!(await exists(join(ROOT, "hooks/opencode/index.js"))));
    const registry = await servePiPackage(tarball);
    try {
      // The one step: the package's name in opencode's plugin list (what `yarp setup opencode`
      // writes outside a checkout); opencode installs it from the registry at start.
      const run = await opencodeSession(
        install,
        fx,
        "package",
        { plugin: "@yarp/opencode", env: registry.npmEnv },
        [{ command: "git log --stat" }, { text: "done" }],
      );
      assert.equal(run.code, 0, run.stderr.slice(-2000));
      const installed = await sh(
        run.env.XDG_CACHE_HOME,
        "find . -path '*node_modules/@yarp/opencode/index.js'",
      );
      assert.ok(installed.trim() !== "", `not installed: ${run.stderr.slice(-2000)}`);
      const id = MARKER.exec(run.results[0])?.[1];
      assert.ok(id !== undefined, run.results[0]?.slice(-300) + run.stderr.slice(-2000));
      const [call] = storedCalls(run);
      assert.equal(await yarpRead(fx, "package", id), await hostFile(call));
    } finally {
      await registry.stop();
    }
  },
);

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}
