/**
 * Authors the rule fixtures under `fixtures/` (run by hand, never by tests).
 *
 * For every `reduce` rule of the built-in source pack it writes nine cases
 * (`success`, `failure`, `near-miss`, `short-exact`, `middle-line`,
 * `long-line`, `empty`, `separate-streams`, `invalid-utf8`), and for every
 * `passthrough` guard one `guard` case, to `fixtures/<rule-id>/<case>.json`.
 *
 * Inputs are made here, never copied from elsewhere: real tools (git, grep,
 * find, ls, make and cmake with gcc, ninja, ctest, cargo, pytest, tox, npm
 * with node --test, go (build, vet, test, install, mod tidy, get and their
 * guards, fetching modules from a proxy on disk that the script writes), and
 * tsc, vitest, jest, vite, eslint, pnpm and yarn at pinned versions that
 * `npm install` fetches from the npm registry) run over files, repositories,
 * Makefiles, crates, modules and packages this script creates in a temporary
 * directory; a family whose tool is missing (rg, tree, go) installs its
 * Debian package with apt-get (`requireDebianTools`). Those two installs are
 * the only steps that need the network. Tools that are not installed or need
 * an unreachable registry (pnpm and yarn installs, `ls --zero` of a newer
 * coreutils, Maven, Gradle, meson, dotnet, nextest, bun, pip, uv, poetry,
 * nox, apt, and `go mod download`, which prints nothing offline unless it
 * fails) get realistic output written by the generators below, and so do the
 * few cases a real tool cannot produce (tsc, on node, never prints invalid
 * UTF-8). Recorded output is made deterministic: fixed commit dates, fixed
 * names, the temporary directory replaced by `/home/dev/demo`, and elapsed
 * times replaced by fixed values (see `Normalizer`).
 *
 * Expected outputs come from the real code: the outcome and rule from a
 * registry over the source pack loaded with `loadSourcePack("rules")`, and
 * the reduced bytes and counts from `createStreamReducer` finished with the
 * fixture's exit code and recovery `{kind: "none"}`. The script then checks
 * each case's purpose (a `success` case really changed, a `short-exact`
 * case really did not, …) and refuses to write a fixture that misses it.
 *
 * Regenerated expected outputs are a behaviour change: review the diff
 * before committing (docs/fixtures.md).
 *
 * Usage: deno run -A scripts/make_fixtures.ts [--only PREFIX]… [--check] [--rejudge]
 *   --only PREFIX  build only fixtures whose rule id starts with PREFIX
 *   --check        write nothing; report fixtures that would change
 *   --keep-temp    keep the temporary directory and print its path
 *   --out DIR      write the fixtures under DIR instead of fixtures/ (to diff a run)
 *   --rejudge      run no tool: recompute expected outputs from each fixture's recorded input
 *
 * Layout: this file is the entry point and the table of families; the
 * shared core (workspace, normalizers, `Sample`/`Draft`/`Family`, judging,
 * writing and checking) is `scripts/fixtures/_core.ts`, the project tree
 * that search, list and pipeline cases share is `scripts/fixtures/_project.ts`,
 * the Go modules, module proxy and go runner of the go families are
 * `scripts/fixtures/_go.ts`, and each family of rules has its own module
 * under `scripts/fixtures/` exporting `families`. A new family is a new
 * module plus one line below.
 */
import { families as git } from "./fixtures/git.ts";
import { families as search } from "./fixtures/search.ts";
import { families as pipeline } from "./fixtures/pipeline.ts";
import { families as list } from "./fixtures/list.ts";
import { families as build } from "./fixtures/build.ts";
import { families as typescript } from "./fixtures/typescript.ts";
import { families as packageScripts } from "./fixtures/package_scripts.ts";
import { families as tests } from "./fixtures/tests.ts";
import { families as packages } from "./fixtures/package.ts";
import { families as jvm } from "./fixtures/jvm.ts";
import { families as maven } from "./fixtures/maven.ts";
import { families as native } from "./fixtures/native.ts";
import { families as cmake } from "./fixtures/cmake.ts";
import { families as ecosystems } from "./fixtures/ecosystems.ts";
import { families as managers } from "./fixtures/managers.ts";
import { families as python } from "./fixtures/python.ts";
import { families as containers } from "./fixtures/containers.ts";
import { families as gh } from "./fixtures/gh.ts";
import { families as exact } from "./fixtures/guards.ts";
import { families as gitMore } from "./fixtures/git_more.ts";
import { families as archives } from "./fixtures/archives.ts";
import { families as listing } from "./fixtures/listing.ts";
import { type Family, main } from "./fixtures/_core.ts";

/** Every family, module by module: each fixture family lives in `scripts/fixtures/<family>.ts`. */
const FAMILIES: readonly Family[] = [
  ...git,
  ...search,
  ...pipeline,
  ...list,
  ...build,
  ...typescript,
  ...packageScripts,
  ...tests,
  ...packages,
  ...jvm,
  ...maven,
  ...native,
  ...cmake,
  ...ecosystems,
  ...managers,
  ...python,
  ...containers,
  ...gh,
  ...exact,
  ...gitMore,
  ...archives,
  ...listing,
];

if (import.meta.main) Deno.exit(await main(FAMILIES, Deno.args));
