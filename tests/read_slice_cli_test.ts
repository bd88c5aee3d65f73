/**
 * `yarp read`'s targeted forms as a whole program through `bin/yarp`
 * (docs/archive.md, "Targeted recovery"): bad values are one line naming
 * the argument (exit 2); a call of two streams is read as one view; a 6 MiB
 * stream (verified as it streams, lines crossing its 1 MiB chunks, NUL and
 * invalid UTF-8) pages back to its exact bytes; a line longer than a page
 * is named, never cut.
 */
import assert from "node:assert/strict";
import { commitCall, memorySource } from "../lib/archive/commit.ts";
import { openArchive } from "../lib/archive/store.ts";
import { concatBytes } from "./_bytes.ts";
import { runYarp, tempDir } from "./_process.ts";

const DIR = await tempDir("yarp_read_slice_");
const ENV = { HOME: DIR, XDG_STATE_HOME: `${DIR}/state`, XDG_CONFIG_HOME: `${DIR}/config` };
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Stores a call with these streams in the test's archive; returns its id. */
async function store(streams: Record<string, Uint8Array>): Promise<string> {
  const db = await openArchive(`${DIR}/state/yarp/archive.sqlite3`, "write");
  try {
    const committed = await commitCall(
      db,
      {
        createdMs: Date.now(),
        cwd: DIR,
        source: "run",
        command: "make",
        argv: ["make"],
        exitCode: 2,
        signal: null,
        ruleId: null,
      },
      Object.entries(streams).map(([name, bytes]) =>
        memorySource(name as "stdout" | "stderr" | "output", bytes)
      ),
    );
    return committed.id;
  } finally {
    db.close();
  }
}

async function read(...args: string[]) {
  const { code, stdout, stderr } = await runYarp(["read", ...args], {
    env: ENV,
    timeoutMs: 120_000,
  });
  return { code, stdout, stderr: decoder.decode(stderr) };
}

const TWO = await store({
  stdout: encoder.encode("cc -c a.c\ncc -c b.c\nlinking\n"),
  stderr: encoder.encode(
    "b.c:3: error: x undeclared\nb.c:9: Warning: unused\nmake: *** [b.o] Error 1",
  ),
});

Deno.test("bad values: one line naming the argument, exit 2, nothing written", async () => {
  const table: [string[], string][] = [
    [["--max-bytes", "-5"], "--max-bytes: expected a positive size such as 40000 or 40k, got '-5'"],
    [["--lines", "5:2"], "--lines: expected A:B, A: or :B with 1 ≤ A ≤ B, got '5:2'"],
    [["--head", "x"], "--head: expected a positive whole number, got 'x'"],
    [["--tail", "0"], "--tail: expected a positive whole number, got '0'"],
    [["--max-lines", "-1"], "--max-lines: expected a positive whole number, got '-1'"],
    [["--head", "1", "--tail", "1"], "--head and --tail cannot be combined"],
    [["-i"], "-i needs --grep"],
    [["--grep", ""], "--grep: the text is empty"],
    [["--json", "--lines", "1:2"], "--json cannot be combined with --lines"],
    [["--bytes", "1:9", "-n"], "--bytes cannot be combined with -n"],
    [["--stat", "--head", "3"], "--stat cannot be combined with --head"],
    [["--bytes", "9:1"], "--bytes: expected A:B, A: or :B with 1 ≤ A ≤ B, got '9:1'"],
  ];
  for (const [args, message] of table) {
    const result = await read(TWO, ...args);
    assert.equal(result.code, 2, args.join(" "));
    assert.equal(result.stderr, `yarp read: ${message}\n`);
    assert.equal(result.stdout.length, 0);
  }
});

Deno.test("the view is stdout then stderr; --stream narrows it; each stream's last bytes end a line", async () => {
  const text = async (...args: string[]) => {
    const result = await read(TWO, ...args);
    assert.equal(result.code, 0, result.stderr);
    return decoder.decode(result.stdout);
  };
  assert.equal(
    await text("--grep", "ERROR", "-i", "-n"),
    "4:b.c:3: error: x undeclared\n6:make: *** [b.o] Error 1",
  );
  assert.equal(await text("--lines", "3:4"), "linking\nb.c:3: error: x undeclared\n");
  assert.equal(await text("--stream", "stderr", "--tail", "1", "-n"), "3:make: *** [b.o] Error 1");
  assert.equal(
    await text("--max-lines", "4", "--lines", "3:"),
    "linking\nb.c:3: error: x undeclared\nb.c:9: Warning: unused\nmake: *** [b.o] Error 1\n" +
      `[yarp: page of 4 lines (81 bytes), line 3 to 6 of 6 · line 6 has no LF (the LF before this note is added) · end]\n`,
  );
  assert.equal(await text("--bytes", "21:27"), "linking");
  const stat = await text("--stat", "--grep", "error", "-i");
  assert.match(stat, new RegExp(`^call ${TWO}: 2 streams, 101 bytes, 6 lines\n`));
  assert.match(stat, /\nstdout: 28 bytes, 3 lines, sha256 [0-9a-f]{64}\n/);
  assert.match(stat, /\nstderr: 73 bytes, 3 lines, no LF at end, sha256 [0-9a-f]{64}\n/);
  assert.match(stat, /\ngrep -i error: 2 of 6 lines\n$/);
  // Plain read is unchanged: each stream to its own.
  const plain = await read(TWO);
  assert.equal(decoder.decode(plain.stdout), "cc -c a.c\ncc -c b.c\nlinking\n");
  assert.equal(
    plain.stderr,
    "b.c:3: error: x undeclared\nb.c:9: Warning: unused\nmake: *** [b.o] Error 1",
  );
});

/** 6 MiB of lines from 1 byte to ~300 KiB long, with NUL and 0xff, ending without LF. */
function bigOutput(): Uint8Array {
  const out = new Uint8Array(6 * 1024 * 1024);
  let at = 0;
  let n = 0;
  while (at < out.length) {
    const length = n % 97 === 0 ? 300_000 + n : (n * 7919) % 400;
    for (let i = 0; i < length && at < out.length; i++) out[at++] = 97 + ((n + i) % 26);
    if (at < out.length && n % 13 === 0) out[at++] = 0;
    if (at < out.length && n % 17 === 0) out[at++] = 0xff;
    if (at < out.length) out[at++] = 10;
    n++;
  }
  out[out.length - 1] = 0x7a; // a final line without LF
  return out;
}

Deno.test("a 6 MiB output pages back to its exact bytes by following each note", async () => {
  const bytes = bigOutput();
  const id = await store({ output: bytes });
  const pages: Uint8Array[] = [];
  let args = ["--max-bytes", "1m"];
  for (let page = 0; page < 40; page++) {
    const result = await read(id, ...args);
    assert.equal(result.code, 0, result.stderr);
    const out = result.stdout;
    const noteStart = out.lastIndexOf(10, out.length - 2) + 1;
    const note = decoder.decode(out.subarray(noteStart));
    let body = out.subarray(0, noteStart);
    assert.ok(body.length <= 1024 * 1024);
    if (note.includes("(the LF before this note is added)")) body = body.subarray(0, -1);
    pages.push(body.slice());
    const next = / · next: yarp read [0-9a-f]+ (.*)\]\n$/.exec(note);
    if (next === null) {
      assert.match(note, / · end\]\n$/);
      break;
    }
    args = next[1].split(" ");
  }
  assert.ok(pages.length > 6, `${pages.length} pages`);
  assert.deepEqual(concatBytes(pages), bytes);
});

Deno.test("a line longer than --max-bytes is named with the forms that return it", async () => {
  const bytes = bigOutput();
  const id = await store({ output: bytes });
  const result = await read(id, "--max-bytes", "40k");
  const text = decoder.decode(result.stdout);
  const note =
    /\[yarp: page of 0 lines, [\d,]+ in all · line 1 is 300,003 bytes, over --max-bytes: whole: yarp read [0-9a-f]+ --lines 1:1 · first 40,960: yarp read [0-9a-f]+ --bytes 1:40960 · next: yarp read [0-9a-f]+ --lines 2: --max-bytes 40k\]\n$/;
  assert.match(text, note);
  const whole = await read(id, "--lines", "1:1");
  assert.deepEqual(whole.stdout, bytes.subarray(0, 300_003)); // its NUL, 0xff and LF included
  const first = await read(id, "--bytes", "1:40960");
  assert.deepEqual(first.stdout, bytes.subarray(0, 40_960));
});

Deno.test("yarp read --help states the forms, how they combine and the marker's page size", async () => {
  const { readCommand } = await import("../lib/cli/read.ts");
  const { captureTextIo } = await import("../lib/cli/io.ts");
  const io = captureTextIo();
  assert.equal(await readCommand(["--help"], io), 0);
  for (
    const words of [
      "--lines A:B",
      "--grep TEXT",
      "--tail N",
      "--max-bytes N",
      "default 1,000",
      "--bytes A:B",
      "--stat",
      "Steps apply in the order --lines, --grep, --head/--tail, -n, page",
      "never cut",
      "'--max-bytes 28k'",
    ]
  ) {
    assert.ok(io.stdout.includes(words), words);
  }
});
