/**
 * `yarp doctor`: reports the runtime, the sandbox YARP runs in and the
 * built-in rule count, so a person can see at a glance that network and FFI
 * access are denied and that the state directory is writable (resolved as
 * the launcher resolves it). Exits 1 when the sandbox is wider than it
 * should be.
 *
 * @module
 */
import { quotedArg } from "../base/printable_text.ts";
import { stateDirectory } from "../base/sandbox.ts";
import { processEnv } from "../config/env.ts";
import { BUILTIN_PACK } from "../rules/registry.ts";
import type { TextIo } from "./io.ts";
import { YARP_VERSION } from "./version.ts";

/** Permissions YARP must never hold; `doctor` fails when one is granted. */
const FORBIDDEN: readonly Deno.PermissionDescriptor[] = [
  { name: "net" },
  { name: "ffi" },
  { name: "sys" },
];

/** Prints one `name: value` line per fact; returns 0, or 1 if a forbidden permission is granted. */
export async function doctorCommand(args: string[], io: TextIo): Promise<number> {
  if (args.length > 0) {
    io.err(`yarp doctor: unexpected argument '${quotedArg(args[0])}'\n`);
    return 2;
  }
  const lines = [
    `yarp: ${YARP_VERSION}`,
    `deno: ${Deno.version.deno}`,
    `built-in rules: ${BUILTIN_PACK.rules.length} (pack ${BUILTIN_PACK.id})`,
  ];
  let widened = false;
  for (const descriptor of FORBIDDEN) {
    const { state } = await Deno.permissions.query(descriptor);
    lines.push(`permission ${descriptor.name}: ${state === "granted" ? "GRANTED" : "denied"}`);
    if (state === "granted") widened = true;
  }
  const state = stateDirectory(processEnv);
  if (state === undefined) {
    lines.push("state directory: none (HOME and XDG_STATE_HOME are unset or relative)");
  } else {
    const { state: write } = await Deno.permissions.query({ name: "write", path: state });
    lines.push(`state directory: ${state} (write ${write === "granted" ? "granted" : "DENIED"})`);
  }
  io.out(lines.join("\n") + "\n");
  return widened ? 1 : 0;
}
