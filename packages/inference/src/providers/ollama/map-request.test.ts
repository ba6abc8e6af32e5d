import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../../errors/tinyagents-error.js";
import { assistant, system, toolCall, toolResult, user } from "../../message/constructors.js";
import type { Message } from "../../message/message.js";
import type { ModelRequest } from "../../model/model-request.js";
import { ollamaBaseUrlFromHost } from "./host.js";
import { type OllamaRequestSettings, toOllamaRequest } from "./map-request.js";

const body = (request: ModelRequest, settings: Partial<OllamaRequestSettings> = {}) =>
  JSON.parse(JSON.stringify(toOllamaRequest(request, { model: "qwen3:8b", stream: false, ...settings })));

describe("toOllamaRequest", () => {
  it("maps a tool loop exactly: images, thinking, tool calls with object arguments, tool results", () => {
    const call = toolCall("call_k3v9x2qa", "get_weather", { city: "Oslo" });
    const messages: Message[] = [
      system("You are terse."),
      {
        role: "user",
        content: [
          { type: "text", text: "What is in this picture," },
          { type: "text", text: "and the weather?" },
          { type: "image", source: { kind: "base64", data: "iVBORw0KGgo=", mimeType: "image/png" } },
          { type: "image", source: { kind: "url", url: "data:image/jpeg;base64,/9j/4AAQ" } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Look, then call the tool." },
          { type: "text", text: "A cat." },
        ],
        toolCalls: [call],
      },
      toolResult(call, [{ type: "json", value: { temp: 4 } }]),
    ];
    expect(body({ messages }, { stream: true })).toEqual({
      model: "qwen3:8b",
      stream: true,
      messages: [
        { role: "system", content: "You are terse." },
        {
          role: "user",
          content: "What is in this picture,\nand the weather?",
          images: ["iVBORw0KGgo=", "/9j/4AAQ"],
        },
        {
          role: "assistant",
          content: "A cat.",
          thinking: "Look, then call the tool.",
          tool_calls: [
            { id: "call_k3v9x2qa", function: { name: "get_weather", arguments: { city: "Oslo" } } },
          ],
        },
        { role: "tool", content: '{"temp":4}', tool_name: "get_weather", tool_call_id: "call_k3v9x2qa" },
      ],
    });
  });

  it("maps tools, options, format, think and keep_alive; request fields win over providerOptions", () => {
    expect(
      body(
        {
          messages: [user("hi")],
          tools: [{ name: "f", description: "does f", parameters: { type: "object" } }],
          temperature: 0.1,
          topP: 0.8,
          seed: 42,
          maxTokens: 256,
          stop: ["</end>"],
          responseFormat: { type: "json_schema", name: "x", schema: { type: "object", required: ["a"] } },
          reasoning: { effort: "high" },
          providerOptions: {
            options: { num_ctx: 16384, temperature: 0.9 },
            keep_alive: "1h",
            truncate: false,
          },
        },
        { keepAlive: "10m", options: { num_ctx: 8192, top_k: 20 } },
      ),
    ).toEqual({
      model: "qwen3:8b",
      stream: false,
      messages: [{ role: "user", content: "hi" }],
      tools: [
        { type: "function", function: { name: "f", description: "does f", parameters: { type: "object" } } },
      ],
      format: { type: "object", required: ["a"] },
      options: {
        num_ctx: 16384,
        top_k: 20,
        temperature: 0.1,
        top_p: 0.8,
        seed: 42,
        num_predict: 256,
        stop: ["</end>"],
      },
      think: "high",
      keep_alive: "1h",
      truncate: false,
    });
  });

  it("uses format json for json_object, think true without an effort, and drops tools for toolChoice none", () => {
    const sent = body(
      {
        messages: [assistant("x")],
        tools: [{ name: "f", description: "", parameters: { type: "object" } }],
        toolChoice: "none",
        responseFormat: { type: "json_object" },
        reasoning: { budgetTokens: 2000 },
      },
      { keepAlive: 0 },
    );
    expect(sent).toEqual({
      model: "qwen3:8b",
      stream: false,
      messages: [{ role: "assistant", content: "x" }],
      format: "json",
      think: true,
      keep_alive: 0,
    });
    expect(body({ messages: [user("x")], reasoning: { effort: "minimal" } }).think).toBe("low");
  });

  it("rejects http image URLs with a validation error that says what to do", () => {
    let error: unknown;
    try {
      body({
        messages: [
          { role: "user", content: [{ type: "image", source: { kind: "url", url: "https://x/y.png" } }] },
        ],
      });
    } catch (e) {
      error = e;
    }
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    expect((error as Error).message).toMatch(/only inline base64 images.*download the image/);
  });
});

describe("ollamaBaseUrlFromHost", () => {
  it.each([
    [undefined, "http://127.0.0.1:11434"],
    ["", "http://127.0.0.1:11434"],
    ["0.0.0.0", "http://0.0.0.0:11434"],
    ["127.0.0.1:8080", "http://127.0.0.1:8080"],
    [":9000", "http://127.0.0.1:9000"],
    ["http://gpu-box", "http://gpu-box:80"],
    ["https://ollama.example.com/", "https://ollama.example.com:443"],
    ["https://ollama.example.com:8443/proxy/", "https://ollama.example.com:8443/proxy"],
    ["[::1]:11500", "http://[::1]:11500"],
    ["[::1]", "http://[::1]:11434"],
  ])("%j -> %s", (host, url) => {
    expect(ollamaBaseUrlFromHost(host)).toBe(url);
  });
});
