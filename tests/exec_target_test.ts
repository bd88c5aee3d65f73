/** Program lookup as a shell does it, and the env trampoline that keeps argv[0] exact. */
import assert from "node:assert/strict";
import { findEnv, lookupProgram, spawnTarget, type StatFile } from "../lib/run/exec_target.ts";

/** A fake file system: path → mode (regular files) or "dir". */
function fakeStat(files: Record<string, number | "dir">): StatFile {
  return (path) => {
    const entry = files[path];
    if (entry === undefined) return undefined;
    return entry === "dir"
      ? { isFile: false, isDirectory: true, mode: 0o755 }
      : { isFile: true, isDirectory: false, mode: entry };
  };
}

Deno.test("lookup follows PATH order and skips non-executable matches and directories", () => {
  const stat = fakeStat({
    "/a/tool": 0o644,
    "/b/tool": 0o755,
    "/c/tool": 0o755,
    "/a/dir": "dir",
    "/b/dir": 0o755,
  });
  assert.deepEqual(lookupProgram("tool", "/a:/b:/c", stat), { kind: "found", path: "/b/tool" });
  assert.deepEqual(lookupProgram("tool", "/a", stat), { kind: "not-executable", path: "/a/tool" });
  // bash passes over a directory on PATH: the name is then not found, or found further on.
  assert.deepEqual(lookupProgram("dir", "/a", stat), { kind: "missing" });
  assert.deepEqual(lookupProgram("dir", "/a:/b", stat), { kind: "found", path: "/b/dir" });
  assert.deepEqual(lookupProgram("nope", "/a:/b", stat), { kind: "missing" });
  assert.deepEqual(lookupProgram("", "/a:/b", stat), { kind: "missing" });
});

Deno.test("a name with a slash is used as given; an empty PATH entry is the cwd", () => {
  const stat = fakeStat({ "./run.sh": 0o700, "/opt/x": 0o600, "tool": 0o755, "/opt": "dir" });
  assert.deepEqual(lookupProgram("./run.sh", "/a", stat), { kind: "found", path: "./run.sh" });
  assert.deepEqual(lookupProgram("/opt/x", "/a", stat), { kind: "not-executable", path: "/opt/x" });
  assert.deepEqual(lookupProgram("/opt", "/a", stat), { kind: "directory", path: "/opt" });
  assert.deepEqual(lookupProgram("tool", "/a::/b", stat), { kind: "found", path: "tool" });
});

Deno.test("the spawn target wraps argv in env --, except where env cannot keep it exact", () => {
  assert.deepEqual(spawnTarget(["ls", "-l", "x"], "/usr/bin/env"), {
    program: "/usr/bin/env",
    args: ["--", "ls", "-l", "x"],
  });
  assert.deepEqual(spawnTarget(["-weird", "a"], "/usr/bin/env"), {
    program: "/usr/bin/env",
    args: ["--", "-weird", "a"],
  });
  assert.deepEqual(spawnTarget(["a=b", "x"], "/usr/bin/env"), { program: "a=b", args: ["x"] });
  assert.deepEqual(spawnTarget(["ls"], undefined), { program: "ls", args: [] });
});

Deno.test("env is taken from /usr/bin/env when executable, else looked up on PATH", () => {
  const looked: string[] = [];
  const recording = (files: Record<string, number | "dir">): StatFile => {
    const stat = fakeStat(files);
    return (path) => {
      looked.push(path);
      return stat(path);
    };
  };
  assert.equal(
    findEnv("/a:/b", recording({ "/usr/bin/env": 0o755, "/a/env": 0o755 })),
    "/usr/bin/env",
  );
  assert.deepEqual(looked, ["/usr/bin/env"]);
  assert.equal(findEnv("/a:/b", recording({ "/usr/bin/env": 0o644, "/b/env": 0o755 })), "/b/env");
  assert.equal(findEnv("/a:/b", recording({ "/usr/bin/env": "dir" })), undefined);
});
