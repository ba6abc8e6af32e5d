/**
 * Live checks against a local Ollama server. They run only with OLLAMA_LIVE=1 (and not in CI):
 * `OLLAMA_LIVE=1 OLLAMA_MODEL=qwen3:8b npx vitest run ollama-live`. OLLAMA_HOST picks the server.
 */
import { describe, expect, it } from "vitest";
import { collectStream, OllamaModel, type ToolSchema, text, user } from "../../src/index.js";

const live = process.env.OLLAMA_LIVE === "1" && !process.env.CI;

describe.runIf(live)("Ollama live", () => {
  const model = () => new OllamaModel();

  it("answers unary and streamed requests with text and usage", async () => {
    const request = { messages: [user("Reply with exactly the word: pong")], temperature: 0 };
    const unary = await model().invoke(request);
    expect(text(unary.message).toLowerCase()).toContain("pong");
    expect(unary.usage?.outputTokens).toBeGreaterThan(0);
    const streamed = await collectStream(model().stream(request), { provider: "ollama" });
    expect(text(streamed.message).toLowerCase()).toContain("pong");
  }, 180_000);

  it("calls a tool when the model supports tools", async () => {
    const weather: ToolSchema = {
      name: "get_weather",
      description: "Current weather for a city.",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    };
    const response = await collectStream(
      model().stream({ messages: [user("What's the weather in Paris? Use the tool.")], tools: [weather] }),
      { provider: "ollama" },
    );
    expect(response.message.toolCalls[0]?.name).toBe("get_weather");
    expect(response.message.toolCalls[0]?.id).toMatch(/^call_/);
  }, 180_000);
});
