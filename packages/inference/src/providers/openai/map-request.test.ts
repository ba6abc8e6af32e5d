import { describe, expect, it } from "vitest";
import { assistant, system, toolResult, user } from "../../message/constructors.js";
import type { ModelRequest } from "../../model/model-request.js";
import { mapRequest } from "./map-request.js";
import { COMPATIBLE_QUIRKS, mergeQuirks, OPENAI_QUIRKS, type OpenAiQuirks } from "./quirks.js";

const weather = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" }, unit: { type: "string" } },
    required: ["city"],
  },
};

function body(
  request: ModelRequest,
  modelId = "gpt-4.1-mini",
  quirks: Partial<OpenAiQuirks> = {},
  stream = false,
) {
  return mapRequest(request, {
    provider: "openai",
    modelId,
    quirks: mergeQuirks(OPENAI_QUIRKS, quirks),
    stream,
  });
}

describe("mapRequest", () => {
  it("maps every field of a full request exactly", () => {
    const request: ModelRequest = {
      messages: [
        system("Be brief."),
        user([
          { type: "text", text: "What is in this picture, and the weather?" },
          { type: "image", source: { kind: "base64", data: "AAAA", mimeType: "image/png" }, detail: "low" },
          { type: "image", source: { kind: "url", url: "https://example.com/a.jpg" } },
        ]),
        assistant("", [{ id: "call_1", name: "get_weather", arguments: { city: "Paris" } }]),
        toolResult({ id: "call_1", name: "get_weather" }, "18C"),
        toolResult({ id: "call_2", name: "get_weather" }, "boom", { isError: true }),
        assistant("Done."),
      ],
      tools: [weather, { ...weather, name: "strict_weather", strict: true }],
      toolChoice: { type: "tool", name: "get_weather" },
      parallelToolCalls: false,
      responseFormat: {
        type: "json_schema",
        name: "answer.v1",
        schema: { type: "object", properties: { a: { type: "string" } } },
      },
      temperature: 0.2,
      topP: 0.9,
      maxTokens: 512,
      stop: ["END"],
      seed: 7,
      reasoning: { effort: "low" },
      promptCache: { enabled: true, key: "tenant-42" },
      providerOptions: { temperature: 1.5, user: "u-1", service_tier: "flex" },
      metadata: { ignored: true },
      tags: ["ignored"],
    };
    expect(body(request, "gpt-4.1-mini", {}, true)).toEqual({
      temperature: 0.2,
      user: "u-1",
      service_tier: "flex",
      model: "gpt-4.1-mini",
      messages: [
        { role: "developer", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture, and the weather?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "low" } },
            { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
          ],
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "18C" },
        { role: "tool", tool_call_id: "call_2", content: "Error: boom" },
        { role: "assistant", content: "Done." },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Weather for a city",
            parameters: weather.parameters,
          },
        },
        {
          type: "function",
          function: {
            name: "strict_weather",
            description: "Weather for a city",
            parameters: {
              type: "object",
              properties: { city: { type: "string" }, unit: { type: ["string", "null"] } },
              required: ["city", "unit"],
              additionalProperties: false,
            },
            strict: true,
          },
        },
      ],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      parallel_tool_calls: false,
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "answer_v1",
          schema: {
            type: "object",
            properties: { a: { type: ["string", "null"] } },
            required: ["a"],
            additionalProperties: false,
          },
          strict: true,
        },
      },
      max_completion_tokens: 512,
      top_p: 0.9,
      stop: ["END"],
      seed: 7,
      reasoning_effort: "low",
      prompt_cache_key: "tenant-42",
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("reasoning families: developer role, max_completion_tokens, no temperature/top_p", () => {
    const sent = body(
      { messages: [system("x"), user("y")], temperature: 0.3, topP: 0.5, maxTokens: 100 },
      "o3-mini",
    );
    expect(sent).toEqual({
      model: "o3-mini",
      messages: [
        { role: "developer", content: "x" },
        { role: "user", content: "y" },
      ],
      max_completion_tokens: 100,
    });
    expect(body({ messages: [system("x")] }, "gpt-5-mini").messages).toEqual([
      { role: "developer", content: "x" },
    ]);
    // gpt-5-chat is not a reasoning model (sampling is kept) but takes the current fields.
    expect(
      body({ messages: [system("x")], temperature: 1, maxTokens: 9 }, "gpt-5-chat-latest"),
    ).toMatchObject({
      messages: [{ role: "developer", content: "x" }],
      temperature: 1,
      max_completion_tokens: 9,
    });
  });

  it("current OpenAI families get developer and max_completion_tokens; legacy ids keep system and max_tokens", () => {
    for (const id of [
      "gpt-4o",
      "gpt-4o-mini-2024-07-18",
      "gpt-4.1-nano",
      "ft:gpt-4o-mini:acme::abc",
      "openai/gpt-4.1",
    ]) {
      const sent = body({ messages: [system("x"), user("y")], maxTokens: 5, temperature: 0.5 }, id);
      expect(sent, id).toMatchObject({
        messages: [{ role: "developer" }, { role: "user" }],
        max_completion_tokens: 5,
      });
      expect(sent.max_tokens, id).toBeUndefined();
      expect(sent.temperature, id).toBe(0.5);
    }
    for (const id of ["gpt-3.5-turbo", "gpt-4", "gpt-4-turbo-2024-04-09", "gpt-4-0613", "gpt-40x"]) {
      const sent = body({ messages: [system("x")], maxTokens: 5 }, id);
      expect(sent, id).toMatchObject({ messages: [{ role: "system" }], max_tokens: 5 });
      expect(sent.max_completion_tokens, id).toBeUndefined();
    }
  });

  it("json_object, no tools -> no tool fields, unary has no stream fields even if providerOptions set them", () => {
    expect(
      body({
        messages: [user("hi")],
        responseFormat: { type: "json_object" },
        providerOptions: { stream: true, tool_choice: "auto" },
      }),
    ).toEqual({
      model: "gpt-4.1-mini",
      messages: [{ role: "user", content: "hi" }],
      tool_choice: "auto",
      response_format: { type: "json_object" },
    });
    expect(body({ messages: [user("hi")], responseFormat: { type: "text" } })).toEqual({
      model: "gpt-4.1-mini",
      messages: [{ role: "user", content: "hi" }],
    });
  });

  it("compatible servers: system role, max_tokens, non-strict schemas when unsupported, no prompt_cache_key", () => {
    const sent = mapRequest(
      {
        messages: [system("s"), user("u")],
        maxTokens: 10,
        promptCache: { enabled: true, key: "k" },
        responseFormat: { type: "json_schema", name: "x", schema: { type: "object" } },
      },
      {
        provider: "ollama",
        modelId: "qwen3",
        quirks: mergeQuirks(COMPATIBLE_QUIRKS, { strictSchemas: false }),
        stream: true,
      },
    );
    expect(sent).toEqual({
      model: "qwen3",
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "u" },
      ],
      response_format: {
        type: "json_schema",
        json_schema: { name: "x", schema: { type: "object" }, strict: false },
      },
      max_tokens: 10,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("Mistral: 9-character tool call ids, rewritten identically on call and result; no stream_options", () => {
    const sent = mapRequest(
      {
        messages: [
          user("go"),
          assistant("", [{ id: "call_abcdefghijklmnopqrstuvwx", name: "t", arguments: {} }]),
          toolResult({ id: "call_abcdefghijklmnopqrstuvwx", name: "t" }, "ok"),
          assistant("", [{ id: "Ab3dE6gH9", name: "t", arguments: {} }]),
        ],
      },
      {
        provider: "mistral",
        modelId: "mistral-small-latest",
        quirks: mergeQuirks(COMPATIBLE_QUIRKS, { toolCallIds: "mistral9", streamOptions: false }),
        stream: true,
      },
    );
    const messages = sent.messages as Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    const first = messages[1]?.tool_calls?.[0]?.id;
    expect(first).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(messages[2]?.tool_call_id).toBe(first);
    expect(messages[3]?.tool_calls?.[0]?.id).toBe("Ab3dE6gH9");
    expect(sent.stream_options).toBeUndefined();
  });

  it("DeepSeek reasoning echo, tool-result images, invalid call arguments", () => {
    const sent = mapRequest(
      {
        messages: [
          user("q"),
          {
            role: "assistant",
            content: [
              { type: "reasoning", text: "thinking" },
              { type: "text", text: "a" },
            ],
            toolCalls: [{ id: "c1", name: "shot", arguments: {}, invalid: { raw: "{bad", error: "x" } }],
          },
          {
            role: "tool",
            toolCallId: "c1",
            toolName: "shot",
            isError: false,
            content: [
              { type: "text", text: "see image" },
              { type: "image", source: { kind: "url", url: "https://x/y.png" } },
            ],
          },
          assistant("b"),
        ],
      },
      {
        provider: "deepseek",
        modelId: "deepseek-chat",
        quirks: mergeQuirks(COMPATIBLE_QUIRKS, { reasoningEcho: "reasoning_content" }),
        stream: false,
      },
    );
    expect(sent.messages).toEqual([
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: "a",
        tool_calls: [{ id: "c1", type: "function", function: { name: "shot", arguments: "{}" } }],
        reasoning_content: "thinking",
      },
      { role: "tool", tool_call_id: "c1", content: "see image" },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by the tool calls above:" },
          { type: "image_url", image_url: { url: "https://x/y.png" } },
        ],
      },
      { role: "assistant", content: "b", reasoning_content: "" },
    ]);
  });

  it("rejects what it cannot map, with actionable messages", () => {
    expect(() =>
      body({ messages: [user("x")], tools: [weather], toolChoice: { type: "tool", name: "nope" } }),
    ).toThrow(/not among the request's tools/);
    expect(() => body({ messages: [user("x")], toolChoice: "required" })).toThrow(/needs tools/);
    expect(() =>
      body({
        messages: [{ role: "system", content: [{ type: "image", source: { kind: "url", url: "u" } }] }],
      }),
    ).toThrow(/move the image to a user message/);
    expect(() =>
      body({
        messages: [
          { role: "user", content: [{ type: "provider_extension", provider: "anthropic", value: {} }] },
        ],
      }),
    ).toThrow(/cannot be sent to openai/);
  });
});
