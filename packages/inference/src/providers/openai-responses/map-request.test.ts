import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../../errors/tinyagents-error.js";
import type { JsonValue } from "../../json/json-value.js";
import { assistant, system, toolCall, toolResult, user } from "../../message/constructors.js";
import type { AssistantMessage } from "../../message/message.js";
import { encodeReasoningSignature } from "../../message/reasoning-signature.js";
import { toResponsesRequest } from "./map-request.js";
import { parseResponsesBody } from "./parse-response.js";
import { OpenAiResponsesModel } from "./responses-model.js";

const fixture = (name: string): JsonValue =>
  JSON.parse(
    readFileSync(
      new URL(`../../../test/fixtures/openai-responses/${name}.unary.json`, import.meta.url),
      "utf8",
    ),
  ) as JsonValue;

const weatherTool = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

function model(options: { store?: boolean; encryptedReasoning?: boolean } = {}): OpenAiResponsesModel {
  return new OpenAiResponsesModel({ model: "gpt-5-mini", apiKey: "sk-test", ...options });
}

describe("toResponsesRequest", () => {
  it("maps system to developer, user parts, tools (strict false unless asked), choice, format, reasoning, limits", () => {
    const body = toResponsesRequest(
      {
        messages: [
          system("Be brief."),
          user([
            { type: "text", text: "What is in this picture?" },
            {
              type: "image",
              source: { kind: "base64", data: "iVBORw0KGgo=", mimeType: "image/png" },
              detail: "low",
            },
          ]),
        ],
        tools: [weatherTool, { ...weatherTool, name: "strict_weather", strict: true }],
        toolChoice: { type: "tool", name: "get_weather" },
        parallelToolCalls: false,
        responseFormat: {
          type: "json_schema",
          name: "answer card",
          schema: { type: "object", properties: { a: { type: "string" } } },
        },
        maxTokens: 500,
        temperature: 0.2,
        reasoning: { effort: "high", summary: "auto" },
        stop: ["END"],
        promptCache: { enabled: true, key: "tenant-42", retention: "long" },
      },
      {
        provider: "openai",
        modelId: "gpt-5-mini",
        stream: true,
        store: false,
        include: ["reasoning.encrypted_content"],
      },
    );
    expect(body).toEqual({
      model: "gpt-5-mini",
      input: [
        { role: "developer", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "input_text", text: "What is in this picture?" },
            { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "low" },
          ],
        },
      ],
      store: false,
      include: ["reasoning.encrypted_content"],
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: weatherTool.description,
          parameters: weatherTool.parameters,
          strict: false,
        },
        {
          type: "function",
          name: "strict_weather",
          description: weatherTool.description,
          parameters: {
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
            additionalProperties: false,
          },
          strict: true,
        },
      ],
      tool_choice: { type: "function", name: "get_weather" },
      parallel_tool_calls: false,
      text: {
        format: {
          type: "json_schema",
          name: "answer_card",
          schema: {
            type: "object",
            properties: { a: { type: ["string", "null"] } },
            required: ["a"],
            additionalProperties: false,
          },
          strict: true,
        },
      },
      max_output_tokens: 500,
      reasoning: { effort: "high", summary: "auto" },
      prompt_cache_key: "tenant-42",
      prompt_cache_retention: "24h",
      stream: true,
    });
  });

  it("keeps temperature for non-reasoning models and rejects a tool choice naming an undeclared tool", () => {
    const body = toResponsesRequest(
      { messages: [user("hi")], temperature: 0.3, topP: 0.9, responseFormat: { type: "json_object" } },
      { provider: "openai", modelId: "gpt-4.1-mini", stream: false },
    );
    expect(body).toMatchObject({ temperature: 0.3, top_p: 0.9, text: { format: { type: "json_object" } } });
    expect(body.stream).toBeUndefined();
    const bad = () =>
      toResponsesRequest(
        { messages: [user("hi")], tools: [weatherTool], toolChoice: { type: "tool", name: "nope" } },
        { provider: "openai", modelId: "gpt-4.1-mini", stream: false },
      );
    expect(bad).toThrow(TinyAgentsError);
    expect(bad).toThrow(/nope/);
  });

  it("sends a turn's reasoning item back (with encrypted content), paired with the call after it, through a journal round trip", () => {
    const first = parseResponsesBody(fixture("reasoning-tools"), { provider: "openai", model: "gpt-5-mini" });
    // What a journal stores and reads back: plain JSON.
    const stored = JSON.parse(JSON.stringify(first.message)) as AssistantMessage;
    const [paris, zurich] = stored.toolCalls;
    const body = model({ store: false }).buildRequestBody(
      {
        messages: [
          user("Weather in Paris and Zürich?"),
          stored,
          toolResult(paris!, "18 °C, sunny"),
          toolResult(zurich!, [{ type: "text", text: "timeout" }], { isError: true }),
        ],
        tools: [weatherTool],
      },
      false,
    );
    expect(body.store).toBe(false);
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    const input = body.input as JsonValue[];
    expect(input.slice(1)).toEqual([
      {
        type: "reasoning",
        id: "rs_68a1f0c2reas0002",
        summary: [
          {
            type: "summary_text",
            text: expect.stringContaining("**Planning the lookups**") as unknown as string,
          },
        ],
        encrypted_content: expect.stringMatching(/^gAAAAAB/) as unknown as string,
      },
      {
        type: "function_call",
        call_id: "call_Yq8kZ2mB4nR6tW1x",
        name: "get_weather",
        arguments: '{"city":"Paris","units":"metric"}',
        id: "fc_68a1f0c2call0021",
      },
      {
        type: "function_call",
        call_id: "call_Pa3vC7dE9fG2hJ5k",
        name: "get_weather",
        arguments: '{"city":"Zürich","units":"metric"}',
      },
      { type: "function_call_output", call_id: "call_Yq8kZ2mB4nR6tW1x", output: "18 °C, sunny" },
      { type: "function_call_output", call_id: "call_Pa3vC7dE9fG2hJ5k", output: "Error: timeout" },
    ]);
  });

  it("pairs a stored reasoning item (no encrypted content) with its message by id when the server stores", () => {
    const first = parseResponsesBody(fixture("structured"), { provider: "openai", model: "o4-mini" });
    const input = model().buildRequestBody({ messages: [user("q"), first.message, user("again")] }, false)
      .input as JsonValue[];
    expect(input[1]).toEqual({ type: "reasoning", id: "rs_68a1f0c2reas0003", summary: [] });
    expect(input[2]).toMatchObject({ type: "message", role: "assistant", id: "msg_68a1f0c2json0003" });
    // With store: false the server cannot find it again: the reasoning and the pairing id are dropped.
    const zdr = model({ store: false }).buildRequestBody({ messages: [user("q"), first.message] }, false)
      .input as JsonValue[];
    expect(zdr[1]).toEqual({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: expect.any(String) as unknown as string, annotations: [] }],
      status: "completed",
    });
  });

  it("does not send reasoning signed by another provider (an Anthropic thinking signature)", () => {
    const message = assistant([
      { type: "reasoning", text: "thinking", signature: "EqQBCkYIBRgCKkBanthropicSig==" },
      { type: "text", text: "Hi" },
    ]);
    const input = model().buildRequestBody({ messages: [user("q"), message] }, false).input as JsonValue[];
    expect(input.map((item) => (item as { type?: string }).type)).toEqual([undefined, "message"]);
  });

  it("tool results with images become input parts; images in system messages are a validation error", () => {
    const call = toolCall("call_1", "screenshot");
    const input = model().buildRequestBody(
      {
        messages: [
          user("look"),
          assistant([], [call]),
          toolResult(call, [
            { type: "text", text: "here" },
            { type: "image", source: { kind: "url", url: "https://example.com/a.png" } },
          ]),
        ],
      },
      false,
    ).input as JsonValue[];
    expect(input.at(-1)).toEqual({
      type: "function_call_output",
      call_id: "call_1",
      output: [
        { type: "input_text", text: "here" },
        { type: "input_image", image_url: "https://example.com/a.png", detail: "auto" },
      ],
    });
    expect(() =>
      model().buildRequestBody(
        {
          messages: [
            { role: "system", content: [{ type: "image", source: { kind: "url", url: "https://x/y.png" } }] },
          ],
        },
        false,
      ),
    ).toThrow(/system/);
  });

  it("encodes reasoning state as JSON with a marker type", () => {
    const signature = encodeReasoningSignature({ id: "rs_1", following: { type: "message", id: "msg_1" } });
    expect(JSON.parse(signature)).toEqual({
      type: "openai.responses.reasoning",
      id: "rs_1",
      following: { type: "message", id: "msg_1" },
    });
  });
});
