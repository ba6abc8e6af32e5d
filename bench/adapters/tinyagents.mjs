// tinyagents, default settings: a ChatModel object (invoke + stream) as the fake model and the
// same async zod-schema tool every framework gets, run through AgentHarness.invokeDefault /
// invokeStreamingDefault. (`tinyagents-sync-tool` is the labelled sync-tool variant.)
import { AgentHarness, runText, tool } from "@tinyagents/harness";
import { z } from "zod";
import {
  DELTA,
  echoedValue,
  nextStep,
  PROMPT,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  USAGE,
  yieldTurn,
} from "../lib/script.mjs";

export const info = { name: "tinyagents" };

const usage = { ...USAGE, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

/** A ChatModel that plays the script (`invoke`) or streams `deltas` pieces of text (`stream`). */
export function scriptedModel({ steps = 1, yieldEachCall = false, deltas = 0, counters }) {
  return {
    provider: "bench",
    modelId: "scripted",
    async invoke(request) {
      counters.model++;
      if (yieldEachCall) await yieldTurn();
      const last = request.messages[request.messages.length - 1];
      const next = nextStep(steps, last.role === "tool" ? echoedValue(last.content[0].text) : 0);
      if (next.call === undefined) {
        return {
          message: { role: "assistant", content: [{ type: "text", text: next.text }], toolCalls: [] },
          usage,
          finishReason: "stop",
        };
      }
      const call = { id: `call_${next.call}`, name: TOOL_NAME, arguments: { n: next.call } };
      return {
        message: { role: "assistant", content: [], toolCalls: [call] },
        usage,
        finishReason: "tool_calls",
      };
    },
    async *stream() {
      counters.model++;
      yield { type: "start" };
      for (let i = 0; i < deltas; i++) yield { type: "text_delta", text: DELTA };
      yield { type: "usage", usage };
      yield { type: "finish", finishReason: "stop" };
    },
  };
}

/** The echo tool: async like every other framework's, or sync for the labelled variant. */
export function echoTool(counters, { sync = false } = {}) {
  return tool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    inputSchema: z.object({ n: z.number() }),
    execute: sync
      ? ({ n }) => {
          counters.tool++;
          return String(n);
        }
      : async ({ n }) => {
          counters.tool++;
          return String(n);
        },
  });
}

/** A harness whose call caps leave room for `steps` model calls. */
export function scriptedHarness(model, counters, steps, { syncTool = false } = {}) {
  return new AgentHarness({ policy: { limits: { maxModelCalls: steps + 1, maxToolCalls: steps + 1 } } })
    .registerModel("bench", model)
    .registerTool(echoTool(counters, { sync: syncTool }));
}

/** The final answer of a finished run (an AgentRun). */
export const loopText = runText;

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const harness = scriptedHarness(scriptedModel({ steps, yieldEachCall, counters }), counters, steps);
  return function run() {
    return harness.invokeDefault(undefined, PROMPT);
  };
}

/** Consume a streaming run: count `model.text_delta` events, return the final text. */
export async function consumeStream(items) {
  let received = 0;
  let text;
  for await (const item of items) {
    if (item.type === "event") {
      if (item.record.event.type === "model.text_delta") received++;
    } else if (item.type === "completed") text = runText(item.run);
    else throw item.error;
  }
  return { received, text };
}

export function createStream({ deltas, counters }) {
  const harness = scriptedHarness(scriptedModel({ deltas, counters }), counters, 1);
  return function run() {
    return consumeStream(harness.invokeStreamingDefault(undefined, PROMPT));
  };
}
