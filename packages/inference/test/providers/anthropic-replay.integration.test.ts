/**
 * The Anthropic adapter against recorded-format traffic served over loopback by the replay
 * server: unary and streaming parsing agree with each other, with the fixture's expectations and
 * with the official `@anthropic-ai/sdk` reading the same bytes.
 */
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import {
  AnthropicModel,
  collectStream,
  type JsonValue,
  type ModelRequest,
  ProviderError,
  user,
} from "../../src/index.js";
import { parseAnthropicResponse } from "../../src/provider-kit/index.js";
import { replayOf } from "../replay/fixtures.js";
import { ReplayServer } from "../replay/replay-server.js";
import { useReplayServer } from "../support/replay.js";
import * as replayChecks from "../support/replay-checks.js";
import {
  drain,
  expectFacts,
  expectFixtureError,
  type FixtureExpect,
  factsOf,
  providerFixtures,
  streamedText,
} from "./parity.js";

type Expect = FixtureExpect;

const { dir, fixtures, answers, httpErrors } = providerFixtures<Expect>("anthropic");
const API_KEY = "sk-ant-api03-TESTKEYdoNOTleakTESTKEYdoNOTleak";
const request: ModelRequest = { messages: [user("Hello")], maxTokens: 1024 };

const server = useReplayServer();

function model(): AnthropicModel {
  return new AnthropicModel({ apiKey: API_KEY, baseUrl: server.url, model: "claude-sonnet-4-6" });
}

function sdk(): Anthropic {
  return new Anthropic({ apiKey: API_KEY, baseURL: server.url, maxRetries: 0 });
}

const sdkParams = {
  model: "claude-sonnet-4-6",
  max_tokens: 1024,
  messages: [{ role: "user" as const, content: "Hello" }],
};

describe.each(answers)("anthropic fixture $name", (fixture) => {
  it("unary parsing gives the expected answer, and the request carries the auth headers", async () => {
    server.enqueue(replayOf(dir, fixture.unary!));
    const response = await model().invoke(request);
    expectFacts(fixture.expect, factsOf(response));
    const sent = server.lastRequest;
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["x-api-key"]).toBe(API_KEY);
    expect(sent.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent.headers["content-type"]).toBe("application/json");
    expect(sent.json()).toEqual({
      model: "claude-sonnet-4-6",
      max_tokens: 1024,
      messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
    });
  });

  it.each(["whole", "frames", "awkward", { every: 7 }] as const)(
    "streaming (%j chunks) yields the same text, reasoning, tool calls and usage as unary",
    async (chunking) => {
      server.enqueue(replayOf(dir, fixture.unary!), replayOf(dir, fixture.stream!, { chunking }));
      const unary = await model().invoke(request);
      const streamed = await collectStream(model().stream(request), { provider: "anthropic" });
      expect(factsOf(streamed)).toEqual(factsOf(unary));
      expect((server.lastRequest.json() as { stream?: boolean }).stream).toBe(true);
    },
  );

  it("agrees with @anthropic-ai/sdk reading the same bytes (unary and stream accumulation)", async () => {
    server.enqueue(
      replayOf(dir, fixture.unary!),
      replayOf(dir, fixture.stream!, { chunking: "awkward" }),
      replayOf(dir, fixture.stream!, { chunking: "awkward" }),
    );
    const sdkUnary = await sdk().messages.create(sdkParams);
    const sdkFinal = await sdk().messages.stream(sdkParams).finalMessage();
    const ours = await collectStream(model().stream(request), { provider: "anthropic" });
    const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as JsonValue;
    expect(factsOf(ours)).toEqual(factsOf(parseAnthropicResponse(asJson(sdkFinal), "claude-sonnet-4-6")));
    expect(factsOf(ours)).toEqual(factsOf(parseAnthropicResponse(asJson(sdkUnary), "claude-sonnet-4-6")));
    // The SDK's own view of the tool inputs, thinking signatures and cumulative usage.
    const sdkTools = sdkFinal.content.flatMap((b) =>
      b.type === "tool_use" ? [{ id: b.id, name: b.name, arguments: b.input }] : [],
    );
    expect(ours.message.toolCalls).toEqual(sdkTools);
    const signatures = sdkFinal.content.flatMap((b) => (b.type === "thinking" ? [b.signature] : []));
    expect(ours.message.content.flatMap((b) => (b.type === "reasoning" ? [b.signature] : []))).toEqual(
      signatures,
    );
    const u = sdkFinal.usage;
    expect(ours.usage?.inputTokens).toBe(
      u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0),
    );
    expect(ours.usage?.outputTokens).toBe(u.output_tokens);
  });
});

describe.each(httpErrors)("anthropic error fixture $name", (fixture) => {
  const want = fixture.expect.error!;
  const check = (error: unknown) =>
    expectFixtureError(error, want, { provider: "anthropic", apiKey: API_KEY });

  it("invoke and stream both throw the classified ProviderError", async () => {
    const replays = { unary: replayOf(dir, fixture.unary!), stream: replayOf(dir, fixture.stream!) };
    await replayChecks.expectBothPathsFail(server, model, request, replays, check);
  });

  it("the SDK sees the same status and error type", async () => {
    server.enqueue(replayOf(dir, fixture.unary!));
    const error = await sdk()
      .messages.create(sdkParams)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(want.status);
    expect((apiError.error as { error?: { type?: string } }).error?.type).toBe(want.providerCode);
  });
});

describe("anthropic stream failures", () => {
  it("an error event inside a 200 stream ends the stream with a retryable error item", async () => {
    const fixture = fixtures.find((f) => f.name === "stream-error")!;
    const want = fixture.expect.error!;
    server.enqueue(replayOf(dir, fixture.stream!, { chunking: "awkward" }));
    const { items, error } = await drain(model().stream(request));
    expect(error).toBeUndefined();
    expect(streamedText(items)).toBe(fixture.expect.partialText);
    const last = items.at(-1);
    expect(last).toMatchObject({ type: "error", providerCode: want.providerCode, retryable: true });

    server.enqueue(replayOf(dir, fixture.stream!));
    const thrown = await collectStream(model().stream(request), { provider: "anthropic" }).catch(
      (e: unknown) => e,
    );
    expect(ProviderError.isProviderError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ kind: want.kind, retryable: true, providerCode: "overloaded_error" });

    server.enqueue(replayOf(dir, fixture.stream!));
    await expect(sdk().messages.stream(sdkParams).finalMessage()).rejects.toThrow(/Overloaded/);
  });

  it("a stream cut anywhere before message_stop is a retryable error", async () => {
    const fixture = fixtures.find((f) => f.name === "parallel-tools")!;
    const stream = replayOf(dir, fixture.stream!, { chunking: "awkward" });
    const size = stream.body!.length;
    const cuts = [0, 1, 150, 600, 1234, size - 40, size - 2];
    await replayChecks.expectCutStreamsRetryable(server, model, request, stream, cuts);
  });

  it("a JSON reply to a streaming request is parsed as one message", async () => {
    const fixture = fixtures.find((f) => f.name === "parallel-tools")!;
    server.enqueue(replayOf(dir, fixture.unary!));
    const streamed = await collectStream(model().stream(request));
    expectFacts(fixture.expect, factsOf(streamed));
  });

  it("request.timeoutMs bounds the call: a slow server gives a timeout error", async () => {
    const fixture = fixtures.find((f) => f.name === "text")!;
    await replayChecks.expectSlowUnaryTimesOut(server, model, request, replayOf(dir, fixture.unary!));
    await replayChecks.expectSlowStreamTimesOut(server, model, request, replayOf(dir, fixture.stream!));
  });

  it("aborting mid-stream throws a cancelled error and stops reading", async () => {
    const fixture = fixtures.find((f) => f.name === "text")!;
    await replayChecks.expectAbortStopsStream(server, model, request, replayOf(dir, fixture.stream!));
  });

  it("an unreachable server is a retryable ProviderError naming the URL without the key", async () => {
    const closed = await ReplayServer.start();
    const url = closed.url;
    await closed.close();
    const error = await new AnthropicModel({ apiKey: API_KEY, baseUrl: url })
      .invoke(request)
      .catch((e: unknown) => e);
    expect(ProviderError.isProviderError(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).message).toContain("127.0.0.1");
    expect((error as ProviderError).message).not.toContain(API_KEY);
  });
});
