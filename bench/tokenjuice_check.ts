/**
 * The tokenjuice adapter against the real pinned package (installed from npm
 * by the adapter itself): large output shrinks, small output passes, rule ids
 * are reported, and only built-in rules are used. Ignored only when npm cannot
 * reach the registry and no cached install exists.
 *
 * A check of the comparison harness, not of YARP, so it lives in bench/ and
 * never runs in `deno task test` (which must not download competitors): run
 * it with `deno task oracles`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { installNpmPackage, npmRegistryReachable } from "./_npm.ts";
import {
  loadTokenjuice,
  TOKENJUICE_VERSION,
  type TokenjuiceInput,
  type TokenjuiceReducer,
} from "./_tokenjuice.ts";

/** The loaded adapter, or null when npm cannot reach the registry. */
async function loadOrSkip(): Promise<TokenjuiceReducer | null> {
  try {
    return await loadTokenjuice();
  } catch (error) {
    if (await npmRegistryReachable()) throw error;
    console.log(`skipped tokenjuice tests: npm registry unreachable (${error})`);
    return null;
  }
}

const tokenjuice = await loadOrSkip();
const ignore = tokenjuice === null;

function run(command: string, stdout: string, exitCode: number | null = 0): TokenjuiceInput {
  return { command, stdout, stderr: "", combined: null, exitCode };
}

const CARGO_PASS = [
  "   Compiling demo v0.1.0 (/work/demo)",
  "    Finished test [unoptimized + debuginfo] target(s) in 1.20s",
  "     Running unittests src/lib.rs (target/debug/deps/demo-1234)",
  "",
  "running 400 tests",
  ...Array.from({ length: 400 }, (_, i) => `test tests::case_${i} ... ok`),
  "",
  "test result: ok. 400 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.31s",
  "",
].join("\n");

Deno.test({
  name: "tokenjuice: the loaded package is the pinned version",
  ignore,
  async fn() {
    assert.equal(tokenjuice!.version, TOKENJUICE_VERSION);
    const dir = await installNpmPackage("tokenjuice", TOKENJUICE_VERSION);
    const manifest = JSON.parse(await Deno.readTextFile(join(dir, "package.json")));
    assert.equal(manifest.version, TOKENJUICE_VERSION);
  },
});

Deno.test({
  name: "tokenjuice: a large passing cargo test run is reduced by its cargo rule",
  ignore,
  async fn() {
    const { text, rule } = await tokenjuice!.reduce(run("cargo test", CARGO_PASS));
    assert.equal(rule, "tests/cargo-test");
    assert.ok(text.length < CARGO_PASS.length / 4, `${text.length} of ${CARGO_PASS.length}`);
    assert.match(text, /lines omitted/);
  },
});

Deno.test({
  name: "tokenjuice: a large output no rule knows falls back to the generic reducer",
  ignore,
  async fn() {
    const output = Array.from({ length: 5000 }, (_, i) => `${i + 1}`).join("\n");
    const { text, rule } = await tokenjuice!.reduce(run("seq 1 5000", output));
    assert.equal(rule, "generic/fallback");
    assert.ok(text.length <= 1200, `${text.length}`);
  },
});

Deno.test({
  name: "tokenjuice: small output is returned unchanged (bar a trailing newline)",
  ignore,
  async fn() {
    assert.equal((await tokenjuice!.reduce(run("echo hi", "hello world"))).text, "hello world");
    assert.equal((await tokenjuice!.reduce(run("echo hi", "hello\nworld\n"))).text, "hello\nworld");
  },
});

Deno.test({
  name: "tokenjuice: a failure is prefixed with its exit code",
  ignore,
  async fn() {
    const failing = { ...run("cargo test", ""), stderr: "error: could not compile `demo`" };
    const { text } = await tokenjuice!.reduce({ ...failing, exitCode: 101 });
    assert.equal(text, "exit 101\nerror: could not compile `demo`");
  },
});

Deno.test({
  name: "tokenjuice: combined output is preferred over stdout and stderr",
  ignore,
  async fn() {
    const input = { ...run("make", "from stdout"), stderr: "from stderr", combined: "interleaved" };
    assert.equal((await tokenjuice!.reduce(input)).text, "interleaved");
  },
});

Deno.test({
  name: "tokenjuice: the rule id is a string or null for every kind of command",
  ignore,
  async fn() {
    const commands = [
      "git status",
      "ls -la",
      "npm test",
      "cat README.md",
      "cd app && make",
      "python3 -c 'print(1)'",
      "",
      "cargo test | tail -n 5",
    ];
    for (const command of commands) {
      for (const exitCode of [0, 1, null]) {
        const { text, rule } = await tokenjuice!.reduce(run(command, CARGO_PASS, exitCode));
        assert.equal(typeof text, "string");
        assert.ok(rule === null || /^[a-z0-9-]+\/[a-z0-9-]+$/.test(rule), `${command}: ${rule}`);
      }
    }
  },
});

Deno.test({
  name: "tokenjuice: user (~/.config) and project (.tokenjuice) rules are never read",
  ignore,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "yarp_tokenjuice_layers_" });
    const home = Deno.env.get("HOME");
    const cwd = Deno.cwd();
    const probe = (layer: string) => ({
      id: `probe/${layer}`,
      family: "probe",
      match: { argv0: [`yarp-probe-${layer}`] },
      matchOutput: [{ pattern: "hello", message: `FROM THE ${layer.toUpperCase()} LAYER` }],
    });
    const roots = { user: ".config/tokenjuice/rules", project: ".tokenjuice/rules" };
    try {
      for (const [layer, root] of Object.entries(roots)) {
        await Deno.mkdir(join(dir, root), { recursive: true });
        await Deno.writeTextFile(join(dir, root, `${layer}.json`), JSON.stringify(probe(layer)));
      }
      Deno.env.set("HOME", dir);
      Deno.chdir(dir);
      const output = "hello\n".repeat(40);
      const packageDir = await installNpmPackage("tokenjuice", TOKENJUICE_VERSION);
      const library = await import(pathToFileURL(join(packageDir, "dist/index.js")).href);
      // What `reduceExecution` would load here (given the user directory explicitly: finding
      // it through os.homedir() needs --allow-sys, which the test task does not grant).
      const layers = await library.loadRules({
        cwd: dir,
        userRulesDir: join(dir, roots.user),
      });
      const fresh = await loadTokenjuice();
      for (const layer of Object.keys(roots)) {
        const input = run(`yarp-probe-${layer} go`, output);
        const layered = await library.reduceExecutionWithRules(
          { toolName: "exec", command: input.command, stdout: output },
          layers,
        );
        assert.equal(layered.inlineText, `FROM THE ${layer.toUpperCase()} LAYER`, "fixture unused");
        const ours = await fresh.reduce(input);
        assert.equal(ours.rule, "generic/fallback");
        assert.doesNotMatch(ours.text, /LAYER/);
      }
    } finally {
      Deno.chdir(cwd);
      if (home === undefined) Deno.env.delete("HOME");
      else Deno.env.set("HOME", home);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
