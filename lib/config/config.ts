/**
 * YARP's config file: a small, strict YAML document.
 *
 * ```yaml
 * archive:
 *   path: ~/.local/state/yarp/archive.sqlite3   # absolute or ~/…
 *   max_bytes: 1073741824                       # positive integer
 *   max_age_days: 30                            # positive number
 *   min_age_minutes: 60                         # number >= 0: retention's grace
 * rules:
 *   packs: [/abs/or/relative/pack.yrp]          # non-empty strings
 * output_cap:                                   # the global output cap (docs/shell.md)
 *   enabled: true                               # false switches it off
 *   threshold_bytes: 4096                       # positive integer (4096 built in)
 * budgets:                                      # success budgets of the typed kinds (docs/rules.md)
 *   success_bytes: 1024                         # every typed kind: an integer, 256 to 65536
 *   kinds:                                      # a kind's own (search, diff, status, test,
 *     diff: { success_bytes: 2048 }             #   build, install, log, list)
 * ```
 *
 * Located at `$YARP_CONFIG`, else `$XDG_CONFIG_HOME/yarp/config.yaml`, else
 * `~/.config/yarp/config.yaml`. A missing default file means defaults; a
 * missing `$YARP_CONFIG` is an error. Only a regular file of at most
 * {@link MAX_CONFIG_BYTES} (64 KiB) is read: a device (`/dev/zero`,
 * `/dev/urandom`), a FIFO, a directory or a bigger file is refused with one
 * line before a byte is read, so a bad path can neither hang YARP nor grow
 * its memory. Strict: YAML syntax errors, duplicate
 * keys, tags (`!x`, `!!binary`), anchors/aliases, unknown fields and wrong
 * types are each one error line `config FILE:LINE: …` naming the field.
 *
 * The YAML parser (`npm:yaml`) costs about 75 ms to load, so it is imported
 * only when a config file exists. `rules.packs` are layered after the
 * built-ins and before `--rule-pack` (`lib/cli/_rule_packs.ts`); a relative
 * entry is relative to the config file's directory.
 *
 * @module
 */
import type { EnvReader } from "./env.ts";
import {
  SUCCESS_BUDGET_RANGE,
  type SuccessBudgets,
  TYPED_REDUCER_KINDS,
  type TypedReducerKind,
} from "../rules/model.ts";
import { firstLine } from "../base/error_message.ts";

/** The validated config; every field is optional and absent means the default. */
export interface YarpConfig {
  /** The file it came from; undefined when no config file exists. */
  readonly file?: string;
  readonly archive: {
    /** Absolute database path (`~/` already expanded). */
    readonly path?: string;
    /** Retention: total raw bytes kept (positive integer). */
    readonly maxBytes?: number;
    /** Retention: maximum age of a call, in days (positive). */
    readonly maxAgeDays?: number;
    /** Retention: minimum age before the size limit may remove a call, in minutes (>= 0). */
    readonly minAgeMinutes?: number;
  };
  readonly rules: {
    /** Compiled packs layered after the built-ins, in order (a relative path is relative to the file's directory). */
    readonly packs: readonly string[];
  };
  /** The global output cap of `result-reduce`; absent fields mean the built-in policy. */
  readonly outputCap?: {
    readonly enabled?: boolean;
    readonly thresholdBytes?: number;
  };
  /** The typed kinds' success budgets; absent means the built-in budget. */
  readonly budgets?: SuccessBudgets;
}

/** The config with every field defaulted (no file). */
export const EMPTY_CONFIG: YarpConfig = { archive: {}, rules: { packs: [] } };

/** Outcome of loading the config: the config, or one error line naming file, line and field. */
export type ConfigResult = { readonly ok: true; readonly config: YarpConfig } | {
  readonly ok: false;
  readonly error: string;
};

/** True for an absolute POSIX path. */
function absolute(path: string | undefined): path is string {
  return path !== undefined && path.startsWith("/");
}

/**
 * Where the config file is looked for, and whether it must exist:
 * `$YARP_CONFIG` (required), else `$XDG_CONFIG_HOME/yarp/config.yaml` (an
 * absolute XDG_CONFIG_HOME only), else `$HOME/.config/yarp/config.yaml`;
 * undefined when none can be formed.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { configLocation } from "./config.ts";
 * import { envFromRecord } from "./env.ts";
 * deepEqual(configLocation(envFromRecord({ HOME: "/h" })), {
 *   path: "/h/.config/yarp/config.yaml",
 *   required: false,
 * });
 * ```
 */
export function configLocation(
  env: EnvReader,
): { readonly path: string; readonly required: boolean } | undefined {
  const explicit = env("YARP_CONFIG");
  if (explicit !== undefined && explicit !== "") return { path: explicit, required: true };
  const xdg = env("XDG_CONFIG_HOME");
  if (absolute(xdg)) {
    return { path: `${xdg.replace(/\/+$/, "")}/yarp/config.yaml`, required: false };
  }
  const home = env("HOME");
  if (absolute(home)) {
    return { path: `${home.replace(/\/+$/, "")}/.config/yarp/config.yaml`, required: false };
  }
  return undefined;
}

/**
 * Loads and validates the config file found by {@link configLocation}.
 * Never throws: an unreadable file, a missing `$YARP_CONFIG` or any invalid
 * content gives `{ ok: false, error }` with one line (no trailing newline).
 * A missing default file gives {@link EMPTY_CONFIG}. Reads only.
 */
export async function loadConfig(env: EnvReader): Promise<ConfigResult> {
  const location = configLocation(env);
  if (location === undefined) return { ok: true, config: EMPTY_CONFIG };
  let text: string;
  try {
    const read = readBoundedText(location.path);
    if (typeof read !== "string") {
      return { ok: false, error: `config ${location.path}: ${read.refused}` };
    }
    text = read;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound && !location.required) {
      return { ok: true, config: EMPTY_CONFIG };
    }
    const reason = error instanceof Deno.errors.NotFound ? "not found" : firstLine(error);
    return { ok: false, error: `config ${location.path}: ${reason}` };
  }
  return await parseConfig(text, location.path, env("HOME"));
}

/** The largest config file YARP reads, in bytes (64 KiB; a real one is a few hundred). */
export const MAX_CONFIG_BYTES = 64 * 1024;

/** What a path that is not a regular file is, for the refusal line. */
function kindOf(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a directory";
  if (info.isSymlink) return "a symbolic link";
  if (info.isFifo) return "a FIFO";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  if (info.isSocket) return "a socket";
  return "not a regular file";
}

/**
 * The text of the regular file at `path`, read only after `stat` shows a
 * regular file of at most {@link MAX_CONFIG_BYTES}; `{ refused }` (one
 * reason) for anything else. Reads at most `MAX_CONFIG_BYTES + 1` bytes, so
 * a file swapped or grown after the check is still bounded. Throws what
 * `stat`, `open` or `read` throw (NotFound included).
 */
function readBoundedText(path: string): string | { refused: string } {
  const refusal = (info: Deno.FileInfo) =>
    !info.isFile
      ? `not a regular file (${kindOf(info)})`
      : info.size > MAX_CONFIG_BYTES
      ? `larger than ${MAX_CONFIG_BYTES} bytes (${info.size} bytes)`
      : undefined;
  const before = refusal(Deno.statSync(path));
  if (before !== undefined) return { refused: before };
  using file = Deno.openSync(path, { read: true });
  const after = refusal(file.statSync());
  if (after !== undefined) return { refused: after };
  const buffer = new Uint8Array(MAX_CONFIG_BYTES + 1);
  let length = 0;
  while (length < buffer.length) {
    const read = file.readSync(buffer.subarray(length));
    if (read === null) break;
    length += read;
  }
  if (length > MAX_CONFIG_BYTES) return { refused: `larger than ${MAX_CONFIG_BYTES} bytes` };
  return new TextDecoder().decode(buffer.subarray(0, length));
}

class ConfigError extends Error {}

/** The subset of npm:yaml this module uses, loaded lazily. */
type YamlModule = typeof import("yaml");

/**
 * Parses and validates config `text` read from `file`. `home` expands a
 * leading `~/` in `archive.path`. Returns the config or one error line
 * `config FILE:LINE: REASON`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseConfig } from "./config.ts";
 * deepEqual(await parseConfig("archive:\n  colour: red\n", "c.yaml", "/h"), {
 *   ok: false,
 *   error: "config c.yaml:2: unknown field 'archive.colour'",
 * });
 * ```
 */
export async function parseConfig(
  text: string,
  file: string,
  home: string | undefined,
): Promise<ConfigResult> {
  const yaml: YamlModule = await import("yaml");
  const lines = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, {
    uniqueKeys: true,
    strict: true,
    schema: "core",
    prettyErrors: false,
    logLevel: "silent",
    lineCounter: lines,
  });
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? 1 : lines.linePos(offset).line;
  const fail = (offset: number | undefined, reason: string): ConfigResult => ({
    ok: false,
    error: `config ${file}:${lineOf(offset)}: ${reason}`,
  });
  const problem = doc.errors[0];
  if (problem !== undefined) {
    const reason = problem.code === "DUPLICATE_KEY"
      ? "duplicate key"
      : `YAML syntax: ${problem.message.split("\n", 1)[0]}`;
    return fail(problem.pos[0], reason);
  }
  let bad: { offset: number | undefined; reason: string } | undefined;
  yaml.visit(doc, (_key, node) => {
    if (bad !== undefined) return yaml.visit.BREAK;
    if (yaml.isAlias(node)) bad = { offset: node.range?.[0], reason: "aliases are not allowed" };
    else if (yaml.isNode(node) && node.tag !== undefined) {
      bad = { offset: node.range?.[0], reason: `tags are not allowed (${node.tag})` };
    }
    return undefined;
  });
  if (bad !== undefined) return fail(bad.offset, bad.reason);
  try {
    return { ok: true, config: validate(yaml, doc.contents, file, home, lineOf) };
  } catch (error) {
    if (error instanceof ConfigError) return { ok: false, error: error.message };
    throw error;
  }
}

type Node = unknown;

function validate(
  yaml: YamlModule,
  root: Node,
  file: string,
  home: string | undefined,
  lineOf: (offset: number | undefined) => number,
): YarpConfig {
  const at = (node: Node): number =>
    lineOf(yaml.isNode(node) ? node.range?.[0] : yaml.isPair(node) ? rangeOf(yaml, node) : 0);
  const error = (node: Node, reason: string) =>
    new ConfigError(`config ${file}:${at(node)}: ${reason}`);
  const archive: {
    path?: string;
    maxBytes?: number;
    maxAgeDays?: number;
    minAgeMinutes?: number;
  } = {};
  let packs: string[] = [];
  const outputCap: { enabled?: boolean; thresholdBytes?: number } = {};
  let budgets: SuccessBudgets | undefined;
  if (root === null || root === undefined) return { file, archive, rules: { packs } };
  const top = mapEntries(yaml, root, "", error);
  for (const [key, value, pair] of top) {
    if (key === "archive") {
      for (const [field, inner, innerPair] of mapEntries(yaml, value ?? pair, "archive", error)) {
        const name = `archive.${field}`;
        if (field === "path") {
          const path = scalar(yaml, inner ?? innerPair, name, error);
          if (typeof path !== "string" || path === "") {
            throw error(inner ?? innerPair, `${name}: expected a non-empty path`);
          }
          if (path.startsWith("~/")) {
            if (!absolute(home)) throw error(inner, `${name}: '~/' needs HOME to be set`);
            archive.path = `${home.replace(/\/+$/, "")}/${path.slice(2)}`;
          } else if (path.startsWith("/")) archive.path = path;
          else throw error(inner, `${name}: expected an absolute path or one starting with '~/'`);
        } else if (field === "max_bytes") {
          const value = scalar(yaml, inner ?? innerPair, name, error);
          if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
            throw error(inner, `${name}: expected a positive integer`);
          }
          archive.maxBytes = value;
        } else if (field === "max_age_days") {
          const value = scalar(yaml, inner ?? innerPair, name, error);
          if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
            throw error(inner, `${name}: expected a positive number of days`);
          }
          archive.maxAgeDays = value;
        } else if (field === "min_age_minutes") {
          const value = scalar(yaml, inner ?? innerPair, name, error);
          if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
            throw error(inner, `${name}: expected a number of minutes, 0 or more`);
          }
          archive.minAgeMinutes = value;
        } else throw error(innerPair, `unknown field '${name}'`);
      }
    } else if (key === "rules") {
      for (const [field, inner, innerPair] of mapEntries(yaml, value ?? pair, "rules", error)) {
        if (field !== "packs") throw error(innerPair, `unknown field 'rules.${field}'`);
        if (!yaml.isSeq(inner)) throw error(inner ?? innerPair, "rules.packs: expected a list");
        packs = inner.items.map((item, index) => {
          const name = `rules.packs[${index}]`;
          const path = scalar(yaml, item, name, error);
          if (typeof path !== "string" || path === "") {
            throw error(item, `${name}: expected a non-empty path`);
          }
          return path;
        });
      }
    } else if (key === "output_cap") {
      for (const [field, inner, innerPair] of mapEntries(yaml, value ?? pair, key, error)) {
        const name = `output_cap.${field}`;
        const setting = scalar(yaml, inner ?? innerPair, name, error);
        if (field === "enabled") {
          if (typeof setting !== "boolean") throw error(inner, `${name}: expected true or false`);
          outputCap.enabled = setting;
        } else if (field === "threshold_bytes") {
          if (typeof setting !== "number" || !Number.isSafeInteger(setting) || setting <= 0) {
            throw error(inner, `${name}: expected a positive integer`);
          }
          outputCap.thresholdBytes = setting;
        } else throw error(innerPair, `unknown field '${name}'`);
      }
    } else if (key === "budgets") {
      budgets = parseBudgets(yaml, value ?? pair, error);
    } else throw error(pair, `unknown field '${key}'`);
  }
  return {
    file,
    archive,
    rules: { packs },
    ...(Object.keys(outputCap).length === 0 ? {} : { outputCap }),
    ...(budgets === undefined ? {} : { budgets }),
  };
}

/** `budgets:`: `success_bytes` and `kinds.KIND.success_bytes`, each in {@link SUCCESS_BUDGET_RANGE}. */
function parseBudgets(
  yaml: YamlModule,
  node: Node,
  error: (node: Node, reason: string) => Error,
): SuccessBudgets {
  const bytes = (value: Node, name: string): number => {
    const setting = scalar(yaml, value, name, error);
    const { min, max } = SUCCESS_BUDGET_RANGE;
    if (
      typeof setting !== "number" || !Number.isSafeInteger(setting) || setting < min ||
      setting > max
    ) {
      throw error(value, `${name}: expected an integer from ${min} to ${max} (bytes)`);
    }
    return setting;
  };
  let successBytes: number | undefined;
  const kinds: Partial<Record<TypedReducerKind, number>> = {};
  for (const [field, inner, innerPair] of mapEntries(yaml, node, "budgets", error)) {
    if (field === "success_bytes") {
      successBytes = bytes(inner ?? innerPair, "budgets.success_bytes");
    } else if (field === "kinds") {
      for (
        const [kind, perKind, kindPair] of mapEntries(
          yaml,
          inner ?? innerPair,
          "budgets.kinds",
          error,
        )
      ) {
        const name = `budgets.kinds.${kind}`;
        if (!(TYPED_REDUCER_KINDS as readonly string[]).includes(kind)) {
          throw error(
            kindPair,
            `unknown field '${name}' (kinds: ${TYPED_REDUCER_KINDS.join(", ")})`,
          );
        }
        for (
          const [setting, value, settingPair] of mapEntries(yaml, perKind ?? kindPair, name, error)
        ) {
          if (setting !== "success_bytes") {
            throw error(settingPair, `unknown field '${name}.${setting}'`);
          }
          kinds[kind as TypedReducerKind] = bytes(value ?? settingPair, `${name}.success_bytes`);
        }
      }
    } else throw error(innerPair, `unknown field 'budgets.${field}'`);
  }
  return successBytes === undefined ? { kinds } : { successBytes, kinds };
}

function rangeOf(yaml: YamlModule, pair: { key: unknown }): number | undefined {
  return yaml.isNode(pair.key) ? pair.key.range?.[0] : undefined;
}

function mapEntries(
  yaml: YamlModule,
  node: Node,
  name: string,
  error: (node: Node, reason: string) => Error,
): [string, Node, Node][] {
  if (!yaml.isMap(node)) {
    throw error(
      node,
      name === "" ? "expected a mapping at the top level" : `${name}: expected a mapping`,
    );
  }
  return node.items.map((pair) => {
    const key = yaml.isScalar(pair.key) ? pair.key.value : undefined;
    if (typeof key !== "string") throw error(pair, `${name || "top level"}: keys must be strings`);
    return [key, pair.value, pair];
  });
}

function scalar(
  yaml: YamlModule,
  node: Node,
  name: string,
  error: (node: Node, reason: string) => Error,
): unknown {
  if (!yaml.isScalar(node)) throw error(node, `${name}: expected a single value`);
  return node.value;
}
