/** Reading a whole stream, bounded or not; writing text to a reader that may leave. */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { readAllBytes, textChannel } from "../lib/cli/io.ts";

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..");

function streamOf(...chunks: number[][]): ReadableStream<Uint8Array> {
  return ReadableStream.from(chunks.map((chunk) => new Uint8Array(chunk)));
}

Deno.test("readAllBytes joins every chunk in order", async () => {
  assert.deepEqual(await readAllBytes(streamOf([1, 2], [], [3])), new Uint8Array([1, 2, 3]));
  assert.deepEqual(await readAllBytes(streamOf()), new Uint8Array());
});

Deno.test("readAllBytes gives undefined once more than the limit arrives", async () => {
  assert.deepEqual(await readAllBytes(streamOf([1, 2], [3]), 3), new Uint8Array([1, 2, 3]));
  assert.equal(await readAllBytes(streamOf([1, 2], [3, 4]), 3), undefined);
});

Deno.test("textChannel writes every byte, in as many writes as the file takes", () => {
  const written: number[] = [];
  const write = textChannel({
    writeSync: (bytes) => {
      const n = Math.min(2, bytes.length);
      written.push(...bytes.subarray(0, n));
      return n;
    },
  });
  write("héllo");
  write("");
  assert.equal(new TextDecoder().decode(new Uint8Array(written)), "héllo");
});

Deno.test("textChannel goes quiet once the reader is gone and throws any other error", () => {
  let calls = 0;
  const gone = textChannel({
    writeSync: () => {
      calls++;
      throw new Deno.errors.BrokenPipe("Broken pipe (os error 32)");
    },
  });
  gone("first");
  gone("second");
  assert.equal(calls, 1);
  const full = textChannel({
    writeSync: () => {
      throw new Error("No space left on device (os error 28)");
    },
  });
  assert.throws(() => full("x"), /No space left/);
});

/** Runs `yarp ARGS` with `input` on stdin and a reader that leaves before the first byte. */
async function runWithReaderGone(args: string[], env: Record<string, string>, input = "") {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      join(ROOT, "main.ts"),
      ...args,
    ],
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await child.stdout.cancel();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
  return { code: status.code, stderr };
}

Deno.test("a command whose reader left exits as it would have, with nothing on stderr", async () => {
  const state = await Deno.makeTempDir();
  try {
    const env = { XDG_STATE_HOME: state };
    const lines = Array.from({ length: 50_000 }, (_, i) => `${i}\n`).join("");
    const put = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "-A", join(ROOT, "main.ts"), "archive", "put", "--command", "seq"],
      env,
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const writer = put.stdin.getWriter();
    await writer.write(new TextEncoder().encode(lines));
    await writer.close();
    const id = new TextDecoder().decode((await put.output()).stdout).trim();
    assert.match(id, /^[0-9a-f]{8}$/);
    const cases: [string[], string][] = [
      [["rules", "list"], ""],
      [["--help"], ""],
      [["rules", "explain", "--json", "--", "ls"], ""],
      [["read", id], ""],
      [["read", id, "--json"], ""],
      [["result-reduce", "--command", "seq 1 50000"], lines],
    ];
    for (const [args, input] of cases) {
      const { code, stderr } = await runWithReaderGone(args, env, input);
      assert.equal(stderr, "", args.join(" "));
      assert.equal(code, 0, args.join(" "));
    }
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});
