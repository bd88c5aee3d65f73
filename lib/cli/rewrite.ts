/**
 * `yarp rewrite [--json] [--rule-pack P]… [--host H] -- 'SRC'` (SRC may come on stdin
 * instead): prints the wrapper command line for shell source that is one
 * simple command selected by exactly one reduction rule, else prints
 * nothing; exits 0 either way (docs/architecture.md, "Shell source checks", "Rewrite and
 * run agreement"; docs/architecture.md, "CLI contract").
 *
 * The wrapper is `yarp run --expect-rule ID [--rule-pack P --pack-digest D]…
 * -- ARGV…` with every word single-quoted where bash would otherwise
 * reinterpret it, so bash reproduces the parsed argv exactly (`--host H`
 * adds `--host H` after `yarp run`: who runs it, for `yarp gain`); `yarp run`
 * selects again from the real argv. `--json` prints one object with the
 * decision, a reason code, the rule id and the wrapper (`command`, present
 * exactly when `rewrite` is true: a declined source's text never appears).
 * Only a malformed YARP argument prints an error and exits 2.
 *
 * `yarp rewrite --lead-words [--rule-pack P]…` takes no source and prints one
 * JSON object: `programs` and `patterns` ({@link RewriteLeadWords}: a source
 * whose plain first word is in neither is never wrapped) and `inputs`, the
 * files the rule registry was read from (the config file's path, its packs
 * and the `--rule-pack` packs), each with the `stamp` it had before it was
 * read (`MTIME_MS:SIZE`, integer milliseconds, or null when missing), so a
 * caller that caches the answer knows when to ask again.
 *
 * `yarp rewrite --serve [--rule-pack P]… [--host H]` loads the parser and the
 * rules once, then reads requests on stdin, each one JSON string (the
 * source) on one line, and answers each with one line, the object `--json`
 * prints for that source, in order; it exits 0 at the end of stdin. A
 * request that is not one JSON string, or a line over the limit, is one
 * error line and exit 2. The Pi extension keeps one per session, so a
 * decision costs no process start.
 *
 * @module
 */
import { quotedArg } from "../base/printable_text.ts";
import { parseArgs } from "./_args.ts";
import type { RuleRegistry } from "../rules/registry.ts";
import type { RuleInput } from "./_rule_packs.ts";
import { readAllBytes, serveRequests, type TextIo } from "./io.ts";
import {
  decideRewrite,
  type RewriteDecision,
  type RewriteLeadWords,
  rewriteLeadWords,
} from "../shell/rewrite_decision.ts";
import { callHost } from "../archive/gain.ts";

const USAGE = "usage: yarp rewrite [--json] [--rule-pack P]... [--host H] -- 'SHELL SOURCE'\n" +
  "       yarp rewrite --lead-words [--rule-pack P]...\n" +
  "       yarp rewrite --serve [--rule-pack P]... [--host H]\n";

interface RewriteArgs {
  readonly json: boolean;
  readonly leadWords: boolean;
  readonly serve: boolean;
  readonly rulePacks: readonly string[];
  readonly source: string | undefined;
  readonly host?: string;
}

/**
 * Parses the arguments after `rewrite` with the shared parser (`_args.ts`):
 * `--json`, any number of `--rule-pack P`, then either `-- SRC` (exactly one
 * word) or nothing (`source` undefined: it comes on stdin), `--host H` naming
 * a host (`lib/archive/gain.ts`); or `--lead-words` with `--rule-pack`s
 * only. One error line when malformed.
 */
export function parseRewriteArgs(args: readonly string[]): RewriteArgs | { error: string } {
  const parsed = parseArgs(args, {
    flags: ["--json", "--lead-words", "--serve"],
    options: ["--host"],
    repeatable: ["--rule-pack"],
  });
  if ("error" in parsed) return parsed;
  if (parsed.positionals.length > 0) {
    return { error: `expected '--' before '${quotedArg(parsed.positionals[0])}'` };
  }
  const rulePacks = parsed.lists.get("--rule-pack") ?? [];
  if (rulePacks.includes("")) return { error: "--rule-pack: missing path" };
  const rest = parsed.rest;
  if (rest !== undefined && rest.length !== 1) {
    return { error: "expected exactly one shell source argument after '--'" };
  }
  if (parsed.flags.has("--lead-words")) {
    if (rest !== undefined) return { error: "--lead-words takes no shell source" };
    if (parsed.flags.has("--json") || parsed.values.has("--host")) {
      return { error: "--lead-words takes only --rule-pack" };
    }
    return { json: true, leadWords: true, serve: false, rulePacks, source: undefined };
  }
  const hostText = parsed.values.get("--host");
  const host = hostText === undefined ? undefined : callHost(hostText, undefined);
  if (host !== undefined && "error" in host) return host;
  if (parsed.flags.has("--serve")) {
    if (rest !== undefined) return { error: "--serve reads its sources on stdin, not after '--'" };
    if (parsed.flags.has("--json")) return { error: "--serve always answers in JSON; drop --json" };
    return { json: true, leadWords: false, serve: true, rulePacks, source: undefined, ...host };
  }
  return {
    json: parsed.flags.has("--json"),
    leadWords: false,
    serve: false,
    rulePacks,
    source: rest?.[0],
    ...host,
  };
}

async function readStdinText(limit: number): Promise<string | undefined> {
  const bytes = await readAllBytes(Deno.stdin, limit);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}

/** Runs `yarp rewrite`; returns 0, or 2 for a malformed argument. */
export async function rewriteCommand(args: string[], io: TextIo): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  const options = parseRewriteArgs(args);
  if ("error" in options) {
    io.err(`yarp rewrite: ${options.error}\n`);
    return 2;
  }
  const [{ SHELL_LIMITS }, { loadShellTreeParser }] = await Promise.all([
    import("../shell/model.ts"),
    import("../shell/parser.ts"),
  ]);
  if (options.leadWords) {
    io.out(JSON.stringify(await leadWords(options.rulePacks)) + "\n");
    return 0;
  }
  if (options.serve) {
    return await serve(options, loadShellTreeParser, SHELL_LIMITS.sourceBytes, io);
  }
  if (options.source === undefined && Deno.stdin.isTerminal()) return missingSource(io);
  const source = options.source ?? await readStdinText(SHELL_LIMITS.sourceBytes);
  if (options.source === undefined && source === "") return missingSource(io);
  let decision: RewriteDecision;
  if (source === undefined) {
    decision = { rewrite: false, reason: "source-too-large" };
  } else {
    decision = await decide(source, options.rulePacks, loadShellTreeParser, options.host);
  }
  if (options.json) {
    io.out(`${jsonReply(decision)}\n`);
  } else if (decision.command !== undefined) {
    io.out(decision.command + "\n");
  }
  return 0;
}

/** No `-- SRC` and nothing on stdin: one line, exit 2 (silence would read as "no rewrite"). */
function missingSource(io: TextIo): number {
  io.err("yarp rewrite: missing shell source (give it after '--' or on stdin)\n");
  return 2;
}

/** The `--json` object for `decision` (no line end): every field but `argv` (the wrapper already says it). */
function jsonReply(decision: RewriteDecision): string {
  const { argv: _argv, ...shown } = decision;
  return JSON.stringify(shown);
}

/** The rules a decision reads: the registry and the `--rule-pack` packs with their digests. */
interface LoadedRules {
  readonly registry: RuleRegistry;
  readonly packs: readonly { readonly path: string; readonly digest: string }[];
}

/** Loads the rules once; undefined when a pack or the config is invalid (`invalid-pack`). */
async function loadRules(rulePacks: readonly string[]): Promise<LoadedRules | undefined> {
  const loaded = await (await import("./_rule_packs.ts")).loadRegistry(rulePacks);
  if (loaded.errors.length > 0) return undefined;
  const packs: { path: string; digest: string }[] = [];
  // The wrapper carries the `--rule-pack` packs; `yarp run` reads the config file's packs itself.
  for (const [index, pack] of loaded.packs.slice(loaded.configuredCount).entries()) {
    packs.push({ path: rulePacks[index], digest: await pack.pack.fileDigestAsync() });
  }
  return { registry: loaded.registry, packs };
}

async function decide(
  source: string,
  rulePacks: readonly string[],
  loadShellParser: typeof import("../shell/parser.ts").loadShellTreeParser,
  host: string | undefined,
): Promise<RewriteDecision> {
  // Parsed as soon as the parser is up, while the registry may still be loading; the parser keeps
  // the model of its last source, so decideRewrite's parse of it is free.
  const parserPromise = loadShellParser().then((parser) => (parser.parse(source), parser));
  const rules = await loadRules(rulePacks);
  if (rules === undefined) return { rewrite: false, reason: "invalid-pack" };
  return decideRewrite(source, await parserPromise, rules.registry, rules.packs, host);
}

/** `--serve`: one answer line per request line, until the end of stdin (see the module doc). */
async function serve(
  options: RewriteArgs,
  loadShellParser: typeof import("../shell/parser.ts").loadShellTreeParser,
  sourceLimit: number,
  io: TextIo,
): Promise<number> {
  const [parser, rules] = await Promise.all([loadShellParser(), loadRules(options.rulePacks)]);
  const encoder = new TextEncoder();
  // A JSON string spends at most 6 bytes (`\uXXXX`) on a byte of its source, plus its quotes.
  return await serveRequests("rewrite", sourceLimit * 6 + 2, (line) => {
    let source: unknown;
    try {
      source = JSON.parse(line);
    } catch {
      source = undefined;
    }
    if (typeof source !== "string") {
      return Promise.resolve({ error: "a request must be one JSON string on one line" });
    }
    const decision: RewriteDecision = rules === undefined
      ? { rewrite: false, reason: "invalid-pack" }
      : encoder.encode(source).length > sourceLimit
      ? { rewrite: false, reason: "source-too-large" }
      : decideRewrite(source, parser, rules.registry, rules.packs, options.host);
    return Promise.resolve(jsonReply(decision));
  }, io);
}

/** The `--lead-words` answer: the registry's lead words and the files it came from, stamped first. */
async function leadWords(
  rulePacks: readonly string[],
): Promise<RewriteLeadWords & { readonly inputs: readonly RuleInput[] }> {
  const { loadRegistry, ruleInputs } = await import("./_rule_packs.ts");
  const { inputs, config } = await ruleInputs(rulePacks);
  const loaded = await loadRegistry(rulePacks, false, config);
  return { ...rewriteLeadWords(loaded.registry), inputs };
}
