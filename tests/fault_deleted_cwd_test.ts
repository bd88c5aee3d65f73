/**
 * Fault suite: `yarp run` in a working directory that was
 * deleted. Deno cannot start there, so the launcher hands the directory over
 * on a descriptor (lib/run/caller_cwd.ts); the runner must then start the
 * child exactly as bash starts it in that directory: same directory (the
 * deleted inode), argv, environment, open descriptors, bytes and exit code,
 * on both the pass-through and the reduced path. A broken hand-over is one
 * `yarp:` line and status 126, never a backtrace.
 *
 * The hand-over is done here by a few lines of bash in front of `main.ts`
 * (the same lines the launcher runs); the last test runs `bin/yarp` itself.
 */
import assert from "node:assert/strict";
import { callerCwd, callerCwdTarget } from "../lib/run/caller_cwd.ts";
import { ROOT, spawn, tempDir, YARP } from "./_process.ts";

const DIR = await tempDir("yarp_fault_cwd_");
const decoder = new TextDecoder();

/** What the launcher does in a deleted directory, then `main.ts ARGS`. */
const HANDOFF = `
exec 9<.
saved_pwd="$PWD" saved_oldpwd="$OLDPWD"
cd /
PWD="$saved_pwd" OLDPWD="$saved_oldpwd"
YARP_CALLER_CWD_FD=9 exec "${Deno.execPath()}" run --quiet --no-prompt --config="${ROOT}/deno.json" \\
  --allow-run --allow-read --allow-write="${DIR}/state" --allow-env \\
  --unstable-raw-imports "${ROOT}/main.ts" "$@"
`;

/** Prints the child's view of itself: cwd, open descriptors, argv, environment; exits 7. */
const PROBE = [
  "/bin/sh",
  "-c",
  [
    "readlink /proc/$$/cwd",
    'ls /proc/$$/fd | sort -n | tr "\\n" " "',
    "echo",
    'printf "%s|" "$0" "$@"',
    "echo",
    "env | grep -v '^_=' | sort",
    "exit 7",
  ].join("; "),
  "argzero",
  "a",
  "b  c",
];

/**
 * The probe's output without its descriptor line (`line`), after checking
 * that the hand-over descriptor 9 is not among them. The line itself is not
 * compared: processes the test runner spawns at the same moment leak
 * descriptors into the bare child at random.
 */
function withoutFds(stdout: string, line: number): string {
  const lines = stdout.split("\n");
  assert.ok(!lines[line].split(" ").includes("9"), `descriptor 9 is open: ${lines[line]}`);
  return lines.filter((_, i) => i !== line).join("\n");
}

let serial = 0;

/** Runs `body ARGS` (bash) inside a fresh directory that it deletes first. */
async function inDeletedDir(body: string, args: readonly string[], env: Record<string, string>) {
  const dir = `${DIR}/gone-${serial++}`;
  await Deno.mkdir(dir);
  const script = `cd "$1" && rmdir "$1" && shift || exit 99\n${body}`;
  const out = await spawn("bash", {
    args: ["-c", script, "bash", dir, ...args],
    env: { PATH: `${DIR}/bin:${Deno.env.get("PATH")}`, MARK: "x y", HOME: DIR, ...env },
    clearEnv: true,
    timeoutMs: 30_000,
  });
  return {
    dir,
    code: out.code,
    stdout: decoder.decode(out.stdout).replaceAll(dir, "DIR"),
    stderr: decoder.decode(out.stderr),
  };
}

const STATE = { XDG_STATE_HOME: `${DIR}/state` };

/** `make` is reduced by a built-in rule: a trampoline named make runs the probe plus filler lines. */
await Deno.mkdir(`${DIR}/bin`);
await Deno.writeTextFile(`${DIR}/bin/make`, '#!/bin/sh\nseq 1 3\nexec "$@"\n', { mode: 0o755 });

Deno.test("deleted cwd: pass-through yarp run starts the child exactly as bash does", async () => {
  const bare = await inDeletedDir('exec "$@"', PROBE, STATE);
  const yarp = await inDeletedDir(HANDOFF, ["run", "--", ...PROBE], STATE);
  assert.equal(bare.code, 7);
  assert.match(bare.stdout, /^DIR \(deleted\)\n/);
  assert.equal(withoutFds(yarp.stdout, 1), withoutFds(bare.stdout, 1));
  assert.equal(yarp.code, 7);
  assert.doesNotMatch(yarp.stderr, /backtrace|panicked|error: could not read/);
  assert.doesNotMatch(yarp.stdout, /YARP_CALLER_CWD_FD/);
});

Deno.test("deleted cwd: a reduced yarp run also starts the child in the deleted directory", async () => {
  const bare = await inDeletedDir('exec "$@"', ["make", ...PROBE], STATE);
  const yarp = await inDeletedDir(HANDOFF, ["run", "--", "make", ...PROBE], STATE);
  assert.equal(bare.code, 7);
  assert.match(bare.stdout, /^1\n2\n3\nDIR \(deleted\)\n/);
  // Short output: the make rule keeps it whole.
  assert.equal(withoutFds(yarp.stdout, 4), withoutFds(bare.stdout, 4));
  assert.equal(yarp.code, 7);
});

Deno.test("deleted cwd: a relative program is looked up in the deleted directory, as bash does", async () => {
  const bare = await inDeletedDir('"$@"; echo "status $?"', ["./tool"], STATE);
  const yarp = await inDeletedDir(HANDOFF, ["run", "--", "./tool"], STATE);
  assert.match(bare.stdout, /status 127/);
  assert.equal(yarp.code, 127, yarp.stderr);
  assert.equal(yarp.stderr.split("\n").filter((line) => line.startsWith("yarp:")).length, 1);
  assert.match(yarp.stderr, /yarp: \.\/tool: No such file or directory\n/);
});

Deno.test("deleted cwd: a broken hand-over is one yarp line and status 126", async () => {
  const broken = HANDOFF.replace("exec 9<.", "").replace(
    "YARP_CALLER_CWD_FD=9",
    "YARP_CALLER_CWD_FD=8",
  );
  const yarp = await inDeletedDir(broken, ["run", "--", "true"], STATE);
  assert.equal(yarp.code, 126);
  assert.equal(
    yarp.stderr.split("\n").filter((line) => line.startsWith("yarp:")).join("\n"),
    "yarp: true: cannot start in the deleted working directory: " +
      "it is not held on descriptor 8",
  );
});

Deno.test("deleted cwd: the hand-over value and the trampoline", () => {
  assert.deepEqual(callerCwd("9", 1), { fd: 9, path: "/proc/1/fd/9" });
  for (const bad of ["", "2", "10", "x", " 9", "-1"]) {
    const parsed = callerCwd(bad, 1);
    assert.ok(parsed !== undefined && "error" in parsed, bad);
  }
  const target = callerCwdTarget(["a=b", "-x"], { fd: 3, path: "/proc/1/fd/3" }, "/bin/env");
  assert.match(target.args[1], /^\[ -d \/proc\/1\/fd\/3 \] && exec "\$@" 3<&-; /);
  assert.deepEqual(target.args.slice(-3), ["--", "a=b", "-x"]);
});

Deno.test({
  name: "deleted cwd: bin/yarp run in a deleted directory starts the child, never a backtrace",
  async fn() {
    const bare = await inDeletedDir('exec "$@"', PROBE, STATE);
    const yarp = await inDeletedDir(`exec "${YARP}" "$@"`, ["run", "--", ...PROBE], STATE);
    assert.doesNotMatch(yarp.stderr, /backtrace/i);
    assert.equal(yarp.code, 7);
    assert.equal(withoutFds(yarp.stdout, 1), withoutFds(bare.stdout, 1));
  },
});

Deno.test("deleted cwd: bin/yarp adds nothing to stderr (no bash 'shell-init' line)", async () => {
  for (const args of [["--version"], ["run", "--", "printenv", "MARK"]]) {
    const yarp = await inDeletedDir(`exec "${YARP}" "$@"`, args, STATE);
    assert.equal(yarp.stderr, "", `${args.join(" ")}: ${yarp.stderr}`);
    assert.equal(yarp.code, 0);
  }
  const bare = await inDeletedDir('exec "$@"', ["/bin/sh", "-c", "exit 3"], STATE);
  const yarp = await inDeletedDir(
    `exec "${YARP}" "$@"`,
    ["run", "--", "/bin/sh", "-c", "exit 3"],
    STATE,
  );
  assert.equal(yarp.stderr, bare.stderr, "only the child's own complaint, if any");
  assert.equal(yarp.code, 3);
});

Deno.test("bin/yarp keeps the caller's PWD (logical, physical or none) and adds no variable", async () => {
  const real = `${DIR}/real-dir`;
  const link = `${DIR}/link-dir`;
  await Deno.mkdir(real);
  await Deno.symlink(real, link);
  const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: DIR, ...STATE };
  const cases: [string, string][] = [
    [`cd "${link}" && exec "$0" run -- env`, link], // the caller's logical PWD
    [`cd "${link}" && PWD=/nowhere exec "$0" run -- env`, real], // a wrong PWD: the physical path
    [`cd "${link}" && unset PWD && exec "$0" run -- env`, real],
  ];
  for (const [script, pwd] of cases) {
    const out = await spawn("bash", { args: ["-c", script, YARP], env, clearEnv: true });
    const text = decoder.decode(out.stdout);
    assert.equal(out.code, 0, decoder.decode(out.stderr ?? new Uint8Array()));
    assert.match(text, new RegExp(`^PWD=${pwd}$`, "m"), script);
    assert.doesNotMatch(text, /YARP_LAUNCHER/, script);
  }
});
