/**
 * tokenjuice, a competing reducer, loaded from npm at a pinned version for
 * side-by-side comparisons.
 *
 * The package is installed with `npm install --prefix` into a cache directory
 * under the system temp directory keyed by name and version, so repeated runs
 * reuse it. npm runs as a subprocess: callers need `--allow-run`,
 * `--allow-read`, `--allow-write` and `--allow-env`, but no network
 * permission. The package's public entry point is then imported by file URL
 * and its library API used: `loadBuiltinRules()` and
 * `reduceExecutionWithRules(input, rules, {})`.
 *
 * Built-in rules only: `loadBuiltinRules` never reads the user layer
 * (`~/.config/tokenjuice/rules`) or the project layer (`./.tokenjuice/rules`),
 * which `reduceExecution` would. With no options, nothing is stored (no
 * artifacts, no stats), the inline budget is tokenjuice's default 1,200
 * characters, and omission is on.
 *
 * The result is the library's `inlineText`, as tokenjuice's host integrations
 * inline it. Left out: what a particular host adds or decides around it (the
 * Pi extension's `[tokenjuice ...]` footer, its "keep the original when
 * savings are weak" checks), and environment switches read only by hosts
 * (`TOKENJUICE_NO_OMISSION`).
 *
 * @module
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { installNpmPackage } from "./_npm.ts";

/** The tokenjuice version every comparison runs (newest on npm when pinned). */
export const TOKENJUICE_VERSION = "0.8.5";

/** One finished command as tokenjuice's reducer receives it. */
export interface TokenjuiceInput {
  /** The shell command line as the agent wrote it. */
  command: string;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved in arrival order, when known; tokenjuice prefers it. */
  combined: string | null;
  /** null when the command had no exit code (killed, timed out). */
  exitCode: number | null;
}

/** What tokenjuice shows the agent for one command. */
export interface TokenjuiceOutput {
  /** The inline text tokenjuice returns. */
  text: string;
  /** The reducer id tokenjuice reports (e.g. `tests/cargo-test`, `generic/fallback`), or null. */
  rule: string | null;
}

/** A loaded tokenjuice: its version and its reduce function. */
export interface TokenjuiceReducer {
  version: string;
  /** Reduces one command's output with tokenjuice's built-in rules; stores nothing. */
  reduce(input: TokenjuiceInput): Promise<TokenjuiceOutput>;
}

/** The slice of tokenjuice's library API this adapter calls. */
interface TokenjuiceModule {
  loadBuiltinRules(): Promise<unknown[]>;
  reduceExecutionWithRules(
    input: {
      toolName: string;
      command: string;
      stdout: string;
      stderr: string;
      combinedText?: string;
      exitCode?: number;
    },
    rules: unknown[],
    options: Record<string, never>,
  ): Promise<{ inlineText: string; classification: { matchedReducer?: string } }>;
}

/**
 * Installs tokenjuice {@link TOKENJUICE_VERSION} (once per machine, see
 * {@link installNpmPackage}) and loads its library API. Throws when npm fails
 * or the package lacks the expected functions.
 */
export async function loadTokenjuice(): Promise<TokenjuiceReducer> {
  const packageDir = await installNpmPackage("tokenjuice", TOKENJUICE_VERSION);
  const manifest = JSON.parse(await Deno.readTextFile(join(packageDir, "package.json")));
  const entry = typeof manifest.exports?.["."] === "string" ? manifest.exports["."] : manifest.main;
  const module = await import(pathToFileURL(join(packageDir, entry)).href);
  for (const name of ["loadBuiltinRules", "reduceExecutionWithRules"]) {
    if (typeof module[name] !== "function") {
      throw new Error(`tokenjuice ${TOKENJUICE_VERSION} does not export ${name}()`);
    }
  }
  const tokenjuice = module as TokenjuiceModule;
  const rules = await tokenjuice.loadBuiltinRules();
  return {
    version: TOKENJUICE_VERSION,
    async reduce(input) {
      const result = await tokenjuice.reduceExecutionWithRules(
        {
          toolName: "exec",
          command: input.command,
          stdout: input.stdout,
          stderr: input.stderr,
          ...(input.combined === null ? {} : { combinedText: input.combined }),
          ...(input.exitCode === null ? {} : { exitCode: input.exitCode }),
        },
        rules,
        {},
      );
      return { text: result.inlineText, rule: result.classification.matchedReducer ?? null };
    },
  };
}
