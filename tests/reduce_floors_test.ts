/**
 * The floor of facts each typed kind keeps on success (docs/rules.md,
 * "Floors"), on real tool output the test makes: git over a repository of
 * 300 commits it creates, grep, find and ls over files it creates, pytest
 * and make with gcc over projects it writes. Each result is reduced by the
 * built-in rule its argv selects, under the default success budget and
 * under the configurable ones (1 KiB, 2 KiB), and each fact is checked
 * against the tool's own output (`git diff --numstat`, `git rev-parse`, the
 * input's lines), never against a recorded copy.
 */
import assert from "node:assert/strict";
import { createStreamReducer, sourceTerms } from "../lib/reduce/mod.ts";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import type { SuccessBudgets } from "../lib/rules/model.ts";

const registry = createRuleRegistry([builtinRuleSource()]);
const decoder = new TextDecoder();
const BUDGETS: (SuccessBudgets | undefined)[] = [
  undefined,
  { successBytes: 1024, kinds: {} },
  { successBytes: 2048, kinds: {} },
];

/** Environment for git: fixed identity and dates, no user or system config. */
const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Ann Dev",
  GIT_AUTHOR_EMAIL: "ann@example.com",
  GIT_COMMITTER_NAME: "Ann Dev",
  GIT_COMMITTER_EMAIL: "ann@example.com",
  GIT_AUTHOR_DATE: "2024-03-01T12:00:00Z",
  GIT_COMMITTER_DATE: "2024-03-01T12:00:00Z",
};

/** Runs `argv` in `cwd`; its stdout, stderr and exit code. */
async function run(
  argv: string[],
  cwd: string,
): Promise<{ stdout: string; stderr: string; code: number }> {
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd,
    env: GIT_ENV,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr), code: out.code };
}

/** `argv`'s `stream` in `cwd` and what YARP shows of it under `budgets` with the rule it selects. */
async function reduced(
  argv: string[],
  cwd: string,
  budgets?: SuccessBudgets,
  stream: "stdout" | "stderr" = "stdout",
): Promise<{ input: string; output: string; code: number }> {
  const selection = registry.select(argv);
  assert.equal(selection.outcome, "reduce", argv.join(" "));
  if (selection.outcome !== "reduce") throw new Error("unreachable");
  const { [stream]: text, code } = await run(argv, cwd);
  const reducer = createStreamReducer(selection.match.rule, sourceTerms(argv), budgets);
  reducer.push(new TextEncoder().encode(text));
  const out = reducer.finish({ code }, { kind: "archived", id: "0f1e2d3c" });
  assert.ok(out.changed, `${argv.join(" ")} was not reduced`);
  return { input: text, output: decoder.decode(out.bytes), code };
}

/** The `[yarp: …]` summary line of rows by key. */
function summaryLine(output: string): string {
  const line = output.split("\n").find((l) => /^\[yarp: [\d,]+ [a-z ]+(\(|in |\])/.test(l));
  assert.ok(line !== undefined, output);
  return line;
}

const count = (text: string) => Number(text.replaceAll(",", ""));

/**
 * A repository of 300 commits over 24 modules and 6 pages, a minute apart,
 * written with one `git fast-import`: a binary file comes in commit 200, a
 * page is renamed in commit 220, and every 40th commit also removes a line.
 */
async function makeRepository(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "yarp-floors-git-" });
  const init = await new Deno.Command("git", {
    args: ["init", "-q", "-b", "main", "."],
    cwd: dir,
    env: GIT_ENV,
  }).output();
  assert.equal(init.code, 0, decoder.decode(init.stderr));
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  const text = (t: string) => parts.push(encoder.encode(t));
  const data = (bytes: Uint8Array) => {
    text(`data ${bytes.length}\n`);
    parts.push(bytes);
    text("\n");
  };
  const files = new Map<string, string[]>();
  for (let i = 1; i <= 300; i++) {
    const changed = new Set<string>();
    const add = (path: string, line: string) => {
      const lines = files.get(path) ?? [];
      lines.push(line);
      files.set(path, lines);
      changed.add(path);
    };
    add(`src/mod_${i % 24}.ts`, `export const value${i} = ${i};`);
    if (i % 9 === 0) add(`docs/page_${i % 6}.md`, `note ${i}`);
    if (i % 40 === 0) files.get(`src/mod_${i % 24}.ts`)!.shift();
    const when = 1709294400 + 60 * i;
    text(`commit refs/heads/main\nmark :${i}\n`);
    text(`author Ann Dev <ann@example.com> ${when} +0000\n`);
    text(`committer Ann Dev <ann@example.com> ${when} +0000\n`);
    data(encoder.encode(`Change ${i}: adjust module ${i % 24}\n\nBody of change ${i}.\n`));
    if (i > 1) text(`from :${i - 1}\n`);
    for (const path of changed) {
      text(`M 100644 inline ${path}\n`);
      data(encoder.encode(files.get(path)!.join("\n") + "\n"));
    }
    if (i === 200) {
      text("M 100644 inline logo.bin\n");
      data(new Uint8Array([0, 1, 2, 98, 105, 110]));
    }
    if (i === 220) {
      text("R docs/page_3.md docs/renamed.md\n");
      files.set("docs/renamed.md", files.get("docs/page_3.md")!);
      files.delete("docs/page_3.md");
    }
  }
  const stream = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    stream.set(part, at);
    at += part.length;
  }
  await Deno.writeFile(`${dir}/.git/import-stream`, stream);
  const child = new Deno.Command("sh", {
    args: ["-c", "git fast-import --quiet < .git/import-stream"],
    cwd: dir,
    env: GIT_ENV,
    stderr: "piped",
  });
  const imported = await child.output();
  assert.equal(imported.code, 0, decoder.decode(imported.stderr));
  const checkout = await new Deno.Command("git", {
    args: ["reset", "-q", "--hard"],
    cwd: dir,
    env: GIT_ENV,
  }).output();
  assert.equal(checkout.code, 0, decoder.decode(checkout.stderr));
  return dir;
}

const repository = makeRepository();

Deno.test("floor: git diff names every changed file with its exact +/- counts, then first changed lines", async () => {
  const dir = await repository;
  const numstat = (await run(["git", "diff", "--numstat", "-M", "HEAD~150"], dir)).stdout
    .trim().split("\n").map((line) => line.split("\t"));
  for (const budgets of BUDGETS) {
    const { input, output } = await reduced(["git", "diff", "HEAD~150"], dir, budgets);
    assert.ok(input.length > 8000, `diff of ${input.length} bytes`);
    const line = summaryLine(output);
    const head = line.match(
      /^\[yarp: ([\d,]+) changed lines \(\+([\d,]+) −([\d,]+)\) in (\d+) files: /,
    );
    assert.ok(head !== null, line);
    assert.equal(Number(head[4]), numstat.length, line);
    let plus = 0;
    let minus = 0;
    for (const [added, removed] of numstat) {
      plus += added === "-" ? 0 : Number(added);
      minus += removed === "-" ? 0 : Number(removed);
    }
    assert.deepEqual([count(head[2]), count(head[3])], [plus, minus], line);
    // Listed files, in git's order, each with its own counts; the rest counted with their sums.
    const listed = [...line.matchAll(/(?:: | · )(\S+) \+([\d,]+) −([\d,]+)/g)];
    assert.ok(listed.length >= Math.min(numstat.length, 4), line);
    let restPlus = plus;
    let restMinus = minus;
    listed.forEach(([, file, added, removed], i) => {
      const [wantAdded, wantRemoved, wantFile] = numstat[i];
      assert.equal(file, wantFile.replace(/^.*=> /, "").replace(/[{}]/g, ""), line);
      assert.equal(count(added), wantAdded === "-" ? 0 : Number(wantAdded), line);
      assert.equal(count(removed), wantRemoved === "-" ? 0 : Number(wantRemoved), line);
      restPlus -= count(added);
      restMinus -= count(removed);
    });
    const rest = numstat.length - listed.length;
    if (rest > 0) {
      assert.ok(line.endsWith(` · ${rest} more files +${restPlus} −${restMinus}]`), line);
    }
    // The first file's header and first hunk header, and changed lines under them.
    const firstHunk = input.split("\n").find((l) => l.startsWith("@@"))!;
    assert.ok(output.includes(`diff --git a/${numstat[0][2]}`), output);
    assert.ok(output.includes(firstHunk + "\n"), output);
    const changed = output.split("\n").filter((l) => /^[+-](?![+-]{2} )/.test(l));
    assert.ok(changed.length >= 2, output);
    for (const l of changed) assert.ok(input.includes(`\n${l}\n`), l);
  }
});

Deno.test("floor: git log --stat keeps the count and, per newest commit, hash, date, subject and stat", async () => {
  const dir = await repository;
  const hashes = (await run(["git", "rev-list", "HEAD"], dir)).stdout.trim().split("\n");
  for (const budgets of BUDGETS) {
    const { output } = await reduced(["git", "log", "--stat"], dir, budgets);
    assert.ok(output.includes("[yarp: 300 commits]\n"), output);
    const blocks = output.split(/^(?=commit )/m).filter((b) => b.startsWith("commit "));
    assert.ok(blocks.length >= 2, output);
    blocks.forEach((block, i) => {
      const [commit, date, subject, stat] = block.trimEnd().split("\n");
      assert.equal(commit, `commit ${hashes[i]}`, block);
      assert.match(date, /^Date: {3}\w{3} \w{3} \d+ \d\d:\d\d:\d\d 2024 \+0000$/, block);
      assert.equal(subject, `    Change ${300 - i}: adjust module ${(300 - i) % 24}`, block);
      assert.match(stat, /^ \d+ files? changed/, block);
    });
    if (budgets?.successBytes === 2048) assert.ok(blocks.length >= 8, output);
  }
});

/** A tree of 60 directories of `.ts` files, each line of which holds `export`. */
async function makeTree(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "yarp-floors-tree-" });
  for (let d = 0; d < 60; d++) {
    await Deno.mkdir(`${dir}/pkg/dir${d}`, { recursive: true });
    const files = d < 3 ? 10 : 1;
    for (let f = 0; f < files; f++) {
      const lines = d < 3 ? 20 : 3 + (d % 4);
      const text = Array.from({ length: lines }, (_, i) => `export const v${i} = ${i};`);
      await Deno.writeTextFile(`${dir}/pkg/dir${d}/file${f}.ts`, text.join("\n") + "\n");
    }
  }
  await Deno.mkdir(`${dir}/bin`);
  for (let i = 0; i < 120; i++) {
    await Deno.symlink(`../pkg/dir${i % 60}/file0.ts`, `${dir}/bin/tool${i}`);
  }
  return dir;
}

const tree = makeTree();

Deno.test("floor: grep -rn states exact totals, the busiest files' counts and matches from distinct files", async () => {
  const dir = await tree;
  for (const budgets of BUDGETS) {
    const { input, output } = await reduced(["grep", "-rn", "export", "pkg"], dir, budgets);
    const rows = input.trimEnd().split("\n");
    const perFile = new Map<string, number>();
    for (const row of rows) {
      const file = row.slice(0, row.indexOf(":"));
      perFile.set(file, (perFile.get(file) ?? 0) + 1);
    }
    assert.ok(rows.length >= 850, `${rows.length} matches`);
    const line = summaryLine(output);
    assert.ok(
      line.startsWith(
        `[yarp: ${rows.length.toLocaleString("en-US")} matches in ${perFile.size} files: `,
      ),
      line,
    );
    assert.ok(!line.includes("over"), line);
    // The busiest files first, each with its exact count.
    const listed = [...line.matchAll(/(?:: | · )(pkg\/\S+) ([\d,]+)/g)];
    assert.ok(listed.length >= 3, line);
    const busiest = Math.max(...perFile.values());
    for (const [, file, n] of listed) assert.equal(count(n), perFile.get(file), line);
    assert.equal(count(listed[0][2]), busiest, line);
    // Match lines from distinct files.
    const shown = output.split("\n").filter((l) => rows.includes(l));
    const files = new Set(shown.map((l) => l.slice(0, l.indexOf(":"))));
    assert.ok(files.size >= 2, output);
    assert.equal(files.size, shown.length, output);
  }
});

Deno.test("floor: find states the exact number of directories, never 'over'", async () => {
  const dir = await tree;
  const { input, output } = await reduced(["find", "pkg", "-type", "f"], dir);
  const dirs = new Set(input.trimEnd().split("\n").map((p) => p.slice(0, p.lastIndexOf("/"))));
  assert.equal(dirs.size, 60);
  const entries = input.trimEnd().split("\n").length;
  assert.ok(
    summaryLine(output).startsWith(`[yarp: ${entries} entries in 60 directories: `),
    output,
  );
  assert.ok(!output.includes("over"), output);
});

Deno.test("floor: ls -la counts symlinks as entries of their directory, never their target's", async () => {
  const dir = await tree;
  const { input, output } = await reduced(["ls", "-la", "bin"], dir);
  assert.ok(input.includes(" -> ../pkg/dir0/file0.ts"), input);
  const line = summaryLine(output);
  // 120 links, `.` and `..`; `total` is no entry.
  assert.ok(line.startsWith("[yarp: 122 entries in 1 directory: . 122"), line);
  assert.ok(!line.includes("->"), line);
});

Deno.test("floor: git status names every group with its count and its first paths", async () => {
  const dir = await Deno.makeTempDir({ prefix: "yarp-floors-status-" });
  const script = `
    set -e
    git init -q -b main .
    for i in $(seq 1 160); do echo a > tracked_$i.txt; done
    git add -A && git commit -q -m base
    for i in $(seq 1 100); do echo b >> tracked_$i.txt; done
    for i in $(seq 101 120); do rm tracked_$i.txt; done
    for i in $(seq 1 50); do echo n > staged_$i.txt; done
    git add staged_*.txt
    for i in $(seq 1 200); do echo u > untracked_$i.txt; done`;
  const made = await new Deno.Command("sh", { args: ["-c", script], cwd: dir, env: GIT_ENV })
    .output();
  assert.equal(made.code, 0, decoder.decode(made.stderr));
  const groups: [string, string, number, string][] = [
    ["staged new file", "new file", 50, "staged_1.txt"],
    ["deleted", "deleted", 20, "tracked_101.txt"],
    ["modified", "modified", 100, "tracked_1.txt"],
    ["untracked", "", 200, "untracked_1.txt"],
  ];
  for (const budgets of BUDGETS) {
    const { output } = await reduced(["git", "status"], dir, budgets);
    const line = summaryLine(output);
    assert.ok(line.startsWith("[yarp: 370 changes in 4 groups: "), line);
    for (const [group, , n, first] of groups) {
      assert.ok(line.includes(`${group} ${n}`), `${group} in ${line}`);
      assert.ok(output.includes(first + "\n"), `${first} in ${output}`);
    }
    const short = await reduced(["git", "status", "--short"], dir, budgets);
    const shortLine = summaryLine(short.output);
    for (const [code, n] of [["A ", 50], [" D", 20], [" M", 100], ["??", 200]] as const) {
      assert.ok(shortLine.includes(`${code} ${n}`), shortLine);
      const first = short.input.split("\n").find((l) => l.startsWith(code))!;
      assert.ok(short.output.includes(first + "\n"), `${first} in ${short.output}`);
    }
  }
});

Deno.test("floor: pytest keeps every failing test with its location, and the totals", async () => {
  const dir = await Deno.makeTempDir({ prefix: "yarp-floors-pytest-" });
  for (let f = 0; f < 8; f++) {
    const tests = Array.from(
      { length: 30 },
      (_, t) =>
        `def test_case_${t}():\n    value = ${t}\n    assert value ${
          f % 3 === 0 && t === 7 ? "== -1" : ">= 0"
        }\n`,
    );
    await Deno.writeTextFile(`${dir}/test_mod${f}.py`, tests.join("\n"));
  }
  const argv = ["pytest", "-p", "no:cacheprovider", "-v"];
  const failing = await reduced(argv, dir);
  assert.equal(failing.code, 1);
  for (const f of [0, 3, 6]) {
    assert.ok(failing.output.includes(`FAILED test_mod${f}.py::test_case_7`), failing.output);
    assert.ok(failing.output.includes(`test_mod${f}.py:`), failing.output);
  }
  assert.match(failing.output, /=+ 3 failed, 237 passed in [\d.]+s =+\n/);
  // All passing: the totals stay on success.
  for (const f of [0, 3, 6]) await Deno.remove(`${dir}/test_mod${f}.py`);
  const passing = await reduced(argv, dir);
  assert.equal(passing.code, 0);
  assert.match(passing.output, /=+ 150 passed in [\d.]+s =+\n/);
});

Deno.test("floor: make with gcc shows or counts every compiler error, each with its location", async () => {
  const dir = await Deno.makeTempDir({ prefix: "yarp-floors-make-" });
  const units: string[] = [];
  for (let i = 0; i < 8; i++) {
    const body = Array.from(
      { length: 70 },
      (_, k) => `int function_${i}_${k}(void) { return undeclared_name_${i}_${k}; }`,
    );
    await Deno.writeTextFile(`${dir}/unit${i}.c`, body.join("\n") + "\n");
    units.push(`unit${i}.c`);
  }
  await Deno.writeTextFile(`${dir}/Makefile`, `all:\n\tgcc -c ${units.join(" ")}\n`);
  const { input, output, code } = await reduced(["make"], dir, undefined, "stderr");
  assert.notEqual(code, 0);
  const errors = input.split("\n").filter((l) => / error: /.test(l));
  assert.equal(errors.length, 8 * 70);
  const shown = output.split("\n").filter((l) => / error: /.test(l));
  for (const line of shown) assert.match(line, /^unit\d\.c:\d+:\d+: error: /);
  assert.deepEqual(shown, errors.slice(0, shown.length), "errors shown in order, from the first");
  // Every diagnostic line (the compiler's errors and make's own `Error 2`) is shown or counted.
  const diagnostic = (l: string) => / error: |^make: \*\*\* .* Error \d+$/.test(l);
  const note = output.match(/\[yarp: ([\d,]+) omitted lines? carr/);
  assert.equal(
    output.split("\n").filter(diagnostic).length + (note === null ? 0 : count(note[1])),
    input.split("\n").filter(diagnostic).length,
    output,
  );
  assert.ok(shown.length >= 100, `${shown.length} errors shown`);
});
