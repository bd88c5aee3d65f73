/**
 * The host truncation notices a visible result holds, as the corpus
 * measure counts them ("notices kept"): the text of each notice that may
 * sit anywhere in a line (`hostNoticeSpans`: `....stripped due to
 * length....` at the end of a long line counts, and is kept when its text
 * is), and every other notice line (evidence `HostNotice`) whole.
 *
 * The generic phrases `output truncated`, `output was truncated` and
 * `Output too large` are also ordinary English in source code and logs
 * (`[mocha] output truncated to ${maxLen} characters` in a grep row), so
 * they count only in a host's shape: leading their line, after nothing but
 * white space and brackets, dots, ellipses, dashes or stars
 * (`[... output truncated ...]`, `Output too large (52 KB). Full output
 * saved to: …`).
 *
 * @module
 */
import { classifyText, Evidence, hostNoticeSpans } from "../reduce/evidence.ts";

const decoder = new TextDecoder();
/** A notice span that is one of the generic phrases, dots and spaces aside. */
const GENERIC = /^[.\s\u2026]*(?:output (?:was )?truncated|output too large)[.\s\u2026]*$/i;
/** What may come before a generic phrase on its line for it to be a host's notice. */
const NOTICE_LEAD = /^[\s[\](){}.\u2026*_#>-]*$/;

/**
 * The host notices of `bytes` (see the module comment), in order; a line
 * starting `[yarp: ` is YARP's own marker, never a host's.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { hostNotices } from "./host_notices.ts";
 * const e = new TextEncoder();
 * deepEqual(hostNotices(e.encode("[... output truncated ...]\n")), ["output truncated"]);
 * deepEqual(hostNotices(e.encode('src/a.js:9:  msg = "output truncated";\n')), []);
 * ```
 */
export function hostNotices(bytes: Uint8Array): string[] {
  const notices: string[] = [];
  for (let at = 0; at < bytes.length;) {
    const lf = bytes.indexOf(10, at);
    const end = lf === -1 ? bytes.length : lf;
    const spans = hostNoticeSpans(bytes, at, end);
    for (let s = 0; s < spans.length; s += 2) {
      const text = decoder.decode(bytes.subarray(spans[s], spans[s + 1]));
      const lead = decoder.decode(bytes.subarray(at, spans[s]));
      if (!GENERIC.test(text) || NOTICE_LEAD.test(lead)) notices.push(text);
    }
    const line = decoder.decode(bytes.subarray(at, end));
    if (
      spans.length === 0 && (classifyText(line) & Evidence.HostNotice) !== 0 &&
      !line.startsWith("[yarp: ")
    ) notices.push(line);
    at = end + 1;
  }
  return notices;
}
