/**
 * A corpus worker: replays the batches of lines it is sent, in order, into
 * its own tally, acknowledges each batch, and posts the tally when told to
 * finish. Messages: `{lines}` → `{done: n}`; `{finish: true}` → `{tally}`;
 * any failure → `{error}`. The handler is installed at once and the parser
 * starts behind it, so no message can arrive before there is a handler.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { builtinRuleSource, createRuleRegistry } from "../rules/registry.ts";
import { loadShellParser } from "../shell/mod.ts";
import { emptyTally } from "./metrics.ts";
import { createLineReplay } from "./replay.ts";

const replay = loadShellParser().then((parser) =>
  createLineReplay(parser, createRuleRegistry([builtinRuleSource()]))
);
const tally = emptyTally();
let queue: Promise<void> = Promise.resolve();

self.onmessage = (event: MessageEvent<{ lines?: string[]; finish?: boolean }>) => {
  const { lines, finish } = event.data;
  queue = queue.then(async () => {
    if (lines !== undefined) {
      const replayLine = await replay;
      for (const line of lines) await replayLine(line, tally);
      self.postMessage({ done: lines.length });
    }
    if (finish === true) self.postMessage({ tally });
  }).catch((error) => self.postMessage({ error: String(error) }));
};
