/**
 * The session readers, one per agent runtime, and the detection that picks
 * one for a file from the content of its first lines (never from its path).
 * Every reader emits {@link RecordedCall}s that `lib/corpus/import.ts` turns
 * into corpus records.
 *
 * @module
 */
import { isObject, type SessionRuntime } from "./session.ts";
import { piRuntime } from "./pi/session.ts";
import { claudeCodeRuntime } from "./claude_code/session.ts";
import { codexRuntime } from "./codex/session.ts";
import { geminiRuntime } from "./gemini/session.ts";

export type { CallSink, RecordedCall, SessionReader, SessionRuntime } from "./session.ts";
export { piRuntime } from "./pi/session.ts";
export { claudeCodeRuntime } from "./claude_code/session.ts";
export { codexRuntime } from "./codex/session.ts";
export { geminiRuntime } from "./gemini/session.ts";
export { opencodeParts, SQLITE_HEADER } from "./opencode/session.ts";

/** opencode's runtime name: its sessions are one SQLite database, read apart from the JSONL runtimes. */
export const OPENCODE_RUNTIME = "opencode";

/** Every runtime YARP imports, in the order detection tries them. */
export const RUNTIMES: readonly SessionRuntime[] = [
  piRuntime,
  claudeCodeRuntime,
  codexRuntime,
  geminiRuntime,
];

/** How many of a file's first JSON lines detection looks at before calling its format unknown. */
export const DETECTION_LINES = 16;

/**
 * The runtime whose format `entry` (one parsed line from the start of a
 * file) shows, trying {@link RUNTIMES} in order; undefined when none does.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { detectRuntime } from "./mod.ts";
 * equal(detectRuntime({ type: "session", version: 3, id: "s", cwd: "/w" })?.name, "pi");
 * equal(detectRuntime({ type: "user", sessionId: "s", message: {} })?.name, "claude-code");
 * equal(detectRuntime({ timestamp: "t", type: "session_meta", payload: {} })?.name, "codex");
 * equal(detectRuntime({ hello: "world" }), undefined);
 * ```
 */
export function detectRuntime(entry: unknown): SessionRuntime | undefined {
  if (!isObject(entry)) return undefined;
  return RUNTIMES.find((runtime) => runtime.recognizes(entry));
}
