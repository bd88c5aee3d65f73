// Specification of argv normalisation: program-level option skipping and
// option-token normalisation (docs/architecture.md, "Command matching").
import assert from "node:assert/strict";
import fc from "fast-check";
import { GIT_OBJECT_PATH_TOKEN, normalizeArgv } from "../lib/rules/argv.ts";

Deno.test("argv without a usable program name normalises to undefined", () => {
  const cases: readonly (readonly string[])[] = [
    [],
    [""],
    ["/usr/bin/git", "status"],
    ["./node_modules/.bin/jest"],
    ["bin/rg", "TODO"],
  ];
  for (const argv of cases) {
    assert.equal(normalizeArgv(argv), undefined, JSON.stringify(argv));
  }
});

Deno.test("program is argv[0] exactly", () => {
  for (const program of ["git", "Git", "GIT", "rg.exe", "git-lfs"]) {
    assert.equal(normalizeArgv([program, "x"])?.program, program);
  }
});

Deno.test("the Maven and Gradle project wrappers select their tool's rules by name", () => {
  assert.equal(normalizeArgv(["./mvnw", "-q", "test"])?.program, "mvnw");
  assert.deepEqual(normalizeArgv(["./mvnw", "-q", "test"])?.tail, ["test"]);
  assert.equal(normalizeArgv(["./gradlew", "build"])?.program, "gradlew");
  for (const other of ["../mvnw", "sub/gradlew", "/repo/mvnw", "./mvnw2", ".//gradlew"]) {
    assert.equal(normalizeArgv([other, "test"]), undefined, other);
  }
});

Deno.test("go's versioned release wrappers select go's rules; other go-prefixed names do not", () => {
  for (const wrapper of ["go1.26.0", "go1.22rc1", "go1.21beta2", "go1.25"]) {
    assert.equal(normalizeArgv([wrapper, "test", "./..."])?.program, "go", wrapper);
  }
  for (const other of ["go1", "go1.x", "gox1.2", "go1.26.0.exe", "golangci-lint", "go2.0.0"]) {
    assert.notEqual(normalizeArgv([other, "test"])?.program, "go", other);
  }
});

/** [argv, expected tail, expected skipped] */
const SKIPPING: readonly (readonly [readonly string[], readonly string[], readonly string[]])[] = [
  // git options that take a value, with the value present: skipped
  [["git", "-C", "repo", "status"], ["status"], ["-C", "repo"]],
  [["git", "-c", "color.ui=never", "diff"], ["diff"], ["-c", "color.ui=never"]],
  [["git", "--git-dir", ".git", "log"], ["log"], ["--git-dir", ".git"]],
  [["git", "--git-dir=.git", "log"], ["log"], ["--git-dir=.git"]],
  [["git", "--work-tree", "w", "status"], ["status"], ["--work-tree", "w"]],
  [["git", "--work-tree=w", "status"], ["status"], ["--work-tree=w"]],
  // Maven: switches, valued options and attached -Dname=value, before the goal
  [["mvn", "-q", "-B", "test"], ["test"], ["-q", "-B"]],
  [["mvn", "-pl", "core", "-am", "-DskipTests=false", "verify"], ["verify"], [
    "-pl",
    "core",
    "-am",
    "-DskipTests=false",
  ]],
  [["mvn", "-D", "x=1", "test"], ["test"], ["-D", "x=1"]],
  [["mvn", "-D", "test"], [], ["-D", "test"]],
  [["mvn", "-v"], ["-v"], []],
  // Gradle: the guards' -m and -t are never skipped
  [["gradle", "--no-daemon", "-q", "build"], ["build"], ["--no-daemon", "-q"]],
  [["gradlew", "--console=plain", "test"], ["test"], ["--console=plain"]],
  [["gradle", "-m", "build"], ["-m", "build"], []],
  [["gradle", "-q", "-t", "test"], ["-t", "test"], ["-q"]],
  // apt-get: the guards' -s and --simulate are never skipped
  [["apt-get", "-y", "-qq", "install", "curl"], ["install", "curl"], ["-y", "-qq"]],
  [["apt-get", "-s", "install", "curl"], ["-s", "install", "curl"], []],
  [["apt", "-o", "Debug::X=1", "update"], ["update"], ["-o", "Debug::X=1"]],
  // git switches
  [["git", "-p", "log"], ["log"], ["-p"]],
  [["git", "-P", "log"], ["log"], ["-P"]],
  [["git", "--paginate", "log"], ["log"], ["--paginate"]],
  [["git", "--no-pager", "log"], ["log"], ["--no-pager"]],
  [["git", "--literal-pathspecs", "log"], ["log"], ["--literal-pathspecs"]],
  [["git", "--glob-pathspecs", "log"], ["log"], ["--glob-pathspecs"]],
  [["git", "--noglob-pathspecs", "log"], ["log"], ["--noglob-pathspecs"]],
  [["git", "--icase-pathspecs", "log"], ["log"], ["--icase-pathspecs"]],
  // several in a row, in any order
  [
    ["git", "--no-pager", "-C", "a", "-c", "k=v", "-C", "b", "diff", "--stat"],
    ["diff", "--stat"],
    ["--no-pager", "-C", "a", "-c", "k=v", "-C", "b"],
  ],
  // the value is taken even when it looks like an option, as git does
  [["git", "-C", "--no-pager", "status"], ["status"], ["-C", "--no-pager"]],
  // other programs
  [["npm", "--prefix", "web", "test"], ["test"], ["--prefix", "web"]],
  [["npm", "--prefix=web", "test"], ["test"], ["--prefix=web"]],
  [["pnpm", "-C", "web", "test"], ["test"], ["-C", "web"]],
  [["pnpm", "--dir", "web", "test"], ["test"], ["--dir", "web"]],
  [["pnpm", "--dir=web", "test"], ["test"], ["--dir=web"]],
  [["yarn", "-C", "web", "test"], ["test"], ["-C", "web"]],
  [["yarn", "--dir=web", "test"], ["test"], ["--dir=web"]],
  [["bun", "--dir", "web", "test"], ["test"], ["--dir", "web"]],
  [["uv", "--project", "p", "run", "pytest"], ["run", "pytest"], ["--project", "p"]],
  [["uv", "--project=p", "run"], ["run"], ["--project=p"]],
  [["gh", "-R", "o/r", "pr", "list"], ["pr", "list"], ["-R", "o/r"]],
  [["gh", "--repo", "o/r", "pr", "list"], ["pr", "list"], ["--repo", "o/r"]],
  [["gh", "--repo=o/r", "pr", "list"], ["pr", "list"], ["--repo=o/r"]],
  [["cargo", "+nightly", "test"], ["test"], ["+nightly"]],
  [["cargo", "+1.80.0", "build", "--release"], ["build", "--release"], ["+1.80.0"]],

  // missing or incomplete values: nothing skipped
  [["git", "-C"], ["-C"], []],
  [["git", "-C", ""], ["-C", ""], []],
  [["git", "-c"], ["-c"], []],
  [["git", "--git-dir"], ["--git-dir"], []],
  [["git", "--git-dir=", "status"], ["--git-dir=", "status"], []],
  [["git", "--work-tree=", "status"], ["--work-tree=", "status"], []],
  [["npm", "--prefix"], ["--prefix"], []],
  [["npm", "--prefix=", "test"], ["--prefix=", "test"], []],
  [["pnpm", "-C"], ["-C"], []],
  [["pnpm", "--dir=", "test"], ["--dir=", "test"], []],
  [["uv", "--project"], ["--project"], []],
  [["gh", "-R"], ["-R"], []],
  [["gh", "--repo="], ["--repo="], []],
  [["cargo", "+", "test"], ["+", "test"], []],
  // skipping stops at the first unreviewed token and after the subcommand
  [["git", "-C", "a", "--bare", "status"], ["--bare", "status"], ["-C", "a"]],
  [["git", "status", "-C", "a"], ["status", "-C", "a"], []],
  [["git", "-Crepo", "status"], ["-Crepo", "status"], []],
  [["git", "--", "-C", "a"], ["--", "-C", "a"], []],
  // cargo +toolchain only as the first argument
  [["cargo", "test", "+nightly"], ["test", "+nightly"], []],
  // options of one program are not options of another
  [["npm", "-C", "web", "test"], ["-C", "web", "test"], []],
  [["rg", "-C", "3", "TODO"], ["-C", "3", "TODO"], []],
  [["pnpm", "--prefix", "web", "test"], ["--prefix", "web", "test"], []],
  [["yarn", "--repo", "r", "test"], ["--repo", "r", "test"], []],
  [["gh", "-C", "d", "pr"], ["-C", "d", "pr"], []],
];

Deno.test("reviewed program-level options are skipped only with their value present", () => {
  for (const [argv, tail, skipped] of SKIPPING) {
    const normalized = normalizeArgv(argv);
    assert.ok(normalized !== undefined, JSON.stringify(argv));
    assert.deepEqual(normalized.tail, tail, JSON.stringify(argv));
    assert.deepEqual(normalized.skipped, skipped, JSON.stringify(argv));
  }
});

/** [argv, tokens that must be present, tokens that must be absent] */
const TOKENS: readonly (readonly [readonly string[], readonly string[], readonly string[]])[] = [
  // raw tail tokens always
  [["rg", "TODO", "src"], ["TODO", "src"], ["rg"]],
  [["git", "-C", "repo", "status"], ["status"], ["-C", "repo"]],
  // long assignments add the option name, never the value
  [["git", "log", "--format=%H", "--max-count=5"], ["--format", "--max-count", "--format=%H"], [
    "%H",
    "5",
  ]],
  [["npm", "test", "--", "--reporter=dot"], ["--reporter=dot"], ["--reporter"]],
  [["rg", "--=x", "TODO"], ["--=x"], ["--"]],
  // bundles of reviewed flags
  [["git", "status", "-sbz"], ["-sbz", "-s", "-b", "-z"], []],
  [["ls", "-lah"], ["-l", "-a", "-h"], []],
  [["tree", "-aJ"], ["-a", "-J"], []],
  [["tree", "-L2", "-X"], ["-L", "-X"], ["-2"]],
  [["rg", "-inw", "TODO"], ["-i", "-n", "-w"], []],
  [["rg", "-uuu", "x"], ["-u"], []],
  // attached values add the option, never the value
  [["git", "diff", "-U3"], ["-U", "-U3"], ["-3", "3"]],
  [["git", "log", "-n5"], ["-n"], ["-5"]],
  [["rg", "-C3", "x"], ["-C"], ["-3"]],
  [["grep", "-A2", "x"], ["-A"], ["-2"]],
  [["rg", "-ijson", "x"], ["-i", "-j"], ["-s", "-o", "-n"]],
  [["cargo", "test", "-pfoo"], ["-p"], ["-f", "-o"]],
  [["git", "status", "-uno"], ["-u"], ["-n", "-o"]],
  // letters after a value-taking letter are its value
  [["git", "checkout", "-bz"], ["-b"], ["-z"]],
  [["git", "commit", "-am", "msg"], ["-a", "-m", "msg"], []],
  [["git", "commit", "-mvs"], ["-m"], ["-v", "-s"]],
  // make: flag bundles count letter by letter (`make -np`, `make -Bn` are dry runs)
  [["make", "-np"], ["-np", "-n", "-p"], []],
  [["make", "-Bn"], ["-B", "-n"], []],
  [["gmake", "-kns", "all"], ["-k", "-n", "-s"], []],
  [["make", "-qp"], ["-q", "-p"], []],
  // make: value-taking letters end the bundle; -j, -l and -O take an attached optional value
  [["make", "-Cn", "all"], ["-C"], ["-n"]],
  [["make", "-fMakefile.ci", "-n"], ["-f", "-n"], ["-M", "-a"]],
  [["make", "-nj4"], ["-n", "-j"], ["-4"]],
  [["make", "-jn"], ["-j"], ["-n"]],
  [["make", "-l2.5", "-n"], ["-l", "-n"], ["-2"]],
  [["make", "-Oline"], ["-O"], ["-l", "-i", "-n", "-e"]],
  [["make", "-j", "8", "-p"], ["-j", "8", "-p"], []],
  [["make", "-nX"], ["-nX"], ["-n", "-X"]],
  // a bundle with any unreviewed letter adds nothing
  [["git", "status", "-sX"], ["-sX"], ["-s", "-X"]],
  [["ls", "-l@"], ["-l@"], ["-l"]],
  // no table for the program or the git subcommand: raw only
  [["cpio", "-idv"], ["-idv"], ["-i", "-d", "-v"]],
  [["git", "frobnicate", "-sb"], ["-sb"], ["-s", "-b"]],
  [["git", "-sb"], ["-sb"], ["-s", "-b"]],
  // the table follows the subcommand after skipped program-level options
  [["git", "-C", "r", "status", "-sb"], ["-s", "-b"], []],
  // git grep: every letter of `git grep -h` counts, so a count hides in no bundle
  [["git", "--no-pager", "grep", "-Inc", "TODO"], ["-I", "-n", "-c"], []],
  [["git", "grep", "-oiwc", "x"], ["-o", "-i", "-w", "-c"], []],
  [["git", "grep", "-aqpWrG", "x"], ["-a", "-q", "-p", "-W", "-r", "-G"], []],
  [["git", "grep", "-m3c", "x"], ["-m"], ["-c", "-3"]],
  [["git", "grep", "-Oless", "x"], ["-O"], ["-l", "-e", "-s"]],
  // exact forms hidden in bundles reach their guards (tar -O, kubectl -o, docker -q/-f, unzip -c/-p)
  [["tar", "-xOf", "a.tar", "f"], ["-x", "-O", "-f"], ["-a"]],
  [["tar", "-xzvf", "a.tgz"], ["-x", "-z", "-v", "-f"], []],
  [["tar", "-Cdir", "-x"], ["-C", "-x"], ["-d", "-i", "-r"]],
  [["kubectl", "get", "pods", "-ojson"], ["-o"], ["-j", "-s", "-n"]],
  [["kubectl", "get", "pods", "-Aw"], ["-A", "-w"], []],
  [["docker", "ps", "-aq"], ["-a", "-q"], []],
  [["docker", "logs", "-tf", "web"], ["-t", "-f"], []],
  [["docker", "images", "-af", "dangling=true"], ["-a", "-f"], ["-d"]],
  [["docker", "run", "-aq"], ["-aq"], ["-a", "-q"]],
  [["unzip", "-qc", "a.zip"], ["-q", "-c"], []],
  [["unzip", "-dout", "a.zip"], ["-d"], ["-o", "-u", "-t"]],
  [["git", "ls-files", "-sz"], ["-s", "-z"], []],
  [["git", "blame", "-wp", "f"], ["-w", "-p"], []],
  [["git", "ls-tree", "-rz", "HEAD"], ["-r", "-z"], []],
  // nothing after a literal `--` is normalised, but it is still a token
  [["rg", "--", "-inw", "--x=y"], ["--", "-inw", "--x=y"], ["-i", "--x"]],
  [["git", "diff", "--", "-U3"], ["-U3"], ["-U"]],
  // `-` alone and one-letter values
  [["grep", "-", "x"], ["-"], []],
];

Deno.test("tokens hold the tail plus reviewed option forms, never values", () => {
  for (const [argv, present, absent] of TOKENS) {
    const normalized = normalizeArgv(argv);
    assert.ok(normalized !== undefined, JSON.stringify(argv));
    for (const token of present) {
      assert.ok(normalized.tokens.has(token), `${JSON.stringify(argv)} has ${token}`);
    }
    for (const token of absent) {
      assert.ok(!normalized.tokens.has(token), `${JSON.stringify(argv)} lacks ${token}`);
    }
  }
});

Deno.test("property: every tail token is a token and the argv splits into skipped and tail", () => {
  const programs = fc.constantFrom("git", "npm", "pnpm", "yarn", "bun", "uv", "gh", "cargo", "rg");
  const arg = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.constantFrom("-C", "-c", "--dir", "--repo=x", "+n", "--", "-sbz", "--git-dir=", "-R"),
  );
  fc.assert(
    fc.property(programs, fc.array(arg, { maxLength: 10 }), (program, args) => {
      const normalized = normalizeArgv([program, ...args]);
      assert.ok(normalized !== undefined);
      assert.deepEqual([...normalized.skipped, ...normalized.tail], args);
      for (const token of normalized.tail) assert.ok(normalized.tokens.has(token));
    }),
  );
});

Deno.test("property: normalisation never throws on arbitrary argv", () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: "grapheme", maxLength: 12 }), { maxLength: 12 }),
      (argv) => {
        normalizeArgv(argv);
      },
    ),
  );
});

Deno.test("a git show operand naming REV:PATH adds the object-path token", () => {
  const has = (argv: string[]) => normalizeArgv(argv)!.tokens.has(GIT_OBJECT_PATH_TOKEN);
  assert.equal(has(["git", "show", "HEAD:src/main.ts"]), true);
  assert.equal(has(["git", "-C", "repo", "show", ":README.md"]), true);
  assert.equal(has(["git", "show", "--stat", "v1.0:docs/"]), true);
  assert.equal(has(["git", "show", "HEAD"]), false);
  assert.equal(has(["git", "show", "--format=%h:%s", "HEAD"]), false);
  assert.equal(has(["git", "log", "HEAD:src"]), false);
  assert.equal(has(["git", "show", "--", "a:b"]), false);
  assert.equal(has(["hg", "show", "HEAD:x"]), false);
});
