/**
 * `fromAiSdk` with the real AI SDK provider packages (`@ai-sdk/openai-compatible` 2.x,
 * `@ai-sdk/anthropic` 3.x, `@ai-sdk/google` 3.x: specification v3; `@ai-sdk/openai-compatible`
 * 1.x: v2) against loopback replay servers speaking their wire formats. The same bytes are read
 * by the bridge (unary and streamed, split at hostile places) and, where one exists, by our
 * native adapter: the answers must agree.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createOpenAICompatible as createOpenAICompatibleV2 } from "ai-sdk-openai-compatible-v2";
import { describe, expect, it } from "vitest";
import { fromAiSdk } from "../../src/ai-sdk/index.js";
import {
  AnthropicModel,
  assistant,
  collectStream,
  type JsonValue,
  type ModelRequest,
  openai,
  ProviderError,
  system,
  TinyAgentsError,
  toolCall,
  toolResult,
  user,
} from "../../src/index.js";
import { type Fixture, loadFixture, replayOf } from "../replay/fixtures.js";
import { useReplayServer } from "../support/replay.js";
import { drain, factsOf, fixtureDir, type ResponseFacts } from "./parity.js";

const KEY = "sk-test-BRIDGEKEYdoNOTleak0123456789";
const request: ModelRequest = { messages: [user("Hello")] };

const server = useReplayServer();

const compatibleDir = (provider: string) => fixtureDir(`openai-compatible/${provider}`);
const anthropicDir = fixtureDir("anthropic");
const googleDir = fixtureDir("google");

function viaCompatible(model: string) {
  const provider = createOpenAICompatible({
    name: "openai",
    baseURL: `${server.url}/v1`,
    apiKey: KEY,
    includeUsage: true,
    supportsStructuredOutputs: true,
  });
  return fromAiSdk(provider.chatModel(model));
}
function viaAnthropic() {
  return fromAiSdk(createAnthropic({ apiKey: KEY, baseURL: `${server.url}/v1` })("claude-sonnet-4-6"));
}
function viaGoogle() {
  return fromAiSdk(
    createGoogleGenerativeAI({ apiKey: KEY, baseURL: `${server.url}/v1beta` })("gemini-2.5-flash"),
  );
}

/** Facts without the message id (the AI SDK packages do not all surface it). */
function comparable(facts: ResponseFacts) {
  return { ...facts, messageId: undefined };
}

/**
 * The Anthropic fixtures write `"citations": null` on text blocks; @ai-sdk/anthropic's schema
 * rejects that (the API omits the field when there are none), so the bridge tests serve the
 * same bytes without it — to both the bridge and the native adapter.
 */
function withoutNullCitations(response: ReturnType<typeof replayOf>): ReturnType<typeof replayOf> {
  const text = Buffer.from(response.body as Uint8Array).toString("utf8");
  return { ...response, body: text.replace(/,\s*"citations":\s*null/g, "") };
}

async function bothWays(make: () => ReturnType<typeof fromAiSdk>, dir: string, fixture: Fixture<unknown>) {
  server.enqueue(
    withoutNullCitations(replayOf(dir, fixture.unary!)),
    replayOf(dir, fixture.stream!, { chunking: "awkward" }),
  );
  const unary = await make().invoke(request);
  const streamed = await collectStream(make().stream(request));
  return { unary, streamed };
}

describe("fromAiSdk over @ai-sdk/openai-compatible (v3)", () => {
  it.each([
    ["openai", "text"],
    ["openai", "tools"],
    ["openai", "structured"],
    ["deepseek", "tools"],
  ])("%s/%s: unary and stream agree with the native adapter on the same bytes", async (provider, name) => {
    const dir = compatibleDir(provider);
    const fixture = loadFixture(dir, name);
    const { unary, streamed } = await bothWays(() => viaCompatible(fixture.model ?? "m"), dir, fixture);
    server.enqueue(replayOf(dir, fixture.unary!));
    const native = await openai({
      apiKey: KEY,
      baseUrl: `${server.url}/v1`,
      model: fixture.model ?? "m",
    }).invoke(request);
    expect(comparable(factsOf(unary))).toEqual(comparable(factsOf(native)));
    expect(comparable(factsOf(streamed))).toEqual(comparable(factsOf(native)));
    expect(server.lastRequest.path).toBe("/v1/chat/completions");
  });

  it("deepseek/text: reasoning_content arrives as reasoning, usage with reasoning tokens", async () => {
    const dir = compatibleDir("deepseek");
    const fixture = loadFixture<{ text: string; reasoning: string; usage: JsonValue }>(dir, "text");
    const { unary, streamed } = await bothWays(() => viaCompatible("deepseek-chat"), dir, fixture);
    for (const response of [unary, streamed]) {
      const facts = factsOf(response);
      expect(facts.text).toBe(fixture.expect.text);
      expect(facts.reasoning.map((b) => (b.type === "reasoning" ? b.text : ""))).toEqual([
        fixture.expect.reasoning,
      ]);
      expect(facts.usage).toEqual(fixture.expect.usage);
    }
  });

  it("maps the request: system, user image, tools, named tool choice, json_schema, sampling, tool results", async () => {
    const fixture = loadFixture(compatibleDir("openai"), "text");
    server.enqueue(replayOf(compatibleDir("openai"), fixture.unary!));
    const call = toolCall("call_1", "get_weather", { city: "Paris" });
    await viaCompatible("gpt-4.1-mini").invoke({
      messages: [
        system("Be brief."),
        user([
          { type: "text", text: "And this?" },
          { type: "image", source: { kind: "base64", data: "iVBORw0KGgo=", mimeType: "image/png" } },
        ]),
        assistant("", [call]),
        toolResult(call, "18 °C"),
      ],
      tools: [
        { name: "get_weather", description: "Weather", parameters: { type: "object", properties: {} } },
      ],
      toolChoice: { type: "tool", name: "get_weather" },
      responseFormat: { type: "json_schema", name: "answer", schema: { type: "object" } },
      maxTokens: 300,
      temperature: 0.1,
      stop: ["END"],
      seed: 7,
    });
    const body = server.lastRequest.json() as Record<string, unknown>;
    expect(body).toMatchObject({
      model: "gpt-4.1-mini",
      max_tokens: 300,
      temperature: 0.1,
      stop: ["END"],
      seed: 7,
      tool_choice: { type: "function", function: { name: "get_weather" } },
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" } } },
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "And this?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
        {
          role: "assistant",
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "18 °C" },
      ],
    });
    expect(JSON.stringify(body)).not.toContain(KEY);
    expect(server.lastRequest.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("HTTP errors keep status, code, kind and retry-after; the key never appears", async () => {
    const dir = compatibleDir("openai");
    for (const name of ["rate-limit", "context-overflow"]) {
      const fixture = loadFixture(dir, name);
      server.enqueue(
        replayOf(dir, fixture.unary!),
        replayOf(dir, fixture.unary!),
        replayOf(dir, fixture.unary!),
      );
      const native = await openai({ apiKey: KEY, baseUrl: `${server.url}/v1`, model: "gpt-4.1-mini" })
        .invoke(request)
        .catch((e: unknown) => e);
      if (!ProviderError.isProviderError(native))
        throw new Error(`the native adapter should fail on ${name}`);
      const viaInvoke = await viaCompatible("gpt-4.1-mini")
        .invoke(request)
        .catch((e: unknown) => e);
      const viaStream = (await drain(viaCompatible("gpt-4.1-mini").stream(request))).error;
      for (const error of [viaInvoke, viaStream]) {
        expect(ProviderError.isProviderError(error), name).toBe(true);
        const e = error as ProviderError;
        expect({
          status: e.status,
          kind: e.kind,
          code: e.providerCode,
          retryAfterMs: e.retryAfterMs,
          retryable: e.retryable,
        }).toEqual({
          status: native.status,
          kind: native.kind,
          code: native.providerCode,
          retryAfterMs: native.retryAfterMs,
          retryable: native.retryable,
        });
        expect(`${e.message} ${e.rawBody}`).not.toContain(KEY);
      }
    }
  });
});

describe("fromAiSdk over @ai-sdk/openai-compatible 1.x (specification v2)", () => {
  it("reads a v2 model: text, tool calls, usage and finish reason, unary and streamed", async () => {
    const dir = compatibleDir("openai");
    for (const name of ["text", "tools"]) {
      const fixture = loadFixture(dir, name);
      const make = () =>
        fromAiSdk(
          createOpenAICompatibleV2({
            name: "openai",
            baseURL: `${server.url}/v1`,
            apiKey: KEY,
            includeUsage: true,
          }).chatModel("gpt-4.1-mini"),
        );
      expect(make().model.specificationVersion).toBe("v2");
      const { unary, streamed } = await bothWays(make, dir, fixture);
      server.enqueue(replayOf(dir, fixture.unary!));
      const native = await openai({ apiKey: KEY, baseUrl: `${server.url}/v1`, model: "gpt-4.1-mini" }).invoke(
        request,
      );
      expect(comparable(factsOf(unary))).toEqual(comparable(factsOf(native)));
      expect(comparable(factsOf(streamed))).toEqual(comparable(factsOf(native)));
    }
  });
});

describe("fromAiSdk over @ai-sdk/anthropic (v3)", () => {
  const native = () => new AnthropicModel({ apiKey: KEY, baseUrl: server.url, model: "claude-sonnet-4-6" });

  it.each(["text", "thinking", "parallel-tools", "cache-usage"])(
    "%s: unary and stream agree with AnthropicModel (text, thinking + signatures, tools, cache usage)",
    async (name) => {
      const fixture = loadFixture(anthropicDir, name);
      const { unary, streamed } = await bothWays(viaAnthropic, anthropicDir, fixture);
      server.enqueue(withoutNullCitations(replayOf(anthropicDir, fixture.unary!)));
      const reference = comparable(factsOf(await native().invoke(request)));
      expect(comparable(factsOf(unary))).toEqual(reference);
      expect(comparable(factsOf(streamed))).toEqual(reference);
      expect(server.lastRequest.headers["x-api-key"]).toBe(KEY);
    },
  );

  it("sends thinking back with its signature on the next turn (through a JSON round trip), tools as tool_use/tool_result", async () => {
    const fixture = loadFixture(anthropicDir, "thinking");
    server.enqueue(withoutNullCitations(replayOf(anthropicDir, fixture.unary!)));
    const first = await viaAnthropic().invoke(request);
    // The same blocks AnthropicModel gives: the signature verbatim, redacted thinking as a block.
    const signed = first.message.content.find((b) => b.type === "reasoning");
    const signature = signed?.type === "reasoning" ? signed.signature : undefined;
    expect(signature).toMatch(/^EqMB/);
    const redacted = first.message.content.find((b) => b.type === "redacted_reasoning");
    expect(redacted).toBeDefined();
    const stored = JSON.parse(JSON.stringify(first.message)) as typeof first.message;
    const call = toolCall("toolu_01", "lookup", { q: "x" });
    server.enqueue(withoutNullCitations(replayOf(anthropicDir, fixture.unary!)));
    await viaAnthropic().invoke({
      messages: [
        user("Hello"),
        { ...stored, toolCalls: [call] },
        toolResult(call, "found", { isError: true }),
      ],
      tools: [
        {
          name: "lookup",
          description: "Look up",
          parameters: { type: "object", properties: { q: { type: "string" } } },
        },
      ],
      reasoning: { budgetTokens: 2048 },
      maxTokens: 4096,
    });
    const body = server.lastRequest.json() as {
      thinking?: unknown;
      messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
    };
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    const turn = body.messages[1]!;
    expect(turn.role).toBe("assistant");
    expect(turn.content[0]).toMatchObject({ type: "thinking", signature });
    expect(turn.content[1]).toMatchObject({
      type: "redacted_thinking",
      data: redacted?.type === "redacted_reasoning" ? redacted.data : "",
    });
    expect(turn.content.at(-1)).toMatchObject({
      type: "tool_use",
      id: "toolu_01",
      name: "lookup",
      input: { q: "x" },
    });
    expect(body.messages[2]!.content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_01",
      is_error: true,
    });
  });

  it("errors: a 429 with retry-after, a 529 overload and an in-stream overloaded_error are classified", async () => {
    for (const [name, kind, retryAfterMs] of [
      ["rate-limit-429", "rate_limited", 7000],
      ["overloaded-529", "upstream_unhealthy", undefined],
    ] as const) {
      const fixture = loadFixture(anthropicDir, name);
      server.enqueue(replayOf(anthropicDir, fixture.unary!), replayOf(anthropicDir, fixture.stream!));
      const a = await viaAnthropic()
        .invoke(request)
        .catch((e: unknown) => e);
      const b = (await drain(viaAnthropic().stream(request))).error;
      for (const error of [a, b]) {
        expect(error, name).toMatchObject({ kind, retryable: true, provider: "anthropic" });
        if (retryAfterMs !== undefined) expect((error as ProviderError).retryAfterMs).toBe(retryAfterMs);
      }
    }
    const fixture = loadFixture(anthropicDir, "stream-error");
    server.enqueue(replayOf(anthropicDir, fixture.stream!, { chunking: "awkward" }));
    const { items, error } = await drain(viaAnthropic().stream(request));
    expect(error).toBeUndefined();
    expect(items.at(-1)).toMatchObject({
      type: "error",
      kind: "upstream_unhealthy",
      retryable: true,
      providerCode: "overloaded_error",
    });
  });
});

describe("fromAiSdk over @ai-sdk/google (v3)", () => {
  interface GoogleExpect {
    text: string;
    reasoningText?: string;
    toolCalls: Array<{ name: string; arguments: JsonValue }>;
    finishReason: string;
    usage: JsonValue;
  }

  it.each(["thinking-text", "tools"])("%s: unary and stream give the expected answer", async (name) => {
    const fixture = loadFixture<GoogleExpect>(googleDir, name);
    const { unary, streamed } = await bothWays(viaGoogle, googleDir, fixture);
    for (const response of [unary, streamed]) {
      const facts = factsOf(response);
      expect(facts.text).toBe(fixture.expect.text);
      expect(facts.toolCalls.map(({ name: n, arguments: args }) => ({ name: n, arguments: args }))).toEqual(
        fixture.expect.toolCalls,
      );
      expect(facts.toolCalls.every((call) => call.id !== "")).toBe(true);
      expect(facts.finishReason).toBe(fixture.expect.finishReason);
      expect(facts.usage).toEqual(fixture.expect.usage);
      if (fixture.expect.reasoningText !== undefined) {
        expect(facts.reasoning.map((b) => (b.type === "reasoning" ? b.text : ""))).toEqual([
          fixture.expect.reasoningText,
        ]);
      }
    }
    expect(server.lastRequest.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(server.lastRequest.headers["x-goog-api-key"]).toBe(KEY);
  });

  it.each(["unary", "stream"])(
    "thought signatures (%s) go back on the same function call and text parts next turn, through a JSON round trip",
    async (mode) => {
      for (const name of ["tools", "thinking-text"]) {
        const fixture = loadFixture(googleDir, name);
        server.enqueue(replayOf(googleDir, mode === "unary" ? fixture.unary! : fixture.stream!));
        const first =
          mode === "unary"
            ? await viaGoogle().invoke(request)
            : await collectStream(viaGoogle().stream(request));
        const stored = JSON.parse(JSON.stringify(first.message)) as typeof first.message;
        const results = stored.toolCalls.map((call) => toolResult(call, "ok"));
        server.enqueue(replayOf(googleDir, fixture.unary!));
        await viaGoogle().invoke({ messages: [user("Hello"), stored, ...results, user("and then?")] });
        const body = server.lastRequest.json() as {
          contents: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
        };
        const model = body.contents.find((c) => c.role === "model")!;
        if (name === "tools") {
          expect(model.parts[0]).toMatchObject({
            functionCall: { name: "get_weather", args: { city: "Paris", unit: "celsius" } },
            thoughtSignature: "CiIBVKhc7pRt0mQ2Xb5sEXAMPLEsig==",
          });
          expect(model.parts[1]).toMatchObject({ functionCall: { name: "get_time" } });
          expect(model.parts[1]!.thoughtSignature).toBeUndefined();
        } else {
          const text = model.parts.find((part) => part.thought !== true && typeof part.text === "string");
          expect(text?.thoughtSignature).toMatch(/^CtcBAdHtim9K/);
        }
      }
    },
  );

  it("maps reasoning settings to thinkingConfig and tools to functionDeclarations", async () => {
    const fixture = loadFixture(googleDir, "tools");
    server.enqueue(replayOf(googleDir, fixture.unary!));
    await viaGoogle().invoke({
      messages: [system("Be brief."), user("Weather in Paris?")],
      tools: [
        {
          name: "get_weather",
          description: "Weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      ],
      toolChoice: "required",
      reasoning: { budgetTokens: 512 },
    });
    const body = server.lastRequest.json() as Record<string, unknown>;
    expect(body).toMatchObject({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "Weather in Paris?" }] }],
      generationConfig: { thinkingConfig: { thinkingBudget: 512, includeThoughts: true } },
      tools: [{ functionDeclarations: [{ name: "get_weather", description: "Weather" }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY" } },
    });
  });

  it.each(["rate-limit-429", "context-400"])(
    "%s: classified with the Google status as code",
    async (name) => {
      const fixture = loadFixture<{
        error: {
          status: number;
          providerCode: string;
          kind: string;
          retryable: boolean;
          retryAfterMs?: number;
        };
      }>(googleDir, name);
      const want = fixture.expect.error;
      server.enqueue(replayOf(googleDir, fixture.unary!), replayOf(googleDir, fixture.stream!));
      const a = await viaGoogle()
        .invoke(request)
        .catch((e: unknown) => e);
      const b = (await drain(viaGoogle().stream(request))).error;
      for (const error of [a, b]) {
        expect(ProviderError.isProviderError(error)).toBe(true);
        const e = error as ProviderError;
        expect({ status: e.status, code: e.providerCode, kind: e.kind, retryable: e.retryable }).toEqual({
          status: want.status,
          code: want.providerCode,
          kind: want.kind,
          retryable: want.retryable,
        });
        if (want.retryAfterMs !== undefined) expect(e.retryAfterMs).toBe(want.retryAfterMs);
        expect(`${e.message} ${e.rawBody}`).not.toContain(KEY);
      }
    },
  );

  it("a RetryInfo retryDelay is the retry hint when no retry-after header is sent", async () => {
    const fixture = loadFixture(googleDir, "rate-limit-429");
    const { "retry-after": _dropped, ...headers } = fixture.unary!.headers!;
    server.enqueue(replayOf(googleDir, { ...fixture.unary!, headers }));
    const error = await viaGoogle()
      .invoke(request)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "rate_limited", retryAfterMs: 7000 });
  });
});

describe("fromAiSdk: cancellation, truncation and bad input", () => {
  it("an abort mid-stream throws cancelled; request.timeoutMs gives timeout", async () => {
    const fixture = loadFixture(anthropicDir, "text");
    server.enqueue(replayOf(anthropicDir, fixture.stream!, { chunking: "frames", delayMs: 30 }));
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const item of viaAnthropic().stream(request, { signal: controller.signal })) {
        seen.push(item.type);
        if (item.type === "text_delta") controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "cancelled")).toBe(true);
    expect(seen.filter((t) => t === "text_delta")).toHaveLength(1);
    server.enqueue(withoutNullCitations(replayOf(anthropicDir, fixture.unary!, { headerDelayMs: 400 })));
    const slow = await viaAnthropic()
      .invoke({ ...request, timeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(slow, "timeout")).toBe(true);
  });

  it("a stream cut before its end is a retryable error", async () => {
    const fixture = loadFixture(anthropicDir, "parallel-tools");
    server.enqueue(replayOf(anthropicDir, fixture.stream!, { cutAfterBytes: 900 }));
    const error = await collectStream(viaAnthropic().stream(request)).catch((e: unknown) => e);
    expect(ProviderError.isProviderError(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(true);
  });

  it("a 200 body the provider package cannot read is a non-retryable malformed_response", async () => {
    const fixture = loadFixture(anthropicDir, "text");
    server.enqueue(replayOf(anthropicDir, fixture.unary!)); // with "citations": null, which the package rejects
    const error = await viaAnthropic()
      .invoke(request)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: "non_retryable",
      providerCode: "malformed_response",
      retryable: false,
    });
    expect((error as Error).message).toContain("citations");
  });

  it("rejects what is not an AI SDK language model of a supported version, with a validation error", () => {
    const bad = (model: unknown) => {
      try {
        fromAiSdk(model as Parameters<typeof fromAiSdk>[0]);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(TinyAgentsError.isInstance(bad({}), "validation")).toBe(true);
    const v4 = {
      specificationVersion: "v4",
      provider: "x",
      modelId: "m",
      doGenerate: () => null,
      doStream: () => null,
    };
    const error = bad(v4);
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    expect((error as Error).message).toContain('"v4"');
  });

  it("reports the provider family for pricing and traces, and a cache identity", () => {
    const model = viaGoogle();
    expect(model.provider).toBe("google");
    expect(model.modelId).toBe("gemini-2.5-flash");
    expect(model.cacheIdentity).toBe("ai-sdk:google.generative-ai:gemini-2.5-flash");
    expect(viaAnthropic().provider).toBe("anthropic");
  });
});
