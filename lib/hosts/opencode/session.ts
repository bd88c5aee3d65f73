/**
 * Reads opencode's sessions (docs/corpus.md, "Import"; opencode 1.18.33).
 * opencode keeps them in one SQLite database,
 * `$XDG_DATA_HOME/opencode/opencode.db` (WAL mode): table `session` (one row
 * a session), `message` (one row a message, JSON in `data`) and `part` (one
 * row a message part: `id`, `message_id`, `session_id`, `time_created`,
 * `time_updated`, `data`). A shell call is a part whose `data` is
 * `{type:"tool", tool:"bash", callID, state}`, with `state` `{status:
 * "completed", input:{command}, output, metadata:{exit, truncated,
 * outputPath?}}` once it finished, `{status:"error", error}` when it was
 * refused or failed to start, and `pending`/`running` before.
 *
 * The output is the text the model read (`state.output`): stdout and stderr
 * interleaved (`combined`); the exit code `metadata.exit` (null when the
 * command was killed by opencode's timeout or an abort). A result opencode
 * cut (`metadata.truncated`: a notice naming its full-output file, then the
 * tail) is `other` (already reduced), one carrying YARP's marker (the
 * plugin replaced it) `yarp`. A call whose state is an error (a deny or ask
 * rule refused it) is skipped; one still pending or running is counted as
 * without a result.
 *
 * The database is opened read-only (`node:sqlite`), never written; the
 * parts are read in session, then part id order (ids grow with time). A
 * record's call id is `SESSION/CALL` (opencode's call ids repeat across
 * sessions in one file).
 *
 * @module
 */
import {
  carriesYarpMarker,
  combinedStreams,
  exitCodeOf,
  isObject,
  type RecordedCall,
} from "../session.ts";

/** The first 16 bytes of every SQLite 3 database file. */
export const SQLITE_HEADER = "SQLite format 3\0";

/** What one part row says about a shell call. */
export type PartReading =
  | { readonly kind: "call"; readonly call: RecordedCall }
  | { readonly kind: "skip"; readonly reason: string }
  | { readonly kind: "open" }
  | { readonly kind: "other" };

/**
 * Reads one `part` row's parsed `data` of session `sessionId`: a finished
 * bash call, a bash call to skip (refused, no command), one without a result
 * yet, or a part that is no bash call. Never throws.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { readPart } from "./session.ts";
 * const data = {
 *   type: "tool", tool: "bash", callID: "c1",
 *   state: { status: "completed", input: { command: "false" }, output: "", metadata: { exit: 1, truncated: false } },
 * };
 * const read = readPart("ses_1", data);
 * equal(read.kind === "call" && read.call.callId, "ses_1/c1");
 * equal(read.kind === "call" && read.call.exitCode, 1);
 * deepEqual(readPart("ses_1", { type: "text", text: "hi" }), { kind: "other" });
 * ```
 */
export function readPart(sessionId: string, data: unknown): PartReading {
  if (!isObject(data) || data.type !== "tool" || data.tool !== "bash") return { kind: "other" };
  const state = data.state;
  if (typeof data.callID !== "string" || data.callID === "" || !isObject(state)) {
    return { kind: "skip", reason: "no-call-id" };
  }
  const command = isObject(state.input) ? state.input.command : undefined;
  if (typeof command !== "string" || command.trim() === "") {
    return { kind: "skip", reason: "no-command" };
  }
  if (state.status === "pending" || state.status === "running") return { kind: "open" };
  if (state.status !== "completed" || typeof state.output !== "string") {
    return { kind: "skip", reason: "not-command-output" };
  }
  const metadata = isObject(state.metadata) ? state.metadata : {};
  const output = state.output;
  return {
    kind: "call",
    call: {
      callId: `${sessionId}/${data.callID}`,
      command,
      exitCode: exitCodeOf(metadata.exit),
      streams: combinedStreams(output),
      priorReduction: carriesYarpMarker(output)
        ? "yarp"
        : metadata.truncated === true
        ? "other"
        : null,
    },
  };
}

/**
 * The readings of every bash tool part in the opencode database at `path`
 * ({@link readPart}; parts that are no bash call are left out), in session
 * and part order, one row in memory at a time; a row whose `data` is not
 * JSON gives a skip. Opens the file read-only and closes it when the
 * generator ends; throws when it cannot be opened or is not an opencode
 * database (no `part` table with `session_id` and `data`).
 */
export async function* opencodeParts(path: string): AsyncGenerator<PartReading> {
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = db.prepare(
      "SELECT session_id, data FROM part ORDER BY session_id, id",
    ).iterate() as Iterable<{ session_id: unknown; data: unknown }>;
    for (const row of rows) {
      if (typeof row.session_id !== "string" || typeof row.data !== "string") continue;
      if (!row.data.includes('"bash"')) continue;
      let data: unknown;
      try {
        data = JSON.parse(row.data);
      } catch {
        yield { kind: "skip", reason: "not valid JSON" };
        continue;
      }
      const read = readPart(row.session_id, data);
      if (read.kind !== "other") yield read;
    }
  } finally {
    db.close();
  }
}
