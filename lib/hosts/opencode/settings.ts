/**
 * Editing YARP's entry in opencode's config (`yarp setup opencode`;
 * docs/hosts.md, "opencode"): the `plugin` list of `opencode.json` holds
 * module specifiers, and YARP's is either the npm package
 * {@link OPENCODE_PACKAGE} (opencode installs it at start) or, in a YARP
 * checkout, the `file://` URL of its plugin (`…/hooks/opencode/index.ts`).
 * Installing appends it (after removing any
 * older YARP entry); uninstalling removes exactly the entries that name a
 * YARP opencode plugin, dropping the `plugin` key only when YARP's removal
 * emptied it. Every other key and plugin stays, in its order; the file's
 * indentation and final newline are kept. Idempotent.
 *
 * Refused (one line, nothing written): text that is not strict JSON (a
 * JSONC file with comments included: rewriting it would lose them), a top
 * level that is not an object, a `plugin` value that is not a list.
 *
 * @module
 */
import { parseStrictJson } from "../../rules/strict_json.ts";
import { formatDiagnostic } from "../../rules/diagnostics.ts";
import { isObject } from "../session.ts";

/** The npm package of YARP's opencode plugin (`hooks/opencode`). */
export const OPENCODE_PACKAGE = "@yarp/opencode";

/**
 * True when a `plugin` entry is YARP's opencode plugin: a string (or the
 * first item of a `[spec, options]` pair) ending in `/hooks/opencode/index.ts`,
 * or the package {@link OPENCODE_PACKAGE}, with or without `@VERSION`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { isYarpPlugin } from "./settings.ts";
 * equal(isYarpPlugin("file:///opt/yarp/hooks/opencode/index.ts"), true);
 * equal(isYarpPlugin("@yarp/opencode@0.1.0"), true);
 * equal(isYarpPlugin("@yarp/opencode-extra"), false);
 * equal(isYarpPlugin("opencode-wakatime"), false);
 * ```
 */
export function isYarpPlugin(entry: unknown): boolean {
  const spec = Array.isArray(entry) ? entry[0] : entry;
  return typeof spec === "string" &&
    (/\/hooks\/opencode\/index\.ts$/.test(spec) || /^@yarp\/opencode(?:@[^/@\s]+)?$/.test(spec));
}

/** The YARP entries of an opencode config text's `plugin` list (none for text that is not a JSON object). */
export function yarpPluginEntries(text: string | undefined): string[] {
  try {
    const parsed = JSON.parse(text ?? "null") as unknown;
    const list = isObject(parsed) ? parsed.plugin : undefined;
    return Array.isArray(list)
      ? list.filter(isYarpPlugin).map((entry) => String(Array.isArray(entry) ? entry[0] : entry))
      : [];
  } catch {
    return [];
  }
}

/** The outcome of an edit: the new text (the old when unchanged) and what changed. */
export interface PluginEdit {
  readonly text: string;
  readonly changed: boolean;
  readonly added: boolean;
  readonly removed: number;
}

/**
 * Adds `spec` (YARP's plugin URL) to the `plugin` list of an opencode
 * config text (`undefined` for a file that does not exist yet), or removes
 * YARP's entries when `spec` is undefined. `file` names the file in an error.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { editPluginList } from "./settings.ts";
 * const text = '{\n  "plugin": ["other"]\n}\n';
 * const spec = "file:///y/hooks/opencode/index.ts";
 * const added = editPluginList("o.json", text, spec);
 * if ("error" in added) throw new Error(added.error);
 * equal(added.text, '{\n  "plugin": [\n    "other",\n    "' + spec + '"\n  ]\n}\n');
 * const again = editPluginList("o.json", added.text, spec);
 * equal("error" in again ? again.error : again.changed, false);
 * const removed = editPluginList("o.json", added.text, undefined);
 * equal("error" in removed ? removed.error : JSON.parse(removed.text).plugin[0], "other");
 * ```
 */
export function editPluginList(
  file: string,
  text: string | undefined,
  spec: string | undefined,
): PluginEdit | { error: string } {
  let root: Record<string, unknown> = {};
  let indent: string | number = 2;
  let finalNewline = true;
  if (text !== undefined && text.trim() !== "") {
    const strict = parseStrictJson(file, text);
    if (!strict.ok || strict.reader.diagnostics.length > 0) {
      const diagnostics = strict.ok ? strict.reader.diagnostics : strict.diagnostics;
      return { error: formatDiagnostic(diagnostics[0]) };
    }
    const parsed = JSON.parse(text) as unknown;
    if (!isObject(parsed)) return { error: `${file}: the top level is not a JSON object` };
    root = parsed;
    indent = /\n([ \t]+)"/.exec(text)?.[1] ?? 2;
    finalNewline = text.endsWith("\n");
  }
  const list = root.plugin;
  if (list !== undefined && !Array.isArray(list)) {
    return { error: `${file}: /plugin is not a list` };
  }
  const before = list ?? [];
  const kept = before.filter((entry) => !isYarpPlugin(entry));
  const removed = before.length - kept.length;
  const after = spec === undefined ? kept : [...kept, spec];
  const same = after.length === before.length && after.every((entry, i) => entry === before[i]);
  if (same && text !== undefined) return { text, changed: false, added: false, removed: 0 };
  // Built from entries, so every other key keeps its place (and `plugin` its own, when present).
  const entries: [string, unknown][] = Object.entries(root).flatMap((
    [key, value],
  ): [string, unknown][] =>
    key !== "plugin" ? [[key, value]] : after.length > 0 || list!.length === 0 ? [[key, after]] : []
  );
  if (list === undefined && after.length > 0) entries.push(["plugin", after]);
  const next = JSON.stringify(Object.fromEntries(entries), null, indent) +
    (finalNewline ? "\n" : "");
  return { text: next, changed: true, added: spec !== undefined, removed };
}

/**
 * Where a scope's opencode config is: `--project` `./opencode.json`;
 * `--user` `$OPENCODE_CONFIG_DIR/opencode.json` when set, else
 * `$XDG_CONFIG_HOME/opencode/opencode.json`, else
 * `~/.config/opencode/opencode.json`.
 */
export function opencodeConfigPath(
  scope: "user" | "project",
  env: (name: string) => string | undefined,
  cwd: string,
): string | { error: string } {
  if (scope === "project") return `${cwd}/opencode.json`;
  const dir = env("OPENCODE_CONFIG_DIR");
  if (dir !== undefined && dir.startsWith("/")) return `${dir.replace(/\/+$/, "")}/opencode.json`;
  const xdg = env("XDG_CONFIG_HOME");
  if (xdg !== undefined && xdg.startsWith("/")) {
    return `${xdg.replace(/\/+$/, "")}/opencode/opencode.json`;
  }
  const home = env("HOME");
  if (home === undefined || !home.startsWith("/")) {
    return { error: "no home directory (set HOME or XDG_CONFIG_HOME)" };
  }
  return `${home.replace(/\/+$/, "")}/.config/opencode/opencode.json`;
}
