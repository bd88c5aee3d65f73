/**
 * `line_filter` over real tool output the test makes: gcc (coloured) and a
 * Python traceback, between runs of progress lines, filtered by rules that
 * drop or never keep the diagnostic lines. Every line the classifier calls
 * a diagnostic (by its content as shown, ANSI sequences removed) is in the
 * output or counted in the omitted-diagnostics note, whatever the read
 * chunk size.
 */
import { ok } from "node:assert/strict";
import { AnsiStripper } from "../lib/bytes/mod.ts";
import { diagnosticForm, NOT_DIAGNOSTIC } from "../lib/reduce/diagnostics.ts";
import { createStreamReducer } from "../lib/reduce/mod.ts";
import { onlyWhere } from "./_process.ts";
import type { LinePattern, OutputPolicy, ReductionRule } from "../lib/rules/model.ts";

const te = new TextEncoder();
const td = new TextDecoder();

/** The combined output of `program args` run in `cwd` (its status is not checked: it fails). */
async function output(program: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(program, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  return td.decode(out.stdout) + td.decode(out.stderr);
}

function found(program: string): boolean {
  try {
    new Deno.Command(program, { args: ["--version"], stdout: "null", stderr: "null" }).outputSync();
    return true;
  } catch {
    return false;
  }
}

/** `line` with ANSI sequences removed. */
function strip(line: string): string {
  const bytes = te.encode(line);
  const out = new Uint8Array(bytes.length);
  return td.decode(out.subarray(0, new AnsiStripper().strip(bytes, 0, bytes.length, out, 0)));
}

function noted(out: string): number {
  const m = out.match(/\[yarp: ([\d,]+) omitted lines? carr(?:y|ies) error or warning markers\]/);
  return m === null ? 0 : Number(m[1].replaceAll(",", ""));
}

const pat = (kind: LinePattern["kind"], value: string): LinePattern => ({
  kind,
  value,
  caseMode: "sensitive",
  trim: "start",
});
const policy: OutputPolicy = {
  headLines: 5,
  tailLines: 5,
  maxLineBytes: 512,
  maxOutputBytes: 4096,
  minSavingsBytes: 0,
};

Deno.test({
  ...onlyWhere(
    found("gcc") && found("python3"),
    "line_filter keeps the gcc and Python diagnostics it filters out, or counts them",
    "gcc or python3 is not installed",
  ),
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(
        `${dir}/bad.c`,
        'int main(void) {\n  int x = "s";\n  return y;\n}\nvoid f(void) { return 1; }\n',
      );
      await Deno.writeTextFile(`${dir}/bad.py`, "def f(n):\n    return 1 / n\n\nf(0)\n");
      const gcc = await output("gcc", ["-fdiagnostics-color=always", "-c", "bad.c"], dir);
      const python = await output("python3", ["bad.py"], dir);
      const progress = (n: number) =>
        Array.from({ length: n }, (_, i) => `   Compiling crate-${i} v0.1.${i}\n`).join("");
      const input = te.encode(progress(300) + gcc + progress(400) + python + progress(300));
      const diagnostics = td.decode(input).split("\n").map(strip).filter((l) => {
        const b = te.encode(l);
        return diagnosticForm(b, 0, b.length) !== NOT_DIAGNOSTIC;
      });
      ok(diagnostics.length >= 4, `${diagnostics.length} diagnostics in ${gcc}${python}`);
      const specs = [
        { drop: [pat("prefix", "Compiling"), pat("contains", "error"), pat("contains", "Error")] },
        { drop: [], keep: [pat("prefix", "Compiling crate-299 ")] },
      ];
      for (const spec of specs) {
        const rule: ReductionRule = {
          id: "test/line-filter",
          action: "reduce",
          match: { programs: ["x"], argvPrefix: [], argvContainsAll: [] },
          reducer: { kind: "line_filter", stripAnsi: true, keep: [], ...spec },
          success: policy,
          failure: policy,
        };
        for (const chunk of [64, 4096, input.length]) {
          const reducer = createStreamReducer(rule);
          for (let at = 0; at < input.length; at += chunk) {
            reducer.push(input.subarray(at, at + chunk));
          }
          const out = td.decode(reducer.finish({ code: 1 }, { kind: "none" }).bytes);
          const lines = new Set(out.split("\n"));
          const missing = diagnostics.filter((l) => !lines.has(l)).length;
          ok(missing <= noted(out), `${missing} missing, ${noted(out)} counted:\n${out}`);
          ok(missing < diagnostics.length, out);
        }
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
