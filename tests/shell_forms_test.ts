/**
 * Reviewed stage forms (docs/shell.md, "Stage forms"): one row per
 * form, through the real parser and planner and the built-in rules. Each
 * row states what the planner must decide; the closed forms show the
 * reason they stay exact. Properties: a wrapper never changes the rule the
 * wrapped command selects, an output-changing assignment always keeps the
 * result exact, and a nested `bash -c` plans exactly as its literal.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { builtinRuleSource, createRuleRegistry } from "../lib/rules/registry.ts";
import {
  assignmentEffect,
  frontEndOperand,
  hasStageDiagnostics,
  isActivateScript,
  lexicalProgramName,
  loadShellParser,
  peelWrappers,
  type PlanOutcome,
  planResult,
  programNameOf,
  publicProgramName,
  shellScriptOperand,
} from "../lib/shell/mod.ts";
import { decideRewrite } from "../lib/shell/rewrite_decision.ts";

const parser = await loadShellParser();
const registry = createRuleRegistry([builtinRuleSource()]);

function plan(source: string): PlanOutcome | { ok: false; reason: string } {
  const parsed = parser.parse(source);
  if (!parsed.ok) return { ok: false, reason: `parse:${parsed.reason}` };
  return planResult(parsed.program, registry);
}

/** `rule@confidence` for a plan, else the pass-through reason. */
function decision(source: string): string {
  const outcome = plan(source);
  return outcome.ok ? `${outcome.plan.rule.id}@${outcome.plan.statusConfidence}` : outcome.reason;
}

const FORMS: readonly [string, string][] = [
  // environment assignments before a command: classified from the command's own words
  ["CI=1 npm test", "tests/npm-test@complete"],
  ["RUSTUP_TOOLCHAIN=stable RUST_BACKTRACE=1 cargo test", "tests/cargo-test@complete"],
  ["GOCACHE=/tmp/c GOTOOLCHAIN=local go test ./x", "tests/go-test@complete"],
  ["cd app && CI=true npm test", "tests/npm-test@complete"],
  // search paths: the program is still read by its name, as under the inherited PATH
  ["PATH=/opt/go/bin:/usr/bin go test ./x", "tests/go-test@complete"],
  ["LD_LIBRARY_PATH=lib dotnet test t.csproj", "tests/dotnet-test@complete"],
  // assignments that change what runs or how it prints keep the result exact
  ["LD_PRELOAD=/x.so cargo test", "assignment-output"],
  ["PATH=/opt/go/bin LD_AUDIT=/a.so go test ./x", "assignment-output"],
  ["GIT_PAGER=cat git log", "assignment-output"],
  ["FORCE_COLOR=1 npm test", "assignment-output"],
  ["LC_ALL=C grep -r x .", "assignment-output"],
  ["NODE_OPTIONS=--trace-warnings npm test", "assignment-output"],
  ['NODE_OPTIONS="--max-old-space-size=4096 --require ./hook.js" npm test', "assignment-output"],
  ["NODE_OPTIONS= npm test", "assignment-output"],
  // NODE_OPTIONS of flags that neither load code nor print: setup
  ["NODE_OPTIONS=--dns-result-order=ipv4first npm test", "tests/npm-test@complete"],
  [
    'NODE_OPTIONS="--max-old-space-size=4096 --openssl-legacy-provider" npx jest',
    "tests/npx-jest@complete",
  ],
  ["export NODE_OPTIONS=--max_old_space_size=8192 && npm test", "tests/npm-test@complete"],
  ["PYTEST_ADDOPTS=--json pytest", "assignment-output"],
  ["GOFLAGS=-json go test ./x", "assignment-output"],
  ["env NO_COLOR=1 cargo test", "assignment-output"],
  // export and bare assignments as setup
  ["export CI=1 && npm test", "tests/npm-test@complete"],
  ["export CI=1; npm test", "tests/npm-test@complete"],
  ["CI=1; cargo test", "tests/cargo-test@complete"],
  ["export PATH=/x/bin && cargo test", "tests/cargo-test@complete"],
  ["export LANG=C && cargo test", "assignment-output"],
  ["export CI=1", "no-typed-output"],
  // virtual-env activation: fallible setup, confidence drops after `;`
  ["source .venv/bin/activate && pytest", "tests/pytest@complete"],
  [". venv/bin/activate; pytest -q", "tests/pytest@final-stage-only"],
  ["source ./env.sh && pytest", "unknown-program"],
  // reviewed wrappers
  ["timeout 600 cargo test", "tests/cargo-test@complete"],
  ["timeout -s KILL -k 5 60s go test ./...", "tests/go-test@complete"],
  ["time cargo build", "build/cargo-build@complete"],
  ["time -p make", "build/make@complete"],
  ["nice -n 10 make", "build/make@complete"],
  ["nohup npm test", "tests/npm-test@complete"],
  ["env CI=1 npm test", "tests/npm-test@complete"],
  ["stdbuf -oL -eL cargo test", "tests/cargo-test@complete"],
  ["command cargo test", "tests/cargo-test@complete"],
  ["timeout 60 env CI=1 nice cargo test", "tests/cargo-test@complete"],
  ["timeout 60 cargo test --message-format=json", "guarded"],
  ["sudo apt-get install -y curl", "package/apt-get-install@complete"],
  ["sudo -E -u dev ./mvnw -q test", "tests/mvn-test@complete"],
  ["sudo -- make", "build/make@complete"],
  ["sudo -i make", "wrapper-option"],
  ["sudo -l", "wrapper-option"],
  ["sudo", "wrapper-option"],
  // closed wrapper forms
  ["timeout -v 60 cargo test", "wrapper-option"],
  ["timeout cargo test", "wrapper-option"],
  ["env -i cargo test", "wrapper-option"],
  ["env -u HOME cargo test", "wrapper-option"],
  ["env -S 'cargo test'", "wrapper-option"],
  ["env CI=1", "wrapper-option"],
  ["command -v cargo", "wrapper-option"],
  ["time -v make", "wrapper-option"],
  ["nice", "wrapper-option"],
  ["timeout 5 cd x", "setup-form"],
  // interpreter front ends
  ["python -m pytest -x", "tests/python-m-pytest@complete"],
  ["python3 -m pytest tests", "tests/python-m-pytest@complete"],
  ["python3 -u -m pytest", "tests/pytest@complete"],
  ["uv run pytest -q", "tests/pytest@complete"],
  ["uv run --frozen python -m pytest", "tests/python-m-pytest@complete"],
  ["poetry run pytest", "tests/pytest@complete"],
  ["pnpm exec vitest run", "tests/npx-vitest@complete"],
  ["yarn jest", "tests/npx-jest@complete"],
  ["npx --yes vitest run", "tests/npx-vitest@complete"],
  ["pnpm exec vitest --reporter=json", "guarded"],
  ["npx mocha --require test/support/env --check-leaks test/a.js", "tests/npx-mocha@complete"],
  ["yarn mocha", "tests/npx-mocha@complete"],
  ["npx mocha --reporter json", "guarded"],
  ["pnpm exec mocha -R tap", "guarded"],
  ["npx mocha -w", "guarded"],
  ["python3 script.py", "no-rule-matched"],
  ["uv run --with x pytest", "no-rule-matched"],
  // nested shells whose literal parses as an accepted program
  ["bash -c 'cargo test'", "tests/cargo-test@complete"],
  ["bash -lc 'cd app && npm test'", "tests/npm-test@complete"],
  ["sh -c 'cargo test | tail -5'", "tests/cargo-test@final-stage-only"],
  ["bash -c 'cargo test || true'", "tests/cargo-test@conditional"],
  ["bash -c 'cat notes.txt'", "transform-without-input"],
  ["bash -c 'ls *.ts'", "parse:glob"],
  ["bash -c 'cargo test' extra", "unknown-program"],
  ['bash -c "bash -c \'bash -c \\"bash -c cargo\\"\'"', "parse:too-deep"],
  // su and runuser running one literal script as another user
  ["su - app -c 'npm test'", "tests/npm-test@complete"],
  ["su -c 'cargo test' app", "tests/cargo-test@complete"],
  ["su -l app --command='cd x && make'", "build/make@complete"],
  ["runuser -l app -c 'make'", "build/make@complete"],
  ["su -s /bin/bash -m app -c 'cargo test | tail -5'", "tests/cargo-test@final-stage-only"],
  ["su app -c 'cat notes.txt'", "transform-without-input"],
  ["su -P app -c 'npm test'", "unknown-program"],
  ["su -s /bin/zsh app -c 'npm test'", "unknown-program"],
  ["su app -c 'npm test' extra", "unknown-program"],
  ["su app other -c 'npm test'", "unknown-program"],
  ["su -c 'npm test'", "unknown-program"],
];

Deno.test("each reviewed stage form plans as its row says", () => {
  const wrong = FORMS.filter(([source, expected]) => decision(source) !== expected)
    .map(([source, expected]) => `${source}: ${decision(source)}, expected ${expected}`);
  assert.deepEqual(wrong, []);
});

Deno.test("a switch-user runner's own diagnostics fail open (su: Authentication failure)", () => {
  const outcome = plan("su - app -c 'npm test'");
  assert.ok(outcome.ok);
  assert.deepEqual(outcome.plan.setupPrograms, ["su"]);
  assert.ok(hasStageDiagnostics(outcome.plan, "su: Authentication failure\n"));
  assert.ok(!hasStageDiagnostics(outcome.plan, "> app@1.0.0 test\n1 passing\n"));
});

Deno.test("rewrite never wraps a command with assignments (the wrapper would drop them)", () => {
  const decided = decideRewrite("CI=1 cargo test", parser, registry, []);
  assert.deepEqual(decided, { rewrite: false, reason: "assignment" });
  assert.equal(decideRewrite("cargo test", parser, registry, []).rewrite, true);
});

Deno.test("stage-form helpers: wrappers, front ends, scripts, activate, assignment names", () => {
  assert.deepEqual(peelWrappers(["ls"]), { argv: ["ls"], assignments: [] });
  assert.deepEqual(peelWrappers(["env", "--", "A=1", "B=", "make"]), {
    argv: ["make"],
    assignments: [{ name: "A", value: "1" }, { name: "B", value: "" }],
  });
  assert.equal(peelWrappers(["stdbuf", "--output=L", "--", "make"]).toString(), "[object Object]");
  assert.equal(peelWrappers(["stdbuf", "-x", "make"]), "wrapper-option");
  assert.equal(frontEndOperand(["python", "-m", "x.y"]), undefined);
  assert.equal(frontEndOperand(["npx", "vitest"]), undefined, "plain npx has its own rules");
  assert.deepEqual(frontEndOperand(["bunx", "jest"]), ["npx", "jest"]);
  assert.equal(frontEndOperand(["yarn", "install"]), undefined);
  assert.equal(shellScriptOperand(["bash", "-l", "-c", "x"]), "x");
  assert.equal(shellScriptOperand(["bash", "-x", "-c", "x"]), undefined);
  assert.equal(shellScriptOperand(["zsh", "-c", "x"]), undefined);
  assert.ok(isActivateScript(["source", "/a/b/.venv/bin/activate"]));
  assert.ok(!isActivateScript(["source", "bin/activate.fish"]));
  assert.ok(!isActivateScript([".", "a", "b"]));
  for (
    const name of ["LD_PRELOAD", "LC_ALL", "GIT_DIR", "MY_PAGER", "CLICOLOR_FORCE", "npm_config_x"]
  ) {
    assert.equal(assignmentEffect(name), "output", name);
  }
  for (
    const name of [
      "CI",
      "RUST_BACKTRACE",
      "GOCACHE",
      "JAVA_HOME",
      "TMPDIR",
      "DEBIAN_FRONTEND",
      "PATH",
      "LD_LIBRARY_PATH",
    ]
  ) {
    assert.equal(assignmentEffect(name), "setup", name);
  }
});

Deno.test("the report's program name: public names only, seen through setup and wrappers", () => {
  const name = (source: string) => {
    const parsed = parser.parse(source);
    return parsed.ok ? programNameOf(parsed.program) : lexicalProgramName(source);
  };
  assert.equal(name("cd x && CI=1 timeout 60 ./mvnw -q test"), "mvnw");
  assert.equal(name("bash -lc 'export A=1 && gradle build'"), "gradle");
  assert.equal(name("export A=1"), "(setup)");
  assert.equal(name("uv run pytest"), "pytest");
  assert.equal(name("A=1 mvn test $(x)"), "mvn");
  assert.equal(name("'odd name' x"), "(other)");
  assert.equal(publicProgramName("/usr/bin/secret project.sh"), "(other)");
  assert.equal(publicProgramName("x".repeat(40)), "(other)");
});

Deno.test("property: a reviewed wrapper never changes what the wrapped command selects", () => {
  const commands = ["cargo test", "npm test", "git status", "rg x", "make", "go vet ./x", "ls -la"];
  const wrappers = ["timeout 30", "time", "nice", "nohup", "env CI=1", "stdbuf -oL", "command"];
  fc.assert(
    fc.property(
      fc.constantFrom(...commands),
      fc.array(fc.constantFrom(...wrappers), { maxLength: 3 }),
      (command, chain) => {
        assert.deepEqual(plan([...chain, command].join(" ")), plan(command));
      },
    ),
  );
});

Deno.test("property: an output-changing assignment keeps any command's result exact", () => {
  fc.assert(
    fc.property(
      fc.constantFrom("LD_PRELOAD", "LANG", "LC_ALL", "GIT_DIR", "PAGER", "NO_COLOR", "TERM"),
      fc.constantFrom("cargo test", "npm test", "git log", "rg x", "make", "pytest"),
      fc.boolean(),
      (name, command, exported) => {
        const source = exported ? `export ${name}=x && ${command}` : `${name}=x ${command}`;
        assert.equal(decision(source), "assignment-output");
      },
    ),
  );
});

Deno.test("property: a search-path assignment plans exactly as the command without it", () => {
  const directory = fc.stringMatching(/^\/?[a-z0-9._-]{1,8}(\/[a-z0-9._-]{1,8}){0,3}$/);
  fc.assert(
    fc.property(
      fc.constantFrom("PATH", "LD_LIBRARY_PATH"),
      fc.array(directory, { minLength: 1, maxLength: 3 }).map((dirs) => dirs.join(":")),
      fc.constantFrom(
        "cargo test",
        "npm test",
        "git log",
        "rg x",
        "make",
        "pytest",
        "sed -n 1p f",
        "cargo test --message-format=json",
        "./gen.sh",
      ),
      fc.constantFrom("prefix", "export", "env"),
      (name, value, command, form) => {
        const source = form === "prefix"
          ? `${name}=${value} ${command}`
          : form === "env"
          ? `env ${name}=${value} ${command}`
          : `export ${name}=${value} && ${command}`;
        const bare = form === "export" ? `true && ${command}` : command;
        assert.deepEqual(plan(source), plan(bare), source);
      },
    ),
  );
});

Deno.test("property: NODE_OPTIONS is setup only when every flag is a quiet one", () => {
  const quiet = [
    "--dns-result-order=ipv4first",
    "--max-old-space-size=4096",
    "--openssl-legacy-provider",
  ];
  const loud = [
    "--require",
    "./hook.js",
    "--import=tsx",
    "--trace-warnings",
    "-r",
    "--inspect",
    "x",
  ];
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...quiet, ...loud), { minLength: 1, maxLength: 4 }),
      fc.constantFrom("npm test", "npx jest", "npx mocha", "git log"),
      (flags, command) => {
        const source = `NODE_OPTIONS="${flags.join(" ")}" ${command}`;
        const expected = flags.every((flag) => quiet.includes(flag))
          ? decision(command)
          : "assignment-output";
        assert.equal(decision(source), expected, source);
      },
    ),
  );
});

Deno.test("property: bash -c 'LITERAL' plans exactly as the literal", () => {
  fc.assert(
    fc.property(
      fc.constantFrom(
        "cargo test",
        "cd a && npm test",
        "cargo test | head -5",
        "make; make check",
        "rg x || true",
        "ls *.ts",
        "cat x",
      ),
      fc.constantFrom("bash -c", "sh -c", "bash -lc"),
      (literal, shell) => {
        const outer = decision(`${shell} '${literal}'`);
        assert.equal(outer, decision(literal));
      },
    ),
  );
});
