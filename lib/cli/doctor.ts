/**
 * `yarp doctor`: reports the runtime, the sandbox YARP runs in and the
 * built-in rule count, so a person can see at a glance that network and FFI
 * access are denied. Exits 1 when the sandbox is wider than it should be.
 *
 * @module
 */
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
    io.err(`yarp doctor: unexpected argument '${args[0]}'\n`);
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
  io.out(lines.join("\n") + "\n");
  return widened ? 1 : 0;
}
