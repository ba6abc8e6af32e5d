import { describe, expectTypeOf, it } from "vitest";
import type { AnthropicModel } from "../providers/anthropic/anthropic-model.js";
import { createModel, fromEnv } from "../providers/create-model.js";
import type { MockModel } from "../providers/mock/mock-model.js";
import type { OllamaModel } from "../providers/ollama/ollama-model.js";
import type { OpenAiChatModel } from "../providers/openai/openai-chat-model.js";
import type { ChatModel, StreamingChatModel } from "./chat-model.js";
import type { ModelStreamItem } from "./stream-item.js";

// Issue 16: `stream` was optional on what the adapters return, so `createModel(...).stream(r)`
// was TS2722 ("possibly undefined"). Every built-in adapter and factory has it, required.
describe("StreamingChatModel", () => {
  it("is what every built-in adapter and factory returns, so stream() needs no guard", () => {
    const request = { messages: [] };
    expectTypeOf(createModel("openai:gpt-4.1-mini").stream(request)).toEqualTypeOf<
      AsyncIterable<ModelStreamItem>
    >();
    expectTypeOf(fromEnv()).toEqualTypeOf<StreamingChatModel>();
    expectTypeOf<OpenAiChatModel>().toMatchTypeOf<StreamingChatModel>();
    expectTypeOf<AnthropicModel>().toMatchTypeOf<StreamingChatModel>();
    expectTypeOf<OllamaModel>().toMatchTypeOf<StreamingChatModel>();
    expectTypeOf<MockModel>().toMatchTypeOf<StreamingChatModel>();
  });

  it("is a ChatModel; a ChatModel without stream is not a StreamingChatModel", () => {
    expectTypeOf<StreamingChatModel>().toMatchTypeOf<ChatModel>();
    expectTypeOf<Omit<ChatModel, "stream">>().not.toMatchTypeOf<StreamingChatModel>();
  });
});
