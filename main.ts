/**
 * The `yarp` program: hands the process arguments to the CLI dispatcher and
 * exits with the status it returns.
 *
 * @module
 */
import { main } from "./lib/cli/main.ts";

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
