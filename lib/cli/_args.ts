/**
 * The one argument parser of the CLI subcommands: strict, pure, no I/O.
 *
 * Each subcommand declares its boolean flags, single-valued options and
 * repeatable options; anything else that starts with `-` is an error. The
 * first `--` ends option parsing and everything after it comes back
 * verbatim in `rest` (the child argv of `run` and `rules explain`, the
 * source of `rewrite`). Command-specific checks (required options, digest
 * format, number ranges, how many positionals) stay in the command module,
 * built on the result.
 *
 * Hand-written rather than `node:util` `parseArgs`: loading any `node:`
 * module costs start-up in every process. Measured by
 * `bench/standins_start.ts` (fresh processes, interleaved, one
 * `result-reduce` argv, `node:util` reached as dist/yarp.js reaches it; 2
 * cores shared by five developers, load 14, n=30): this module 30.3 ms
 * median (p95 68.6) against an empty program's 32.0 (50.4), `node:util`
 * `parseArgs` 61.3 (118.6), about 30 ms more; earlier quiet runs put the
 * difference at 10–15 ms.
 *
 * Known misses, by design: no bundled short flags (`-abc`), no `-ovalue`,
 * no `--no-flag` negation.
 *
 * @module
 */
import { quotedArg } from "../base/printable_text.ts";

/** What a subcommand accepts. Every name is written in full, e.g. `"--json"`. */
export interface ArgSpec {
  /** Boolean flags; they take no value (`--json=1` is an error) and may repeat. Default none. */
  readonly flags?: readonly string[];
  /** Options with one value, given at most once. Default none. */
  readonly options?: readonly string[];
  /** Options with one value each time, given any number of times, kept in order. Default none. */
  readonly repeatable?: readonly string[];
  /** Other spellings of a flag or option, e.g. `{ "-o": "--output" }`. Default none. */
  readonly aliases?: Readonly<Record<string, string>>;
  /**
   * A word starting with a single `-` that is no declared name or alias is
   * a positional (`yarp search -minus`), not an unknown option. Default false.
   */
  readonly dashOperands?: boolean;
}

/** The parsed arguments; option names are always the full names of the {@link ArgSpec}. */
export interface ParsedArgs {
  /** Words that are not options, before any `--`, in order. */
  readonly positionals: readonly string[];
  /** The flags that were given. */
  readonly flags: ReadonlySet<string>;
  /** The value of each single-valued option that was given. */
  readonly values: ReadonlyMap<string, string>;
  /** The values of each repeatable option that was given at least once, in order. */
  readonly lists: ReadonlyMap<string, readonly string[]>;
  /** Everything after the first `--`, verbatim; undefined when there is no `--`. */
  readonly rest: readonly string[] | undefined;
}

/**
 * Parses `args` against `spec`, left to right:
 *
 * - `--` ends option parsing; what follows is `rest`, verbatim.
 * - `-` alone and words not starting with `-` are positionals.
 * - `--name=value` gives an option its value (which may be empty or start
 *   with `-`); `--name value` takes the next word, which may not start with
 *   `-` unless it is a negative number (so `--rule-pack --` or
 *   `--expect-rule -x` is a missing value, the first `--` is always the
 *   separator, and `--limit -1` reaches the command's own range check).
 *
 * Returns the result, or `{ error }` with one line and no command prefix for
 * the first problem: `unknown option '--x'`, `option '--x' needs a value`,
 * `option '--x' takes no value`, or `--x: given more than once`. Never
 * throws; never changes `args`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseArgs } from "./_args.ts";
 * const spec = { flags: ["--json"], options: ["--limit"], repeatable: ["--rule-pack"] };
 * const parsed = parseArgs(["a", "--rule-pack=p", "--limit", "3", "--", "--json"], spec);
 * if ("error" in parsed) throw new Error(parsed.error);
 * deepEqual(parsed.positionals, ["a"]);
 * deepEqual(parsed.values.get("--limit"), "3");
 * deepEqual(parsed.lists.get("--rule-pack"), ["p"]);
 * deepEqual(parsed.flags.has("--json"), false);
 * deepEqual(parsed.rest, ["--json"]);
 * deepEqual(parseArgs(["--limit"], spec), { error: "option '--limit' needs a value" });
 * ```
 */
const NEGATIVE_NUMBER = /^-\d/;

export function parseArgs(args: readonly string[], spec: ArgSpec): ParsedArgs | { error: string } {
  const flagNames = spec.flags ?? [];
  const optionNames = spec.options ?? [];
  const repeatableNames = spec.repeatable ?? [];
  const positionals: string[] = [];
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const lists = new Map<string, string[]>();
  let rest: string[] | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (arg === "--") {
      rest = args.slice(index + 1);
      break;
    }
    if (arg.length < 2 || arg[0] !== "-") {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf("=");
    const written = equals === -1 ? arg : arg.slice(0, equals);
    const aliases = spec.aliases;
    const name = aliases !== undefined && Object.hasOwn(aliases, written)
      ? aliases[written]
      : written;
    if (flagNames.includes(name)) {
      if (equals !== -1) return { error: `option '${quotedArg(written)}' takes no value` };
      flags.add(name);
      continue;
    }
    const repeatable = repeatableNames.includes(name);
    if (!repeatable && !optionNames.includes(name)) {
      if (spec.dashOperands === true && arg[1] !== "-") {
        positionals.push(arg);
        continue;
      }
      return { error: `unknown option '${quotedArg(written)}'` };
    }
    let value: string;
    if (equals !== -1) value = arg.slice(equals + 1);
    else {
      const next = args[index + 1];
      if (next === undefined || next.startsWith("-") && !NEGATIVE_NUMBER.test(next)) {
        return { error: `option '${quotedArg(written)}' needs a value` };
      }
      value = next;
      index += 1;
    }
    if (repeatable) {
      const list = lists.get(name);
      if (list === undefined) lists.set(name, [value]);
      else list.push(value);
    } else {
      if (values.has(name)) return { error: `${name}: given more than once` };
      values.set(name, value);
    }
  }
  return { positionals, flags, values, lists, rest };
}

/**
 * The operands of commands that take `--` only to allow words that start
 * with `-`: the positionals followed by everything after `--`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { operands, parseArgs } from "./_args.ts";
 * const parsed = parseArgs(["a", "--", "-b"], {});
 * if ("error" in parsed) throw new Error(parsed.error);
 * deepEqual(operands(parsed), ["a", "-b"]);
 * ```
 */
export function operands(parsed: ParsedArgs): string[] {
  return [...parsed.positionals, ...parsed.rest ?? []];
}
