/**
 * `yarp setup claude-code|codex|gemini|opencode [--project|--user] [--uninstall] [--dry-run]`
 * and `yarp setup --status` (docs/hosts.md, "Install"): adds or removes
 * exactly YARP's hook entries in the host's settings file, through the pure
 * editor `lib/hosts/hook_settings.ts`; this module does the file I/O.
 *
 * Files: Claude Code `$CLAUDE_CONFIG_DIR/settings.json`, else
 * `~/.claude/settings.json` (`--user`, the default) or
 * `./.claude/settings.local.json` (`--project`: the hook names this
 * machine's YARP, so it belongs in the uncommitted local file); Codex
 * `$CODEX_HOME/hooks.json`, else `~/.codex/hooks.json`, or
 * `./.codex/hooks.json`; Gemini CLI `~/.gemini/settings.json` or
 * `./.gemini/settings.json`.
 *
 * Writing: the old bytes go to `FILE.yarp-backup` beside it (with the
 * file's mode) first. A symbolic link is kept and written through to its
 * target in place (so the target keeps its mode and owner); a regular file
 * is replaced through a temporary file beside it, given the old mode and
 * owner, and a rename; a new file is made 0600. Malformed settings are one
 * error line, exit 1, and nothing written. Prints one summary line.
 *
 * @module
 */
import type { TextIo } from "./io.ts";
import { processEnv } from "../config/env.ts";
import { firstLine } from "../base/error_message.ts";
import {
  editHookSettings,
  hookInvocation,
  hookSettingsPath,
  installedHookCommands,
  type SetupHost,
} from "../hosts/hook_settings.ts";

const USAGE =
  "usage: yarp setup claude-code|codex|gemini|opencode [--project|--user] [--uninstall] [--dry-run]\n       yarp setup --status\n";

const HOSTS: readonly SetupHost[] = ["claude-code", "codex", "gemini"];
/** Every host `setup` installs into: the hook hosts, and opencode (a plugin, not a hook). */
const SETUP_HOSTS: readonly (SetupHost | "opencode")[] = [...HOSTS, "opencode"];

/** Parsed `setup` arguments. */
export type SetupArgs =
  | { readonly mode: "status" }
  | {
    readonly mode: "install" | "uninstall";
    readonly host: SetupHost | "opencode";
    readonly scope: "user" | "project";
    readonly dryRun: boolean;
  };

/**
 * Parses the arguments after `setup`; one error line when malformed.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseSetupArgs } from "./setup.ts";
 * deepEqual(parseSetupArgs(["codex", "--project", "--dry-run"]), {
 *   mode: "install", host: "codex", scope: "project", dryRun: true,
 * });
 * deepEqual(parseSetupArgs(["--status"]), { mode: "status" });
 * deepEqual(parseSetupArgs(["cursor"]), {
 *   error: "unknown host 'cursor' (expected claude-code, codex, gemini or opencode)",
 * });
 * ```
 */
export function parseSetupArgs(args: readonly string[]): SetupArgs | { error: string } {
  const flags = new Set<string>();
  const words: string[] = [];
  for (const arg of args) {
    if (["--status", "--project", "--user", "--uninstall", "--dry-run"].includes(arg)) {
      if (flags.has(arg)) return { error: `${arg} given twice` };
      flags.add(arg);
    } else if (arg.startsWith("-")) return { error: `unknown option '${arg}'` };
    else words.push(arg);
  }
  if (flags.has("--status")) {
    if (flags.size > 1 || words.length > 0) return { error: "--status takes no other argument" };
    return { mode: "status" };
  }
  if (words.length === 0) return { error: "missing host (claude-code, codex, gemini or opencode)" };
  if (words.length > 1) return { error: `unexpected argument '${words[1]}'` };
  if (!(SETUP_HOSTS as readonly string[]).includes(words[0])) {
    return {
      error: `unknown host '${words[0]}' (expected claude-code, codex, gemini or opencode)`,
    };
  }
  if (flags.has("--project") && flags.has("--user")) {
    return { error: "--project and --user exclude each other" };
  }
  return {
    mode: flags.has("--uninstall") ? "uninstall" : "install",
    host: words[0] as SetupHost | "opencode",
    scope: flags.has("--project") ? "project" : "user",
    dryRun: flags.has("--dry-run"),
  };
}

/** Runs `yarp setup`; returns 0, 1 for settings it cannot read or write, 2 for bad arguments. */
export async function setupCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  const options = parseSetupArgs(args);
  if ("error" in options) {
    io.err(`yarp setup: ${options.error}\n`);
    return 2;
  }
  if (options.mode === "status") return await status(io);
  if (options.host === "opencode") return await setupOpencode({ ...options, host: "opencode" }, io);
  const fail = (line: string) => {
    io.err(`yarp setup ${options.host}: ${line}\n`);
    return 1;
  };
  let invocation: string | undefined;
  if (options.mode === "install") {
    const { selfInvocation } = await import("./_invocation.ts");
    invocation = selfInvocation();
    if (invocation === undefined) {
      return fail(
        "cannot tell how to start this yarp again (run setup with bin/yarp, the compiled yarp or dist/yarp.js)",
      );
    }
  }
  const path = hookSettingsPath(options.host, options.scope, processEnv, Deno.cwd());
  if (typeof path !== "string") return fail(path.error);
  const current = await readSettings(path);
  if ("error" in current) return fail(current.error);
  const host = options.host;
  const edit = editHookSettings(path, current.text, host, invocation);
  if ("error" in edit) return fail(`${edit.error} (nothing changed)`);
  const head = `yarp setup ${options.host}:`;
  if (!edit.changed) {
    io.out(
      options.mode === "install"
        ? `${head} already installed in ${path}, nothing changed\n`
        : `${head} no YARP hook in ${path}, nothing changed\n`,
    );
    return 0;
  }
  const what = options.mode === "install"
    ? `${edit.removed > 0 ? "replaced" : "added"} ${
      edit.added.join(" and ")
    } hooks running ${invocation} in ${path}`
    : `removed ${edit.removed} YARP hook ${edit.removed === 1 ? "entry" : "entries"} from ${path}`;
  const trust = host === "codex" && options.mode === "install"
    ? "; Codex runs them once trusted: review them with /hooks"
    : "";
  return await applyEdit({ head, what, path, current, text: edit.text, after: trust }, options, io);
}

/**
 * The `plugin` entry `yarp setup opencode` writes for the YARP at
 * `moduleUrl` (this module's URL): the `file://` URL of the checkout's
 * `hooks/opencode/index.ts` when this YARP runs from a checkout that has it,
 * else the npm package (`@yarp/opencode`, which opencode installs at start).
 */
export async function opencodePluginSpec(moduleUrl: string): Promise<string> {
  const { OPENCODE_PACKAGE } = await import("../hosts/opencode/settings.ts");
  const plugin = new URL("../../hooks/opencode/index.ts", moduleUrl);
  const found = plugin.protocol === "file:" &&
    await Deno.stat(plugin).then((info) => info.isFile, () => false);
  return found ? plugin.href : OPENCODE_PACKAGE;
}

/**
 * `yarp setup opencode`: adds (or removes) YARP's entry
 * ({@link opencodePluginSpec}) in opencode's `plugin` list
 * (`lib/hosts/opencode/settings.ts`); written like the hook settings.
 */
async function setupOpencode(
  options: Extract<SetupArgs, { host: unknown }> & { host: "opencode" },
  io: TextIo,
): Promise<number> {
  const head = "yarp setup opencode:";
  const fail = (line: string) => {
    io.err(`${head} ${line}\n`);
    return 1;
  };
  const { editPluginList, opencodeConfigPath } = await import("../hosts/opencode/settings.ts");
  const spec = options.mode === "install" ? await opencodePluginSpec(import.meta.url) : undefined;
  const path = opencodeConfigPath(options.scope, processEnv, Deno.cwd());
  if (typeof path !== "string") return fail(path.error);
  const current = await readSettings(path);
  if ("error" in current) return fail(current.error);
  const edit = editPluginList(path, current.text, spec);
  if ("error" in edit) return fail(`${edit.error} (nothing changed)`);
  if (!edit.changed) {
    io.out(
      `${head} ${
        spec === undefined ? "no YARP plugin in" : "already installed in"
      } ${path}, nothing changed\n`,
    );
    return 0;
  }
  const what = spec === undefined
    ? `removed ${edit.removed} YARP plugin ${edit.removed === 1 ? "entry" : "entries"} from ${path}`
    : `${edit.removed > 0 ? "replaced" : "added"} the plugin ${spec} in ${path}`;
  return await applyEdit({ head, what, path, current, text: edit.text, after: "" }, options, io);
}

/**
 * Writes a settings edit (or, with `--dry-run`, only says what it would
 * write) and reports it in one line: `HEAD WHAT (backup: B)AFTER`, or one
 * error line naming the file and exit 1 when the write fails.
 */
async function applyEdit(
  change: {
    readonly head: string;
    readonly what: string;
    readonly path: string;
    readonly current: FoundSettings;
    readonly text: string;
    readonly after: string;
  },
  options: { readonly dryRun: boolean },
  io: TextIo,
): Promise<number> {
  const { head, what, path } = change;
  if (options.dryRun) {
    io.out(`${head} would have ${what} (dry run, nothing written)\n`);
    return 0;
  }
  let backup: string | undefined;
  try {
    backup = await writeSettings(path, change.current, change.text);
  } catch (error) {
    io.err(`${head} ${path}: ${firstLine(error)} (nothing changed)\n`);
    return 1;
  }
  io.out(`${head} ${what}${backup === undefined ? "" : ` (backup: ${backup})`}${change.after}\n`);
  return 0;
}

/** A settings file as found: its text (undefined when absent) and what writing it must keep. */
interface FoundSettings {
  readonly text: string | undefined;
  readonly bytes: Uint8Array | undefined;
  readonly symlink: boolean;
  readonly info: Deno.FileInfo | undefined;
}

async function readSettings(path: string): Promise<FoundSettings | { error: string }> {
  let link: Deno.FileInfo;
  try {
    link = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { text: undefined, bytes: undefined, symlink: false, info: undefined };
    }
    return { error: `${path}: ${firstLine(error)}` };
  }
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) return { error: `${path}: not a regular file` };
    const bytes = await Deno.readFile(path);
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return { text, bytes, symlink: link.isSymlink, info };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { error: `${path}: a symbolic link to a file that does not exist` };
    }
    if (error instanceof TypeError) return { error: `${path}: not UTF-8 text` };
    return { error: `${path}: ${firstLine(error)}` };
  }
}

/** Writes `text` over the settings (see the module doc); returns the backup's path, if one was made. */
async function writeSettings(
  path: string,
  found: FoundSettings,
  text: string,
): Promise<string | undefined> {
  const bytes = new TextEncoder().encode(text);
  if (found.bytes === undefined || found.info === undefined) {
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await replaceFile(path, bytes, 0o600, undefined);
    return undefined;
  }
  const mode = (found.info.mode ?? 0o600) & 0o7777;
  const backup = `${path}.yarp-backup`;
  await replaceFile(backup, found.bytes, mode, undefined);
  if (found.symlink) {
    // In place through the link: the link stays, the target keeps its inode, mode and owner.
    await Deno.writeFile(path, bytes);
  } else {
    await replaceFile(path, bytes, mode, found.info);
  }
  return backup;
}

/** Writes `bytes` to a temporary file beside `path` with `mode` (and `owner`'s ids), then renames it over `path`. */
async function replaceFile(
  path: string,
  bytes: Uint8Array,
  mode: number,
  owner: Deno.FileInfo | undefined,
): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeFile(temporary, bytes, { mode: 0o600, createNew: true });
    await Deno.chmod(temporary, mode);
    if (owner !== undefined && owner.uid !== null && owner.gid !== null) {
      const info = await Deno.stat(temporary);
      if (info.uid !== owner.uid || info.gid !== owner.gid) {
        await Deno.chown(temporary, owner.uid, owner.gid);
      }
    }
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

/** `yarp setup --status`: per host, where YARP's hooks are installed and which binary they run. */
async function status(io: TextIo): Promise<number> {
  let cwd = "";
  try {
    cwd = Deno.cwd();
  } catch {
    // a deleted working directory: only the user scope is looked at
  }
  for (const host of HOSTS) {
    const places: string[] = [];
    const notes: string[] = [];
    for (const scope of ["user", "project"] as const) {
      if (scope === "project" && cwd === "") continue;
      const path = hookSettingsPath(host, scope, processEnv, cwd);
      if (typeof path !== "string") {
        notes.push(path.error);
        continue;
      }
      const found = await readSettings(path);
      const commands = "error" in found ? found : installedHookCommands(path, found.text, host);
      if ("error" in commands) {
        notes.push(`cannot read ${commands.error}`);
        continue;
      }
      if (commands.length === 0) continue;
      const binaries = [
        ...new Set(commands.map(({ command }) => hookInvocation(command, host) ?? command)),
      ];
      const events = commands.map(({ event }) => event).join(", ");
      places.push(
        `${scope} ${path} (${events}) runs ${binaries.map(describeBinary).join(" and ")}`,
      );
    }
    const line = places.length === 0 ? "not installed" : `installed: ${places.join("; ")}`;
    io.out(`${host}: ${line}${notes.length === 0 ? "" : ` [${notes.join("; ")}]`}\n`);
  }
  io.out(await opencodeStatus(cwd));
  return 0;
}

/** `yarp setup --status`'s opencode line: the YARP entries in each scope's `plugin` list. */
async function opencodeStatus(cwd: string): Promise<string> {
  const { opencodeConfigPath, yarpPluginEntries } = await import("../hosts/opencode/settings.ts");
  const places: string[] = [];
  const notes: string[] = [];
  for (const scope of ["user", "project"] as const) {
    if (scope === "project" && cwd === "") continue;
    const path = opencodeConfigPath(scope, processEnv, cwd);
    if (typeof path !== "string") {
      notes.push(path.error);
      continue;
    }
    const found = await readSettings(path);
    if ("error" in found) {
      notes.push(`cannot read ${found.error}`);
      continue;
    }
    const entries: string[] = [];
    for (const entry of yarpPluginEntries(found.text)) {
      const missing = entry.startsWith("file://") &&
        !await Deno.stat(new URL(entry)).then(() => true, () => false);
      entries.push(missing ? `${entry} (missing)` : entry);
    }
    if (entries.length > 0) places.push(`${scope} ${path} (plugin) loads ${entries.join(" and ")}`);
  }
  const line = places.length === 0 ? "not installed" : `installed: ${places.join("; ")}`;
  return `opencode: ${line}${notes.length === 0 ? "" : ` [${notes.join("; ")}]`}\n`;
}

/** The binary a hook command starts, marked when its first word is a path that is not there. */
function describeBinary(invocation: string): string {
  const first = /^'([^']*)'|^(\S+)/.exec(invocation.trim());
  const path = first?.[1] ?? first?.[2] ?? "";
  if (!path.startsWith("/")) return invocation;
  try {
    Deno.statSync(path);
    return invocation;
  } catch {
    return `${invocation} (missing)`;
  }
}
