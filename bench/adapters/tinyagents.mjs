// tinyagents, default settings, through the front door users are told to use: a ChatModel object
// (invoke + stream) as the fake model and the same async zod-schema tool every framework gets,
// `createAgent({ model, tools, policy })` and `agent.run(prompt)` / `agent.stream(prompt)`.
// (`tinyagents-sync-tool` is the labelled sync-tool variant.)
import { createAgent, runText, tool } from "@tinyagents/harness";
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

/** An agent (`createAgent`) whose call caps leave room for `steps` model calls. */
export function scriptedAgent(model, counters, steps, { syncTool = false, middleware = [] } = {}) {
  return createAgent({
    model,
    modelName: "bench",
    tools: [echoTool(counters, { sync: syncTool })],
    middleware,
    policy: { limits: { maxModelCalls: steps + 1, maxToolCalls: steps + 1 } },
  });
}

/** The final answer of a finished run (a RunResult). */
export const loopText = (result) => result.text;

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const agent = scriptedAgent(scriptedModel({ steps, yieldEachCall, counters }), counters, steps);
  return function run() {
    return agent.run(PROMPT);
  };
}

/**
 * Consume `agent.stream(...)` (or the internal lower layer's stream, whose `completed` item carries
 * the run instead of a result): count `model.text_delta` events, return the final text.
 */
export async function consumeStream(stream) {
  let received = 0;
  let text;
  for await (const item of stream) {
    if (item.type === "event") {
      if (item.record.event.type === "model.text_delta") received++;
    } else if (item.type === "completed")
      text = item.result === undefined ? runText(item.run) : item.result.text;
    else throw item.error;
  }
  return { received, text };
}

export function createStream({ deltas, counters }) {
  const agent = scriptedAgent(scriptedModel({ deltas, counters }), counters, 1);
  return function run() {
    return consumeStream(agent.stream(PROMPT));
  };
}
