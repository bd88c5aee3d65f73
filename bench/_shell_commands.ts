/** Ordinary agent shell commands shared by the shell parse and plan benchmarks. */

/** Simple commands, pipelines, chains and quoting as agents write them every day. */
export const ORDINARY_COMMANDS: readonly string[] = [
  "git diff --stat",
  "rg -n 'TODO|FIXME' src/ --type ts",
  "cargo test --workspace 2>&1 | tail -50",
  "set -o pipefail && npm test | tee test.log",
  "find . -type f -name '*.ts' | sort | uniq",
  "git log --oneline -20 && git status --short",
  "cd web && npm run test -- --reporter=dot",
  'grep -rn "fn main" --include="*.rs" .',
];
