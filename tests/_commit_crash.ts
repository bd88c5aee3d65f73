/**
 * A child for `fault_crash_leftovers_test.ts`: commits one call of SIZE
 * bytes to the archive at PATH through the real `commitCall`, and at STAGE
 * prints `STAGE` on stdout and waits forever, so the test can SIGKILL it
 * there. Stages: `writing` (half the call file written), `written` (the
 * file complete, before the transaction), `committing` (inside the
 * transaction, before COMMIT), `committed` (after COMMIT, before the
 * pending mark goes), `pruning` (retention's transaction has deleted the
 * oldest call's rows, before its file goes).
 *
 * Usage: deno run -A tests/_commit_crash.ts PATH SIZE STAGE
 */
import type { DatabaseSync } from "node:sqlite";
import { commitCall, openArchive, pruneArchive, type StreamSource } from "../lib/archive/mod.ts";

const [path, sizeText, stage] = Deno.args;
const size = Number(sizeText);

function stop(at: string): never {
  Deno.stdout.writeSync(new TextEncoder().encode(`${at}\n`));
  while (true) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
}

/** `db` with its `exec` of `sql` watched: stops just before or just after it. */
function watched(db: DatabaseSync, sql: string, when: "before" | "after"): DatabaseSync {
  return new Proxy(db, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== "exec") return typeof value === "function" ? value.bind(target) : value;
      return (text: string) => {
        if (text === sql && when === "before") stop(stage);
        const result = target.exec(text);
        if (text === sql && when === "after") stop(stage);
        return result;
      };
    },
  });
}

const db = await openArchive(path, "write");
const source: StreamSource = {
  name: "stdout",
  size,
  read(offset, buffer) {
    if (stage === "writing" && offset >= size / 2) stop(stage);
    const length = Math.min(buffer.length, size - offset);
    buffer.fill(0x61, 0, length);
    return length;
  },
};
const facts = {
  createdMs: Date.now(),
  cwd: "/",
  source: "run",
  command: "crash",
  argv: null,
  exitCode: 0,
  signal: null,
  ruleId: null,
} as const;
if (stage === "pruning") {
  pruneArchive(watched(db, "COMMIT", "after"), { maxBytes: 0, maxAgeMs: 1e15 }, Date.now(), 1);
} else {
  const at = {
    writing: db,
    written: watched(db, "BEGIN IMMEDIATE", "before"),
    committing: watched(db, "COMMIT", "before"),
    committed: watched(db, "COMMIT", "after"),
  }[stage];
  if (at === undefined) throw new Error(`unknown stage '${stage}'`);
  await commitCall(at, facts, [source]);
}
stop("finished");
