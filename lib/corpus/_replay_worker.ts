/**
 * A corpus worker: replays the batches of lines it is sent, in order, into
 * its own tally, acknowledges each batch, and posts the tally when told to
 * finish. Messages: `{budgets}` first (the configured success budgets, or
 * undefined); `{lines}` → `{done: n}`; `{finish: true}` → `{tally}`; any
 * failure → `{error}`. The handler is installed at once and the parser
 * starts behind it, so no message can arrive before there is a handler.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { builtinRuleSource, createRuleRegistry } from "../rules/registry.ts";
import { loadShellParser } from "../shell/mod.ts";
import { emptyTally } from "./metrics.ts";
import { createLineReplay, type LineReplay } from "./replay.ts";
import type { SuccessBudgets } from "../rules/model.ts";

const parser = loadShellParser();
let replay: Promise<LineReplay> | undefined;
const makeReplay = (budgets?: SuccessBudgets) =>
  parser.then((p) => createLineReplay(p, createRuleRegistry([builtinRuleSource()]), budgets));
const tally = emptyTally();
let queue: Promise<void> = Promise.resolve();

self.onmessage = (
  event: MessageEvent<{ budgets?: SuccessBudgets; lines?: string[]; finish?: boolean }>,
) => {
  const { budgets, lines, finish } = event.data;
  if ("budgets" in event.data) replay = makeReplay(budgets);
  queue = queue.then(async () => {
    if (lines !== undefined) {
      const replayLine = await (replay ??= makeReplay());
      for (const line of lines) await replayLine(line, tally);
      self.postMessage({ done: lines.length });
    }
    if (finish === true) self.postMessage({ tally });
  }).catch((error) => self.postMessage({ error: String(error) }));
};
