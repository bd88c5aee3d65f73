/**
 * The rule programs YARP can wrap, asked once of `yarp rewrite --lead-words`
 * (docs/shell.md, "`yarp rewrite`"), so that a simple command whose plain
 * first word names none of them passes without starting YARP: `yarp
 * rewrite` wraps only a simple command whose literal argv[0] names a rule
 * program, so asking it about `python3 x.py`'s neighbours such as `seq`,
 * `./run.sh` or `pytest` without a rule would only cost a process start.
 *
 * The reading is cheap and conservative: only a first word of plain
 * characters (letters, digits, `_ . + -`) followed by a blank, a newline or
 * the end, and no bash reserved word, is read; anything else is asked of
 * YARP. The answer names the files it was read from with their stamps, so a
 * changed config file or pack makes the extension ask again.
 * tests/pi_lead_words_test.ts checks the skip against YARP's own decision
 * over the shell corpora and generated commands.
 *
 * @module
 */
import type { ProcessOutcome } from "./decisions.ts";

/** One file YARP read the rules from, with its stamp then (`MTIME_MS:SIZE`, null when missing). */
export interface LeadWordsInput {
  readonly path: string;
  readonly stamp: string | null;
}

/** `yarp rewrite --lead-words`, read. */
export interface LeadWords {
  readonly programs: ReadonlySet<string>;
  readonly patterns: readonly RegExp[];
  readonly inputs: readonly LeadWordsInput[];
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

const isInput = (value: unknown): value is LeadWordsInput => {
  if (typeof value !== "object" || value === null) return false;
  const { path, stamp } = value as Record<string, unknown>;
  return typeof path === "string" && (stamp === null || typeof stamp === "string");
};

/**
 * Reads the reply of `yarp rewrite --lead-words`; undefined for anything but
 * a clean exit with the documented object (the extension then asks YARP
 * about every source, as before). Never throws.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { readLeadWordsReply } from "./lead_words.ts";
 * const stdout = '{"programs":["git"],"patterns":["^go1\\\\.\\\\d+$"],"inputs":[]}\n';
 * equal(readLeadWordsReply({ kind: "exit", code: 0, stdout, stderr: "" })?.programs.has("git"), true);
 * equal(readLeadWordsReply({ kind: "exit", code: 0, stdout: "{}", stderr: "" }), undefined);
 * ```
 */
export function readLeadWordsReply(outcome: ProcessOutcome): LeadWords | undefined {
  if (outcome.kind !== "exit" || outcome.code !== 0) return undefined;
  try {
    const reply = JSON.parse(outcome.stdout) as Record<string, unknown>;
    const { programs, patterns, inputs } = reply ?? {};
    if (!isStringArray(programs) || !isStringArray(patterns)) return undefined;
    if (!Array.isArray(inputs) || !inputs.every(isInput)) return undefined;
    return {
      programs: new Set(programs),
      patterns: patterns.map((source) => new RegExp(source)),
      inputs: inputs.map(({ path, stamp }) => ({ path, stamp })),
    };
  } catch {
    return undefined;
  }
}

/** Words bash reads as syntax at the start of a command, never as argv[0]. */
const RESERVED: ReadonlySet<string> = new Set([
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "time",
  "until",
  "while",
]);

/** A first word of plain characters, ended by a blank, a newline or the end of the source. */
const PLAIN_LEAD = /^[ \t]*([A-Za-z0-9_][A-Za-z0-9_.+-]*)(?=[ \t\n]|$)/;

/**
 * True only when `yarp rewrite` certainly does not wrap `source`: its first
 * word is plain (see the module doc), no reserved word, and neither one of
 * `words.programs` nor matched by one of `words.patterns`. False whenever
 * unsure. Never throws.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { certainlyNotRewritten } from "./lead_words.ts";
 * const words = { programs: new Set(["git"]), patterns: [/^go1\.\d+$/], inputs: [] };
 * equal(certainlyNotRewritten("seq 1 5", words), true);
 * equal(certainlyNotRewritten("git log", words), false);
 * equal(certainlyNotRewritten("go1.22 test", words), false);
 * equal(certainlyNotRewritten('"seq" 1 5', words), false);
 * equal(certainlyNotRewritten("time git log", words), false);
 * ```
 */
export function certainlyNotRewritten(source: string, words: LeadWords): boolean {
  const lead = PLAIN_LEAD.exec(source)?.[1];
  if (lead === undefined || RESERVED.has(lead) || words.programs.has(lead)) return false;
  return !words.patterns.some((pattern) => pattern.test(lead));
}

/** True when every input still has the stamp YARP read it with (`stampOf` is the extension's stat). */
export async function inputsUnchanged(
  words: LeadWords,
  stampOf: (path: string) => Promise<string | null>,
): Promise<boolean> {
  const stamps = await Promise.all(words.inputs.map((input) => stampOf(input.path)));
  return stamps.every((stamp, index) => stamp === words.inputs[index].stamp);
}
