/**
 * Live checks against the real Anthropic API. They run only when ANTHROPIC_API_KEY is set and CI
 * is not, and they cost a few cents: `ANTHROPIC_API_KEY=... npx vitest run anthropic-live`.
 * ANTHROPIC_MODEL picks the model (default: the adapter's default).
 */
import { describe, expect, it } from "vitest";
import {
  AnthropicModel,
  collectStream,
  type Message,
  type ModelRequest,
  type ToolSchema,
  text,
  toolResult,
  user,
} from "../../src/index.js";

const live =
  process.env.ANTHROPIC_API_KEY !== undefined && process.env.ANTHROPIC_API_KEY !== "" && !process.env.CI;

const weather: ToolSchema = {
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

describe.runIf(live)("Anthropic live", () => {
  const model = () => new AnthropicModel({ maxTokens: 512 });

  it("answers a unary request with text and usage", async () => {
    const response = await model().invoke({ messages: [user("Reply with exactly the word: pong")] });
    expect(text(response.message).toLowerCase()).toContain("pong");
    expect(response.usage?.inputTokens).toBeGreaterThan(0);
    expect(response.finishReason).toBe("stop");
  }, 60_000);

  it("streams a tool call and accepts the tool result on the next turn", async () => {
    const messages: Message[] = [user("What's the weather in Paris? Use the tool.")];
    const request: ModelRequest = { messages, tools: [weather], toolChoice: "required" };
    const first = await collectStream(model().stream(request), { provider: "anthropic" });
    expect(first.finishReason).toBe("tool_calls");
    const call = first.message.toolCalls[0]!;
    expect(call.name).toBe("get_weather");
    expect(String(call.arguments.city)).toMatch(/paris/i);
    messages.push(first.message, toolResult(call, "18°C and cloudy"));
    const second = await model().invoke({ messages, tools: [weather] });
    expect(text(second.message)).toMatch(/18/);
  }, 90_000);

  it("round-trips signed thinking blocks through a tool loop", async () => {
    const messages: Message[] = [
      user("Use the tool to get the weather in Oslo, then tell me if I need a coat."),
    ];
    const request = (): ModelRequest => ({
      messages,
      tools: [weather],
      reasoning: { budgetTokens: 1024 },
      maxTokens: 2048,
    });
    const first = await collectStream(model().stream(request()), { provider: "anthropic" });
    const reasoning = first.message.content.find((b) => b.type === "reasoning");
    expect(reasoning?.type === "reasoning" && reasoning.signature !== undefined).toBe(true);
    const call = first.message.toolCalls[0]!;
    messages.push(first.message, toolResult(call, "-3°C, windy"));
    const second = await model().invoke(request());
    expect(text(second.message).length).toBeGreaterThan(0);
  }, 120_000);
});
