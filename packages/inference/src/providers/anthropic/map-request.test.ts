import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../../errors/tinyagents-error.js";
import { assistant, system, toolCall, toolResult, user } from "../../message/constructors.js";
import type { Message } from "../../message/message.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { ToolSchema } from "../../tool/tool-schema.js";
import {
  ANTHROPIC_JSON_OBJECT_INSTRUCTION,
  toAnthropicRequest,
  toAnthropicToolChoice,
} from "./map-request.js";

const settings = { model: "claude-sonnet-4-6", defaultMaxTokens: 4096, stream: false };
const body = (request: ModelRequest, stream = false) =>
  JSON.parse(JSON.stringify(toAnthropicRequest(request, { ...settings, stream })));

const weather: ToolSchema = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const time: ToolSchema = {
  name: "get_time",
  description: "",
  parameters: { type: "object", properties: {} },
  strict: true,
};

const SIGNATURE = "EqMBCkYIBhgCKkDk3Zq0v8Nn5yQm1rX2pL7cT9bW4sH6gJ0fA3eR8uY1iO5kV2nM7x==";

/** A tool loop turn: thinking + two parallel calls, both answered, then a follow-up question. */
function toolLoop(): Message[] {
  const weatherCall = toolCall("toolu_01A", "get_weather", { city: "Paris" });
  const timeCall = toolCall("toolu_01B", "get_time", {});
  return [
    system("You are terse."),
    system([{ type: "text", text: "Use tools when needed." }]),
    user("Weather in Paris and the time?"),
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Two independent lookups.", signature: SIGNATURE },
        { type: "redacted_reasoning", data: "EmwKAhgBEgy3va3pzix" },
        { type: "text", text: "Checking both." },
      ],
      toolCalls: [weatherCall, timeCall],
    },
    toolResult(weatherCall, "18°C, cloudy"),
    toolResult(timeCall, [{ type: "json", value: { error: "unknown timezone" } }], { isError: true }),
    user("Thanks. And tomorrow?"),
  ];
}

describe("toAnthropicRequest: messages", () => {
  it("maps a tool loop exactly: system blocks, thinking round trip, tool_use, merged tool results", () => {
    expect(body({ messages: toolLoop(), tools: [weather, time] })).toEqual({
      model: "claude-sonnet-4-6",
      max_tokens: 4096,
      system: [
        { type: "text", text: "You are terse." },
        { type: "text", text: "Use tools when needed." },
      ],
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather in Paris and the time?" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Two independent lookups.", signature: SIGNATURE },
            { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
            { type: "text", text: "Checking both." },
            { type: "tool_use", id: "toolu_01A", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "toolu_01B", name: "get_time", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_01A",
              content: [{ type: "text", text: "18°C, cloudy" }],
            },
            {
              type: "tool_result",
              tool_use_id: "toolu_01B",
              content: [{ type: "text", text: '{"error":"unknown timezone"}' }],
              is_error: true,
            },
            { type: "text", text: "Thanks. And tomorrow?" },
          ],
        },
      ],
      tools: [
        {
          name: "get_weather",
          description: "Current weather for a city",
          input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
        { name: "get_time", input_schema: { type: "object", properties: {} }, strict: true },
      ],
    });
  });

  it("merges consecutive same-role turns and keeps a later system message in place as user text", () => {
    const messages: Message[] = [
      user("one"),
      user([
        { type: "text", text: "two" },
        { type: "text", text: "" },
      ]),
      assistant("three"),
      assistant("four"),
      system("Now answer in French."),
      user("five"),
    ];
    expect(body({ messages }).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "three" },
          { type: "text", text: "four" },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Now answer in French." },
          { type: "text", text: "five" },
        ],
      },
    ]);
  });

  it("puts tool results before other user-turn blocks, drops unsigned reasoning and empty tool output", () => {
    const call = toolCall("toolu_9", "noop", {});
    const messages: Message[] = [
      user("go"),
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "from another provider" },
          // Signed by the OpenAI Responses adapter: item state Anthropic would reject as a signature.
          {
            type: "reasoning",
            text: "openai summary",
            signature: '{"type":"openai.responses.reasoning","id":"rs_1","encrypted_content":"gAAA"}',
          },
        ],
        toolCalls: [call],
      },
      system("(the user is waiting)"),
      toolResult(call, []),
    ];
    expect(body({ messages }).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_9", name: "noop", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_9" },
          { type: "text", text: "(the user is waiting)" },
        ],
      },
    ]);
  });

  it("maps images from base64, data: URLs and http URLs, and passes anthropic extension blocks", () => {
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "image", source: { kind: "base64", data: "iVBORw0KGgo=", mimeType: "image/png" } },
          { type: "image", source: { kind: "url", url: "data:image/jpeg;base64,/9j/4AAQ" } },
          { type: "image", source: { kind: "url", url: "https://example.com/cat.webp" } },
          {
            type: "provider_extension",
            provider: "anthropic",
            value: { type: "document", source: { type: "text", media_type: "text/plain", data: "doc" } },
          },
          { type: "provider_extension", provider: "openai", value: { type: "input_audio" } },
        ],
      },
    ];
    expect(body({ messages }).messages[0].content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.webp" } },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "doc" } },
    ]);
  });

  it("rejects images in the system prompt and non-base64 data URLs with a validation error", () => {
    const image = { type: "image" as const, source: { kind: "url" as const, url: "https://x/y.png" } };
    expect(() => body({ messages: [{ role: "system", content: [image] }, user("hi")] })).toThrow(
      /system prompt accepts only text/,
    );
    const bad = { type: "image" as const, source: { kind: "url" as const, url: "data:image/png,rawbytes" } };
    const error = (() => {
      try {
        body({ messages: [{ role: "user", content: [bad] }] });
      } catch (e) {
        return e;
      }
    })();
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
  });
});

describe("toAnthropicRequest: options", () => {
  it.each([
    [undefined, undefined, undefined],
    [undefined, false, { type: "auto", disable_parallel_tool_use: true }],
    ["auto", undefined, { type: "auto" }],
    ["required", undefined, { type: "any" }],
    ["required", false, { type: "any", disable_parallel_tool_use: true }],
    ["none", false, { type: "none" }],
    [
      { type: "tool", name: "get_weather" },
      false,
      { type: "tool", name: "get_weather", disable_parallel_tool_use: true },
    ],
  ] as const)("tool choice %j with parallelToolCalls %j -> %j", (choice, parallel, expected) => {
    expect(toAnthropicToolChoice(choice, parallel)).toEqual(expected);
  });

  it("sends tool_choice only together with tools", () => {
    expect(body({ messages: [user("hi")], toolChoice: "required" }).tool_choice).toBeUndefined();
    expect(body({ messages: [user("hi")], tools: [weather], toolChoice: "none" }).tool_choice).toEqual({
      type: "none",
    });
  });

  it("maps sampling, stop sequences, structured output and providerOptions (request fields win)", () => {
    expect(
      body(
        {
          messages: [user("hi")],
          temperature: 0.2,
          topP: 0.9,
          maxTokens: 300,
          stop: ["END"],
          seed: 7,
          responseFormat: { type: "json_schema", name: "person", schema: { type: "object" } },
          providerOptions: { max_tokens: 1, top_k: 5, metadata: { user_id: "u-1" } },
        },
        true,
      ),
    ).toEqual({
      model: "claude-sonnet-4-6",
      max_tokens: 300,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ["END"],
      output_config: { format: { type: "json_schema", schema: { type: "object" } } },
      top_k: 5,
      metadata: { user_id: "u-1" },
      stream: true,
    });
  });

  it("asks for a JSON object through an instruction appended to the system prompt", () => {
    const sent = body({
      messages: [system("Be brief."), user("hi")],
      responseFormat: { type: "json_object" },
    });
    expect(sent.system).toEqual([
      { type: "text", text: "Be brief." },
      { type: "text", text: ANTHROPIC_JSON_OBJECT_INSTRUCTION },
    ]);
    expect(sent.output_config).toBeUndefined();
  });

  it("turns on extended thinking, drops temperature/top_p and keeps max_tokens above the budget", () => {
    const sent = body({
      messages: [user("hi")],
      temperature: 0.3,
      topP: 0.5,
      reasoning: { budgetTokens: 8000, effort: "minimal" },
    });
    expect(sent.thinking).toEqual({ type: "enabled", budget_tokens: 8000 });
    expect(sent.max_tokens).toBe(8000 + 4096);
    expect(sent.temperature).toBeUndefined();
    expect(sent.top_p).toBeUndefined();
    expect(sent.output_config).toEqual({ effort: "low" });
    expect(
      body({ messages: [user("hi")], maxTokens: 9000, reasoning: { budgetTokens: 2048 } }).max_tokens,
    ).toBe(9000);
  });

  it("rejects thinking budgets the API would reject", () => {
    expect(() => body({ messages: [user("hi")], reasoning: { budgetTokens: 512 } })).toThrow(/>= 1024/);
    expect(() =>
      body({ messages: [user("hi")], maxTokens: 2000, reasoning: { budgetTokens: 2000 } }),
    ).toThrow(/must be greater than reasoning.budgetTokens/);
  });
});
