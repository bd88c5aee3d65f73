/**
 * Shell parse cost with the parser warm (docs/architecture.md, "Performance gates":
 * parse + plan of an ordinary command p95 ≤ 0.5 ms; the planner is not built
 * yet, so this measures parse + acceptance), and the time for a command at
 * the 256 KiB source limit. Parser initialisation is measured on its own.
 */
import { loadShellParser, SHELL_LIMITS } from "../lib/shell/mod.ts";
import { ORDINARY_COMMANDS } from "./_shell_commands.ts";

const initStart = performance.now();
const parser = await loadShellParser();
console.log(
  `parser initialisation (in-process, incl. first-use imports): ${
    (performance.now() - initStart).toFixed(1)
  } ms`,
);
parser.parse("git status"); // the first parse compiles the grammar's wasm lazily

Deno.bench(`parse ordinary commands (warm, each of ${ORDINARY_COMMANDS.length})`, {
  group: "shell",
}, () => {
  for (const source of ORDINARY_COMMANDS) parser.parse(source);
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
