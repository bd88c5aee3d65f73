/**
 * Decides whether the project pack `.yarp/rules.yrp` is passed to YARP
 * (docs/pi.md, "Project packs and trust"). All of these must
 * hold: Pi trusts the project (`ctx.isProjectTrusted()`, where Pi has it;
 * Pi 0.73.1 has none, so YARP's trust alone decides there); the file is in
 * the project root's `.yarp/` and resolves, symlinks followed, to a regular
 * file inside the root; and `yarp trust` recorded this root with the pack's
 * current SHA-256, so a changed pack is untrusted until trusted again. YARP
 * itself then verifies the pack's header, index and digests.
 *
 * The file checks are injected; the trust record is asked of YARP once per
 * pack digest per session.
 *
 * @module
 */
import type { ProcessOutcome, WrapperPack } from "./decisions.ts";

/** File-system probes; each is total (never throws). */
export interface ProjectPackProbe {
  /** The resolved absolute path, or undefined when it does not exist. */
  readonly realpath: (path: string) => Promise<string | undefined>;
  /** True for a regular file (not following a final symlink). */
  readonly isRegularFile: (path: string) => Promise<boolean>;
  /** Hex SHA-256 of the file's bytes, or undefined when unreadable. */
  readonly sha256: (path: string) => Promise<string | undefined>;
}

/** Whether the project pack was passed, and a one-line reason for `/yarp`. */
export interface PackTrust {
  readonly state: "passed" | "none";
  readonly detail: string;
}

/** The project pack's path inside a project root. */
export const PROJECT_PACK = ".yarp/rules.yrp";

/**
 * Reads `yarp trust --status --json`'s reply: the digest recorded for the
 * root, `null` when none is, undefined when the reply cannot be read.
 */
export function readTrustReply(outcome: ProcessOutcome): string | null | undefined {
  if (outcome.kind !== "exit" || outcome.code !== 0) return undefined;
  try {
    const parsed = JSON.parse(outcome.stdout) as { recorded_digest?: unknown };
    const digest = parsed.recorded_digest;
    if (digest === null) return null;
    return typeof digest === "string" && /^[0-9a-f]{64}$/.test(digest) ? digest : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `--rule-pack` arguments for the project at `cwd` (none, or the
 * resolved pack path), the pack with its digest for the wrapper, and why. `piTrust` is `ctx.isProjectTrusted()`'s
 * answer, undefined when Pi has no trust API. `askTrust(root)` runs `yarp
 * trust --status --json -- ROOT`; its answers are kept in `recorded` by
 * root and pack digest (one map per session).
 */
export async function projectPackArgs(
  cwd: string,
  piTrust: boolean | undefined,
  probe: ProjectPackProbe,
  askTrust: (root: string) => Promise<ProcessOutcome>,
  recorded: Map<string, string | null>,
): Promise<{ args: string[]; pack?: WrapperPack; trust: PackTrust }> {
  const none = (detail: string) => ({ args: [], trust: { state: "none" as const, detail } });
  if (piTrust === false) return none("Pi does not trust this project");
  const root = await probe.realpath(cwd);
  if (root === undefined) return none("the project root cannot be resolved");
  const candidate = `${root === "/" ? "" : root}/${PROJECT_PACK}`;
  const real = await probe.realpath(candidate);
  if (real === undefined) return none(`no ${PROJECT_PACK}`);
  if (!real.startsWith(`${root === "/" ? "" : root}/`)) {
    return none(`${PROJECT_PACK} resolves outside the project root`);
  }
  if (!await probe.isRegularFile(real)) return none(`${PROJECT_PACK} is not a regular file`);
  const digest = await probe.sha256(real);
  if (digest === undefined) return none(`${PROJECT_PACK} cannot be read`);
  const key = `${root}\0${digest}`;
  let trusted = recorded.get(key);
  if (trusted === undefined) {
    const reply = readTrustReply(await askTrust(root));
    if (reply === undefined) return none("'yarp trust --status' gave no answer");
    trusted = reply;
    recorded.set(key, reply);
  }
  if (trusted === null) return none(`${PROJECT_PACK} is not trusted (run 'yarp trust' in ${root})`);
  if (trusted !== digest) return none(`${PROJECT_PACK} changed since 'yarp trust'; trust it again`);
  return {
    args: ["--rule-pack", real],
    pack: { path: real, digest },
    trust: { state: "passed", detail: `${real} (sha256 ${digest.slice(0, 12)})` },
  };
}
