/** Synthetic compiled packs shared by the rule benchmarks. */
import { encodeCompiledPack } from "../lib/rules/compiled_pack.ts";
import type { OutputPolicy, Rule } from "../lib/rules/model.ts";

const POLICY: OutputPolicy = {
  headLines: 20,
  tailLines: 20,
  maxLineBytes: 4_096,
  maxOutputBytes: 16_384,
  minSavingsBytes: 128,
};

/** `count` rules over 100 programs (plus a two-rule `solo` bucket), each with two patterns. */
export function packBytes(count: number): Uint8Array {
  const rules: Rule[] = [];
  for (let i = 0; i < count; i++) {
    rules.push({
      id: `bench/rule-${String(i).padStart(5, "0")}`,
      action: "reduce",
      match: {
        programs: i < 2 ? ["solo"] : [`tool-${i % 100}`],
        argvPrefix: ["run", `task-${i}`],
        argvContainsAll: ["--verbose"],
      },
      reducer: {
        kind: "line_filter",
        stripAnsi: true,
        drop: [{ kind: "prefix", value: `progress ${i}:`, caseMode: "sensitive", trim: "start" }],
        keep: [{ kind: "contains", value: "error", caseMode: "ascii_insensitive", trim: "none" }],
      },
      success: POLICY,
      failure: { ...POLICY, maxOutputBytes: 65_536 },
    });
  }
  return encodeCompiledPack({ id: "bench", sourceDigest: "cd".repeat(32), rules });
}
