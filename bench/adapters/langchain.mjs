// LangChain.js v1: createAgent (a compiled LangGraph) over a custom chat model written the
// documented way (subclass BaseChatModel: `_generate`, `_streamResponseChunks`, and `bindTools`
// converting tools to OpenAI format the way ChatOpenAI does), and a zod `tool()`. The packaged
// fakes (fakeModel(), FakeToolCallingModel) copy or join the whole transcript on every call, which
// would charge LangChain for its test helper, so they are not used.

import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, ToolMessage } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { createAgent, tool } from "langchain";
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

export const info = { name: "langchain" };

const usage_metadata = {
  input_tokens: USAGE.inputTokens,
  output_tokens: USAGE.outputTokens,
  total_tokens: USAGE.totalTokens,
};

class ScriptedChatModel extends BaseChatModel {
  constructor(script) {
    super({});
    this.script = script;
  }

  _llmType() {
    return "scripted";
  }

  bindTools(tools, kwargs) {
    return this.withConfig({ tools: tools.map((t) => convertToOpenAITool(t)), ...kwargs });
  }

  async _generate(messages) {
    const { steps, yieldEachCall, counters } = this.script;
    counters.model++;
    if (yieldEachCall) await yieldTurn();
    const last = messages[messages.length - 1];
    const next = nextStep(steps, ToolMessage.isInstance(last) ? echoedValue(last.content) : 0);
    const message =
      next.call === undefined
        ? new AIMessage({ content: next.text, usage_metadata })
        : new AIMessage({
            content: "",
            tool_calls: [
              { id: `call_${next.call}`, name: TOOL_NAME, args: { n: next.call }, type: "tool_call" },
            ],
            usage_metadata,
          });
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }

  async *_streamResponseChunks(_messages, options, runManager) {
    const { deltas, counters } = this.script;
    counters.model++;
    for (let i = 0; i < deltas; i++) {
      const chunk = new ChatGenerationChunk({ message: new AIMessageChunk({ content: DELTA }), text: DELTA });
      if (options.signal?.aborted) break;
      yield chunk;
      await runManager?.handleLLMNewToken(DELTA, undefined, undefined, undefined, undefined, { chunk });
    }
    yield new ChatGenerationChunk({ message: new AIMessageChunk({ content: "", usage_metadata }), text: "" });
  }
}

function echoTool(counters) {
  return tool(
    async ({ n }) => {
      counters.tool++;
      return String(n);
    },
    { name: TOOL_NAME, description: TOOL_DESCRIPTION, schema: z.object({ n: z.number() }) },
  );
}

/** The final answer of a finished run (the agent's final state). */
export function loopText(state) {
  return state.messages[state.messages.length - 1].content;
}

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const model = new ScriptedChatModel({ steps, yieldEachCall, counters });
  const agent = createAgent({ model, tools: [echoTool(counters)] });
  // Each step is two graph super-steps (model node, tools node); the default limit is 25.
  const config = { recursionLimit: 2 * steps + 10 };
  return function run() {
    return agent.invoke({ messages: [{ role: "user", content: PROMPT }] }, config);
  };
}

export function createStream({ deltas, counters }) {
  const model = new ScriptedChatModel({ deltas, counters });
  const agent = createAgent({ model, tools: [echoTool(counters)] });
  return async function run() {
    const stream = await agent.stream(
      { messages: [{ role: "user", content: PROMPT }] },
      { streamMode: ["messages", "values"] },
    );
    let received = 0;
    let state;
    for await (const [mode, payload] of stream) {
      if (mode === "values") state = payload;
      else if (payload[0].content !== "") received++;
    }
    return { received, text: state.messages[state.messages.length - 1].content };
  };
}
