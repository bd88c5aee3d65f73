/**
 * Specification of the shell status convention (`lib/run/child_status.ts`)
 * and of spawn-failure reporting (`lib/run/spawn_error.ts`).
 */
import assert from "node:assert/strict";
import { shellExitStatus, signalNumber } from "../lib/run/child_status.ts";
import { describeSpawnFailure } from "../lib/run/spawn_error.ts";

Deno.test("a normal exit keeps its exact code, 0 to 255", () => {
  for (let code = 0; code <= 255; code += 1) {
    assert.deepEqual(shellExitStatus({ success: code === 0, code, signal: null }, "linux"), {
      status: code,
      signal: null,
    });
  }
});

Deno.test("death by signal n reports 128 + n and the signal name", () => {
  const table: [Deno.Signal, typeof Deno.build.os, number][] = [
    ["SIGHUP", "linux", 129],
    ["SIGINT", "linux", 130],
    ["SIGKILL", "linux", 137],
    ["SIGSEGV", "linux", 139],
    ["SIGPIPE", "linux", 141],
    ["SIGTERM", "linux", 143],
    ["SIGUSR1", "linux", 138],
    ["SIGSYS", "linux", 159],
    ["SIGTERM", "darwin", 143],
    ["SIGUSR1", "darwin", 158],
    ["SIGBUS", "darwin", 138],
    ["SIGINFO", "freebsd", 157],
  ];
  for (const [signal, os, status] of table) {
    // Deno's own `code` is deliberately wrong here: the table decides.
    assert.deepEqual(shellExitStatus({ success: false, code: 1, signal }, os), { status, signal });
  }
});

Deno.test("a signal unknown on this system keeps the code Deno reported", () => {
  assert.equal(signalNumber("SIGINFO", "linux"), undefined);
  assert.deepEqual(shellExitStatus({ success: false, code: 157, signal: "SIGINFO" }, "linux"), {
    status: 157,
    signal: "SIGINFO",
  });
});

Deno.test("the table agrees with the running system for signals Deno reports", async () => {
  if (Deno.build.os === "windows") return;
  for (const signal of ["SIGTERM", "SIGKILL", "SIGUSR1", "SIGINT"] as const) {
    const child = new Deno.Command("sleep", { args: ["30"] }).spawn();
    child.kill(signal);
    const status = await child.status;
    assert.deepEqual(shellExitStatus(status), { status: status.code, signal });
  }
});

Deno.test("spawn failures map to the shell's 127 and 126", () => {
  const table: [string, unknown, number, string][] = [
    ["nosuch", new Deno.errors.NotFound("x"), 127, "yarp: nosuch: command not found\n"],
    ["./nosuch", new Deno.errors.NotFound("x"), 127, "yarp: ./nosuch: No such file or directory\n"],
    ["", new Deno.errors.NotFound("x"), 127, "yarp: : command not found\n"],
    ["./f", new Deno.errors.PermissionDenied("x"), 126, "yarp: ./f: Permission denied\n"],
    ["/tmp", new Deno.errors.IsADirectory("x"), 126, "yarp: /tmp: Is a directory\n"],
    [
      "./bin",
      new Error("Failed to spawn '/t/bin': Exec format error (os error 8)"),
      126,
      "yarp: ./bin: cannot execute: Exec format error\n",
    ],
    ["x", "weird\nsecond line", 126, "yarp: x: cannot execute: weird\n"],
  ];
  for (const [program, error, status, message] of table) {
    assert.deepEqual(describeSpawnFailure(program, error), { status, message });
  }
});

Deno.test("real spawn failures are classified as bash classifies them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/plain.sh`, "#!/bin/sh\necho hi\n");
    await Deno.mkdir(`${dir}/adir`);
    const cases: [string, number][] = [
      ["yarp-no-such-program-xyz", 127],
      [`${dir}/missing`, 127],
      [`${dir}/plain.sh`, 126],
      [`${dir}/adir`, 126],
    ];
    for (const [program, status] of cases) {
      let thrown: unknown;
      try {
        new Deno.Command(program).spawn();
      } catch (error) {
        thrown = error;
      }
      assert.notEqual(thrown, undefined, program);
      assert.equal(describeSpawnFailure(program, thrown).status, status, program);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
