/**
 * One concurrent writer for bench/archive_concurrency.ts: spools a stream of
 * `--bytes` bytes through {@link ArchiveCapture} exactly as `yarp run` does
 * (spool while the child writes, then commit), and prints one JSON line with
 * the outcome and where the time went: `commit_ms` (open + file + rows +
 * retention), `wait_ms` (waiting for the write lock), `hold_ms` (holding it).
 *
 * Usage: `deno run -A bench/_archive_writer.ts --path DB --spool DIR --bytes N --seed S`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { ArchiveCapture } from "../lib/archive/capture.ts";
import { commitCall } from "../lib/archive/commit.ts";
import type { TransactionTiming } from "../lib/archive/store.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    path: { type: "string" },
    spool: { type: "string" },
    bytes: { type: "string" },
    seed: { type: "string", default: "1" },
  },
  strict: true,
});
const size = Number(values.bytes);
const seed = Number(values.seed);
const timing: TransactionTiming = { waitMs: NaN, holdMs: NaN };
const capture = new ArchiveCapture(
  {
    enabled: true,
    path: values.path!,
    spoolDir: values.spool!,
    maxBytes: 64 * 1024 ** 3,
    maxAgeMs: 365 * 86_400_000,
    minAgeMs: 60 * 60_000,
  },
  {
    createdMs: Date.now(),
    cwd: "/bench",
    command: `bench-writer ${seed}`,
    argv: ["bench-writer", String(seed)],
    ruleId: "bench",
    host: "cli",
  },
  async (...args) => {
    const committed = await commitCall(...args);
    Object.assign(timing, committed.timing);
    return committed;
  },
);
const line = new TextEncoder().encode(`${seed} line of bench output with some words in it\n`);
const block = new Uint8Array(64 * 1024);
for (let at = 0; at < block.length; at += line.length) {
  block.set(line.subarray(0, block.length - at), at);
}
for (let at = 0; at < size; at += block.length) {
  capture.write("stdout", block.subarray(0, Math.min(block.length, size - at)));
}
const started = performance.now();
const outcome = await capture.commit({ code: 0 });
const commitMs = performance.now() - started;
capture.close();
console.log(JSON.stringify({
  outcome: outcome.kind,
  id: outcome.kind === "archived" ? outcome.id : null,
  reason: outcome.kind === "archived" ? null : outcome.reason,
  bytes: size,
  commit_ms: commitMs,
  wait_ms: timing.waitMs,
  hold_ms: timing.holdMs,
}));
