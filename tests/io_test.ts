/** Reading a whole stream, bounded or not; writing text to a reader that may leave. */
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { type ByteReader, readAllBytes, requestLines, textChannel } from "../lib/cli/io.ts";
import { ROOT, spawn, withTempDir } from "./_process.ts";

/** A reader that hands out `chunks` in order, each over as many reads as the buffer needs. */
function readerOf(...chunks: (number[] | Uint8Array)[]): ByteReader {
  const queue = chunks.map((chunk) => Uint8Array.from(chunk));
  return {
    read(buffer) {
      const next = queue[0];
      if (next === undefined) return Promise.resolve(null);
      const got = Math.min(next.length, buffer.length);
      buffer.set(next.subarray(0, got));
      if (got === next.length) queue.shift();
      else queue[0] = next.subarray(got);
      return Promise.resolve(got);
    },
  };
}

Deno.test("readAllBytes joins every chunk in order", async () => {
  assert.deepEqual(await readAllBytes(readerOf([1, 2], [], [3])), new Uint8Array([1, 2, 3]));
  assert.deepEqual(await readAllBytes(readerOf()), new Uint8Array());
});

Deno.test("readAllBytes gives undefined once more than the limit arrives", async () => {
  assert.deepEqual(await readAllBytes(readerOf([1, 2], [3]), 3), new Uint8Array([1, 2, 3]));
  assert.equal(await readAllBytes(readerOf([1, 2], [3, 4]), 3), undefined);
});

Deno.test("readAllBytes returns exactly the bytes read, however they are split", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.uint8Array({ maxLength: 200_000 }), { maxLength: 6 }),
      async (chunks) => {
        const expected = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
        let at = 0;
        for (const chunk of chunks) {
          expected.set(chunk, at);
          at += chunk.length;
        }
        assert.deepEqual(await readAllBytes(readerOf(...chunks)), expected);
        assert.deepEqual(await readAllBytes(readerOf(...chunks), expected.length), expected);
        if (expected.length > 0) {
          assert.equal(await readAllBytes(readerOf(...chunks), expected.length - 1), undefined);
        }
      },
    ),
    { numRuns: 40 },
  );
});

/** Every line `requestLines` yields for `bytes` split at `cuts`. */
async function linesOf(bytes: Uint8Array, cuts: number[], maxBytes: number) {
  const bounds = [0, ...cuts.map((cut) => cut % (bytes.length + 1)).sort((a, b) => a - b)];
  const chunks = bounds.map((start, index) =>
    bytes.slice(start, bounds[index + 1] ?? bytes.length)
  );
  const lines: (string | undefined)[] = [];
  for await (const line of requestLines(ReadableStream.from(chunks), maxBytes)) lines.push(line);
  return lines;
}

Deno.test("property: requestLines gives the lines however the stream is split, and stops at one too long", async () => {
  const encoder = new TextEncoder();
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.string({ unit: "grapheme", maxLength: 20 }).map((line) => line.replaceAll("\n", "")),
        {
          maxLength: 8,
        },
      ),
      fc.boolean(),
      fc.array(fc.nat(), { maxLength: 10 }),
      fc.integer({ min: 1, max: 40 }),
      async (lines, lastEnds, cuts, maxBytes) => {
        const text = lines.join("\n") + (lastEnds && lines.length > 0 ? "\n" : "");
        const got = await linesOf(encoder.encode(text), cuts, maxBytes);
        const expected: (string | undefined)[] = [];
        // A last line counts without its "\n", but an empty one after the last "\n" is no line.
        const whole = text.split("\n");
        if (whole.at(-1) === "") whole.pop();
        for (const line of whole) {
          if (encoder.encode(line).length > maxBytes) {
            expected.push(undefined);
            break;
          }
          expected.push(line);
        }
        assert.deepEqual(got, expected);
      },
    ),
  );
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
  await withTempDir(async (state) => {
    const env = { XDG_STATE_HOME: state };
    const lines = Array.from({ length: 50_000 }, (_, i) => `${i}\n`).join("");
    const put = await spawn(Deno.execPath(), {
      args: ["run", "--quiet", "-A", join(ROOT, "main.ts"), "archive", "put", "--command", "seq"],
      env,
      input: lines,
      stderr: "inherit",
    });
    const id = new TextDecoder().decode(put.stdout).trim();
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
  });
});
