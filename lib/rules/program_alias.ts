/**
 * The names rules know programs by, apart from argv normalisation, so the
 * pass-through check of `yarp run` (`builtin_programs.ts`) reads them
 * without loading the option tables.
 *
 * @module
 */

/**
 * Project wrapper scripts named by their conventional relative path: the
 * Maven and Gradle wrappers a repository carries run the build tool with
 * the same arguments, so they select the tool's rules under their own
 * names. Any other argv[0] with a `/` selects nothing.
 */
const PROJECT_WRAPPERS: ReadonlyMap<string, string> = new Map([
  ["./mvnw", "mvnw"],
  ["./gradlew", "gradlew"],
]);

/**
 * Go's versioned wrappers (`go1.26.0`, `go1.22rc1`, as `golang.org/dl`
 * installs them) run that release of the `go` command with the same
 * arguments and print what it prints, so they select `go`'s rules.
 */
const GO_RELEASE_WRAPPER = /^go1\.\d+(?:\.\d+|rc\d+|beta\d+)?$/;

/**
 * The argv[0] forms without a `/` that {@link ruleProgramName} renames: any
 * other such argv[0] is its own rule program name.
 */
export const RENAMED_PROGRAM_FORMS: readonly RegExp[] = [GO_RELEASE_WRAPPER];

/**
 * The name rules know `argv0` by: a reviewed project wrapper's name
 * (`./mvnw` is `mvnw`), `go` for a versioned go wrapper (`go1.26.0`), else
 * `argv0` unchanged. Pure.
 */
export function ruleProgramName(argv0: string): string {
  const wrapper = PROJECT_WRAPPERS.get(argv0);
  if (wrapper !== undefined) return wrapper;
  return GO_RELEASE_WRAPPER.test(argv0) ? "go" : argv0;
}
