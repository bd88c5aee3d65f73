/**
 * `hostNotices` (lib/corpus/host_notices.ts), what the corpus measure's
 * "notices kept" counts: real host notices in every shape, never the
 * generic phrases inside a code or log line.
 */
import { deepEqual } from "node:assert/strict";
import { hostNotices } from "../lib/corpus/host_notices.ts";

const e = new TextEncoder();
const notices = (text: string) => hostNotices(e.encode(text));

Deno.test("a generic phrase inside a grep row or log line is no host notice", () => {
  const rows = [
    "node_modules/mocha/lib/reporters/base.js:221:      result = `${result}\\n      [mocha] output truncated to ${maxLen} characters`;",
    'src/run.ts:40:  throw new Error("output was truncated by the runner");',
    "lib/x.py:3:    # when the output too large for the buffer",
    "2024-01-01 12:00:00 INFO output truncated at 1 MiB",
  ];
  for (const row of rows) deepEqual(notices(row + "\n"), [], row);
});

Deno.test("host notices in their own shapes are counted", () => {
  const long = "x".repeat(8000);
  deepEqual(notices(`${long}....stripped due to length....\n`), ["....stripped due to length...."]);
  deepEqual(notices("a\n... [1,234 lines truncated] ...\nb\n"), [
    "... [1,234 lines truncated] ...",
  ]);
  deepEqual(notices("[... output truncated ...]\n"), ["output truncated"]);
  deepEqual(notices("  (output was truncated)\n"), ["output was truncated"]);
  deepEqual(notices("Output too large (52 KB). Full output saved to: /tmp/o.txt\n"), [
    "Output too large",
  ]);
  deepEqual(notices("[Showing lines 1-10 of 50. Use offset=11 to continue.]\n"), [
    "[Showing lines 1-10 of 50. Use offset=11 to continue.]",
  ]);
  deepEqual(notices("[yarp: kept 3 of 9 lines · exact: yarp read ab12]\n"), []);
});
