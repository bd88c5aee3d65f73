/**
 * The archive in-process (docs/archive.md): settings, ids, the config file,
 * spool → commit → read exactness (fast-check over arbitrary bytes and
 * chunkings), chunking, id collisions, search, retention, forget, and
 * refusal of corrupt or newer databases.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  ArchiveError,
  archiveSettings,
  archiveTotals,
  callBytesPath,
  type CallFacts,
  CHUNK_BYTES,
  cleanStraySpools,
  commandText,
  commitCall,
  findCall,
  findPrunedCall,
  forgetCall,
  ftsQuery,
  memorySource,
  openArchive,
  orphanCallFiles,
  pruneArchive,
  PRUNED_RECORDS,
  rawChunks,
  RunSpool,
  SCHEMA_VERSION,
  searchCalls,
  type StoredCall,
  verifiedChunks,
} from "../lib/archive/mod.ts";
import { configLocation, EMPTY_CONFIG, envFromRecord, parseConfig } from "../lib/config/mod.ts";
import type { DatabaseSync } from "node:sqlite";
import { sha256 } from "../lib/bytes/sha256.ts";
import { toHex } from "../lib/bytes/sha256.ts";
import { concatBytes } from "./_bytes.ts";

const DIR = await Deno.makeTempDir({ prefix: "yarp_archive_test_" });
globalThis.addEventListener("unload", () => Deno.removeSync(DIR, { recursive: true }));
let dbCounter = 0;

async function freshDb(): Promise<DatabaseSync> {
  dbCounter += 1;
  return await openArchive(`${DIR}/db${dbCounter}/archive.sqlite3`, "write");
}

function facts(command: string, createdMs = Date.now()): CallFacts {
  return {
    createdMs,
    cwd: "/tmp",
    source: "run",
    command,
    argv: command.split(" "),
    exitCode: 0,
    signal: null,
    ruleId: "test.rule",
  };
}

function readAll(db: DatabaseSync, call: StoredCall, name: string): Uint8Array {
  const stream = call.streams.find((s) => s.name === name)!;
  const parts: Uint8Array[] = [];
  for (const part of rawChunks(db, call, stream)) parts.push(part.slice()); // the buffer is reused
  return concatBytes(parts);
}

function found(db: DatabaseSync, id: string): StoredCall {
  const lookup = findCall(db, id);
  assert.equal(lookup.kind, "found");
  return (lookup as { call: StoredCall }).call;
}

// ---------------------------------------------------------------- settings, ids, config

Deno.test("archive settings: precedence, off switch and one-line errors", () => {
  const env = (record: Record<string, string>) => envFromRecord(record);
  const base = archiveSettings(env({ HOME: "/h", XDG_STATE_HOME: "/s" }), EMPTY_CONFIG);
  assert.deepEqual(base, {
    enabled: true,
    path: "/s/yarp/archive.sqlite3",
    spoolDir: "/s/yarp/spool",
    maxBytes: 1024 ** 3,
    maxAgeMs: 30 * 86_400_000,
    minAgeMs: 60 * 60_000,
  });
  const relativeXdg = archiveSettings(env({ HOME: "/h", XDG_STATE_HOME: "rel" }), EMPTY_CONFIG);
  assert.equal((relativeXdg as { path: string }).path, "/h/.local/state/yarp/archive.sqlite3");
  const configured = archiveSettings(env({ HOME: "/h" }), {
    archive: { path: "/c/a.db", maxBytes: 10, maxAgeDays: 1, minAgeMinutes: 0 },
    rules: { packs: [] },
  });
  assert.deepEqual(configured, {
    enabled: true,
    path: "/c/a.db",
    spoolDir: "/h/.local/state/yarp/spool",
    maxBytes: 10,
    maxAgeMs: 86_400_000,
    minAgeMs: 0,
  });
  const explicit = archiveSettings(env({ HOME: "/h", YARP_ARCHIVE_PATH: "/e/x.db" }), {
    archive: { path: "/c/a.db" },
    rules: { packs: [] },
  });
  assert.equal((explicit as { path: string }).path, "/e/x.db");
  assert.deepEqual(archiveSettings(env({ YARP_ARCHIVE: "off" }), EMPTY_CONFIG), { enabled: false });
  assert.equal(
    (archiveSettings(env({ HOME: "/h", YARP_ARCHIVE: "on" }), EMPTY_CONFIG) as { enabled: boolean })
      .enabled,
    true,
  );
  assert.deepEqual(archiveSettings(env({ HOME: "/h", YARP_ARCHIVE: "no" }), EMPTY_CONFIG), {
    error: "YARP_ARCHIVE: expected 'on' or 'off', got 'no'",
  });
  assert.match(
    (archiveSettings(env({ YARP_ARCHIVE_PATH: "rel.db" }), EMPTY_CONFIG) as { error: string })
      .error,
    /^YARP_ARCHIVE_PATH: expected an absolute path/,
  );
  assert.match(
    (archiveSettings(env({}), EMPTY_CONFIG) as { error: string }).error,
    /no state directory/,
  );
  const noState = archiveSettings(env({ YARP_ARCHIVE_PATH: "/e/x.db" }), EMPTY_CONFIG);
  assert.equal((noState as { spoolDir: string }).spoolDir, "/e/spool");
});

Deno.test("config location: YARP_CONFIG, then XDG_CONFIG_HOME, then HOME", () => {
  assert.deepEqual(configLocation(envFromRecord({ YARP_CONFIG: "/x.yaml", HOME: "/h" })), {
    path: "/x.yaml",
    required: true,
  });
  assert.deepEqual(configLocation(envFromRecord({ XDG_CONFIG_HOME: "/c", HOME: "/h" })), {
    path: "/c/yarp/config.yaml",
    required: false,
  });
  assert.equal(configLocation(envFromRecord({})), undefined);
});

Deno.test("config file: valid fields and every strictness error, one line each", async () => {
  const ok = await parseConfig(
    "archive:\n  path: ~/a.db\n  max_bytes: 2048\n  max_age_days: 1.5\n  min_age_minutes: 0\n" +
      "rules:\n  packs: [a.yrp, /b.yrp]\n",
    "c.yaml",
    "/h",
  );
  assert.deepEqual(ok, {
    ok: true,
    config: {
      file: "c.yaml",
      archive: { path: "/h/a.db", maxBytes: 2048, maxAgeDays: 1.5, minAgeMinutes: 0 },
      rules: { packs: ["a.yrp", "/b.yrp"] },
    },
  });
  assert.deepEqual(await parseConfig("", "e.yaml", "/h"), {
    ok: true,
    config: { file: "e.yaml", archive: {}, rules: { packs: [] } },
  });
  const table: [string, string][] = [
    ["archive:\n  colour: red\n", "config c.yaml:2: unknown field 'archive.colour'"],
    ["colour: red\n", "config c.yaml:1: unknown field 'colour'"],
    ["rules:\n  packs: [a, '']\n", "config c.yaml:2: rules.packs[1]: expected a non-empty path"],
    ["rules:\n  packs: a\n", "config c.yaml:2: rules.packs: expected a list"],
    ["rules:\n  other: 1\n", "config c.yaml:2: unknown field 'rules.other'"],
    [
      "archive:\n  max_bytes: -1\n",
      "config c.yaml:2: archive.max_bytes: expected a positive integer",
    ],
    [
      "archive:\n  max_bytes: 1.5\n",
      "config c.yaml:2: archive.max_bytes: expected a positive integer",
    ],
    [
      "archive:\n  max_age_days: x\n",
      "config c.yaml:2: archive.max_age_days: expected a positive number of days",
    ],
    [
      "archive:\n  min_age_minutes: -1\n",
      "config c.yaml:2: archive.min_age_minutes: expected a number of minutes, 0 or more",
    ],
    [
      "archive:\n  path: rel/a.db\n",
      "config c.yaml:2: archive.path: expected an absolute path or one starting with '~/'",
    ],
    ["archive:\n  path: /a\n  path: /b\n", "config c.yaml:3: duplicate key"],
    [
      "archive:\n  path: !!binary aGk=\n",
      "config c.yaml:2: tags are not allowed (tag:yaml.org,2002:binary)",
    ],
    ["archive:\n  path: !mine /x\n", "config c.yaml:2: tags are not allowed (!mine)"],
    ["a: &x 1\nb: *x\n", "config c.yaml:2: aliases are not allowed"],
    ["- 1\n", "config c.yaml:1: expected a mapping at the top level"],
    ["archive: 3\n", "config c.yaml:1: archive: expected a mapping"],
  ];
  for (const [text, error] of table) {
    assert.deepEqual(await parseConfig(text, "c.yaml", "/h"), { ok: false, error }, text);
  }
  const syntax = await parseConfig("archive: [1,\n", "c.yaml", "/h");
  assert.equal(syntax.ok, false);
  assert.match((syntax as { error: string }).error, /^config c\.yaml:\d+: YAML syntax: /);
});

Deno.test("command text is shell-quoted only where needed", () => {
  assert.equal(commandText(["git", "diff", "--stat"]), "git diff --stat");
  assert.equal(commandText(["sh", "-c", "echo 'hi' $X"]), `sh -c 'echo '\\''hi'\\'' $X'`);
  assert.equal(commandText([""]), "''");
});

Deno.test("ftsQuery quotes every word so no text is FTS syntax", () => {
  assert.equal(ftsQuery("NEAR(a b) OR -x *"), '"NEAR(a" "b)" "OR" "-x" "*"');
});

// ---------------------------------------------------------------- exactness

Deno.test("property: spool -> commit -> read returns exactly the bytes, for any bytes and chunking", async () => {
  const db = await freshDb();
  const chunked = fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 12 });
  await fc.assert(
    fc.asyncProperty(chunked, chunked, async (outChunks, errChunks) => {
      const spool = RunSpool.open(`${DIR}/spool`, ["stdout", "stderr"]);
      try {
        for (const chunk of outChunks) spool.write("stdout", chunk);
        for (const chunk of errChunks) spool.write("stderr", chunk);
        assert.equal(spool.failure, undefined);
        const committed = await commitCall(db, facts("prop"), [
          spool.source("stdout"),
          spool.source("stderr"),
        ]);
        const call = found(db, committed.id);
        for (const [name, chunks] of [["stdout", outChunks], ["stderr", errChunks]] as const) {
          const expected = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
          let at = 0;
          for (const c of chunks) {
            expected.set(c, at);
            at += c.length;
          }
          assert.deepEqual(readAll(db, call, name), expected);
          const stream = call.streams.find((s) => s.name === name)!;
          assert.equal(stream.size, expected.length);
          assert.equal(stream.sha256, toHex(sha256(expected)));
        }
      } finally {
        spool.close();
      }
    }),
    { numRuns: 150 },
  );
  db.close();
});

Deno.test("large streams are stored in the call file and read back exactly; every digest path agrees", async () => {
  const db = await freshDb();
  const big = new Uint8Array(3 * CHUNK_BYTES + 12345);
  for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
  const small = new Uint8Array([0, 0xff, 0xfe, 10, 0]);
  const committed = await commitCall(db, facts("big"), [
    memorySource("stdout", big),
    memorySource("stderr", small),
  ]);
  const call = found(db, committed.id);
  assert.deepEqual(call.streams.map((s) => s.blobOffset), [0, big.length]);
  assert.equal(
    Deno.statSync(callBytesPath(db.location()!, call.id)).size,
    big.length + small.length,
  );
  assert.deepEqual(readAll(db, call, "stdout"), big);
  assert.deepEqual(readAll(db, call, "stderr"), small);
  assert.equal(call.streams[0].sha256, toHex(sha256(big)));
  // Above the whole-digest limit (32 MiB) node:crypto hashes the stream chunk by chunk.
  const huge = new Uint8Array(33 * CHUNK_BYTES + 7);
  huge.fill(0x61);
  huge[huge.length - 1] = 0;
  const second = await commitCall(db, facts("huge"), [memorySource("output", huge)]);
  const hugeCall = found(db, second.id);
  assert.equal(hugeCall.streams[0].sha256, toHex(sha256(huge)));
  assert.deepEqual(readAll(db, hugeCall, "output"), huge);
  db.close();
});

Deno.test("a spool shorter than its size stores nothing, whichever digest path reads it", async () => {
  const db = await freshDb();
  for (const size of [CHUNK_BYTES + 5, 33 * CHUNK_BYTES]) {
    const short = {
      name: "stdout" as const,
      size,
      read: (offset: number, buffer: Uint8Array) =>
        Math.max(0, Math.min(buffer.length, 100 - offset)),
    };
    await assert.rejects(
      commitCall(db, facts("short"), [short]),
      new RegExp(`stdout: spool ended at 100 of ${size} bytes`),
    );
  }
  assert.deepEqual(archiveTotals(db).calls, 0);
  db.close();
});

Deno.test("an id collision retries with a fresh id; unique prefixes resolve", async () => {
  const db = await freshDb();
  const ids = ["aaaa0001", "aaaa0001", "aaaa0001", "aaaa0002"];
  const first = await commitCall(db, facts("one"), [], () => ids.shift()!);
  const second = await commitCall(db, facts("two"), [], () => ids.shift()!);
  assert.equal(first.id, "aaaa0001");
  assert.equal(second.id, "aaaa0002");
  assert.equal(findCall(db, "aaaa").kind, "ambiguous");
  assert.equal(found(db, "AAAA0002").command, "two");
  assert.equal(findCall(db, "bbbb").kind, "missing");
  db.close();
});

Deno.test("a damaged call is reported, never returned short", async () => {
  const db = await freshDb();
  const committed = await commitCall(db, facts("dmg"), [
    memorySource("stdout", new Uint8Array(CHUNK_BYTES + 5)),
  ]);
  Deno.truncateSync(callBytesPath(db.location()!, committed.id), CHUNK_BYTES - 1);
  const call = found(db, committed.id);
  assert.throws(() => readAll(db, call, "stdout"), /damaged in the archive/);
  db.close();
});

// ---------------------------------------------------------------- search, retention

Deno.test("search finds by command and by output, newest first, with snippets", async () => {
  const db = await freshDb();
  const enc = new TextEncoder();
  const a = await commitCall(db, facts("cargo test --workspace", 1000), [
    memorySource("stdout", enc.encode("running 3 tests\ntest parser::works ... FAILED\n")),
  ]);
  const b = await commitCall(db, facts("npm test", 2000), [
    memorySource("stderr", enc.encode("\x1b[31mError\x1b[0m: parser exploded\0\n")),
  ]);
  const tail = new Uint8Array(300 * 1024).fill(0x2e);
  tail.set(enc.encode(" needle_at_the_end"), tail.length - 20);
  tail.set(enc.encode(" hidden_middle "), 150 * 1024);
  const c = await commitCall(db, facts("make all", 3000), [memorySource("stdout", tail)]);
  assert.deepEqual(searchCalls(db, "parser", 10).map((h) => h.id), [b.id, a.id]);
  assert.deepEqual(searchCalls(db, "cargo", 10).map((h) => h.id), [a.id]);
  assert.deepEqual(searchCalls(db, "parser FAILED", 10).map((h) => h.id), [a.id]);
  assert.deepEqual(searchCalls(db, "parser", 1).map((h) => h.id), [b.id]);
  assert.deepEqual(searchCalls(db, "needle_at_the_end", 10).map((h) => h.id), [c.id]);
  assert.deepEqual(
    searchCalls(db, "hidden_middle", 10),
    [],
    "the middle of a long stream is not indexed",
  );
  assert.deepEqual(searchCalls(db, '"quoted" OR (', 10), []);
  assert.deepEqual(searchCalls(db, "   ", 10), []);
  const [hit] = searchCalls(db, "exploded", 10);
  assert.match(hit.snippet, /«exploded»/);
  assert.ok(!hit.snippet.includes("\u001b"));
  db.close();
});

Deno.test("retention removes oldest first by size and age, bounded, never the protected call", async () => {
  const db = await freshDb();
  const kib = new Uint8Array(1024);
  const seqs: number[] = [];
  for (let i = 0; i < 10; i++) {
    seqs.push((await commitCall(db, facts(`c${i}`, 1000 + i), [memorySource("stdout", kib)])).seq);
  }
  assert.deepEqual(archiveTotals(db), { calls: 10, bytes: 10240, oldestMs: 1000, newestMs: 1009 });
  // Over by 4 KiB, but at most 2 calls per pass.
  assert.deepEqual(pruneArchive(db, { maxBytes: 6 * 1024, maxAgeMs: 1e12 }, 2000, 2), {
    calls: 2,
    bytes: 2048,
  });
  assert.deepEqual(pruneArchive(db, { maxBytes: 6 * 1024, maxAgeMs: 1e12 }, 2000), {
    calls: 2,
    bytes: 2048,
  });
  // Age: everything created before 1007 goes.
  assert.deepEqual(pruneArchive(db, { maxBytes: 1e12, maxAgeMs: 1000 }, 2007), {
    calls: 3,
    bytes: 3072,
  });
  assert.equal(archiveTotals(db).calls, 3);
  // The protected call stops pruning even when it alone is over the limit.
  assert.deepEqual(pruneArchive(db, { maxBytes: 0, maxAgeMs: 1e12 }, 2000, Infinity, 0, seqs[7]), {
    calls: 0,
    bytes: 0,
  });
  assert.equal(forgetCall(db, seqs[7]), true);
  assert.equal(forgetCall(db, seqs[7]), false);
  assert.deepEqual(archiveTotals(db), { calls: 2, bytes: 2048, oldestMs: 1008, newestMs: 1009 });
  const known = new Set(
    (db.prepare("SELECT id FROM calls").all() as { id: string }[]).map((r) => r.id),
  );
  assert.deepEqual(
    orphanCallFiles(db.location()!, () => known, Date.now() + 1e9),
    [],
    "no orphan files",
  );
  assert.deepEqual(searchCalls(db, "c7", 10), []);
  db.close();
});

Deno.test("retention keeps calls younger than minAgeMs from the size limit, never from the age limit", async () => {
  const db = await freshDb();
  const kib = new Uint8Array(1024);
  for (let i = 0; i < 6; i++) {
    await commitCall(db, facts(`m${i}`, 1000 + i), [memorySource("stdout", kib)]);
  }
  // Over by 4 KiB at time 1004: calls from 1000 to 1002 are old enough (>= 2 ms), 1003 on are not.
  assert.deepEqual(pruneArchive(db, { maxBytes: 2048, maxAgeMs: 1e12, minAgeMs: 2 }, 1004), {
    calls: 3,
    bytes: 3072,
  });
  assert.equal(archiveTotals(db).calls, 3);
  // The age limit is not held back by the minimum age.
  assert.deepEqual(pruneArchive(db, { maxBytes: 1e12, maxAgeMs: 1, minAgeMs: 1e12 }, 1006), {
    calls: 2,
    bytes: 2048,
  });
  db.close();
});

Deno.test("the pruned record names when and why, and keeps only the newest PRUNED_RECORDS", async () => {
  const db = await freshDb();
  const first = await commitCall(db, facts("first", 1000), []);
  for (let i = 0; i < PRUNED_RECORDS; i++) await commitCall(db, facts(`p${i}`, 1001 + i), []);
  assert.deepEqual(
    pruneArchive(db, { maxBytes: 1e12, maxAgeMs: 0 }, 1e9).calls,
    PRUNED_RECORDS + 1,
  );
  assert.equal(
    (db.prepare("SELECT count(*) AS n FROM pruned").get() as { n: number }).n,
    PRUNED_RECORDS,
  );
  assert.equal(findPrunedCall(db, first.id), undefined, "the oldest record went");
  const last = db.prepare("SELECT id FROM pruned ORDER BY seq DESC LIMIT 1").get() as {
    id: string;
  };
  assert.deepEqual(findPrunedCall(db, last.id.slice(0, 6).toUpperCase()), {
    id: last.id,
    createdMs: 1000 + PRUNED_RECORDS,
    prunedMs: 1e9,
    reason: "archive.max_age_days (0 days)",
  });
  db.close();
});

// ---------------------------------------------------------------- files and refusals

Deno.test("the database is created 0600 in a 0700 directory", async () => {
  const path = `${DIR}/perm/deep/archive.sqlite3`;
  const db = await openArchive(path, "write");
  await commitCall(db, facts("x"), [memorySource("stdout", new Uint8Array(3))]);
  assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
  assert.equal(Deno.statSync(`${path}-wal`).mode! & 0o777, 0o600);
  assert.equal(Deno.statSync(`${DIR}/perm/deep`).mode! & 0o777, 0o700);
  db.close();
});

Deno.test("a missing, corrupt, foreign or newer database is one clear ArchiveError", async () => {
  await assert.rejects(openArchive(`${DIR}/none/a.db`, "read"), /^ArchiveError: no archive at /);
  const corrupt = `${DIR}/corrupt.db`;
  Deno.writeTextFileSync(corrupt, "this is not a database, just text ".repeat(200));
  await assert.rejects(openArchive(corrupt, "write"), (error: Error) => {
    assert.ok(error instanceof ArchiveError);
    assert.match(error.message, /^archive .*corrupt\.db: file is not a database$/);
    return true;
  });
  assert.match(Deno.readTextFileSync(corrupt), /^this is not a database/, "left untouched");
  const { DatabaseSync } = await import("node:sqlite");
  const foreign = `${DIR}/foreign.db`;
  const other = new DatabaseSync(foreign);
  other.exec("CREATE TABLE t (x)");
  other.close();
  await assert.rejects(openArchive(foreign, "write"), /not a YARP archive/);
  const newer = `${DIR}/newer.db`;
  const future = new DatabaseSync(newer);
  future.exec("PRAGMA user_version = 99");
  future.close();
  await assert.rejects(openArchive(newer, "write"), /schema version 99 is newer/);
});

Deno.test("spool files are unlinked at once; a failed spool says why and keeps nothing", () => {
  const dir = `${DIR}/spool-unlinked`;
  const spool = RunSpool.open(dir, ["stdout", "stderr"]);
  spool.write("stdout", new Uint8Array([1, 2, 3]));
  assert.equal(spool.failure, undefined);
  assert.deepEqual([...Deno.readDirSync(dir)], []);
  assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
  const buffer = new Uint8Array(3);
  assert.equal(spool.source("stdout").read(0, buffer), 3);
  assert.deepEqual(buffer, new Uint8Array([1, 2, 3]));
  spool.close();
  Deno.writeTextFileSync(`${DIR}/not-a-dir`, "");
  const failed = RunSpool.open(`${DIR}/not-a-dir/spool`, ["stdout"]);
  assert.match(failed.failure!, /^spool /);
  failed.write("stdout", new Uint8Array(1)); // ignored, never throws
  assert.throws(() => failed.source("stdout"));
  failed.close();
});

Deno.test("named spool files older than the grace period are removed; fresh ones stay", () => {
  const dir = `${DIR}/strays`;
  Deno.mkdirSync(dir, { recursive: true });
  const now = Date.now();
  const stray = `${now - 61_000}-999999-abcd0123.stdout`;
  const older = `${now - 2 * 86_400_000}-${Deno.pid}-abcd0124.stderr`;
  const fresh = `${now - 1000}-${Deno.pid}-abcd0125.stdout`;
  const other = "unrelated.txt";
  for (const name of [stray, older, fresh, other]) Deno.writeTextFileSync(`${dir}/${name}`, "x");
  assert.equal(cleanStraySpools(dir, now), 2);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [fresh, other].sort());
  assert.equal(cleanStraySpools(`${DIR}/no-such-dir`, now), 0);
});

// ---------------------------------------------------------------- schema 1 archives

/** The schema version 1 wrote (bytes in chunk rows, FTS in the same file), for the upgrade test. */
const V1_SCHEMA = `
CREATE TABLE calls (
  seq         INTEGER PRIMARY KEY,
  id          TEXT    NOT NULL UNIQUE,
  created_ms  INTEGER NOT NULL,
  cwd         TEXT    NOT NULL,
  source      TEXT    NOT NULL CHECK (source IN ('run', 'put')),
  command     TEXT    NOT NULL,
  argv        TEXT,
  exit_code   INTEGER,
  signal      TEXT,
  rule_id     TEXT,
  total_bytes INTEGER NOT NULL
);
CREATE INDEX calls_by_time ON calls (created_ms);
CREATE TABLE streams (
  call_seq    INTEGER NOT NULL,
  name        TEXT    NOT NULL CHECK (name IN ('stdout', 'stderr', 'output')),
  size        INTEGER NOT NULL,
  sha256      TEXT    NOT NULL,
  chunk_count INTEGER NOT NULL,
  PRIMARY KEY (call_seq, name)
) WITHOUT ROWID;
CREATE TABLE chunks (
  call_seq INTEGER NOT NULL,
  stream   TEXT    NOT NULL,
  n        INTEGER NOT NULL,
  data     BLOB    NOT NULL,
  PRIMARY KEY (call_seq, stream, n)
);
CREATE VIRTUAL TABLE call_text USING fts5 (
  command, output, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE archive_totals (
  one   INTEGER PRIMARY KEY CHECK (one = 1),
  calls INTEGER NOT NULL,
  bytes INTEGER NOT NULL
);
INSERT INTO archive_totals (one, calls, bytes) VALUES (1, 0, 0);
PRAGMA user_version = 1;
`;

Deno.test("a schema-1 archive is upgraded on the first write and its calls still read and search", async () => {
  const path = `${DIR}/v1/archive.sqlite3`;
  Deno.mkdirSync(`${DIR}/v1`);
  const { DatabaseSync } = await import("node:sqlite");
  const old = new DatabaseSync(path);
  old.exec("PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_mode = WAL");
  old.exec(V1_SCHEMA);
  const bytes = new Uint8Array(CHUNK_BYTES + 10).fill(0x62);
  old.prepare(
    "INSERT INTO calls (seq, id, created_ms, cwd, source, command, total_bytes) VALUES (7, 'abcd0001', 1, '/', 'put', 'legacy command', ?)",
  ).run(bytes.length);
  old.prepare("INSERT INTO streams VALUES (7, 'output', ?, ?, 2)").run(
    bytes.length,
    toHex(sha256(bytes)),
  );
  old.prepare("INSERT INTO chunks VALUES (7, 'output', 0, ?), (7, 'output', 1, ?)").run(
    bytes.subarray(0, CHUNK_BYTES),
    bytes.subarray(CHUNK_BYTES),
  );
  old.exec("UPDATE archive_totals SET calls = 1, bytes = " + bytes.length);
  old.close();

  const reader = await openArchive(path, "read"); // read mode never upgrades
  assert.equal(found(reader, "abcd0001").streams[0].blobOffset, null);
  reader.close();
  const db = await openArchive(path, "write");
  assert.equal(
    (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version,
    SCHEMA_VERSION,
  );
  const call = found(db, "abcd0001");
  const back = new Uint8Array(bytes.length);
  let at = 0;
  for await (const chunk of verifiedChunks(db, call, call.streams[0])) {
    back.set(chunk, at);
    at += chunk.length;
  }
  assert.deepEqual(back, bytes);
  const next = await commitCall(db, facts("new command"), [memorySource("stdout", bytes)]);
  assert.equal(next.seq, 8, "seqs continue after the old ones");
  assert.deepEqual(searchCalls(db, "legacy", 10).map((h) => h.id), ["abcd0001"]);
  assert.deepEqual(searchCalls(db, "new", 10).map((h) => h.id), [next.id]);
  db.close();
});
