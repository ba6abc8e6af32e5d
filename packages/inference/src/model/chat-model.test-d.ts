import { describe, expectTypeOf, it } from "vitest";
import type { ChatModel, ModelCallOptions } from "./chat-model.js";
import type { ModelRequest } from "./model-request.js";
import type { ModelResponse } from "./model-response.js";
import { streamModel } from "./stream-from-response.js";
import type { ModelStreamItem } from "./stream-item.js";

describe("ChatModel", () => {
  it("is implementable with only provider, modelId and invoke", () => {
    const model = {
      provider: "custom",
      modelId: "m1",
      async invoke(_request: ModelRequest): Promise<ModelResponse> {
        return { message: { role: "assistant", content: [], toolCalls: [] } };
      },
    };
    expectTypeOf(model).toMatchTypeOf<ChatModel>();
    expectTypeOf(streamModel(model, { messages: [] })).toEqualTypeOf<AsyncIterable<ModelStreamItem>>();
  });

  it("is implementable as a class with typed state", () => {
    class StatefulModel implements ChatModel<{ userId: string }> {
      readonly provider = "custom";
      readonly modelId = "m2";
      async invoke(
        _request: ModelRequest,
        options?: ModelCallOptions<{ userId: string }>,
      ): Promise<ModelResponse> {
        expectTypeOf(options?.state).toEqualTypeOf<{ userId: string } | undefined>();
        return { message: { role: "assistant", content: [], toolCalls: [] } };
      }
      async *stream(): AsyncGenerator<ModelStreamItem> {
        yield { type: "text_delta", text: "x" };
      }
    }
    expectTypeOf<StatefulModel>().toMatchTypeOf<ChatModel<{ userId: string }>>();
  });

  it("rejects models missing the contract", () => {
    expectTypeOf<{ provider: string; modelId: string }>().not.toMatchTypeOf<ChatModel>();
    expectTypeOf<{ provider: string; invoke: ChatModel["invoke"] }>().not.toMatchTypeOf<ChatModel>();
  });
});
