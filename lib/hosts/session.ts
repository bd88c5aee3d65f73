/**
 * The contract every session reader keeps, and the few facts the readers
 * share: what a recorded shell call is, how one reports it, how an exit code
 * is accepted, and how a result already reduced by YARP is recognised.
 * The corpus record (`lib/corpus/record.ts`) takes its stream and prior
 * reduction types from here.
 *
 * A reader is a small state machine fed one parsed JSON line at a time: it
 * remembers the shell calls it has seen until their results arrive, hands
 * each complete call to its sink, and never throws on any JSON value.
 *
 * @module
 */
/** What already changed a recorded result before YARP saw it (the corpus record's `prior_reduction`). */
export type PriorReduction = "pi-truncation" | "yarp" | "other";

/** A recorded result's bytes: stdout and stderr apart, or one interleaved text as a host shows it. */
export type RecordedStreams =
  | { readonly mode: "separate"; readonly stdout: Uint8Array; readonly stderr: Uint8Array }
  | { readonly mode: "combined"; readonly output: Uint8Array };

/** One shell call read from a session together with its result: a corpus record without id and source. */
export interface RecordedCall {
  /** The runtime's id of the tool call (unique within a session for real providers). */
  readonly callId: string;
  readonly command: string;
  /** 0–255, or null when the session does not say. */
  readonly exitCode: number | null;
  readonly streams: RecordedStreams;
  readonly priorReduction: PriorReduction | null;
}

/** Where a reader sends what it reads. */
export interface CallSink {
  /** A shell call and its result, complete. */
  call(call: RecordedCall): void;
  /** An entry that names a shell call but cannot be read (for example a call without a command). */
  skip(reason: string): void;
}

/** A reader over one session file's lines, in order. */
export interface SessionReader {
  /** Reads one parsed JSON line; never throws, whatever the value. */
  push(entry: unknown): void;
  /** Ends the session: hands over results still held and returns how many shell calls never got one. */
  finish(): number;
}

/** One agent runtime whose session files YARP can import. */
export interface SessionRuntime {
  /** The runtime's name, also the records' `source` and the first part of their ids. */
  readonly name: string;
  /** True when `entry`, one of a file's first lines, shows this runtime's session format. */
  recognizes(entry: unknown): boolean;
  /** A fresh reader for one session file that reports to `sink`. */
  createReader(sink: CallSink): SessionReader;
}

/** True for a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` when it is an integer from 0 to 255, otherwise null. */
export function exitCodeOf(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 255
    ? value
    : null;
}

/** The exit code written in decimal digits (`"3"`), or null when it is not 0–255. */
export function exitCodeFromDigits(digits: string): number | null {
  return exitCodeOf(Number(digits));
}

const encoder = new TextEncoder();

/** The combined-stream form of a result's text, as UTF-8 bytes. */
export function combinedStreams(output: string): RecordedStreams {
  return { mode: "combined", output: encoder.encode(output) };
}

/** The separate-stream form of a result's texts, as UTF-8 bytes. */
export function separateStreams(stdout: string, stderr: string): RecordedStreams {
  return { mode: "separate", stdout: encoder.encode(stdout), stderr: encoder.encode(stderr) };
}

/**
 * YARP's own markers (lib/reduce/marker.ts): the omission marker
 * `[yarp: kept N of M lines…` and the line-truncation marker
 * `…[yarp: N bytes of this line omitted]`.
 */
const YARP_MARKER =
  /\[yarp: kept [\d,]+ of [\d,]+ lines?[ \]]|…\[yarp: [\d,]+ bytes? of this line omitted\]/;

/**
 * True when `text` carries one of YARP's reduction markers, so the result
 * was already reduced by YARP. Known miss: output that quotes a marker (a
 * `cat` of YARP's docs) is taken for a reduced result too.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { carriesYarpMarker } from "./session.ts";
 * equal(carriesYarpMarker("a\n[yarp: kept 3 of 1,200 lines · exact: yarp read 0c0ffee0]\n"), true);
 * equal(carriesYarpMarker("yarp read 0c0ffee0"), false);
 * ```
 */
export function carriesYarpMarker(text: string): boolean {
  return YARP_MARKER.test(text);
}
