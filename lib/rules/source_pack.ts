/**
 * Loading a source pack from disk (docs/architecture.md, "Source pack structure"): the
 * I/O edge around the pure validators in `rule_source.ts`.
 *
 * `pack.json` is the only entry point; the directory is never scanned. Every
 * listed path is checked segment by segment with `lstat` (no symlink
 * anywhere, directories then one regular file), must stay inside the
 * canonical root, and is read with a bounded read. Limits: 64 KiB per rule
 * file, 1 MiB for `pack.json` (the rule limits cap every source file at 64 KiB, but
 * a 64 KiB manifest cannot list the 10,000 rules it also allows, so the
 * manifest gets room for 10,000 paths of about 100 bytes), 32 MiB for the
 * manifest and all rule files together; an empty file is an error. A path problem is reported at its manifest entry (`pack.json`,
 * `/rules/N`); a content problem in the file itself.
 *
 * The reads are synchronous (about five times faster than Deno's async file
 * ops for thousands of small files); the result is still a promise so the
 * loader can change without touching its callers.
 *
 * Known miss: a file swapped for a symlink between the checks and the read
 * (a race with a concurrent writer) is not detected.
 *
 * @module
 */

import { LIMITS, type Rule, type RulePack } from "./model.ts";
import type { SourceDiagnostic, SourcePosition } from "./diagnostics.ts";
import { validateManifestText, validateRuleText } from "./rule_source.ts";
import { sourceDigest } from "./source_digest.ts";
import { q } from "./strict_json.ts";
import { errorMessage } from "../base/error_message.ts";

/** One source file's exact bytes, named relative to the pack root. */
export interface SourceFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** The outcome of {@link loadSourcePack}. */
export type SourcePackResult =
  | {
    readonly ok: true;
    readonly pack: RulePack;
    /** Non-fatal findings, e.g. `failure-below-success`. */
    readonly warnings: SourceDiagnostic[];
    /** The exact `pack.json` bytes. */
    readonly manifestBytes: Uint8Array;
    /** The listed rule files, in manifest order. */
    readonly files: SourceFile[];
  }
  | { readonly ok: false; readonly diagnostics: SourceDiagnostic[] };

const MANIFEST = "pack.json";
/** Most bytes `pack.json` may hold (see the module comment). */
export const MANIFEST_MAX_BYTES = 1024 * 1024;
// One buffer for every bounded read; each result is copied out of it.
const readBuffer = new Uint8Array(MANIFEST_MAX_BYTES + 1);
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A problem with a path (reported at the manifest entry) or with its content. */
interface ReadProblem {
  readonly where: "path" | "content";
  readonly code: string;
  readonly message: string;
}

type ReadResult = { readonly bytes: Uint8Array } | { readonly problem: ReadProblem };

/**
 * Loads, validates and digests the source pack in `dir`: reads `pack.json`,
 * then exactly the rule files it lists, in order. Returns the pack (rules in
 * manifest order, source digest from `sourceDigest`), its warnings and the
 * exact bytes read; or every diagnostic found. Rule ids must be unique across
 * files (`duplicate-rule-id` names both). Never writes; never throws for bad
 * input or file-system errors.
 */
export function loadSourcePack(dir: string): Promise<SourcePackResult> {
  return Promise.resolve(loadSync(dir));
}

function loadSync(dir: string): SourcePackResult {
  let root: string;
  try {
    root = Deno.realPathSync(dir);
  } catch (error) {
    const message = `cannot open pack directory ${q(dir)}: ${errorMessage(error)}`;
    return fail(fileDiagnostic(MANIFEST, "missing-file", message));
  }
  const directories = new Map<string, ReadProblem | undefined>();
  const manifestRead = readSourceFile(root, MANIFEST, MANIFEST_MAX_BYTES, directories);
  if ("problem" in manifestRead) {
    return fail(fileDiagnostic(MANIFEST, manifestRead.problem.code, manifestRead.problem.message));
  }
  const manifestBytes = manifestRead.bytes;
  const manifestText = decode(MANIFEST, manifestBytes);
  if (typeof manifestText !== "string") return fail(manifestText);
  const validated = validateManifestText(MANIFEST, manifestText);
  if (!validated.ok) return validated;
  const { manifest, rulePositions } = validated;

  const diagnostics: SourceDiagnostic[] = [];
  const warnings: SourceDiagnostic[] = [];
  const files: SourceFile[] = [];
  const rules: Rule[] = [];
  const ruleFiles = new Map<string, string>();
  let remaining = LIMITS.sourceTotalBytes - manifestBytes.length;
  for (const [index, path] of manifest.rules.entries()) {
    const read = readSourceFile(root, path, LIMITS.sourceFileBytes, directories, remaining);
    if ("problem" in read) {
      const { where, code, message } = read.problem;
      diagnostics.push(
        where === "path"
          ? entryDiagnostic(index, rulePositions[index], code, message)
          : fileDiagnostic(path, code, message),
      );
      if (code === "pack-too-large") break;
      continue;
    }
    remaining -= read.bytes.length;
    files.push({ path, bytes: read.bytes });
    const text = decode(path, read.bytes);
    if (typeof text !== "string") {
      diagnostics.push(text);
      continue;
    }
    const result = validateRuleText(path, text);
    if (!result.ok) {
      diagnostics.push(...result.diagnostics);
      continue;
    }
    warnings.push(...result.warnings);
    const first = ruleFiles.get(result.rule.id);
    if (first !== undefined) {
      diagnostics.push({
        code: "duplicate-rule-id",
        file: path,
        pointer: "/id",
        ...result.idPosition,
        message: `rule id ${q(result.rule.id)} is already defined in ${first}`,
      });
      continue;
    }
    ruleFiles.set(result.rule.id, path);
    rules.push(result.rule);
  }
  if (diagnostics.length > 0) return { ok: false, diagnostics };
  const pack: RulePack = {
    id: manifest.id,
    sourceDigest: sourceDigest(manifestBytes, files),
    rules,
  };
  return { ok: true, pack, warnings, manifestBytes, files };
}

function fail(diagnostic: SourceDiagnostic): SourcePackResult {
  return { ok: false, diagnostics: [diagnostic] };
}

function fileDiagnostic(file: string, code: string, message: string): SourceDiagnostic {
  return { code, file, pointer: "", line: 1, column: 1, message };
}

function entryDiagnostic(
  index: number,
  position: SourcePosition,
  code: string,
  message: string,
): SourceDiagnostic {
  return { code, file: MANIFEST, pointer: `/rules/${index}`, ...position, message };
}

function decode(file: string, bytes: Uint8Array): string | SourceDiagnostic {
  try {
    return utf8.decode(bytes);
  } catch {
    return fileDiagnostic(file, "invalid-utf8", "file is not valid UTF-8");
  }
}

function pathProblem(code: string, message: string): ReadResult {
  return { problem: { where: "path", code, message } };
}

function contentProblem(code: string, message: string): ReadResult {
  return { problem: { where: "content", code, message } };
}

/**
 * Checks every segment of `path` (validated: relative, `/`-separated, no `.`
 * or `..`) under `root` with `lstat`, then reads at most `fileLimit` bytes
 * (`file-too-large` above it), and at most the `budget` left for the pack
 * (`pack-too-large` above it). `directories` caches the verdict for each
 * directory prefix.
 */
function readSourceFile(
  root: string,
  path: string,
  fileLimit: number,
  directories: Map<string, ReadProblem | undefined>,
  budget = LIMITS.sourceTotalBytes,
): ReadResult {
  const segments = path.split("/");
  for (let end = 1; end < segments.length; end++) {
    const prefix = segments.slice(0, end).join("/");
    if (!directories.has(prefix)) directories.set(prefix, directoryProblem(root, prefix));
    const problem = directories.get(prefix);
    if (problem !== undefined) return { problem };
  }
  const full = `${root}/${path}`;
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(full);
  } catch (error) {
    return missing(path, error);
  }
  if (info.isSymlink) return pathProblem("path-is-symlink", `${q(path)} is a symbolic link`);
  if (!info.isFile) return pathProblem("not-a-file", `${q(path)} is not a regular file`);
  try {
    const real = Deno.realPathSync(full);
    if (!real.startsWith(root.endsWith("/") ? root : `${root}/`)) {
      return pathProblem("path-escapes-root", `${q(path)} resolves outside the pack directory`);
    }
    return readBounded(full, info.size, fileLimit, budget);
  } catch (error) {
    return pathProblem("unreadable-file", `cannot read ${q(path)}: ${errorMessage(error)}`);
  }
}

function directoryProblem(root: string, prefix: string): ReadProblem | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(`${root}/${prefix}`);
  } catch (error) {
    const result = missing(prefix, error);
    return "problem" in result ? result.problem : undefined;
  }
  if (info.isSymlink) {
    return { where: "path", code: "path-is-symlink", message: `${q(prefix)} is a symbolic link` };
  }
  if (!info.isDirectory) {
    return { where: "path", code: "not-a-file", message: `${q(prefix)} is not a directory` };
  }
  return undefined;
}

function missing(path: string, error: unknown): ReadResult {
  if (error instanceof Deno.errors.NotFound) {
    return pathProblem("missing-file", `${q(path)} does not exist`);
  }
  return pathProblem("unreadable-file", `cannot read ${q(path)}: ${errorMessage(error)}`);
}

/** Reads at most `min(fileLimit, budget) + 1` bytes, so a growing file stays bounded. */
function readBounded(
  full: string,
  statSize: number,
  fileLimit: number,
  budget: number,
): ReadResult {
  const tooLarge = (size: number) =>
    contentProblem("file-too-large", `file has ${size} bytes; at most ${fileLimit} allowed`);
  const packTooLarge = () =>
    pathProblem(
      "pack-too-large",
      `source files exceed ${LIMITS.sourceTotalBytes} bytes in total (manifest included)`,
    );
  if (statSize > fileLimit) return tooLarge(statSize);
  if (statSize > budget) return packTooLarge();
  const buffer = readBuffer.subarray(0, Math.min(fileLimit, budget) + 1);
  let length = 0;
  using file = Deno.openSync(full, { read: true });
  while (length < buffer.length) {
    const count = file.readSync(buffer.subarray(length));
    if (count === null) break;
    length += count;
  }
  if (length > fileLimit) return tooLarge(length);
  if (length > budget) return packTooLarge();
  if (length === 0) return contentProblem("empty-file", "file is empty");
  return { bytes: buffer.slice(0, length) };
}
