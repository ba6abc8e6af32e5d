/**
 * The OpenAI Responses API adapter against recorded-format traffic (fixtures written from the
 * documented event format, see fixtures/openai-responses/generate.mjs) served over loopback:
 * unary and streamed parsing (whole, per frame, at hostile places, at random sizes and byte by
 * byte) agree with each other, with the fixture's expectations and with the official `openai`
 * client's Responses parsing of the same bytes.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  collectStream,
  createModel,
  type JsonValue,
  type ModelRequest,
  OpenAiResponsesModel,
  ProviderError,
  TinyAgentsError,
  user,
} from "../../src/index.js";
import { parseResponsesBody } from "../../src/provider-kit/index.js";
import { type Fixture, replayOf } from "../replay/fixtures.js";
import type { Chunking } from "../replay/split-body.js";
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

const { dir, fixtures, answers, httpErrors } = providerFixtures<Expect>("openai-responses");
const API_KEY = "sk-proj-TESTKEYdoNOTleakTESTKEYdoNOTleak0123";
const request: ModelRequest = { messages: [user("Hello")] };

/** Random write sizes from a fixed seed (reproducible). */
function randomSizes(seed: number): number[] {
  let state = seed;
  const sizes: number[] = [];
  for (let i = 0; i < 64; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    sizes.push(1 + (state % 97));
  }
  return sizes;
}

const CHUNKINGS: Array<[string, Chunking]> = [
  ["whole", "whole"],
  ["per frame", "frames"],
  ["awkward", "awkward"],
  ["random sizes, seed 7", { sizes: randomSizes(7) }],
  ["random sizes, seed 2026", { sizes: randomSizes(2026) }],
  ["byte by byte", { every: 1 }],
];

const server = useReplayServer();

function model(fixture?: Fixture<Expect>): OpenAiResponsesModel {
  return new OpenAiResponsesModel({
    apiKey: API_KEY,
    baseUrl: `${server.url}/v1`,
    model: fixture?.model ?? "gpt-5-mini",
  });
}

function sdk(): OpenAI {
  return new OpenAI({ apiKey: API_KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
}

const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as JsonValue;

describe.each(answers)("openai-responses fixture $name", (fixture) => {
  it("unary parsing gives the expected answer, sent to /v1/responses with the bearer key", async () => {
    server.enqueue(replayOf(dir, fixture.unary!));
    const response = await model(fixture).invoke(request);
    expectFacts(fixture.expect, factsOf(response));
    const sent = server.lastRequest;
    expect(sent.path).toBe("/v1/responses");
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.json()).toEqual({
      model: fixture.model,
      input: [{ role: "user", content: "Hello" }],
    });
  });

  it.each(CHUNKINGS)("streaming (%s writes) gives the same answer as unary", async (_label, chunking) => {
    server.enqueue(replayOf(dir, fixture.unary!), replayOf(dir, fixture.stream!, { chunking }));
    const unary = await model(fixture).invoke(request);
    const streamed = await collectStream(model(fixture).stream(request), { provider: "openai" });
    expect(factsOf(streamed)).toEqual(factsOf(unary));
    expect((server.lastRequest.json() as { stream?: boolean }).stream).toBe(true);
  });

  it("agrees with the openai client's Responses parsing of the same bytes (unary and stream)", async () => {
    server.enqueue(
      replayOf(dir, fixture.unary!),
      replayOf(dir, fixture.stream!, { chunking: "awkward" }),
      replayOf(dir, fixture.stream!, { chunking: "awkward" }),
    );
    const params = { model: fixture.model ?? "gpt-5-mini", input: "Hello" };
    const sdkUnary = await sdk().responses.create(params);
    const sdkFinal = await sdk().responses.stream(params).finalResponse();
    const ours = await collectStream(model(fixture).stream(request), { provider: "openai" });
    const context = { provider: "openai", model: params.model };
    expect(factsOf(ours)).toEqual(factsOf(parseResponsesBody(asJson(sdkUnary), context)));
    expect(factsOf(ours)).toEqual(factsOf(parseResponsesBody(asJson(sdkFinal), context)));
    // The client's own view: its output_text, function calls, reasoning items and usage.
    expect(factsOf(ours).text).toBe(
      fixture.expect.finishReason === "content_filter" ? factsOf(ours).text : sdkFinal.output_text,
    );
    const sdkCalls = sdkFinal.output.flatMap((item) =>
      item.type === "function_call"
        ? [{ id: item.call_id, name: item.name, arguments: JSON.parse(item.arguments) as unknown }]
        : [],
    );
    expect(ours.message.toolCalls).toEqual(sdkCalls);
    const sdkReasoning = sdkFinal.output.flatMap((item) =>
      item.type === "reasoning" ? [{ id: item.id, encrypted: item.encrypted_content ?? undefined }] : [],
    );
    const ourReasoning = ours.message.content.flatMap((block) => {
      if (block.type !== "reasoning") return [];
      const signature = JSON.parse(block.signature ?? "{}") as { id?: string; encrypted_content?: string };
      return [{ id: signature.id, encrypted: signature.encrypted_content }];
    });
    expect(ourReasoning).toEqual(sdkReasoning);
    expect(ours.usage?.inputTokens).toBe(sdkFinal.usage?.input_tokens);
    expect(ours.usage?.cacheReadTokens).toBe(sdkFinal.usage?.input_tokens_details.cached_tokens);
    expect(ours.usage?.outputTokens).toBe(sdkFinal.usage?.output_tokens);
    expect(ours.usage?.reasoningTokens).toBe(sdkFinal.usage?.output_tokens_details.reasoning_tokens);
  });
});

describe.each(httpErrors)("openai-responses error fixture $name", (fixture) => {
  const want = fixture.expect.error!;
  const check = (error: unknown) => expectFixtureError(error, want, { provider: "openai", apiKey: API_KEY });

  it("invoke and stream both throw the classified ProviderError; the client sees the same status", async () => {
    const replays = { unary: replayOf(dir, fixture.unary!), stream: replayOf(dir, fixture.stream!) };
    await replayChecks.expectBothPathsFail(server, model, request, replays, check);
    server.enqueue(replayOf(dir, fixture.unary!));
    const error = await sdk()
      .responses.create({ model: "gpt-5-mini", input: "Hello" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(want.status);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe(want.providerCode);
  });
});

describe("openai-responses in-stream failures", () => {
  it.each(["stream-failed", "stream-error-event"])(
    "%s: the text before it streams, then a classified error item that retry honours",
    async (name) => {
      const fixture = fixtures.find((f) => f.name === name)!;
      const want = fixture.expect.error!;
      server.enqueue(replayOf(dir, fixture.stream!, { chunking: "awkward" }));
      const { items, error } = await drain(model().stream(request));
      expect(error).toBeUndefined();
      expect(streamedText(items)).toBe(fixture.expect.partialText);
      expect(items.at(-1)).toMatchObject({
        type: "error",
        providerCode: want.providerCode,
        kind: want.kind,
        retryable: want.retryable,
        provider: "openai",
      });
      server.enqueue(replayOf(dir, fixture.stream!));
      const thrown = await collectStream(model().stream(request)).catch((e: unknown) => e);
      expect(ProviderError.isProviderError(thrown)).toBe(true);
      expect(thrown).toMatchObject({
        kind: want.kind,
        retryable: want.retryable,
        providerCode: want.providerCode,
      });
      if (want.retryAfterMs !== undefined)
        expect((thrown as ProviderError).retryAfterMs).toBe(want.retryAfterMs);
      // The official client sees the same failure code: it resolves a failed response
      // (response.failed) or rejects with the error event's data (error).
      server.enqueue(replayOf(dir, fixture.stream!));
      const sdkOutcome = await sdk()
        .responses.stream({ model: "gpt-5-mini", input: "Hello" })
        .finalResponse()
        .catch((e: unknown) => e);
      const outcome = sdkOutcome as { code?: string; error?: { code?: string } };
      expect(outcome.error?.code ?? outcome.code).toBe(want.providerCode);
    },
  );

  it("a stream cut anywhere before response.completed is a retryable error", async () => {
    const fixture = fixtures.find((f) => f.name === "reasoning-tools")!;
    const stream = replayOf(dir, fixture.stream!, { chunking: "awkward" });
    const size = stream.body!.length;
    const cuts = [0, 1, 200, 1500, Math.floor(size / 2), size - 40, size - 2];
    await replayChecks.expectCutStreamsRetryable(server, model, request, stream, cuts);
  });

  it("a JSON reply to a streaming request, and an SSE reply to a unary one, are both read", async () => {
    const fixture = fixtures.find((f) => f.name === "reasoning-tools")!;
    server.enqueue(replayOf(dir, fixture.unary!), replayOf(dir, fixture.stream!, { chunking: "frames" }));
    expectFacts(fixture.expect, factsOf(await collectStream(model(fixture).stream(request))));
    expectFacts(fixture.expect, factsOf(await model(fixture).invoke(request)));
  });

  it("a response.failed body with a 200 status makes invoke throw the classified error", async () => {
    const fixture = fixtures.find((f) => f.name === "stream-failed")!;
    const sse = Buffer.from(replayOf(dir, fixture.stream!).body!).toString("utf8");
    const failed = /data: (\{"type":"response\.failed".*)\n/.exec(sse)![1]!;
    const body = JSON.stringify((JSON.parse(failed) as { response: unknown }).response);
    server.enqueue({ status: 200, headers: { "content-type": "application/json" }, body });
    const error = await model()
      .invoke(request)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "rate_limited", retryable: true, retryAfterMs: 1500 });
  });

  it("request.timeoutMs and an abort stop the call with timeout / cancelled errors", async () => {
    const fixture = fixtures.find((f) => f.name === "text")!;
    await replayChecks.expectSlowUnaryTimesOut(server, model, request, replayOf(dir, fixture.unary!));
    await replayChecks.expectAbortStopsStream(server, model, request, replayOf(dir, fixture.stream!));
  });

  it("createModel('openai-responses:...') builds the adapter; a missing key is a validation error", async () => {
    const built = createModel("openai-responses:gpt-5-mini", {
      apiKey: API_KEY,
      baseUrl: `${server.url}/v1`,
    });
    expect(built).toBeInstanceOf(OpenAiResponsesModel);
    expect(built.cacheIdentity).toBe(`openai-responses:${server.url}/v1:gpt-5-mini`);
    const fixture = fixtures.find((f) => f.name === "text")!;
    server.enqueue(replayOf(dir, fixture.unary!));
    expect(factsOf(await built.invoke(request)).text).toBe(fixture.expect.text);
    const missing = (() => {
      try {
        return createModel("responses:gpt-5-mini", { env: {} });
      } catch (e) {
        return e;
      }
    })();
    expect(TinyAgentsError.isInstance(missing, "validation")).toBe(true);
    expect((missing as Error).message).toContain("OPENAI_API_KEY");
  });
});
