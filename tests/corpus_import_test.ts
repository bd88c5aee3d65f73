/**
 * `yarp corpus import` (docs/corpus.md, "Import"): the Pi, Claude Code and
 * Codex readers over hand-written session fixtures that mirror each
 * runtime's real files (tests/data/sessions/), exact records out, the
 * error and skip behaviour, exit statuses, and properties of the readers.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { corpusImportCommand } from "../lib/cli/corpus_import.ts";
import { captureTextIo } from "../lib/cli/io.ts";
import { parseRecordLine, recordToLine } from "../lib/corpus/record.ts";
import {
  claudeCodeRuntime,
  codexRuntime,
  detectRuntime,
  piRuntime,
  type RecordedCall,
  type SessionRuntime,
} from "../lib/hosts/mod.ts";
import { stripPiFormatting } from "../lib/hosts/pi/session.ts";
import { codexCommand, HOLD_LIMIT } from "../lib/hosts/codex/session.ts";
import { tempDir } from "./_process.ts";

const SESSIONS = new URL("./data/sessions", import.meta.url).pathname;
const DIR = await tempDir("yarp_corpus_import_");

const PI = "pi/2026-11-30T02-43-12-904Z_01a22a55-c187-74a0-8a65-b8a7a663d612";
const CLAUDE = "claude-code/9d9f07e1-2696-40b4-87af-eab2d03b4e01";
const CLAUDE_RESUMED = "claude-code/57f6f27a-f714-44de-a160-29f6de7bfd73";
const CODEX = "codex/rollout-2026-03-15T06-18-00-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5";
const CODEX_BARE = "codex/rollout-2025-08-20T10-00-00-c3c4b301-27c8-4c70-b6e4-46b99fdf0236";

let outputs = 0;
/** A fresh output path in the test directory. */
const outputPath = () => `${DIR}/out-${++outputs}.jsonl.gz`;

async function importCommand(args: string[]) {
  const io = captureTextIo();
  const code = await corpusImportCommand(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** The output's lines, gunzipped and parsed as plain JSON. */
async function outputLines(path: string): Promise<Record<string, unknown>[]> {
  const file = await Deno.open(path);
  const text = await new Response(file.readable.pipeThrough(new DecompressionStream("gzip")))
    .text();
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** One expected record line, as `recordToLine` writes it. */
function rec(
  id: string,
  command: string,
  exitCode: number | null,
  streams: { output: string } | { stdout: string; stderr: string },
  prior?: "pi-truncation" | "yarp" | "other",
): Record<string, unknown> {
  const [source] = id.split("/");
  return {
    id,
    source,
    command,
    exit_code: exitCode,
    stream_mode: "output" in streams ? "combined" : "separate",
    ...streams,
    ...(prior === undefined ? {} : { prior_reduction: prior }),
  };
}

const EXPECTED = [
  // The resumed Claude Code session sorts first; it copied toolu_01 from the original.
  rec(`${CLAUDE_RESUMED}/toolu_01`, "npm test", 0, { stdout: "ok\n1 passing", stderr: "" }),
  rec(`${CLAUDE_RESUMED}/toolu_20`, "npm test -- --watch=false", 0, { stdout: "ok", stderr: "" }),
  rec(`${CLAUDE}/toolu_02`, "ls /nope", 2, {
    output: "ls: cannot access '/nope': No such file or directory",
  }),
  rec(`${CLAUDE}/toolu_03`, "grep zzz notes.txt", null, { stdout: "", stderr: "" }),
  rec(`${CLAUDE}/toolu_05`, "rm -rf /w/app", null, {
    output:
      "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
  }, "other"),
  rec(`${CLAUDE}/toolu_06`, "pwd", 0, { output: "/w/app" }),
  rec(`${CLAUDE}/toolu_07`, "whoami", 0, { output: "dev" }),
  rec(`${CLAUDE}/toolu_09`, "npm run watch", 130, { output: "watching…" }),
  // A lone surrogate in the session's JSON becomes U+FFFD.
  rec(`${CLAUDE}/toolu_10`, "cat weird.txt", 0, { stdout: "x\ufffdy", stderr: "" }),
  rec(`${CLAUDE}/toolu_11`, "git log", 0, {
    output: "commit 1\n\n... [120 lines truncated] ...\n\ncommit 99",
  }, "other"),
  rec(`${CLAUDE}/toolu_12`, "make", 0, { stdout: "cc -c a.c", stderr: "warning: unused" }),
  rec(`${CODEX_BARE}/call_A`, "pytest -q", 1, { output: "F.\n1 failed, 1 passed\n" }),
  rec(`${CODEX_BARE}/call_B`, "echo 'it'\\''s'", 0, { output: "it's\n" }),
  // Ended before its output line, then after it: the end event wins both times.
  rec(`${CODEX}/call-1`, "echo hi", 0, { stdout: "hi\n", stderr: "" }),
  rec(`${CODEX}/call-2`, "ls /nope; echo done", 2, {
    stdout: "done\n",
    stderr: "ls: /nope: No such file or directory\n",
  }),
  rec(`${CODEX}/call-3`, "cargo build", 101, {
    output: "   Compiling a v0.1.0\n…4980 tokens truncated…\nerror: could not compile `a`\n",
  }, "other"),
  rec(`${CODEX}/call-4`, "npm run dev", null, { output: "listening on :3000\n" }, "other"),
  rec(`${CODEX}/call-7`, "git log '--format=%h %s'", 0, { output: "abc1234 fix it's done\n" }),
  rec(`${CODEX}/call-8`, "sleep 5", 124, { output: "partial\n" }),
  rec(`${PI}/call_0_0`, "echo out; echo err >&2; echo out2", 0, { output: "out\nout2\nerr\n" }),
  rec(`${PI}/call_0_1`, "echo failing; exit 3", 3, { output: "failing\n" }),
  rec(`${PI}/call_0_2`, "seq 1 3000", 0, { output: "2999\n3000\n" }, "pi-truncation"),
  rec(`${PI}/call_0_3`, "seq 1 3000; exit 2", 2, { output: "2999\n3000\n" }, "pi-truncation"),
  // Pi decodes output as UTF-8 (0xff became U+FFFD); NUL and CR survive.
  rec(`${PI}/call_0_4`, "printf 'a\\377b\\000c\\r\\n'", 0, { output: "a\ufffdb\u0000c\r\n" }),
  rec(`${PI}/call_0_5`, "sleep 5; echo late", null, { output: "" }),
  rec(`${PI}/call_0_6`, "true", 0, { output: "" }),
  rec(`${PI}/call_0_7`, "false", 1, { output: "" }),
  rec(`${PI}/call_0_8`, "printf 'no newline'", 0, { output: "no newline" }),
  rec(`${PI}/call_0_11`, "rm -rf build", null, { output: "Tool execution was blocked" }, "other"),
  rec(`${PI}/call_0_12`, "cat big.log", 0, {
    output:
      "line 1\n[yarp: kept 1 of 900 lines · omitted 899 lines (9,000 bytes) · exact: yarp read 0c0ffee0]\n",
  }, "yarp"),
];

Deno.test("importing the fixtures writes exactly the expected records, in walk order", async () => {
  const output = outputPath();
  const result = await importCommand([SESSIONS, "--output", output, "--json"]);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(await outputLines(output), EXPECTED);
  assert.deepEqual(JSON.parse(result.stdout), {
    files_read: 5,
    records: { pi: 11, "claude-code": 11, codex: 8, gemini: 0, opencode: 0 },
    duplicates: 1,
    skipped_lines: 5,
    orphan_calls: 3,
    unreadable_files: 0,
    unknown_files: 1,
    already_reduced: 8,
  });
  assert.equal(
    result.stderr,
    [
      `${SESSIONS}/${CLAUDE}.jsonl: skipped 1 line (first at line 16: not valid JSON)`,
      `${SESSIONS}/${CODEX}.jsonl: skipped 2 lines (first at line 16: not valid JSON)`,
      `${SESSIONS}/other/notes.jsonl: not a Pi, Claude Code, Codex, Gemini CLI or opencode session file`,
      `${SESSIONS}/${PI}.jsonl: skipped 2 lines (first at line 4: bash call without an id or a command)`,
      "read 5 files; wrote 30 records (pi 11, claude-code 11, codex 8, gemini 0, opencode 0); 1 duplicate dropped; " +
      "skipped 5 lines; 3 calls without result; 0 paths unreadable; 1 file of unknown format; " +
      "8 results already reduced",
    ].map((line) => `yarp corpus import: ${line}\n`).join(""),
  );
  // Every written line is a valid corpus record.
  for (const line of await outputLines(output)) {
    const record = parseRecordLine(JSON.stringify(line));
    assert.ok(!("error" in record), JSON.stringify(line));
  }
});

Deno.test("the output does not depend on argument order, and nothing but it is left behind", async () => {
  const first = outputPath();
  const second = outputPath();
  const paths = [`${SESSIONS}/pi`, `${SESSIONS}/codex`, `${SESSIONS}/${CLAUDE}.jsonl`];
  assert.equal((await importCommand([...paths, "--output", first])).code, 0);
  assert.equal((await importCommand([...paths.toReversed(), `--output=${second}`])).code, 0);
  assert.deepEqual(await outputLines(first), await outputLines(second));
  const names = [...Deno.readDirSync(DIR)].map((entry) => entry.name);
  assert.deepEqual(names.filter((name) => name.endsWith(".tmp")), []);
});

Deno.test("a missing input is reported and counted; the run still writes its output", async () => {
  const output = outputPath();
  const missing = `${DIR}/no-such-dir`;
  const result = await importCommand([missing, `${SESSIONS}/pi`, "-o", output, "--json"]);
  assert.equal(result.code, 0);
  assert.match(result.stderr, new RegExp(`^yarp corpus import: ${missing}: cannot read: `, "m"));
  const summary = JSON.parse(result.stdout);
  assert.equal(summary.unreadable_files, 1);
  assert.equal(summary.records.pi, 11);
  assert.equal((await outputLines(output)).length, 11);
});

Deno.test("an existing output is replaced whole; empty input gives an empty corpus", async () => {
  const output = outputPath();
  await Deno.writeTextFile(output, "old");
  const empty = `${DIR}/empty`;
  await Deno.mkdir(empty);
  const result = await importCommand([empty, "--output", output]);
  assert.equal(result.code, 0);
  assert.deepEqual(await outputLines(output), []);
});

Deno.test("exit 2 for malformed arguments, 1 when the output cannot be written", async () => {
  const table: [string[], number, string][] = [
    [[], 2, "missing PATH"],
    [[SESSIONS], 2, "missing --output FILE"],
    [[SESSIONS, "--output", ""], 2, "missing --output FILE"],
    [["", "--output", "x.gz"], 2, "empty PATH"],
    [[SESSIONS, "--output", "a", "--output", "b"], 2, "--output: given more than once"],
    [[SESSIONS, "--output", "x.gz", "--limit", "3"], 2, "unknown option '--limit'"],
    [[SESSIONS, "--output", `${DIR}/missing/out.jsonl.gz`], 1, "cannot write"],
  ];
  for (const [args, code, message] of table) {
    const result = await importCommand(args);
    assert.equal(result.code, code, args.join(" "));
    assert.ok(result.stderr.startsWith("yarp corpus import: "), result.stderr);
    assert.ok(result.stderr.includes(message), `${args.join(" ")}: ${result.stderr}`);
    assert.equal(result.stdout, "");
  }
  const help = await importCommand(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: yarp corpus import PATH\.\.\. --output FILE/);
});

Deno.test("a file is recognised by its first lines, never by its path", async () => {
  const dir = `${DIR}/detect`;
  await Deno.mkdir(dir);
  // A Pi session named like a Claude Code one, and a file whose first 16 lines match nothing.
  await Deno.copyFile(
    `${SESSIONS}/${PI}.jsonl`,
    `${dir}/9d9f07e1-2696-40b4-87af-eab2d03b4e01.jsonl`,
  );
  const late = [...Array(16).fill('{"n":1}'), '{"type":"session","id":"s","cwd":"/"}'];
  await Deno.writeTextFile(`${dir}/late.jsonl`, late.join("\n") + "\n");
  const output = outputPath();
  const result = await importCommand([dir, "--output", output, "--json"]);
  const summary = JSON.parse(result.stdout);
  assert.deepEqual(summary.records, { pi: 11, "claude-code": 0, codex: 0, gemini: 0, opencode: 0 });
  assert.equal(summary.unknown_files, 1);
  assert.match(
    result.stderr,
    /late\.jsonl: not a Pi, Claude Code, Codex, Gemini CLI or opencode session file/,
  );
});

Deno.test("detectRuntime: each runtime's first lines, and nothing else", () => {
  const table: [unknown, string | undefined][] = [
    [{ type: "session", version: 3, id: "s", timestamp: "t", cwd: "/w" }, "pi"],
    [{ type: "summary", summary: "x", leafUuid: "u" }, "claude-code"],
    [{ type: "user", sessionId: "s", message: { role: "user", content: "hi" } }, "claude-code"],
    [{ type: "file-history-snapshot", messageId: "m", snapshot: {} }, "claude-code"],
    [{ timestamp: "t", type: "session_meta", payload: { id: "s" } }, "codex"],
    [{ id: "c", timestamp: "t", instructions: null }, "codex"],
    [{ record_type: "state" }, "codex"],
    [{ type: "session", id: "s" }, undefined],
    [{ type: "message", message: {} }, undefined],
    [{ id: "c", timestamp: "t" }, undefined],
    [[], undefined],
    ["session", undefined],
    [null, undefined],
  ];
  for (const [entry, name] of table) {
    assert.equal(detectRuntime(entry)?.name, name, JSON.stringify(entry));
  }
});

Deno.test("stripPiFormatting: Pi's notices are removed, the tool's output never", () => {
  const notice = "[Showing lines 2-3 of 3. Full output: /tmp/pi-bash-1.log]";
  const byteNotice = "[Showing lines 9-40 of 40 (50.0KB limit). Full output: /tmp/pi-bash-2.log]";
  const lineNotice =
    "[Showing last 50.0KB of line 1 (line is 2.0MB). Full output: /tmp/pi-bash-3.log]";
  const table: [string, boolean, boolean, string, number | null, boolean, boolean][] = [
    // text, isError, details.truncation → output, exit code, truncated, foreign
    ["a\n", false, false, "a\n", 0, false, false],
    ["(no output)", false, false, "", 0, false, false],
    ["(no output)\n\nCommand exited with code 1", true, false, "", 1, false, false],
    ["x\n\n\nCommand exited with code 3", true, false, "x\n", 3, false, false],
    ["x\n\nCommand exited with code 300", true, false, "x", null, false, false],
    ["Command timed out after 1 seconds", true, false, "", null, false, false],
    ["late\n\nCommand timed out after 0.5 seconds", true, false, "late", null, false, false],
    ["x\n\nCommand aborted", true, false, "x", null, false, false],
    [`b\nc\n\n\n${notice}`, false, true, "b\nc\n", 0, true, false],
    [`b\n\n${byteNotice}\n\nCommand exited with code 2`, true, false, "b", 2, true, false],
    [`${"z".repeat(9)}\n\n${lineNotice}`, false, true, "z".repeat(9), 0, true, false],
    // A successful output that merely ends like a notice keeps it: Pi said nothing was cut.
    [`b\n\n${notice}`, false, false, `b\n\n${notice}`, 0, false, false],
    // A failed result Pi did not write (a blocked call) is kept whole.
    ["Tool execution was blocked", true, false, "Tool execution was blocked", null, false, true],
    [
      "x\nCommand exited with code 1",
      true,
      false,
      "x\nCommand exited with code 1",
      null,
      false,
      true,
    ],
  ];
  for (const [text, isError, truncation, output, exitCode, truncated, foreign] of table) {
    assert.deepEqual(
      stripPiFormatting(text, isError, truncation),
      { output, exitCode, truncated, foreign },
      JSON.stringify(text),
    );
  }
});

Deno.test("codexCommand: a shell -c argv is its source, other argv is quoted", () => {
  const table: [unknown, string | undefined][] = [
    [["bash", "-lc", "ls | wc -l"], "ls | wc -l"],
    [["/bin/zsh", "-lc", "pwd"], "pwd"],
    [["sh", "-c", "echo 'a'"], "echo 'a'"],
    [["bash", "-lc", "x", "extra"], "bash -lc x extra"],
    [["fish", "-c", "ls"], "fish -c ls"],
    [["echo", "it's", ""], "echo 'it'\\''s' ''"],
    ["cargo test", "cargo test"],
    [["ls", 3], undefined],
    [undefined, undefined],
  ];
  for (const [value, command] of table) assert.equal(codexCommand(value), command);
});

/** Feeds `entries` to a fresh reader of `runtime`; returns the calls, skips and orphans. */
function readAll(runtime: SessionRuntime, entries: readonly unknown[]) {
  const calls: RecordedCall[] = [];
  const skips: string[] = [];
  const reader = runtime.createReader({ call: (c) => calls.push(c), skip: (r) => skips.push(r) });
  for (const entry of entries) reader.push(entry);
  const orphans = reader.finish();
  return { calls, skips, orphans };
}

Deno.test("readers never throw on JSON values of the wrong shape", () => {
  const strange: unknown[] = [
    null,
    1,
    "x",
    [],
    {},
    { type: "message", message: { role: "assistant", content: [null, { type: "toolCall" }] } },
    { type: "message", message: { role: "toolResult", toolCallId: 3 } },
    { type: "assistant", message: { content: [{ type: "tool_use", name: "Bash", input: 7 }] } },
    { type: "user", message: { content: [{ type: "tool_result" }] }, toolUseResult: [] },
    { type: "response_item", payload: { type: "function_call", name: "shell", arguments: 5 } },
    { type: "event_msg", payload: { type: "exec_command_end" } },
    { type: "function_call_output", call_id: "c", output: { content: [1] } },
  ];
  for (const runtime of [piRuntime, claudeCodeRuntime, codexRuntime]) {
    const { calls, orphans } = readAll(runtime, strange);
    assert.deepEqual(calls, []);
    assert.equal(orphans, 0);
  }
});

Deno.test("Codex results wait for their end events, at most HOLD_LIMIT of them", () => {
  const call = (id: string) => ({
    timestamp: "t",
    type: "response_item",
    payload: {
      type: "function_call",
      name: "shell",
      arguments: '{"command":["true"]}',
      call_id: id,
    },
  });
  const output = (id: string) => ({
    timestamp: "t",
    type: "response_item",
    payload: {
      type: "function_call_output",
      call_id: id,
      output: "Exit code: 0\nWall time: 0 seconds\nOutput:\n",
    },
  });
  const entries: unknown[] = [];
  for (let i = 0; i <= HOLD_LIMIT; i++) entries.push(call(`c${i}`), output(`c${i}`));
  const calls: string[] = [];
  const reader = codexRuntime.createReader({ call: (c) => calls.push(c.callId), skip: () => {} });
  for (const entry of entries) reader.push(entry);
  // One over the limit: the oldest is handed over before the file ends.
  assert.deepEqual(calls, ["c0"]);
  assert.equal(reader.finish(), 0);
  assert.deepEqual(calls, Array.from({ length: HOLD_LIMIT + 1 }, (_, i) => `c${i}`));
});

/** A Pi session's call and result entries for one bash run. */
function piEntries(command: string, text: string, isError: boolean, details?: unknown) {
  return [
    {
      type: "message",
      message: {
        role: "assistant",
        content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command } }],
      },
    },
    {
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: "c1",
        toolName: "bash",
        content: [{ type: "text", text }],
        details,
        isError,
      },
    },
  ];
}

const encoder = new TextEncoder();

/** The output bytes of `call` after a trip through recordToLine and parseRecordLine. */
function roundTrip(call: RecordedCall, source: string): Uint8Array[] {
  const record = parseRecordLine(recordToLine({ ...call, id: `x/${call.callId}`, source }));
  if ("error" in record) throw new Error(record.error);
  assert.equal(record.command, call.command);
  return record.streams.mode === "combined"
    ? [record.streams.output]
    : [record.streams.stdout, record.streams.stderr];
}

Deno.test("property: any command and output text survives every reader and the record line byte-exactly", () => {
  // Any code point, plus lone surrogates (JSON can carry them; they encode as U+FFFD) and controls.
  const unit = fc.oneof(
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    fc.constantFrom("\ud800", "\udfff", "\n", "\r", "\0"),
  );
  const text = fc.string({ unit, maxLength: 200 });
  fc.assert(
    fc.property(text, text, text, (command, out, err) => {
      fc.pre(out !== "(no output)");
      const pi = readAll(piRuntime, piEntries(command, out, false)).calls;
      assert.deepEqual(roundTrip(pi[0], "pi"), [encoder.encode(out)]);
      const claude = readAll(claudeCodeRuntime, [
        {
          type: "assistant",
          message: { content: [{ type: "tool_use", id: "t", name: "Bash", input: { command } }] },
        },
        {
          type: "user",
          message: { content: [{ type: "tool_result", tool_use_id: "t", content: out + err }] },
          toolUseResult: { stdout: out, stderr: err, interrupted: false, isImage: false },
        },
      ]).calls;
      assert.deepEqual(roundTrip(claude[0], "claude-code"), [
        encoder.encode(out),
        encoder.encode(err),
      ]);
      const codex = readAll(codexRuntime, [
        {
          timestamp: "t",
          type: "response_item",
          payload: {
            type: "function_call",
            name: "exec_command",
            arguments: JSON.stringify({ cmd: command }),
            call_id: "k",
          },
        },
        {
          timestamp: "t",
          type: "event_msg",
          payload: {
            type: "exec_command_end",
            call_id: "k",
            stdout: out,
            stderr: err,
            exit_code: 0,
          },
        },
      ]).calls;
      assert.deepEqual(roundTrip(codex[0], "codex"), [encoder.encode(out), encoder.encode(err)]);
    }),
  );
});

Deno.test("property: Pi's trailers are stripped and never take any of the tool's output", () => {
  const trailer = fc.oneof(
    fc.integer({ min: 1, max: 255 }).map((code) => ({
      status: `Command exited with code ${code}`,
      exitCode: code as number | null,
    })),
    fc.constant({ status: "Command timed out after 30 seconds", exitCode: null }),
    fc.constant({ status: "Command aborted", exitCode: null }),
  );
  const output = fc.string({ unit: "grapheme", maxLength: 80 }).filter((text) =>
    text !== "(no output)" && !text.includes("[Showing")
  );
  fc.assert(
    fc.property(output, trailer, fc.boolean(), (out, { status, exitCode }, truncated) => {
      const notice = truncated
        ? "\n\n[Showing lines 1-2 of 9. Full output: /tmp/pi-bash-0.log]"
        : "";
      const shown = out === "" && status.startsWith("Command exited") ? "(no output)" : out;
      const body = shown + notice;
      const text = body === "" ? status : `${body}\n\n${status}`;
      const { calls } = readAll(piRuntime, piEntries("cmd", text, true, {}));
      assert.equal(calls.length, 1);
      assert.equal(calls[0].exitCode, exitCode);
      assert.deepEqual(roundTrip(calls[0], "pi"), [encoder.encode(out)]);
      assert.equal(calls[0].priorReduction, truncated ? "pi-truncation" : null);
    }),
  );
});
