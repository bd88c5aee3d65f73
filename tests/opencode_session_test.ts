/**
 * opencode's session reader (lib/hosts/opencode/session.ts) and `yarp corpus
 * import` over a hand-made opencode database: the `part` table as opencode
 * 1.18.33 writes it (the schema of a database the real opencode made in
 * tests/opencode_e2e_test.ts), read-only, never changed.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { corpusImportCommand } from "../lib/cli/corpus_import.ts";
import { captureTextIo } from "../lib/cli/io.ts";
import { readPart } from "../lib/hosts/opencode/session.ts";
import { tempDir } from "./_process.ts";

const DIR = await tempDir("yarp_opencode_session_");

/** A bash tool part's `data` as opencode stores it. */
function bash(callID: string, command: string, state: Record<string, unknown>) {
  return { type: "tool", tool: "bash", callID, state: { input: { command }, ...state } };
}

const done = (output: string, exit: number | null, truncated = false) => ({
  status: "completed",
  output,
  metadata: { output: output.slice(0, 30), exit, truncated },
  title: "t",
  time: { start: 1, end: 2 },
});

/** Parts in the order opencode would have written them (ids grow with time). */
const PARTS: [string, string, unknown][] = [
  ["ses_b", "prt_01", { type: "text", text: "Run it" }],
  ["ses_b", "prt_02", bash("call_0", "npm test", done("not ok 1 - adds\n", 1))],
  ["ses_a", "prt_03", { type: "step-start" }],
  ["ses_a", "prt_04", bash("call_0", "git log", done("commit 1\n", 0))],
  [
    "ses_a",
    "prt_05",
    bash(
      "call_1",
      "seq 1 9000",
      done("...output truncated...\n\nFull output saved to: /x/tool-output/t\n\n9000\n", 0, true),
    ),
  ],
  [
    "ses_a",
    "prt_06",
    bash(
      "call_2",
      "cat big.log",
      done("a\n[yarp: kept 1 of 900 lines · exact: yarp read 0c0ffee0]\n", 0),
    ),
  ],
  [
    "ses_a",
    "prt_07",
    bash("call_3", "cargo test", {
      status: "error",
      error: "The user has specified a rule which prevents you from using this specific tool call.",
      time: { start: 1, end: 2 },
    }),
  ],
  ["ses_a", "prt_08", bash("call_4", "sleep 100", { status: "running", time: { start: 1 } })],
  ["ses_a", "prt_09", bash("call_5", "sleep 1", done("", null))],
  ["ses_a", "prt_10", { type: "tool", tool: "read", callID: "c", state: { status: "completed" } }],
];

/** A database with opencode's `part` table (and `session`), holding {@link PARTS}. */
function makeDatabase(path: string): void {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode=WAL");
  db.exec(`CREATE TABLE session (id text PRIMARY KEY, title text NOT NULL)`);
  db.exec(`CREATE TABLE part (
    id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`);
  const insert = db.prepare("INSERT INTO part VALUES (?, 'msg_1', ?, 1, 1, ?)");
  for (const [session, id, data] of PARTS) insert.run(id, session, JSON.stringify(data));
  // A row cut short (not JSON) that names a bash call: skipped and counted.
  insert.run("prt_11", "ses_b", '{"type":"tool","tool":"bash","callID":"call_1"');
  db.close();
}

async function importCommand(args: string[]) {
  const io = captureTextIo();
  const code = await corpusImportCommand(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

async function records(path: string): Promise<Record<string, unknown>[]> {
  const file = await Deno.open(path);
  const text = await new Response(file.readable.pipeThrough(new DecompressionStream("gzip")))
    .text();
  return text.trimEnd().split("\n").map((line) => JSON.parse(line));
}

Deno.test("opencode session: corpus import reads the bash calls of every session, in order", async () => {
  const dir = `${DIR}/data/opencode`;
  await Deno.mkdir(dir, { recursive: true });
  const db = `${dir}/opencode.db`;
  makeDatabase(db);
  const before = await Deno.stat(db);
  const bytes = await Deno.readFile(db);
  const output = `${DIR}/out.jsonl.gz`;
  // The directory is walked: opencode.db is picked up by name.
  const result = await importCommand([`${DIR}/data`, "--output", output, "--json"]);
  assert.equal(result.code, 0, result.stderr);
  const summary = JSON.parse(result.stdout);
  assert.equal(summary.records.opencode, 5);
  assert.equal(summary.orphan_calls, 1);
  assert.equal(summary.skipped_lines, 2);
  assert.equal(summary.already_reduced, 2);
  const got = (await records(output)).map((
    r,
  ) => [r.id, r.command, r.exit_code, r.prior_reduction ?? null]);
  assert.deepEqual(got, [
    ["opencode/opencode/ses_a/call_0", "git log", 0, null],
    ["opencode/opencode/ses_a/call_1", "seq 1 9000", 0, "other"],
    ["opencode/opencode/ses_a/call_2", "cat big.log", 0, "yarp"],
    ["opencode/opencode/ses_a/call_5", "sleep 1", null, null],
    ["opencode/opencode/ses_b/call_0", "npm test", 1, null],
  ]);
  assert.match(result.stderr, /opencode\.db: skipped 2 parts \(first: not-command-output\)/);
  // Read-only: the database is byte for byte and time for time as it was.
  assert.deepEqual(await Deno.readFile(db), bytes);
  assert.equal((await Deno.stat(db)).mtime?.getTime(), before.mtime?.getTime());
});

Deno.test("opencode session: a SQLite file that is not opencode's is reported, the run goes on", async () => {
  const path = `${DIR}/other.db`;
  const db = new DatabaseSync(path);
  db.exec("CREATE TABLE t (x)");
  db.close();
  const result = await importCommand([path, "--output", `${DIR}/other.jsonl.gz`, "--json"]);
  assert.equal(result.code, 0);
  assert.equal(JSON.parse(result.stdout).unreadable_files, 1);
  assert.match(result.stderr, /other\.db: cannot read as an opencode database: .*part/);
});

Deno.test("opencode session: readPart never throws and reads only bash tool parts", () => {
  const odd: unknown[] = [
    null,
    1,
    "x",
    [],
    { type: "tool" },
    { type: "tool", tool: "bash" },
    { type: "tool", tool: "bash", callID: "c", state: [] },
    { type: "tool", tool: "bash", callID: "c", state: { input: { command: " " } } },
    { type: "tool", tool: "bash", callID: "c", state: { input: { command: "ls" } } },
    bash("c", "ls", { status: "completed", output: 3 }),
  ];
  assert.deepEqual(odd.map((data) => readPart("s", data).kind), [
    "other",
    "other",
    "other",
    "other",
    "other",
    "skip",
    "skip",
    "skip",
    "skip",
    "skip",
  ]);
  const read = readPart("s", bash("c", "ls", done("a\n", 300)));
  assert.equal(
    read.kind === "call" && read.call.exitCode,
    null,
    "an exit code over 255 is unknown",
  );
});
