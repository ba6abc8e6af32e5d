import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accumulate } from "../http/test-streams.fixture.js";
import type { JsonValue } from "../json/json-value.js";
import type { ContentBlock } from "../message/content-block.js";
import type { ToolCall } from "../tool/tool-call.js";
import type { ChatModel } from "./chat-model.js";
import { everyFieldResponse } from "./model.fixture.js";
import type { ModelResponse } from "./model-response.js";
import { collectStream, parseToolArguments } from "./stream-accumulator.js";
import { responseToStreamItems, streamFromResponse, streamModel } from "./stream-from-response.js";
import type { ModelStreamItem } from "./stream-item.js";

const handBuilt: Array<[string, ModelResponse]> = [
  ["empty", { message: { role: "assistant", content: [], toolCalls: [] }, finishReason: "stop" }],
  [
    "text with id, usage and raw",
    {
      message: { role: "assistant", id: "m", content: [{ type: "text", text: "hi" }], toolCalls: [] },
      usage: {
        inputTokens: 1,
        outputTokens: 2,
        totalTokens: 3,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      },
      finishReason: "length",
      raw: { choices: [] },
    },
  ],
  [
    "reasoning, redacted, text and tool calls",
    {
      message: {
        role: "assistant",
        content: [
          { type: "reasoning", text: "think", signature: "s1" },
          { type: "reasoning", text: "more" },
          { type: "redacted_reasoning", data: "E" },
          { type: "reasoning", text: "" },
          { type: "text", text: "" },
        ],
        toolCalls: [
          { id: "a", name: "x", arguments: { n: [1, { m: null }] } },
          { id: "b", name: "y", arguments: {} },
          {
            id: "c",
            name: "z",
            arguments: {},
            invalid: { raw: "{", error: parseToolArguments("{").invalid!.error },
          },
        ],
      },
      finishReason: "tool_calls",
    },
  ],
];

describe("responseToStreamItems", () => {
  it.each(handBuilt)("round-trips a canonical response: %s", (_name, response) => {
    expect(accumulate(responseToStreamItems(response))).toStrictEqual(response);
  });

  it("emits items in the documented order", () => {
    const { resolvedModel: _r, servedFromCache: _s, ...response } = everyFieldResponse;
    expect(responseToStreamItems(response).map((item) => item.type)).toStrictEqual([
      "start",
      "reasoning_delta",
      "text_delta",
      "tool_call_delta",
      "usage",
      "finish",
    ]);
    expect(accumulate(responseToStreamItems(response))).toStrictEqual(response);
  });

  it("drops what the stream cannot carry (harness-set fields, non-streamable blocks)", () => {
    const rebuilt = accumulate(responseToStreamItems(everyFieldResponse));
    expect(rebuilt.resolvedModel).toBeUndefined();
    expect(rebuilt.servedFromCache).toBeUndefined();
    const withJson: ModelResponse = {
      message: { role: "assistant", content: [{ type: "json", value: 1 }], toolCalls: [] },
      finishReason: "stop",
    };
    expect(accumulate(responseToStreamItems(withJson)).message.content).toStrictEqual([]);
  });

  it("streamFromResponse yields the same items asynchronously", async () => {
    const items: ModelStreamItem[] = [];
    for await (const item of streamFromResponse(everyFieldResponse)) items.push(item);
    expect(items).toStrictEqual(responseToStreamItems(everyFieldResponse));
  });
});

describe("streamModel", () => {
  const response: ModelResponse = {
    message: { role: "assistant", content: [{ type: "text", text: "ok" }], toolCalls: [] },
    finishReason: "stop",
  };

  it("derives a stream from invoke when the model has no stream", async () => {
    const model: ChatModel = { provider: "p", modelId: "m", invoke: async () => response };
    expect(await collectStream(streamModel(model, { messages: [] }))).toStrictEqual(response);
  });

  it("uses the model's own stream when present, with `this` bound", async () => {
    class Streaming implements ChatModel {
      readonly provider = "p";
      readonly modelId = "m";
      private readonly text = "streamed";
      async invoke() {
        return response;
      }
      async *stream(): AsyncGenerator<ModelStreamItem> {
        yield { type: "text_delta", text: this.text };
      }
    }
    const model = new Streaming();
    const rebuilt = await collectStream(streamModel(model, { messages: [] }));
    expect(rebuilt.message.content).toStrictEqual([{ type: "text", text: "streamed" }]);
  });
});

// ---- property: accumulate(responseToStreamItems(r)) deep-equals r for canonical responses ----

/** Any JSON value (fast-check's own JsonValue type is structurally the same as ours). */
const jsonValue = fc.jsonValue() as fc.Arbitrary<JsonValue>;

const reasoningBlock = fc.record(
  { type: fc.constant("reasoning" as const), text: fc.string(), signature: fc.string() },
  { requiredKeys: ["type", "text"] },
);
const redactedBlock = fc.record({ type: fc.constant("redacted_reasoning" as const), data: fc.string() });

/** Reasoning/redacted blocks in any order, fixed up so that no unsigned block precedes a reasoning block. */
const reasoningBlocks = fc.array(fc.oneof(reasoningBlock, redactedBlock), { maxLength: 5 }).map((blocks) =>
  blocks.map((block, i): ContentBlock => {
    const next = blocks[i + 1];
    if (block.type === "reasoning" && block.signature === undefined && next?.type === "reasoning") {
      return { ...block, signature: "fixed" };
    }
    return block;
  }),
);

const content = fc
  .tuple(reasoningBlocks, fc.option(fc.string(), { nil: undefined }))
  .map(([blocks, text]): ContentBlock[] =>
    text === undefined ? blocks : [...blocks, { type: "text", text }],
  );

const validCall = fc.record({
  id: fc.string({ minLength: 1 }),
  name: fc.string(),
  arguments: fc.dictionary(fc.string(), jsonValue),
});
const invalidCall = fc
  .record({
    id: fc.string({ minLength: 1 }),
    name: fc.string(),
    raw: fc.oneof(fc.string(), fc.json()).filter((raw) => parseToolArguments(raw).invalid !== undefined),
  })
  .map(
    ({ id, name, raw }): ToolCall => ({ id, name, arguments: {}, invalid: parseToolArguments(raw).invalid! }),
  );

const count = fc.nat({ max: 1_000_000 });
const usageArb = fc.record(
  {
    inputTokens: count,
    outputTokens: count,
    totalTokens: count,
    cacheReadTokens: count,
    cacheWriteTokens: count,
    reasoningTokens: count,
    raw: jsonValue,
  },
  {
    requiredKeys: [
      "inputTokens",
      "outputTokens",
      "totalTokens",
      "cacheReadTokens",
      "cacheWriteTokens",
      "reasoningTokens",
    ],
  },
);

/**
 * fast-check builds records with a null prototype and may produce -0 (which JSON turns into 0);
 * rebuild the value as ordinary JSON data.
 */
function plain<T>(value: T): T {
  if (Object.is(value, -0)) return 0 as T;
  if (Array.isArray(value)) return value.map(plain) as T;
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)])) as T;
}

const canonicalResponse: fc.Arbitrary<ModelResponse> = fc
  .record(
    {
      id: fc.string(),
      content,
      toolCalls: fc.array(fc.oneof(validCall, invalidCall), { maxLength: 4 }),
      usage: usageArb,
      finishReason: fc.constantFrom(
        "stop",
        "length",
        "tool_calls",
        "content_filter",
        "error",
        "other" as const,
      ),
      raw: jsonValue,
    },
    { requiredKeys: ["content", "toolCalls", "finishReason"] },
  )
  .map(({ id, content, toolCalls, ...rest }): ModelResponse => {
    const message: ModelResponse["message"] = { role: "assistant", content, toolCalls };
    if (id !== undefined) message.id = id;
    return plain({ message, ...rest });
  });

describe("round-trip property", () => {
  it("accumulate(responseToStreamItems(r)) deep-equals r", () => {
    fc.assert(
      fc.property(canonicalResponse, (response) => {
        expect(accumulate(responseToStreamItems(response))).toStrictEqual(response);
      }),
      { numRuns: 500 },
    );
  });

  it("the stream also survives JSON serialization item by item", () => {
    fc.assert(
      fc.property(canonicalResponse, (response) => {
        const items = JSON.parse(JSON.stringify(responseToStreamItems(response))) as ModelStreamItem[];
        expect(accumulate(items)).toStrictEqual(response);
      }),
      { numRuns: 200 },
    );
  });
});
