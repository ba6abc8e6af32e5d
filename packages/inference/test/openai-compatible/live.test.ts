/**
 * Live tests against real hosted APIs. Each block runs only when its API-key variable is set,
 * so CI (which has no keys) skips them and they never fail without keys. They cost a few tokens.
 */
import { describe, expect, it } from "vitest";
import { text } from "../../src/message/constructors.js";
import type { ModelRequest } from "../../src/model/model-request.js";
import { StreamAccumulator } from "../../src/model/stream-accumulator.js";
import { fromPreset, type PresetName } from "../../src/providers/openai/presets.js";

const LIVE: Array<[PresetName, string]> = [
  ["openai", "OPENAI_API_KEY"],
  ["deepseek", "DEEPSEEK_API_KEY"],
  ["groq", "GROQ_API_KEY"],
  ["xai", "XAI_API_KEY"],
  ["mistral", "MISTRAL_API_KEY"],
  ["openrouter", "OPENROUTER_API_KEY"],
  ["together", "TOGETHER_API_KEY"],
];

const weather = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

for (const [preset, variable] of LIVE) {
  describe.runIf(
    process.env[variable] !== undefined && process.env[variable] !== "" && process.env.CI !== "true",
  )(`live ${preset} (${variable})`, () => {
    const model = () => fromPreset(preset);
    const ask: ModelRequest = {
      messages: [{ role: "user", content: [{ type: "text", text: "Reply with the word OK." }] }],
      maxTokens: 20,
    };

    it("answers unary and streamed, with usage", async () => {
      const unary = await model().invoke(ask);
      expect(text(unary.message).length).toBeGreaterThan(0);
      expect(unary.usage?.inputTokens).toBeGreaterThan(0);
      const accumulator = new StreamAccumulator();
      for await (const item of model().stream(ask)) accumulator.push(item);
      const streamed = accumulator.finish();
      expect(text(streamed.message).length).toBeGreaterThan(0);
      expect(streamed.usage?.outputTokens).toBeGreaterThan(0);
    }, 60_000);

    it("makes a tool call when required", async () => {
      const response = await model().invoke({
        messages: [{ role: "user", content: [{ type: "text", text: "What's the weather in Paris?" }] }],
        tools: [weather],
        toolChoice: "required",
        maxTokens: 200,
      });
      expect(response.message.toolCalls[0]?.name).toBe("get_weather");
      expect(response.message.toolCalls[0]?.invalid).toBeUndefined();
    }, 60_000);
  });
}
