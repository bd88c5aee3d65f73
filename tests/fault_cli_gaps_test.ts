/**
 * The smaller gaps of issue 26, item 4, through the real launcher: every
 * error is one line however hostile the argument (control characters, a
 * newline, 100 KB), every malformed invocation says so (`yarp corpus`
 * alone, `yarp rewrite` with no source, `result-reduce --archive-id zzzz`),
 * a negative number reaches the option's own range check instead of
 * "needs a value", a search word may start with `-`, and a call file that
 * is a FIFO is damage reported at once, not a hang.
 */
import assert from "node:assert/strict";
import { runYarp, tempDir } from "./_process.ts";

const DIR = await tempDir("yarp_cli_gaps_");
const decoder = new TextDecoder();
const encoder = new TextEncoder();
const ENV = {
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  XDG_STATE_HOME: `${DIR}/state`,
  XDG_CONFIG_HOME: `${DIR}/config`,
};

async function yarp(args: string[], input?: Uint8Array) {
  const out = await runYarp(args, { env: ENV, clearEnv: true, input, timeoutMs: 60_000 });
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** One line ending in a newline, with no control character and at most `max` characters. */
function assertOneLine(text: string, max = 400): void {
  assert.match(text, /^[^\n]*\n$/, JSON.stringify(text.slice(0, 200)));
  const controls = [...text.slice(0, -1)].filter((c) => c.charCodeAt(0) < 0x20 && c !== "\t");
  assert.deepEqual(controls, [], "no control character");
  assert.ok(text.length <= max, `${text.length} characters`);
}

const id = (await yarp(["archive", "put", "--command", "seed"], encoder.encode("seed\n"))).stdout
  .trim();

const HUGE = "9".repeat(100_000);
const HOSTILE: [string, string[]][] = [
  ["read id\\n", ["read", `${id}\n`]],
  ["read ESC", ["read", "ab\u001b]0;owned\u0007cd"]],
  ["read 100 KB", ["read", HUGE]],
  ["read --stream 100 KB", ["read", id, "--stream", HUGE]],
  ["read unknown option with a newline", ["read", id, "--x\ny"]],
  ["archive forget id\\n", ["archive", "forget", "abcd\n"]],
  ["archive prune --older-than 100 KB", ["archive", "prune", "--older-than", HUGE]],
  ["search --limit ESC", ["search", "x", "--limit", "1\u001b[2J"]],
  ["unknown command with a newline", ["bogus\nline"]],
  ["run --pack-digest 100 KB", ["run", "--pack-digest", HUGE, "--", "true"]],
  ["rules list with a newline", ["rules", "list", "x\ny"]],
  ["corpus unknown", ["corpus", `x${HUGE}`]],
];

for (const [name, args] of HOSTILE) {
  Deno.test(`one-line error: ${name}`, async () => {
    const out = await yarp(args);
    assert.notEqual(out.code, 0);
    assertOneLine(out.stderr);
  });
}

Deno.test("yarp corpus alone is one line and exit 2", async () => {
  const out = await yarp(["corpus"]);
  assert.equal(out.code, 2);
  assert.equal(
    out.stderr,
    "yarp corpus: missing subcommand (import or analyze; see 'yarp corpus --help')\n",
  );
  assert.equal(out.stdout, "");
});

Deno.test("yarp rewrite with no source says so and exits 2", async () => {
  const out = await yarp(["rewrite"], new Uint8Array());
  assert.equal(out.code, 2);
  assert.equal(out.stderr, "yarp rewrite: missing shell source (give it after '--' or on stdin)\n");
  const json = await yarp(["rewrite", "--json"], new Uint8Array());
  assert.equal(json.code, 2);
});

Deno.test("result-reduce --archive-id that is no call id: the input exactly, one line, non-zero", async () => {
  const input = encoder.encode("some output\n".repeat(100));
  const out = await runYarp(["result-reduce", "--command", "make", "--archive-id", "zzzz"], {
    env: ENV,
    clearEnv: true,
    input,
  });
  assert.notEqual(out.code, 0);
  assert.deepEqual(out.stdout, input);
  assert.equal(
    decoder.decode(out.stderr),
    "yarp result-reduce: --archive-id: 'zzzz' is not a call id (4 to 16 hex digits)\n",
  );
});

Deno.test("a negative number reaches the option's own check, not 'needs a value'", async () => {
  const limit = await yarp(["search", "x", "--limit", "-1"]);
  assert.equal(limit.code, 2);
  assert.equal(
    limit.stderr,
    "yarp search: --limit: expected an integer from 1 to 1000, got '-1'\n",
  );
  const bytes = await yarp(["archive", "prune", "--max-bytes", "-5"]);
  assert.equal(bytes.code, 2);
  assert.equal(
    bytes.stderr,
    "yarp archive prune: --max-bytes: expected a byte count like 500M, got '-5'\n",
  );
});

Deno.test("yarp search -minus searches for '-minus'; '--bogus' is still an unknown option", async () => {
  const put = await yarp(
    ["archive", "put", "--command", "gcc -Werror"],
    encoder.encode("-Werror\n"),
  );
  assert.equal(put.code, 0, put.stderr);
  const found = await yarp(["search", "-Werror"]);
  assert.equal(found.code, 0, found.stderr);
  assert.match(found.stdout, new RegExp(`^${put.stdout.trim()}  `));
  const none = await yarp(["search", "-minus"]);
  assert.equal(none.code, 1);
  assert.equal(none.stdout, "no archived call matches '-minus'\n");
  const bogus = await yarp(["search", "x", "--bogus"]);
  assert.equal(bogus.code, 2);
  assert.equal(bogus.stderr, "yarp search: unknown option '--bogus'\n");
});

Deno.test("a call file that is a FIFO: read, check and search answer at once", async () => {
  const put = await yarp(["archive", "put", "--command", "fifo"], encoder.encode("fifo bytes\n"));
  const fifoId = put.stdout.trim();
  const file = `${ENV.XDG_STATE_HOME}/yarp/archive.sqlite3-bytes/${fifoId.slice(0, 2)}/${fifoId}`;
  await Deno.remove(file);
  const made = new Deno.Command("mkfifo", { args: [file] }).outputSync();
  assert.ok(made.success);
  const read = await yarp(["read", fifoId]);
  assert.equal(read.code, 1);
  assert.equal(
    read.stderr,
    `yarp read ${fifoId}: output is damaged in the archive (its file is not a regular file)\n`,
  );
  const check = await yarp(["archive", "check"]);
  assert.equal(check.code, 1);
  assert.match(check.stdout, new RegExp(`^${fifoId}: .*not a regular file`, "m"));
  const search = await yarp(["search", "fifo"]);
  assert.equal(search.code, 0, search.stderr);
  await Deno.remove(file);
});
