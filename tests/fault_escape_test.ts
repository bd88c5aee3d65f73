/**
 * Fault suite: terminal control sequences stored in the
 * archive (an OSC window title, clear screen, BEL, a C1 CSI, a bidi
 * override) never reach the terminal through `yarp search` (text or JSON)
 * or `yarp archive stats`; `yarp read` still returns the exact bytes.
 */
import assert from "node:assert/strict";
import { privateHome, runYarp, tempDir } from "./_process.ts";

const DIR = await tempDir("yarp_fault_escape_");
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Control characters no printed line may contain (TAB and LF are allowed). */
// deno-lint-ignore no-control-regex -- matching controls is the point
const CONTROL = /[\0-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

const HOSTILE_COMMAND = "printf 'zebrafish \x1b]0;owned\x07\x1b[2J\u009b31m\u202eexe'";
const HOSTILE_OUTPUT = encoder.encode(
  "zebrafish \x1b]0;window title\x07 then \x1b[2J\x1b[H cleared \u009b1m and \x07\x07 bells\n",
);

/** Runs `bin/yarp ARGS` with a private state dir and `env` over it; 30 s cap. */
async function yarp(args: string[], env: Record<string, string> = {}, stdin?: Uint8Array) {
  const out = await runYarp(args, {
    env: { PATH: Deno.env.get("PATH") ?? "", ...privateHome(DIR), ...env },
    input: stdin,
    timeoutMs: 30_000,
  });
  return { code: out.code, stdout: out.stdout, text: decoder.decode(out.stdout) };
}

const put = await yarp(
  ["archive", "put", "--command", HOSTILE_COMMAND, "--exit-code", "0"],
  {},
  HOSTILE_OUTPUT,
);
const ID = put.text.trim();

Deno.test("escape fault: the hostile call was archived", () => {
  assert.equal(put.code, 0);
  assert.match(ID, /^[0-9a-f]{4,16}$/);
});

Deno.test("escape fault: yarp search prints command and snippet with controls escaped", async () => {
  const out = await yarp(["search", "zebrafish"]);
  assert.equal(out.code, 0);
  assert.doesNotMatch(out.text, CONTROL);
  assert.ok(out.text.includes("\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202eexe"), out.text);
  // The search index drops ESC sequences, but BEL and C1 controls reach the snippet.
  assert.ok(out.text.includes("\\x9b1m and \\x07\\x07"), out.text);
});

Deno.test("escape fault: yarp search --json is valid JSON without raw controls", async () => {
  const out = await yarp(["search", "--json", "zebrafish"]);
  assert.equal(out.code, 0);
  assert.doesNotMatch(out.text, CONTROL);
  const [hit] = JSON.parse(out.text);
  assert.equal(hit.command, HOSTILE_COMMAND);
});

Deno.test("escape fault: a query that matches nothing is echoed escaped", async () => {
  const out = await yarp(["search", "nomatchzz\x1b[2J"]);
  assert.equal(out.code, 1);
  assert.doesNotMatch(out.text, CONTROL);
});

Deno.test("escape fault: yarp read still returns the exact bytes", async () => {
  const out = await yarp(["read", ID]);
  assert.equal(out.code, 0);
  assert.deepEqual(out.stdout, HOSTILE_OUTPUT);
});

Deno.test("escape fault: archive stats prints an archive path with controls escaped", async () => {
  const path = `${DIR}/odd\x1b]0;x\x07/archive.sqlite3`;
  await Deno.mkdir(`${DIR}/odd\x1b]0;x\x07`);
  const env = { YARP_ARCHIVE_PATH: path };
  assert.equal((await yarp(["archive", "put", "--command", "x"], env, HOSTILE_OUTPUT)).code, 0);
  const out = await yarp(["archive", "stats"], env);
  assert.equal(out.code, 0, out.text);
  assert.doesNotMatch(out.text, CONTROL);
  assert.ok(out.text.includes("odd\\x1b]0;x\\x07/archive.sqlite3"), out.text);
});
