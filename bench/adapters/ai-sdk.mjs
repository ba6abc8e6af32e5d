// Vercel AI SDK (`ai` 7, the newest the registry serves; it declares engines node >= 22 but runs
// on Node 20 for everything used here — the quick run checks it): a LanguageModelV4 object as the
// fake model (the spec object `ai/test`'s mock model builds, minus its per-call recording, which
// would grow without bound over thousands of runs; a v3 object would pay ai 7's v3-to-v4 proxy), a zod `tool()`, and
// generateText / streamText with `stopWhen: stepCountIs(S + 1)`.
import { generateText, stepCountIs, streamText, tool } from "ai";
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

export const info = { name: "ai-sdk" };

const usage = {
  inputTokens: { total: USAGE.inputTokens, noCache: USAGE.inputTokens, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: USAGE.outputTokens, text: USAGE.outputTokens, reasoning: 0 },
};
const stop = { unified: "stop", raw: "stop" };
const toolCalls = { unified: "tool-calls", raw: "tool_calls" };

/** The value the last tool result in the prompt carried (0 before any tool ran). */
function lastEchoed(prompt) {
  const last = prompt[prompt.length - 1];
  if (last.role !== "tool") return 0;
  const output = last.content[last.content.length - 1].output;
  return echoedValue(output.value);
}

function scriptedModel({ steps = 1, yieldEachCall = false, deltas = 0, counters }) {
  return {
    specificationVersion: "v4",
    provider: "bench",
    modelId: "scripted",
    supportedUrls: {},
    async doGenerate(options) {
      counters.model++;
      if (yieldEachCall) await yieldTurn();
      const next = nextStep(steps, lastEchoed(options.prompt));
      if (next.call === undefined) {
        return { content: [{ type: "text", text: next.text }], finishReason: stop, usage, warnings: [] };
      }
      const call = {
        type: "tool-call",
        toolCallId: `call_${next.call}`,
        toolName: TOOL_NAME,
        input: JSON.stringify({ n: next.call }),
      };
      return { content: [call], finishReason: toolCalls, usage, warnings: [] };
    },
    async doStream() {
      counters.model++;
      let i = -1;
      const stream = new ReadableStream({
        pull(controller) {
          if (i === -1) {
            controller.enqueue({ type: "stream-start", warnings: [] });
            controller.enqueue({ type: "text-start", id: "t0" });
          } else if (i < deltas) {
            controller.enqueue({ type: "text-delta", id: "t0", delta: DELTA });
          } else {
            controller.enqueue({ type: "text-end", id: "t0" });
            controller.enqueue({ type: "finish", finishReason: stop, usage });
            controller.close();
          }
          i++;
        },
      });
      return { stream };
    },
  };
}

function echoTool(counters) {
  return tool({
    description: TOOL_DESCRIPTION,
    inputSchema: z.object({ n: z.number() }),
    execute: async ({ n }) => {
      counters.tool++;
      return String(n);
    },
  });
}

/** The final answer of a finished run (a GenerateTextResult). */
export function loopText(result) {
  return result.text;
}

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const model = scriptedModel({ steps, yieldEachCall, counters });
  const tools = { [TOOL_NAME]: echoTool(counters) };
  const stopWhen = stepCountIs(steps + 1);
  return function run() {
    return generateText({ model, tools, stopWhen, prompt: PROMPT });
  };
}

export function createStream({ deltas, counters }) {
  const model = scriptedModel({ deltas, counters });
  const tools = { [TOOL_NAME]: echoTool(counters) };
  return async function run() {
    const result = streamText({ model, tools, prompt: PROMPT });
    let received = 0;
    for await (const _delta of result.textStream) received++;
    return { received, text: await result.text };
  };
}
