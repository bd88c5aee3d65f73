/**
 * What every built-in rule's fixtures must cover, and the reviewed
 * exceptions, shared by the fixture author (`make_fixtures.ts`) and the
 * fixture runner (`tests/fixtures_test.ts`) so the two cannot disagree.
 * Each exception says why it holds.
 *
 * @module
 */

/** The cases every reduction rule has. */
export const REDUCE_CASES = [
  "success",
  "failure",
  "near-miss",
  "short-exact",
  "middle-line",
  "long-line",
  "empty",
  "separate-streams",
  "invalid-utf8",
] as const;

/** Rules whose tool writes to one stream only, so `separate-streams` has one empty stream. */
export const ONE_STREAM_RULES: Readonly<Record<string, string>> = {
  "build/go-build": "go build writes everything (-v lists, compiler errors) to stderr",
  "build/go-vet": "go vet writes its findings to stderr",
  "build/tsc": "tsc writes its diagnostics to stdout and nothing to stderr",
  "list/tree":
    "tree writes its listing and its `[error opening dir]` notes to stdout; only usage errors, which end it before any listing, go to stderr",
};

/**
 * `line_filter` rules whose drop patterns match none of their tool's real
 * noise, so their `middle-line` case loses the line like `head_tail` does.
 */
export const MIDDLE_LINE_LOST: Readonly<Record<string, string>> = {};

/** The cases every transform rule has: one line-preserving sample it selects. */
export const TRANSFORM_CASES = ["transform"] as const;

/** Guards that no broader built-in reduction or transform rule could shadow, and why. */
export const GUARDS_WITHOUT_SHADOW: Readonly<Record<string, string>> = {};

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** One character per byte, so every byte of a line survives into its text. */
const latin1 = new TextDecoder("latin1");

/** True when `bytes` is valid UTF-8. */
export function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The lines of `bytes` without their endings, one character per byte. */
export function textLines(bytes: Uint8Array): string[] {
  const parts = latin1.decode(bytes).split("\n");
  if (parts.at(-1) === "") parts.pop();
  return parts.map((part) => part.endsWith("\r") ? part.slice(0, -1) : part);
}
