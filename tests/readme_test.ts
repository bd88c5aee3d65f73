/**
 * The README keeps up with the program: its command table names every
 * command `yarp --help` lists, and every `deno task NAME` it mentions is a
 * task in deno.json.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runYarp } from "./_process.ts";

const README = Deno.readTextFileSync(join(ROOT, "README.md"));

/** `yarp WORD [SUBWORD]`: a usage line's command words, options and operands left out. */
function commandOf(usage: string): string {
  return usage.trim().split(/\s+/).slice(0, 3).filter((word) => /^[a-z][a-z-]*$/.test(word))
    .join(" ");
}

Deno.test("the README's command table names every command of yarp --help", async () => {
  const help = new TextDecoder().decode((await runYarp(["--help"])).stdout);
  const usages = help.split("\n").filter((line) => /^ {2}yarp [a-z]/.test(line));
  assert.ok(usages.length > 10, help);
  const rows = README.split("\n").filter((line) => line.startsWith("| `yarp "));
  for (const usage of usages) {
    const [program, group, action] = commandOf(usage).split(" ");
    const named = rows.some((row) => {
      const cell = row.split(/(?<!\\)\|/)[1];
      return cell.includes(`${program} ${group}`) &&
        (action === undefined || cell.includes(action));
    });
    assert.ok(named, `README.md's Commands table has no row for '${usage.trim()}'`);
  }
});

Deno.test("every deno task the README names exists", () => {
  const { tasks } = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  const named = [...README.matchAll(/deno task ([a-z][a-z-]*)/g)].map((match) => match[1]);
  assert.ok(named.includes("test") && named.includes("clean"));
  for (const name of named) assert.ok(name in tasks, `README names 'deno task ${name}'`);
});
