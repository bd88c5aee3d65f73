/**
 * Reads Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`;
 * docs/corpus.md, "Import"). Lines are `{timestamp, type, payload}`; files
 * of the 2025 bare era start with `{id, timestamp, instructions}` and hold
 * the payloads themselves, with `{record_type:"state"}` lines between.
 *
 * A shell call is a `response_item` payload `{type:"function_call", name,
 * arguments, call_id}` whose name is a shell tool (`shell`,
 * `container.exec`, `shell_command`, `exec_command`, `local_shell`) and
 * whose JSON `arguments` hold `command` (an argv array or a string) or `cmd`
 * (a string), or a `{type:"local_shell_call", call_id, action:{command}}`.
 * An argv `[sh, -c|-lc, SRC]` (bash, zsh, sh) is the command SRC; any other
 * argv is joined with shell quoting.
 *
 * Results, by preference:
 * - an `event_msg` payload `{type:"exec_command_end", call_id, stdout,
 *   stderr, aggregated_output, exit_code}`: streams apart (`separate`);
 *   or, as Codex 0.169.0 writes it, `{type:"item_completed",
 *   item:{type:"CommandExecution", id, aggregated_output, exit_code}}`:
 *   one text (`combined`);
 * - else the `function_call_output` `{call_id, output}` the model saw, one
 *   text (`combined`): JSON `{"output", "metadata":{"exit_code"}}`, or
 *   `Exit code: N\nWall time: …\n[Total output lines: N\n]Output:\n…`, or
 *   (unified exec) `[Chunk ID: …\n]Wall time: …\nProcess exited with code
 *   N\n[Original token count: …\n]Output:\n…`. A timeout's
 *   `command timed out after N milliseconds` line is removed.
 *
 * The end event may come before or after the output line, so a result read
 * from an output line is held until its end event arrives, the file ends,
 * or {@link HOLD_LIMIT} results are held (the oldest is then handed over).
 *
 * What Codex does not record: the raw bytes (decoded as UTF-8, invalid bytes
 * become U+FFFD); bytes past its per-stream capture cap; in the output line,
 * stdout and stderr apart, and the middle of a long output. In a PTY
 * (unified exec), stderr shares stdout.
 *
 * Already reduced (`other`): an output the model saw cut
 * (`…N tokens truncated…`, `…N chars truncated…`, `Total output lines:`), a
 * process still running when its output was recorded, and an output line of
 * no known shape (a sandbox refusal, an aborted call). A result carrying
 * YARP's marker is `yarp`. An `exec_command_end` with no shell call before
 * it (the user's own `!` command) is not imported.
 *
 * @module
 */
import { commandText } from "../../archive/command_text.ts";
import {
  type CallSink,
  carriesYarpMarker,
  combinedStreams,
  exitCodeFromDigits,
  exitCodeOf,
  isObject,
  type RecordedCall,
  separateStreams,
  type SessionReader,
  type SessionRuntime,
} from "../session.ts";

/** Function names under which Codex versions have run shell commands. */
const SHELL_TOOLS: readonly string[] = [
  "shell",
  "container.exec",
  "shell_command",
  "exec_command",
  "local_shell",
];
/** At most this many results read from output lines wait for their end events. */
export const HOLD_LIMIT = 64;

const SHELL_PROGRAM = /(?:^|\/)(?:ba|z)?sh$/;
const FREEFORM = /^Exit code: (-?\d+)\nWall time: [^\n]*\n(Total output lines: \d+\n)?Output:\n/;
const UNIFIED =
  /^(?:Chunk ID: [^\n]*\n)?Wall time: [^\n]*\n(?:Process exited with code (-?\d+)|(Process running with session ID [^\n]*))\n(?:Original token count: [^\n]*\n)?Output:\n/;
const TIMEOUT_LINE = /^command timed out after \d+ milliseconds\n/;
const CUT = /…\d+ (?:tokens|chars) truncated…|^Total output lines: \d+\n/m;

/**
 * The command text of a Codex argv or command string: `SRC` for
 * `[bash|zsh|sh, -c|-lc, SRC]`, any other argv shell-quoted and joined,
 * a string as is; undefined when `value` is neither.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { codexCommand } from "./session.ts";
 * equal(codexCommand(["bash", "-lc", "ls | wc -l"]), "ls | wc -l");
 * equal(codexCommand(["git", "log", "--format=%h %s"]), "git log '--format=%h %s'");
 * ```
 */
export function codexCommand(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (!Array.isArray(value) || !value.every((word) => typeof word === "string")) return undefined;
  const argv = value as string[];
  if (argv.length === 3 && SHELL_PROGRAM.test(argv[0]) && (argv[1] === "-c" || argv[1] === "-lc")) {
    return argv[2];
  }
  return commandText(argv);
}

/** The command of a shell `function_call` payload; undefined when it has none. */
function functionCallCommand(payload: Record<string, unknown>): string | undefined {
  if (typeof payload.arguments !== "string") return undefined;
  let args: unknown;
  try {
    args = JSON.parse(payload.arguments);
  } catch {
    return undefined;
  }
  if (!isObject(args)) return undefined;
  return codexCommand(args.command ?? args.cmd);
}

/** The text of a `function_call_output`'s output: a string, text items, or `{content}`. */
function outputText(output: unknown): string | undefined {
  if (typeof output === "string") return output;
  if (isObject(output)) return outputText(output.content);
  if (!Array.isArray(output)) return undefined;
  let text = "";
  for (const item of output) {
    if (!isObject(item) || typeof item.text !== "string") return undefined;
    text += item.text;
  }
  return text;
}

/** The exit code and output in the text the model saw; `known` false when its shape is not Codex's. */
function parseModelOutput(
  text: string,
): { exitCode: number | null; output: string; cut: boolean; known: boolean } {
  if (text.startsWith("{")) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (isObject(value) && typeof value.output === "string" && isObject(value.metadata)) {
      const output = value.output.replace(TIMEOUT_LINE, "");
      return { exitCode: exitCodeOf(value.metadata.exit_code), output, cut: false, known: true };
    }
  }
  const freeform = FREEFORM.exec(text);
  if (freeform !== null) {
    const output = text.slice(freeform[0].length).replace(TIMEOUT_LINE, "");
    const cut = freeform[2] !== undefined;
    return { exitCode: exitCodeFromDigits(freeform[1]), output, cut, known: true };
  }
  const unified = UNIFIED.exec(text);
  if (unified !== null) {
    const output = text.slice(unified[0].length);
    const running = unified[2] !== undefined;
    const exitCode = running ? null : exitCodeFromDigits(unified[1]);
    return { exitCode, output, cut: running, known: true };
  }
  return { exitCode: null, output: text, cut: false, known: false };
}

/** A call read from the `function_call_output` text the model saw. */
function callFromOutput(callId: string, command: string, text: string): RecordedCall {
  const parsed = parseModelOutput(text);
  const other = !parsed.known || parsed.cut || CUT.test(parsed.output);
  return {
    callId,
    command,
    exitCode: parsed.exitCode,
    streams: combinedStreams(parsed.output),
    priorReduction: carriesYarpMarker(parsed.output) ? "yarp" : other ? "other" : null,
  };
}

/** A call read from an `exec_command_end` event; undefined when it carries no output at all. */
function callFromEnd(
  callId: string,
  command: string,
  end: Record<string, unknown>,
): RecordedCall | undefined {
  const { stdout, stderr, aggregated_output: aggregated } = end;
  let streams: RecordedCall["streams"];
  let visible: string;
  if (typeof stdout === "string" || typeof stderr === "string") {
    const out = typeof stdout === "string" ? stdout : "";
    const err = typeof stderr === "string" ? stderr : "";
    streams = separateStreams(out, err);
    visible = out + err;
  } else if (typeof aggregated === "string") {
    streams = combinedStreams(aggregated);
    visible = aggregated;
  } else {
    return undefined;
  }
  return {
    callId,
    command,
    exitCode: exitCodeOf(end.exit_code),
    streams,
    priorReduction: carriesYarpMarker(visible) ? "yarp" : null,
  };
}

class CodexReader implements SessionReader {
  private readonly _sink: CallSink;
  /** Command of each shell call with no result yet, by call id. */
  private readonly _calls = new Map<string, string>();
  /** Results read from output lines, waiting for their end events, oldest first. */
  private readonly _held = new Map<string, RecordedCall>();

  constructor(sink: CallSink) {
    this._sink = sink;
  }

  push(entry: unknown): void {
    if (!isObject(entry)) return;
    // The bare era stores response items without the envelope.
    const kind = isObject(entry.payload) ? entry.type : "response_item";
    const payload = isObject(entry.payload) ? entry.payload : entry;
    if (kind === "response_item") this._readItem(payload);
    else if (kind === "event_msg" && payload.type === "exec_command_end") this._readEnd(payload);
    else if (kind === "event_msg" && payload.type === "item_completed") {
      const item = payload.item;
      if (isObject(item) && item.type === "CommandExecution") {
        this._readEnd({
          call_id: item.id,
          aggregated_output: item.aggregated_output,
          exit_code: item.exit_code,
        });
      }
    }
  }

  finish(): number {
    for (const call of this._held.values()) this._sink.call(call);
    this._held.clear();
    return this._calls.size;
  }

  private _readItem(payload: Record<string, unknown>): void {
    const callId = payload.call_id;
    if (payload.type === "function_call" && SHELL_TOOLS.includes(payload.name as string)) {
      this._addCall(callId, functionCallCommand(payload));
    } else if (payload.type === "local_shell_call") {
      const action = payload.action;
      this._addCall(
        callId ?? payload.id,
        isObject(action) ? codexCommand(action.command) : undefined,
      );
    } else if (payload.type === "function_call_output" && typeof callId === "string") {
      const command = this._calls.get(callId);
      const text = outputText(payload.output);
      if (command === undefined || text === undefined) return;
      this._calls.delete(callId);
      this._held.set(callId, callFromOutput(callId, command, text));
      if (this._held.size > HOLD_LIMIT) {
        const [oldestId, oldest] = this._held.entries().next().value!;
        this._held.delete(oldestId);
        this._sink.call(oldest);
      }
    }
  }

  private _addCall(callId: unknown, command: string | undefined): void {
    if (typeof callId !== "string" || command === undefined) {
      this._sink.skip("shell call without a call id or a readable command");
      return;
    }
    this._calls.set(callId, command);
  }

  private _readEnd(payload: Record<string, unknown>): void {
    const callId = payload.call_id;
    if (typeof callId !== "string") return;
    const command = this._calls.get(callId) ?? this._held.get(callId)?.command;
    if (command === undefined) return;
    const call = callFromEnd(callId, command, payload);
    if (call === undefined) return;
    this._calls.delete(callId);
    this._held.delete(callId);
    this._sink.call(call);
  }
}

/** Codex CLI rollout files, wrapped or of the bare era. */
export const codexRuntime: SessionRuntime = {
  name: "codex",
  recognizes: (entry) =>
    isObject(entry) &&
    ((typeof entry.type === "string" && typeof entry.timestamp === "string" &&
      isObject(entry.payload)) ||
      entry.record_type === "state" ||
      (entry.type === undefined && typeof entry.id === "string" &&
        typeof entry.timestamp === "string" && "instructions" in entry)),
  createReader: (sink) => new CodexReader(sink),
};
