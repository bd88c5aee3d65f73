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
 * The name rules know `argv0` by: a reviewed project wrapper's name
 * (`./mvnw` is `mvnw`), else `argv0` unchanged. Pure.
 */
export function ruleProgramName(argv0: string): string {
  return PROJECT_WRAPPERS.get(argv0) ?? argv0;
}
