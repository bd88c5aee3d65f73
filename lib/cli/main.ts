/**
 * The subcommand dispatcher. Each subcommand lives in its own module and
 * returns the process exit status; nothing imports this module but `main.ts`.
 *
 * @module
 */
import { quotedArg } from "../base/printable_text.ts";
import { processTextIo, type TextIo } from "./io.ts";
import { buildDigest, YARP_VERSION } from "./version.ts";
import { dropRuntimeEnv } from "../config/env.ts";
import { firstLine, sandboxMessage } from "../base/error_message.ts";

const USAGE = `yarp ${YARP_VERSION}: run shell commands with bounded, exact-recoverable output

usage:
  yarp run [--rule-pack P]... [--expect-rule ID] [--pack-digest D] -- PROG ARGS...
  yarp rewrite [--json] [--rule-pack P]... -- 'SHELL SOURCE'
  yarp result-reduce --command SRC [--exit-code N] [--archive-id ID] [--json] < TEXT
  yarp rules check DIR
  yarp rules compile DIR --output FILE.yrp
  yarp rules verify FILE.yrp
  yarp rules list [--rule-pack P]...
  yarp rules explain [--rule-pack P]... [--json] -- PROG ARGS...
  yarp read ID [--stream stdout|stderr|output] [--json] [--verify-only]
  yarp read ID [--lines A:B] [--grep TEXT [-i]] [--head N|--tail N] [-n] [--max-bytes N]
  yarp search QUERY... [--limit N] [--json]
  yarp gain [--host H] [--since D] [--json]
  yarp archive stats [--json]
  yarp archive prune [--max-bytes N] [--older-than D] [--json]
  yarp archive forget ID
  yarp archive check [--json]
  yarp archive put --command SRC [--exit-code N] [--cwd DIR] [--json] < OUTPUT
  yarp corpus import PATH... --output FILE.jsonl.gz [--json]
  yarp corpus analyze FILE... [--json] [--html REPORT.html] [--workers N]
  yarp trust [--status|--revoke] [--json] [DIR]
  yarp hook claude-code|codex < EVENT.json
  yarp setup claude-code|codex [--project|--user] [--uninstall] [--dry-run]
  yarp setup --status
  yarp doctor
  yarp --version [--build]
`;

type Command = (args: string[], io: TextIo) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {};

/** Registers a subcommand loader; used by this module's table only. */
function command(name: string, load: () => Promise<Command>): void {
  COMMANDS[name] = load;
}

command("rules", async () => (await import("./rules.ts")).rulesCommand);
command("run", async () => (await import("./run.ts")).runCommand);
command("rewrite", async () => (await import("./rewrite.ts")).rewriteCommand);
command("result-reduce", async () => (await import("./result_reduce.ts")).resultReduceCommand);
command("read", async () => (await import("./read.ts")).readCommand);
command("search", async () => (await import("./search.ts")).searchCommand);
command("gain", async () => (await import("./gain.ts")).gainCommand);
command("archive", async () => (await import("./archive.ts")).archiveCommand);
command("corpus", async () => (await import("./corpus.ts")).corpusCommand);
command("trust", async () => (await import("./trust.ts")).trustCommand);
command("hook", async () => (await import("./hook.ts")).hookCommand);
command("setup", async () => (await import("./setup.ts")).setupCommand);
command("doctor", async () => (await import("./doctor.ts")).doctorCommand);

/**
 * Runs the subcommand named by `args[0]` and returns its exit status. Unknown
 * subcommands and missing arguments print one usage line to `io.err` and
 * return 2; `--help` prints usage and returns 0. First deletes the variables a
 * launcher set for Deno alone (see `dropRuntimeEnv`).
 */
export async function main(args: string[], io: TextIo = processTextIo): Promise<number> {
  dropRuntimeEnv();
  const [name, ...rest] = args;
  if (name === undefined) {
    io.err(USAGE);
    return 2;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    io.out(USAGE);
    return 0;
  }
  if (name === "--version" || name === "-V") {
    // `--build` adds the build digest, so a caller can tell two builds of one version apart.
    const build = rest[0] === "--build" ? ` (build ${await buildDigest()})` : "";
    io.out(`yarp ${YARP_VERSION}${build}\n`);
    return 0;
  }
  const load = COMMANDS[name];
  if (load === undefined) {
    io.err(`yarp: unknown command '${quotedArg(name)}' (see 'yarp --help')\n`);
    return 2;
  }
  let command: Command;
  try {
    command = await load();
  } catch (error) {
    // A module load fails at run time when the Deno cache lacks an npm
    // package (the launcher resolves from the cache only) or the sandbox
    // denies reading the sources.
    const denied = error instanceof Error ? sandboxMessage(error.message) : undefined;
    const hint = denied ??
      `${firstLine(error)} (run 'deno install' once where YARP's deno.json is)`;
    io.err(`yarp: cannot load '${name}': ${hint}\n`);
    return 70;
  }
  try {
    return await command(rest, io);
  } catch (error) {
    const message = error instanceof Error ? sandboxMessage(error.message) : undefined;
    if (message === undefined) throw error;
    io.err(`yarp ${name}: ${message}\n`);
    return 1;
  }
}
