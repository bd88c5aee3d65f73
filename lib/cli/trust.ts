/**
 * `yarp trust [--status|--revoke] [--json] [DIR]`: records that the user
 * trusts the project pack `DIR/.yarp/rules.yrp` (DIR defaults to the
 * working directory), shows the record, or removes it. The Pi extension
 * passes a project pack to YARP only when the record's digest equals the
 * pack's current SHA-256, so a changed pack is untrusted until trusted
 * again (docs/architecture.md, "External pack loading"; docs/architecture.md, "Rules and packs").
 *
 * The record is `<state dir>/trust.json` (`$XDG_STATE_HOME/yarp`, else
 * `~/.local/state/yarp`), written 0600 through a temporary file and a
 * rename: `{"version":1,"projects":[{"root","pack_digest"}]}` sorted by
 * root. The root is the real path of DIR. Trusting needs the pack to be a
 * regular file that resolves inside the root and verifies as a compiled
 * pack; anything else is one error line and nothing is written.
 *
 * `--status --json` prints `{"root","pack","recorded_digest","current_digest",
 * "trusted"}` (digests `null` when absent) and exits 0 whatever the answer.
 *
 * @module
 */
import { quotedArg } from "../base/printable_text.ts";
import { parseArgs } from "./_args.ts";
import type { TextIo } from "./io.ts";
import { firstLine } from "../base/error_message.ts";

const USAGE = "usage: yarp trust [--status|--revoke] [--json] [DIR]\n";

/** The project pack's path inside a project root; the Pi extension uses the same. */
export const PROJECT_PACK = ".yarp/rules.yrp";

/** One trusted project. */
export interface TrustRecord {
  readonly root: string;
  readonly pack_digest: string;
}

/** Parsed `trust` arguments. */
export interface TrustArgs {
  readonly mode: "trust" | "status" | "revoke";
  readonly json: boolean;
  readonly dir: string | undefined;
}

/** Parses the arguments after `trust`; one error line when malformed. */
export function parseTrustArgs(args: readonly string[]): TrustArgs | { error: string } {
  const parsed = parseArgs(args, { flags: ["--status", "--revoke", "--json"] });
  if ("error" in parsed) return parsed;
  const words = [...parsed.positionals, ...(parsed.rest ?? [])];
  if (words.length > 1) return { error: `unexpected argument '${quotedArg(words[1])}'` };
  if (parsed.flags.has("--status") && parsed.flags.has("--revoke")) {
    return { error: "--status and --revoke exclude each other" };
  }
  const mode = parsed.flags.has("--status")
    ? "status"
    : parsed.flags.has("--revoke")
    ? "revoke"
    : "trust";
  if (words[0] === "") return { error: "DIR: empty path" };
  return { mode, json: parsed.flags.has("--json"), dir: words[0] };
}

/**
 * Reads a trust file's text: the records, or one error line. Strict: the
 * exact shape above, 64-hex digests, absolute roots, no duplicates.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseTrustFile } from "./trust.ts";
 * deepEqual(parseTrustFile('{"version":1,"projects":[]}'), []);
 * deepEqual(parseTrustFile('{"version":2,"projects":[]}'), { error: "version: expected 1" });
 * ```
 */
export function parseTrustFile(text: string): TrustRecord[] | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: "not valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: "expected an object" };
  }
  const top = value as Record<string, unknown>;
  const extra = Object.keys(top).find((key) => key !== "version" && key !== "projects");
  if (extra !== undefined) return { error: `unknown field '${quotedArg(extra)}'` };
  if (top.version !== 1) return { error: "version: expected 1" };
  if (!Array.isArray(top.projects)) return { error: "projects: expected a list" };
  const records: TrustRecord[] = [];
  for (const [index, item] of top.projects.entries()) {
    const where = `projects[${index}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return { error: `${where}: expected an object` };
    }
    const entry = item as Record<string, unknown>;
    const keys = Object.keys(entry).sort().join(",");
    if (keys !== "pack_digest,root") return { error: `${where}: expected root and pack_digest` };
    if (typeof entry.root !== "string" || !entry.root.startsWith("/")) {
      return { error: `${where}.root: expected an absolute path` };
    }
    if (typeof entry.pack_digest !== "string" || !/^[0-9a-f]{64}$/.test(entry.pack_digest)) {
      return { error: `${where}.pack_digest: expected 64 hex digits` };
    }
    if (records.some((record) => record.root === entry.root)) {
      return { error: `${where}.root: duplicate` };
    }
    records.push({ root: entry.root, pack_digest: entry.pack_digest });
  }
  return records;
}

/** The records with `root` set to `digest` (or removed when undefined), sorted by root. */
export function updateTrust(
  records: readonly TrustRecord[],
  root: string,
  digest: string | undefined,
): TrustRecord[] {
  const kept = records.filter((record) => record.root !== root);
  if (digest !== undefined) kept.push({ root, pack_digest: digest });
  return kept.sort((a, b) => (a.root < b.root ? -1 : a.root > b.root ? 1 : 0));
}

/** The trust file's text for `records`. */
export function renderTrustFile(records: readonly TrustRecord[]): string {
  return JSON.stringify({ version: 1, projects: records }, null, 2) + "\n";
}

async function readRecords(path: string): Promise<TrustRecord[] | { error: string }> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    return { error: `${path}: ${firstLine(error)}` };
  }
  const parsed = parseTrustFile(text);
  return "error" in parsed ? { error: `${path}: ${parsed.error}` } : parsed;
}

async function writeRecords(dir: string, path: string, records: readonly TrustRecord[]) {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(temporary, renderTrustFile(records), { mode: 0o600, createNew: true });
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

/** The pack's real path and digest, or why it cannot be trusted. */
async function inspectPack(
  root: string,
): Promise<{ path: string; digest: string } | { error: string }> {
  const candidate = `${root === "/" ? "" : root}/${PROJECT_PACK}`;
  let real: string;
  try {
    real = await Deno.realPath(candidate);
  } catch {
    return { error: `${candidate}: not found` };
  }
  if (!real.startsWith(`${root === "/" ? "" : root}/`)) {
    return { error: `${candidate}: resolves outside the project root (${real})` };
  }
  if (!(await Deno.lstat(real)).isFile) return { error: `${candidate}: not a regular file` };
  try {
    const { openCompiledPackFile } = await import("../rules/pack_file.ts");
    const loaded = await openCompiledPackFile(real);
    return { path: real, digest: await loaded.pack.fileDigestAsync() };
  } catch (error) {
    return { error: `${candidate}: ${firstLine(error)}` };
  }
}

/**
 * The project pack of the project at `dir` when the user trusts it: the
 * pack resolves inside the project root (the real path of `dir`), verifies,
 * and `yarp trust` recorded exactly its current digest; else undefined.
 * What a host hook passes as `--rule-pack` (docs/hosts.md, "Trust"). Never
 * throws.
 */
export async function trustedProjectPack(
  dir: string,
): Promise<{ path: string; digest: string } | undefined> {
  try {
    const root = await Deno.realPath(dir);
    const { processEnv } = await import("../config/mod.ts");
    const { stateDirectory } = await import("../archive/mod.ts");
    const state = stateDirectory(processEnv);
    if (state === undefined) return undefined;
    const records = await readRecords(`${state}/trust.json`);
    if ("error" in records) return undefined;
    const recorded = records.find((record) => record.root === root)?.pack_digest;
    if (recorded === undefined) return undefined;
    const pack = await inspectPack(root);
    return "error" in pack || pack.digest !== recorded ? undefined : pack;
  } catch {
    return undefined;
  }
}

/** Runs `yarp trust`; returns 0, 1 for a pack or store that cannot be used, 2 for bad arguments. */
export async function trustCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  const options = parseTrustArgs(args);
  if ("error" in options) {
    io.err(`yarp trust: ${options.error}\n`);
    return 2;
  }
  const fail = (line: string) => {
    io.err(`yarp trust: ${line}\n`);
    return 1;
  };
  let root: string;
  try {
    root = await Deno.realPath(options.dir ?? Deno.cwd());
  } catch (error) {
    return fail(`${options.dir ?? "."}: ${firstLine(error)}`);
  }
  const { processEnv } = await import("../config/mod.ts");
  const { stateDirectory } = await import("../archive/mod.ts");
  const dir = stateDirectory(processEnv);
  if (dir === undefined) return fail("no state directory (set HOME or XDG_STATE_HOME)");
  const path = `${dir}/trust.json`;
  const records = await readRecords(path);
  if ("error" in records) return fail(records.error);
  const recorded = records.find((record) => record.root === root)?.pack_digest ?? null;
  if (options.mode === "status") {
    const pack = await inspectPack(root);
    const current = "error" in pack ? null : pack.digest;
    const trusted = current !== null && current === recorded;
    if (options.json) {
      io.out(
        JSON.stringify({
          root,
          pack: "error" in pack ? null : pack.path,
          recorded_digest: recorded,
          current_digest: current,
          trusted,
        }) + "\n",
      );
    } else {
      io.out(
        trusted
          ? `trusted: ${root}/${PROJECT_PACK} (sha256 ${current})\n`
          : `not trusted: ${
            "error" in pack
              ? pack.error
              : recorded === null
              ? `${root} has no trust record`
              : "the pack changed since it was trusted"
          }\n`,
      );
    }
    return 0;
  }
  try {
    if (options.mode === "revoke") {
      if (recorded !== null) await writeRecords(dir, path, updateTrust(records, root, undefined));
      io.out(
        options.json
          ? JSON.stringify({ root, revoked: recorded !== null }) + "\n"
          : `revoked: ${root}\n`,
      );
      return 0;
    }
    const pack = await inspectPack(root);
    if ("error" in pack) return fail(pack.error);
    await writeRecords(dir, path, updateTrust(records, root, pack.digest));
    io.out(
      options.json
        ? JSON.stringify({ root, pack: pack.path, pack_digest: pack.digest }) + "\n"
        : `trusted: ${pack.path} (sha256 ${pack.digest})\n`,
    );
    return 0;
  } catch (error) {
    return fail(`${path}: ${firstLine(error)}`);
  }
}
