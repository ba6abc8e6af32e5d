import {
  assistant,
  type ChatModel,
  defaultTokenCounter,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamItem,
  responseToStreamItems,
  text,
  toolCall,
  usage,
} from "@tinyagents/inference";

/**
 * The offline demo model. It is NOT a language model: it follows a fixed two-step plan
 * (ask the `add` tool to sum the numbers in the prompt, then report the tool's answer) so the
 * demo shows a real tool loop, streaming and accounting without a network or an API key.
 */
export class DemoModel implements ChatModel {
  readonly provider = "demo";
  readonly modelId = "offline-demo";
  private calls = 0;

  async invoke(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    options.signal?.throwIfAborted();
    this.calls++;
    const last = request.messages.at(-1);
    const message =
      last?.role === "tool"
        ? assistant(
            `The sum is ${text(last)}. (This answer came from the offline demo model and the add tool.)`,
          )
        : assistant("Let me add those numbers with the add tool.", [
            toolCall(`demo-call-${this.calls}`, "add", { numbers: numbersIn(text(last)) }),
          ]);
    const input = defaultTokenCounter.countMessages(request.messages);
    const output = defaultTokenCounter.countText(text(message)) + 10 * message.toolCalls.length;
    return {
      message,
      usage: usage({ inputTokens: input, outputTokens: output }),
      finishReason: message.toolCalls.length > 0 ? "tool_calls" : "stop",
    };
  }

  async *stream(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<ModelStreamItem> {
    const response = await this.invoke(request, options);
    for (const item of responseToStreamItems(response)) {
      if (item.type !== "text_delta") {
        yield item;
        continue;
      }
      // Word by word, so the terminal shows text arriving as it would from a real model.
      for (const piece of item.text.split(/(?<= )/)) {
        await new Promise((resolve) => setTimeout(resolve, 15));
        yield { type: "text_delta", text: piece };
      }
    }
  }
}

function numbersIn(prompt: string): number[] {
  const found = prompt.match(/-?\d+(?:\.\d+)?/g)?.map(Number) ?? [];
  return found.length > 0 ? found : [2, 3];
}
