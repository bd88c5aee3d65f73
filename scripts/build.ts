/**
 * `deno task build [--out DIR]`: writes the single-file artefact
 * `dist/yarp.js` with `deno bundle` (run it with `deno run` and the flags of
 * `lib/base/sandbox.json`), the Pi package's split build `dist/pi/` (see
 * {@link splitBuild}), when `DENORT_BIN` names a denort runtime the
 * self-contained program `dist/yarp` with `deno compile` of that bundle, and
 * `dist/SHA256SUMS` over what it wrote; it first caches the npm packages
 * `main.ts` needs (`deno install`). Same sources, same bytes
 * (tests/release_test.ts). Exits non-zero when a step fails or the version
 * in `deno.json` and `lib/cli/version.ts` differ. See docs/release.md.
 *
 * The bundle is self-contained: the shell parser's WebAssembly comes in
 * through `type: "bytes"` imports, which `deno bundle --unstable-raw-imports`
 * inlines as base64. `startupRewrite` then edits the bundle so that start-up
 * does only what the command needs (see its comment); the build fails when
 * the bundler's output no longer has the expected shape. `stampBuild`
 * writes the sources' build digest into it, which `yarp --version --build`
 * prints (the Pi extension uses it to refuse a stale copy).
 */
import { basename, join, resolve } from "node:path";
import { SANDBOX } from "../lib/base/sandbox.ts";
import { sourceDigest, YARP_VERSION } from "../lib/cli/version.ts";

const ROOT = join(import.meta.dirname!, "..");

async function deno(args: string[]): Promise<boolean> {
  const { code } = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT }).spawn().status;
  return code === 0;
}

const CREATE_REQUIRE =
  'import { createRequire as __deno_internal_createRequire } from "node:module";\n' +
  "var __require = __deno_internal_createRequire(import.meta.url);\n";
const TO_BINARY = /^var __toBinary = \/\* @__PURE__ \*\/ \(\(\) => \{\n[\s\S]*?\n\}\)\(\);\n/m;
const BYTES_MODULE =
  /^var (require_\w+) = __commonJS\(\{\n {2}"[^"\n]+"\(exports, module\d*\) \{\n {4}module\d*\.exports = __toBinary\(/gm;
const NODE_IMPORT = /^import \{ ([\w, ]+) \} from "(node:[\w/]+)";\n/gm;

/**
 * Rewrites `deno bundle` output for start-up cost. Top-level `import … from
 * "node:…"` statements (the bundler's `createRequire` shim for npm CommonJS
 * packages, and named imports such as `parseArgs` from `node:util`) load
 * Deno's Node compatibility layer in every process, ≈ 25–40 ms even for
 * `yarp --version`; they become lazy look-ups through
 * `process.getBuiltinModule`, paid only by the code that calls them (every
 * such named import is a function). esbuild's JavaScript base64 decoder for
 * inlined bytes becomes the native `Uint8Array.fromBase64`, and each inlined
 * bytes module is handed over as `{ default: bytes }`: esbuild's `__toESM`
 * would copy every index of the 1.3 MB array as a getter (≈ 4 s). Last, the
 * text is made ASCII-only (see {@link escapeNonAscii}).
 */
export function startupRewrite(bundle: string): string {
  if (!bundle.includes(CREATE_REQUIRE)) throw new Error("bundle: createRequire shim not found");
  if (!TO_BINARY.test(bundle)) throw new Error("bundle: __toBinary helper not found");
  const bytesModules = [...bundle.matchAll(BYTES_MODULE)].map((match) => match[1]);
  if (bytesModules.length === 0) throw new Error("bundle: no inlined bytes module found");
  for (const name of bytesModules) {
    const wrapped = `__toESM(${name}())`;
    if (!bundle.includes(wrapped)) throw new Error(`bundle: ${wrapped} not found`);
    bundle = bundle.replaceAll(wrapped, `({ default: ${name}() })`);
  }
  return escapeNonAscii(
    lazyNodeImports(bundle).replace(
      TO_BINARY,
      "var __toBinary = (base64) => Uint8Array.fromBase64(base64);\n",
    ),
  );
}

/**
 * The bundler's `createRequire` shim and every named `node:` import of
 * `text` made lazy look-ups through `process.getBuiltinModule` (see
 * {@link startupRewrite}); text without them is returned as it is.
 */
function lazyNodeImports(text: string): string {
  return text
    .replace(CREATE_REQUIRE, "var __require = (id) => globalThis.process.getBuiltinModule(id);\n")
    .replace(
      NODE_IMPORT,
      (_line, names: string, specifier: string) =>
        names.split(",").map((name) => {
          const [imported, local = imported] = name.trim().split(/\s+as\s+/);
          return `function ${local}(...args) {\n  return globalThis.process.getBuiltinModule(${
            JSON.stringify(specifier)
          }).${imported}(...args);\n}\n`;
        }).join(""),
    );
}

/** The shell parser's WebAssembly, a file beside the split build's modules. */
const PARSER_WASM = "lib/shell/_bash_parser.generated.wasm";

/**
 * Writes the Pi package's build into `dir` (emptied first): the same
 * program as `dist/yarp.js`, split by `deno bundle --code-splitting` into
 * the entry `yarp.js`, one module per command and chunks they share, with
 * the shell parser's WebAssembly as a file beside them (imported with
 * `type: "bytes"`, so it runs with `--unstable-raw-imports`). Each process
 * then reads and compiles only what its command needs: the single file
 * makes every start read the whole 3 MB, 1.8 MB of it the parser as base64,
 * about 50–70 ms of CPU a start over the sources (docs/pi.md, "Which
 * binary"). Each module gets {@link lazyNodeImports} and
 * {@link escapeNonAscii}, and the one holding `YARP_BUILD` the digest.
 */
async function splitBuild(dir: string, digest: string): Promise<void> {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  const split = await deno([
    "bundle",
    "--quiet",
    "--unstable-raw-imports",
    "--code-splitting",
    "--external",
    "*.wasm",
    "--outdir",
    dir,
    "main.ts",
  ]);
  if (!split) Deno.exit(1);
  await Deno.rename(join(dir, "main.js"), join(dir, "yarp.js"));
  await Deno.copyFile(join(ROOT, PARSER_WASM), join(dir, basename(PARSER_WASM)));
  let stamped = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".js")) continue;
    let text = lazyNodeImports(await Deno.readTextFile(join(dir, entry.name)));
    if (BUILD_PLACEHOLDER.test(text)) {
      text = stampBuild(text, digest);
      stamped++;
    }
    await Deno.writeTextFile(join(dir, entry.name), escapeNonAscii(text));
  }
  if (stamped !== 1) throw new Error(`split build: ${stamped} modules hold YARP_BUILD`);
}

const BUILD_PLACEHOLDER = /^( *(?:var )?YARP_BUILD\d* = )"source";$/m;

/**
 * Replaces the one `YARP_BUILD = "source"` assignment of the bundle
 * (lib/cli/version.ts) with `digest`; throws when there is not exactly one.
 */
export function stampBuild(bundle: string, digest: string): string {
  const found = bundle.match(new RegExp(BUILD_PLACEHOLDER.source, "gm")) ?? [];
  if (found.length !== 1) throw new Error(`bundle: ${found.length} YARP_BUILD assignments`);
  if (!/^[0-9a-f]{16}$/.test(digest)) throw new Error(`build digest '${digest}' is not 16 hex`);
  return bundle.replace(BUILD_PLACEHOLDER, `$1"${digest}";`);
}

/** A UTF-16 code unit outside ASCII, other than the line terminators U+2028 and U+2029. */
const NON_ASCII = /[\u0080-\u2027\u202a-\uffff]/g;

/**
 * Replaces every UTF-16 code unit above 0x7F with its `\uXXXX` escape, but
 * for U+2028 and U+2029, which end a `//` comment that their escape would
 * extend. V8 keeps a script that holds one such character as two bytes per
 * character: for the 3 MB bundle that doubles the source it reads, hashes
 * and checks against the code cache on every start (≈ 8.5 ms of a 15 ms
 * load). esbuild
 * already escapes strings and template literals; what it leaves is in
 * comments and regular expression literals, where the escape means the same
 * character (a surrogate pair's two escapes form one code point under the
 * `u` and `v` flags, and are its two code units without them).
 */
export function escapeNonAscii(source: string): string {
  return source.replace(
    NON_ASCII,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * The URL a release's `yarp.js` is published at, from the one setting that
 * names where releases live (`deno.json`'s `repository`) and the version:
 * `REPOSITORY/releases/download/vVERSION/yarp.js` (docs/release.md).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { releaseUrl } from "./build.ts";
 * assert.equal(
 *   releaseUrl({ repository: "https://github.com/o/yarp/", version: "1.2.3" }),
 *   "https://github.com/o/yarp/releases/download/v1.2.3/yarp.js",
 * );
 * ```
 */
export function releaseUrl(config: { repository: string; version: string }): string {
  return `${config.repository.replace(/\/+$/, "")}/releases/download/v${config.version}/yarp.js`;
}

/**
 * Fails unless `lib/cli/version.ts` and `deno.json` name the same version;
 * returns it. The bundle and the compiled program both carry it through
 * `version.ts`, and `yarp --version` prints it.
 */
async function stampedVersion(): Promise<string> {
  const { version } = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  if (version !== YARP_VERSION) {
    throw new Error(
      `deno.json: version '${version}' differs from lib/cli/version.ts '${YARP_VERSION}'`,
    );
  }
  return version;
}

/** `sha256sum` lines (`HEX  NAME`) for the named files of `dir`, in the given order. */
async function checksums(dir: string, names: string[]): Promise<string> {
  let text = "";
  for (const name of names) {
    const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(join(dir, name)));
    text += `${new Uint8Array(digest).toHex()}  ${name}\n`;
  }
  return text;
}

if (import.meta.main) {
  // `--out DIR` (default dist/): tests build twice into two directories.
  const outIndex = Deno.args.indexOf("--out");
  const out = outIndex >= 0 ? resolve(Deno.args[outIndex + 1]) : join(ROOT, "dist");
  const version = await stampedVersion();
  await Deno.mkdir(out, { recursive: true });
  const bundle = join(out, "yarp.js");
  // `deno bundle` reads npm packages from the Deno cache and never fetches one itself: on a
  // fresh cache it would fail on the first package the caller's run had not needed yet.
  if (!await deno(["install", "--quiet", "--entrypoint", "main.ts"])) Deno.exit(1);
  const bundled = await deno([
    "bundle",
    "--quiet",
    "--unstable-raw-imports",
    "--output",
    bundle,
    "main.ts",
  ]);
  if (!bundled) Deno.exit(1);
  const digest = await sourceDigest(ROOT);
  await Deno.writeTextFile(
    bundle,
    stampBuild(startupRewrite(await Deno.readTextFile(bundle)), digest),
  );
  console.log(`wrote ${bundle} (yarp ${version}, build ${digest})`);
  await splitBuild(join(out, "pi"), digest);
  console.log(`wrote ${join(out, "pi")}/ (the Pi package's split build)`);
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  console.log(`publish it as ${releaseUrl(config)}`);
  const names = ["yarp.js"];

  if (Deno.env.get("DENORT_BIN")) {
    await compileProgram(bundle, join(out, "yarp"));
    names.push("yarp");
  } else {
    console.log(
      "skipped dist/yarp: set DENORT_BIN to a denort runtime (docs/release.md) to build it",
    );
  }
  await Deno.writeTextFile(join(out, "SHA256SUMS"), await checksums(out, names));
  console.log(`wrote ${join(out, "SHA256SUMS")}`);
}

/**
 * Compiles the bundle into a self-contained program with the sandbox's
 * flags baked in. Its state directory is not known at build time, so it
 * gets `--allow-write` without a scope (the code still writes only to the
 * state directory and an explicit output path).
 */
async function compileProgram(bundle: string, output: string): Promise<void> {
  const ok = await deno([
    "compile",
    "--no-check",
    ...SANDBOX.flags,
    ...SANDBOX.artefactFlags,
    `--allow-env=${SANDBOX.env.join(",")}`,
    "--allow-write",
    "--output",
    output,
    bundle,
  ]);
  if (!ok) Deno.exit(1);
  console.log(`wrote ${output}`);
}
