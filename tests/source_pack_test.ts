import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { loadSourcePack, MANIFEST_MAX_BYTES } from "../lib/rules/source_pack.ts";
import { sourceDigest } from "../lib/rules/source_digest.ts";
import { withTempDir } from "./_process.ts";

const encoder = new TextEncoder();

function guardRule(id: string, program = "git"): string {
  return JSON.stringify({ id, match: { program: [program] }, action: "passthrough" });
}

function manifest(rules: string[], id = "example-rules"): string {
  return JSON.stringify({ schema_version: 1, id, rules });
}

/** Writes `files` (path → text or bytes) into a fresh temporary directory. */
async function makePack(files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "yarp-pack-" });
  for (const [path, content] of Object.entries(files)) {
    const full = `${dir}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeFile(full, typeof content === "string" ? encoder.encode(content) : content);
  }
  return dir;
}

async function withPack(
  files: Record<string, string | Uint8Array>,
  body: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await makePack(files);
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function problems(dir: string): Promise<string[]> {
  const result = await loadSourcePack(dir);
  assert.ok(!result.ok, "expected the pack to be rejected");
  return result.diagnostics.map((d) => `${d.file} ${d.pointer} ${d.code}`);
}

Deno.test("minimal valid pack", async () => {
  const rule =
    `{"id": "tests/example-test", "match": {"program": ["example-test"]}, "action": "passthrough"}\n`;
  const pack = manifest(["rules/tests/example-test.json"]);
  await withPack({ "pack.json": pack, "rules/tests/example-test.json": rule }, async (dir) => {
    const result = await loadSourcePack(dir);
    assert.ok(result.ok);
    assert.equal(result.pack.id, "example-rules");
    assert.deepEqual(result.pack.rules.map((r) => r.id), ["tests/example-test"]);
    assert.deepEqual(result.warnings, []);
    assert.deepEqual(result.manifestBytes, encoder.encode(pack));
    assert.deepEqual(result.files, [{
      path: "rules/tests/example-test.json",
      bytes: encoder.encode(rule),
    }]);
    assert.equal(
      result.pack.sourceDigest,
      sourceDigest(encoder.encode(pack), [{
        path: "rules/tests/example-test.json",
        bytes: encoder.encode(rule),
      }]),
    );
  });
});

Deno.test("files not listed in the manifest are ignored", async () => {
  await withPack({
    "pack.json": manifest(["a.json"]),
    "a.json": guardRule("a"),
    "b.json": "not json",
    "rules/c.json": guardRule("a"),
  }, async (dir) => {
    const result = await loadSourcePack(dir);
    assert.ok(result.ok);
    assert.deepEqual(result.pack.rules.map((r) => r.id), ["a"]);
  });
});

Deno.test("rules keep manifest order and warnings are collected", async () => {
  const reduce = JSON.stringify({
    id: "z/reduce",
    match: { program: ["z"] },
    action: "reduce",
    reducer: { kind: "head_tail" },
    success: {
      head_lines: 5,
      tail_lines: 5,
      max_line_bytes: 256,
      max_output_bytes: 2048,
      min_savings_bytes: 0,
    },
    failure: {
      head_lines: 4,
      tail_lines: 5,
      max_line_bytes: 256,
      max_output_bytes: 2048,
      min_savings_bytes: 0,
    },
  });
  await withPack({
    "pack.json": manifest(["z.json", "a.json"]),
    "z.json": reduce,
    "a.json": guardRule("a"),
  }, async (dir) => {
    const result = await loadSourcePack(dir);
    assert.ok(result.ok);
    assert.deepEqual(result.pack.rules.map((r) => r.id), ["z/reduce", "a"]);
    assert.deepEqual(result.files.map((f) => f.path), ["z.json", "a.json"]);
    assert.deepEqual(result.warnings.map((w) => `${w.file} ${w.pointer} ${w.code}`), [
      "z.json /failure/head_lines failure-below-success",
    ]);
  });
});

Deno.test("maximum counts and lengths: 10,000 rules with 128-byte ids, files of exactly 64 KiB", async () => {
  const files: Record<string, string> = {};
  const paths: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const path = `r/${i % 100}/${i}.json`;
    paths.push(path);
    files[path] = guardRule(`r${i}-`.padEnd(128, "x"), `p${i}`);
  }
  const padded = guardRule("padded");
  files["r/padded.json"] = padded + " ".repeat(64 * 1024 - padded.length);
  paths[9_999] = "r/padded.json";
  files["pack.json"] = manifest(paths, "p".repeat(128));
  await withPack(files, async (dir) => {
    const result = await loadSourcePack(dir);
    assert.ok(result.ok, result.ok ? "" : JSON.stringify(result.diagnostics.slice(0, 3)));
    assert.equal(result.pack.rules.length, 10_000);
    assert.equal(result.files[9_999].bytes.length, 64 * 1024);
  });
});

Deno.test("oversized and empty files", async () => {
  const big = guardRule("a") + " ".repeat(64 * 1024);
  await withPack(
    { "pack.json": manifest(["a.json", "b.json"]), "a.json": big, "b.json": "" },
    async (dir) => {
      assert.deepEqual(await problems(dir), ["a.json  file-too-large", "b.json  empty-file"]);
    },
  );
  await withPack({ "pack.json": "" }, async (dir) => {
    assert.deepEqual(await problems(dir), ["pack.json  empty-file"]);
  });
  // The manifest may exceed 64 KiB (it must be able to list 10,000 paths) but not 1 MiB.
  const manifestOf = (size: number) => {
    const text = manifest(["a.json"]);
    return text + " ".repeat(size - text.length);
  };
  await withPack(
    { "pack.json": manifestOf(MANIFEST_MAX_BYTES), "a.json": guardRule("a") },
    async (dir) => {
      assert.ok((await loadSourcePack(dir)).ok);
    },
  );
  await withPack({ "pack.json": manifestOf(MANIFEST_MAX_BYTES + 1) }, async (dir) => {
    assert.deepEqual(await problems(dir), ["pack.json  file-too-large"]);
  });
});

Deno.test("combined source bytes above 32 MiB: pack-too-large, later files unread", async () => {
  const files: Record<string, string> = {};
  const paths: string[] = [];
  const body = (id: string) => {
    const text = guardRule(id);
    return text + " ".repeat(64 * 1024 - text.length);
  };
  for (let i = 0; i < 513; i++) {
    paths.push(`r${i}.json`);
    files[`r${i}.json`] = body(`r${i}`);
  }
  paths.push("missing.json");
  files["pack.json"] = manifest(paths);
  await withPack(files, async (dir) => {
    const result = await loadSourcePack(dir);
    assert.ok(!result.ok);
    // 512 files of 64 KiB fill 32 MiB exactly; with the manifest the 512th no longer fits.
    assert.deepEqual(result.diagnostics.map((d) => `${d.file} ${d.pointer} ${d.code}`), [
      "pack.json /rules/511 pack-too-large",
    ]);
  });
});

Deno.test("invalid JSON and duplicate keys in the manifest and in rule files", async () => {
  await withPack({ "pack.json": '{"schema_version": 1,' }, async (dir) => {
    assert.deepEqual(await problems(dir), ["pack.json  invalid-json"]);
  });
  await withPack({
    "pack.json": '{"schema_version": 1, "id": "a", "id": "b", "rules": ["a.json"]}',
  }, async (dir) => {
    assert.deepEqual(await problems(dir), ["pack.json /id duplicate-key"]);
  });
  await withPack({
    "pack.json": manifest(["a.json", "b.json", "c.json"]),
    "a.json": "{",
    "b.json": '{"id": "b", "match": {"program": ["b"], "program": ["b"]}, "action": "passthrough"}',
    "c.json": new Uint8Array([0x7b, 0xff, 0x7d]),
  }, async (dir) => {
    const result = await loadSourcePack(dir);
    assert.ok(!result.ok);
    assert.deepEqual(
      result.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.pointer} ${d.code}`),
      [
        "a.json:1:1  invalid-json",
        "b.json:1:41 /match/program duplicate-key",
        "c.json:1:1  invalid-utf8",
      ],
    );
  });
});

Deno.test("unknown fields at every depth are reported in the file and pointer where they occur", async () => {
  const rule = {
    id: "a",
    x0: 1,
    match: { program: ["a"], x1: 1 },
    action: "reduce",
    reducer: { kind: "line_filter", x2: 1, drop: [{ kind: "exact", value: "v", x3: 1 }] },
    success: {
      head_lines: 1,
      tail_lines: 1,
      max_line_bytes: 256,
      max_output_bytes: 1024,
      min_savings_bytes: 0,
      x4: 1,
    },
    failure: {
      head_lines: 1,
      tail_lines: 1,
      max_line_bytes: 256,
      max_output_bytes: 1024,
      min_savings_bytes: 0,
    },
  };
  await withPack(
    { "pack.json": manifest(["a.json"]), "a.json": JSON.stringify(rule) },
    async (dir) => {
      assert.deepEqual((await problems(dir)).sort(), [
        "a.json /match/x1 unknown-field",
        "a.json /reducer/drop/0/x3 unknown-field",
        "a.json /reducer/x2 unknown-field",
        "a.json /success/x4 unknown-field",
        "a.json /x0 unknown-field",
      ]);
    },
  );
  await withPack({
    "pack.json": JSON.stringify({ schema_version: 1, id: "a", rules: ["a.json"], extends: "b" }),
  }, async (dir) => {
    assert.deepEqual(await problems(dir), ["pack.json /extends unknown-field"]);
  });
});

Deno.test("unsupported schema versions", async () => {
  for (const version of ["0", "2", "-1", "1.5", "1.0", '"1"']) {
    const text = `{"schema_version": ${version}, "id": "a", "rules": ["a.json"]}`;
    await withPack({ "pack.json": text, "a.json": guardRule("a") }, async (dir) => {
      assert.deepEqual(await problems(dir), ["pack.json /schema_version invalid-version"], version);
    });
  }
});

Deno.test("duplicate rule ids across files name both files", async () => {
  await withPack({
    "pack.json": manifest(["a.json", "b/b.json"]),
    "a.json": guardRule("same"),
    "b/b.json": `{\n  "id": "same", "match": {"program": ["x"]}, "action": "passthrough"}`,
  }, async (dir) => {
    const result = await loadSourcePack(dir);
    assert.ok(!result.ok);
    assert.equal(result.diagnostics.length, 1);
    const [d] = result.diagnostics;
    assert.deepEqual([d.code, d.file, d.pointer, d.line, d.column], [
      "duplicate-rule-id",
      "b/b.json",
      "/id",
      2,
      9,
    ]);
    assert.match(d.message, /"same".*a\.json/);
  });
});

Deno.test("missing, directory and repeated paths", async () => {
  await withPack({
    "pack.json": manifest(["missing.json", "nodir/a.json", "dir.json", "file.json/a.json"]),
    "dir.json/x": "",
    "file.json": guardRule("f"),
  }, async (dir) => {
    assert.deepEqual(await problems(dir), [
      "pack.json /rules/0 missing-file",
      "pack.json /rules/1 missing-file",
      "pack.json /rules/2 not-a-file",
      "pack.json /rules/3 not-a-file",
    ]);
  });
  await withPack(
    { "pack.json": manifest(["a.json", "a.json"]), "a.json": guardRule("a") },
    async (dir) => {
      assert.deepEqual(await problems(dir), ["pack.json /rules/1 duplicate-path"]);
    },
  );
  await withPack({ "a.json": guardRule("a") }, async (dir) => {
    assert.deepEqual(await problems(dir), ["pack.json  missing-file"]);
  });
  assert.deepEqual(await problems("/nonexistent/yarp-pack"), ["pack.json  missing-file"]);
});

Deno.test("escaping and absolute path strings are rejected before any file access", async () => {
  await withTempDir(async (outside) => {
    await Deno.writeTextFile(`${outside}/a.json`, guardRule("a"));
    await withPack({
      "pack.json": manifest([
        `${outside}/a.json`,
        "../a.json",
        `sub/../../${outside.split("/").pop()}/a.json`,
      ]),
    }, async (dir) => {
      assert.deepEqual(await problems(dir), [
        "pack.json /rules/0 invalid-path",
        "pack.json /rules/1 invalid-path",
        "pack.json /rules/2 invalid-path",
      ]);
    });
  });
});

Deno.test("symlinked files and symlinked directory segments are rejected", async () => {
  await withTempDir(async (outside) => {
    await Deno.writeTextFile(`${outside}/a.json`, guardRule("a"));
    await withPack({
      "pack.json": manifest([
        "link.json",
        "inside-link.json",
        "linkdir/a.json",
        "real/linkdir/a.json",
      ]),
      "real/a.json": guardRule("r"),
    }, async (dir) => {
      await Deno.symlink(`${outside}/a.json`, `${dir}/link.json`);
      await Deno.symlink(`${dir}/real/a.json`, `${dir}/inside-link.json`);
      await Deno.symlink(outside, `${dir}/linkdir`);
      await Deno.symlink(`${dir}/real`, `${dir}/real/linkdir`);
      assert.deepEqual(await problems(dir), [
        "pack.json /rules/0 path-is-symlink",
        "pack.json /rules/1 path-is-symlink",
        "pack.json /rules/2 path-is-symlink",
        "pack.json /rules/3 path-is-symlink",
      ]);
    });
    await withPack({ "real.json": manifest(["a.json"]), "a.json": guardRule("a") }, async (dir) => {
      await Deno.symlink(`${dir}/real.json`, `${dir}/pack.json`);
      assert.deepEqual(await problems(dir), ["pack.json  path-is-symlink"]);
    });
  });
});

Deno.test("the pack directory itself may be reached through a symlink", async () => {
  await withPack({ "pack.json": manifest(["a.json"]), "a.json": guardRule("a") }, async (dir) => {
    const link = `${dir}-link`;
    await Deno.symlink(dir, link);
    try {
      const result = await loadSourcePack(link);
      assert.ok(result.ok);
    } finally {
      await Deno.remove(link);
    }
  });
});

Deno.test("source digest: deterministic, and changes with path order, whitespace or content", async () => {
  const files = { "a.json": guardRule("a"), "b.json": guardRule("b") };
  const digestOf = async (pack: Record<string, string>) => {
    const dir = await makePack(pack);
    try {
      const result = await loadSourcePack(dir);
      assert.ok(result.ok);
      return result.pack.sourceDigest;
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  };
  const base = await digestOf({ ...files, "pack.json": manifest(["a.json", "b.json"]) });
  assert.match(base, /^[0-9a-f]{64}$/);
  assert.equal(await digestOf({ ...files, "pack.json": manifest(["a.json", "b.json"]) }), base);
  assert.notEqual(await digestOf({ ...files, "pack.json": manifest(["b.json", "a.json"]) }), base);
  assert.notEqual(
    await digestOf({ ...files, "pack.json": manifest(["a.json", "b.json"]) + "\n" }),
    base,
  );
  assert.notEqual(
    await digestOf({
      ...files,
      "b.json": guardRule("b") + " ",
      "pack.json": manifest(["a.json", "b.json"]),
    }),
    base,
  );
});

Deno.test("source digest: the documented byte sequence", () => {
  const u64 = (n: number) => {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(n), true);
    return bytes;
  };
  const manifestBytes = encoder.encode("{}");
  const files = [{ path: "é.json", bytes: encoder.encode("xy") }];
  const expected = createHash("sha256")
    .update(encoder.encode("yarp-source-pack-v1\0"))
    .update(u64(2)).update(manifestBytes)
    .update(u64(7)).update(encoder.encode("é.json"))
    .update(u64(2)).update(encoder.encode("xy"))
    .digest("hex");
  assert.equal(sourceDigest(manifestBytes, files), expected);
  // Length prefixes separate fields: moving a byte between path and content changes the digest.
  const shifted = [{ path: "é.jsonx", bytes: encoder.encode("y") }];
  assert.notEqual(sourceDigest(manifestBytes, shifted), expected);
  assert.notEqual(sourceDigest(encoder.encode("{} "), files), expected);
  assert.equal(
    sourceDigest(new Uint8Array(), []),
    createHash("sha256").update(encoder.encode("yarp-source-pack-v1\0")).update(u64(0)).digest(
      "hex",
    ),
  );
});
