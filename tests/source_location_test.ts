/**
 * Source locations at the start of a line (lib/reduce/source_location.ts):
 * a table of real forms, and a property that the byte reader agrees with the
 * regular expression its contract states.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  isLocatedStackFrame,
  leadsWithLocation,
  LOCATION_WINDOW_BYTES,
} from "../lib/reduce/source_location.ts";

const enc = new TextEncoder();

function leads(text: string): boolean {
  const bytes = enc.encode(text);
  return leadsWithLocation(bytes, 0, bytes.length);
}

function frame(text: string): boolean {
  const bytes = enc.encode(text);
  return isLocatedStackFrame(bytes, 0, bytes.length);
}

Deno.test("lines that lead with a location, and lines that do not", () => {
  const yes = [
    "./cmd/main.go:12:5: undefined: run",
    "internal/a/b.go:3:2: declared and not used: x",
    "/testbed/src/mod_ffi.c:896:13: note: object of size 8",
    "    x_test.go:41: want 2",
    "src/lib.rs:42:9",
    "t.py:1:1: F401 'os' imported but unused",
    '  File "t.py", line 3, in <module>',
    "pkg/@scope/a-b.cc:7: x",
    "..go:3: x",
  ];
  const no = [
    "Compiling foo v1.2.0",
    "Makefile:12: recipe for target 'all' failed",
    "src/a.ts(12,5): error TS2322",
    "C:\\src\\a.cs(3,4): warning CS0168",
    "http://example.com:8080/",
    "a.go: In function 'main':",
    "file.toolongext:3: x",
    "a.c++:7: x",
    ".bashrc:3: x",
    "src/a.9go:3: x",
    'File "t.py" line 3',
    "",
  ];
  for (const line of yes) assert.ok(leads(line), line);
  for (const line of no) assert.ok(!leads(line), line);
});

Deno.test("stack frames that name a location, and frames that do not", () => {
  assert.ok(frame("      at Object.toBe (src/cart.test.js:8:30)"));
  assert.ok(frame("    at src/cart.test.js:8:30"));
  assert.ok(frame("    at run (file:///srv/app/runner.js:77:5)"));
  assert.ok(frame("    at file:///srv/app/runner.js:77:5"));
  assert.ok(!frame("    at new Promise (<anonymous>)"));
  assert.ok(
    !frame("    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)"),
  );
  assert.ok(!frame("src/cart.test.js:8:30"));
});

/** The contract's expression, over the first LOCATION_WINDOW_BYTES bytes (ASCII inputs). */
const CONTRACT =
  /^[ \t]*(?:(?:[\w@.~+\-/]*\/)?[\w@.~+-]+\.[A-Za-z]\w{0,5}:\d|File "[^"]*", line \d)/;

Deno.test("leadsWithLocation agrees with the contract's expression (property)", () => {
  const piece = fc.constantFrom(
    " ",
    "\t",
    "/",
    ".",
    "./",
    ":",
    "12",
    "a",
    "go",
    "x_test",
    "-",
    "@",
    "~",
    "+",
    '"',
    'File "',
    '", line ',
    "(",
    "c",
    "rs",
    "toolong",
    "9",
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
      const line = pieces.join("");
      const window = line.slice(0, LOCATION_WINDOW_BYTES);
      assert.equal(leads(line), CONTRACT.test(window), JSON.stringify(line));
    }),
    { numRuns: 5000 },
  );
});
