/**
 * Any AI SDK provider as a tinyagents model: `fromAiSdk(google("gemini-2.5-flash"))`.
 * Run: npx tsx examples/from-ai-sdk.ts
 *
 * Offline: a tiny local server answers in Gemini's own wire format (a function call, then the
 * answer), and the real `@ai-sdk/google` package talks to it. With a key, drop the server and
 * the baseURL: `fromAiSdk(google("gemini-2.5-flash"))` with GOOGLE_GENERATIVE_AI_API_KEY set.
 * Works the same with @ai-sdk/anthropic, @ai-sdk/amazon-bedrock, @ai-sdk/azure, ... (2.x and 3.x).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createAgent, formatTotalTokens, tool } from "@tinyagents/harness";
import { fromAiSdk } from "@tinyagents/inference/ai-sdk";
import { z } from "zod";

// Two Gemini replies, as the chunks the API streams: first a functionCall, then the answer.
interface Part {
  text?: string;
  functionCall?: { name: string; args: Record<string, unknown> };
}
interface Chunk {
  candidates: Array<{ content: { role: string; parts: Part[] }; finishReason?: string }>;
  usageMetadata?: Record<string, number>;
}
const replies: Chunk[][] = [
  [
    {
      candidates: [
        {
          content: {
            role: "model",
            parts: [{ functionCall: { name: "get_weather", args: { city: "Lisbon" } } }],
          },
          finishReason: "STOP",
        },
      ],
      usageMetadata: { promptTokenCount: 61, candidatesTokenCount: 7, totalTokenCount: 68 },
    },
  ],
  [
    { candidates: [{ content: { role: "model", parts: [{ text: "Lisbon is sunny " }] } }] },
    {
      candidates: [{ content: { role: "model", parts: [{ text: "at 21 °C." }] }, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 92, candidatesTokenCount: 9, totalTokenCount: 101 },
    },
  ],
];
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const chunks = replies.shift() ?? [];
    if (req.url?.includes(":streamGenerateContent") === true) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join(""));
      return;
    }
    // generateContent: the same reply as one JSON body (the texts joined, the last chunk's usage).
    const parts = chunks.flatMap((chunk) => chunk.candidates[0]?.content.parts ?? []);
    const text = parts.map((part) => part.text ?? "").join("");
    const last = chunks.at(-1);
    const body = {
      ...last,
      candidates: [
        { ...last?.candidates[0], content: { role: "model", parts: text === "" ? parts : [{ text }] } },
      ],
    };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1beta`;

const google = createGoogleGenerativeAI({ baseURL, apiKey: "offline-demo-key" });
const model = fromAiSdk(google("gemini-2.5-flash"));

const weather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: "sunny", celsius: 21 }),
});

const agent = createAgent({
  model,
  modelName: "gemini",
  tools: [weather],
  instructions: "Use tools for facts.",
});
const run = await agent.run("What is the weather in Lisbon?");
server.close();

for (const message of run.messages) {
  if (message.role === "assistant")
    for (const call of message.toolCalls) console.log(`tool ${call.name}: ${JSON.stringify(call.arguments)}`);
}
console.log(run.text);
console.log(
  `provider: ${model.provider}, model calls: ${run.modelCalls}, tokens: ${formatTotalTokens(run.usage)}`,
);
