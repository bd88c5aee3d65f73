/**
 * Shell parse cost with the parser warm (DESIGN.md, "Performance gates":
 * parse + plan of an ordinary command p95 ≤ 0.5 ms; the planner is not built
 * yet, so this measures parse + acceptance), and the time for a command at
 * the 256 KiB source limit. Parser initialisation is measured on its own.
 */
import { loadShellParser, SHELL_LIMITS } from "../lib/shell/mod.ts";

const initStart = performance.now();
const parser = await loadShellParser();
console.log(
  `parser initialisation (in-process, incl. first-use imports): ${
    (performance.now() - initStart).toFixed(1)
  } ms`,
);
parser.parse("git status"); // the first parse compiles the grammar's wasm lazily

const ORDINARY = [
  "git diff --stat",
  "rg -n 'TODO|FIXME' src/ --type ts",
  "cargo test --workspace 2>&1 | tail -50",
  "set -o pipefail && npm test | tee test.log",
  "find . -type f -name '*.ts' | sort | uniq",
  `git log --oneline -20 && git status --short`,
];

Deno.bench("parse ordinary commands (warm, each of 6)", { group: "shell" }, () => {
  for (const source of ORDINARY) parser.parse(source);
});

const big = "echo '" + "x".repeat(SHELL_LIMITS.sourceBytes - 16) + "'";
Deno.bench(`parse a ${big.length}-byte command`, { group: "shell-large" }, () => {
  parser.parse(big);
});

const manyWords = "rg " + Array.from({ length: 8_000 }, (_, i) => `w${i}`).join(" ");
Deno.bench(
  `parse a ${manyWords.length}-byte command of 8,001 words`,
  { group: "shell-large" },
  () => {
    parser.parse(manyWords);
  },
);
