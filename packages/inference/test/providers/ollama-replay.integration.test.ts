/**
 * The native Ollama adapter against recorded-format NDJSON traffic served over loopback by the
 * replay server: unary and streaming parsing agree with each other and with the fixture.
 */
import { describe, expect, it } from "vitest";
import {
  collectStream,
  type JsonValue,
  type ModelRequest,
  OllamaModel,
  ProviderError,
  user,
} from "../../src/index.js";
import { type Fixture, replayOf } from "../replay/fixtures.js";
import { useReplayServer } from "../support/replay.js";
import * as replayChecks from "../support/replay-checks.js";
import { drain, expectFixtureError, factsOf, providerFixtures, streamedText } from "./parity.js";

interface Expect {
  text?: string;
  json?: JsonValue;
  reasoning?: JsonValue[];
  toolCalls?: Array<{ id?: string; name: string; arguments: JsonValue }>;
  syntheticIds?: boolean;
  finishReason?: string;
  usage?: JsonValue;
  partialText?: string;
  error?: {
    status?: number;
    kind: string;
    retryable: boolean;
    retryAfterMs?: number;
    code: string;
    message?: string;
  };
}

const { dir, fixtures, answers, httpErrors } = providerFixtures<Expect>("ollama");
const request: ModelRequest = { messages: [user("Hello")] };

const server = useReplayServer();

function model(): OllamaModel {
  return new OllamaModel({ baseUrl: server.url, model: "qwen3:8b", keepAlive: "5m", env: {} });
}

function checkExpect(fixture: Fixture<Expect>, response: Awaited<ReturnType<OllamaModel["invoke"]>>): void {
  const want = fixture.expect;
  const facts = factsOf(response);
  expect(facts.text).toBe(want.text);
  expect(facts.reasoning).toEqual(want.reasoning);
  expect(facts.finishReason).toBe(want.finishReason);
  expect(response.usage).toEqual(want.usage);
  expect(facts.messageId).toBeUndefined();
  expect(facts.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual(
    want.toolCalls?.map(({ name, arguments: args }) => ({ name, arguments: args })),
  );
  facts.toolCalls.forEach((call, i) => {
    const wantId = want.toolCalls?.[i]?.id;
    if (wantId !== undefined) expect(call.id).toBe(wantId);
    else expect(call.id).toMatch(/^call_[0-9a-f]{8}$/);
  });
  expect(new Set(facts.toolCalls.map((c) => c.id)).size).toBe(facts.toolCalls.length);
  if (want.json !== undefined) expect(JSON.parse(facts.text)).toEqual(want.json);
}

describe.each(answers)("ollama fixture $name", (fixture) => {
  it("unary parsing gives the expected answer; the request says stream:false", async () => {
    server.enqueue(replayOf(dir, fixture.unary!));
    checkExpect(fixture, await model().invoke(request));
    expect(server.lastRequest.path).toBe("/api/chat");
    expect(server.lastRequest.json()).toEqual({
      model: "qwen3:8b",
      stream: false,
      keep_alive: "5m",
      messages: [{ role: "user", content: "Hello" }],
    });
  });

  it.each(["whole", "frames", "awkward", { every: 5 }] as const)(
    "streaming (%j chunks) yields the same text, reasoning, tool calls and usage as unary",
    async (chunking) => {
      server.enqueue(replayOf(dir, fixture.unary!), replayOf(dir, fixture.stream!, { chunking }));
      const unary = await model().invoke(request);
      const streamed = await collectStream(model().stream(request), { provider: "ollama" });
      expect(factsOf(streamed)).toEqual(factsOf(unary));
      expect(streamed.usage?.raw).toEqual(unary.usage?.raw);
      expect((server.lastRequest.json() as { stream: boolean }).stream).toBe(true);
    },
  );
});

describe.each(httpErrors)("ollama error fixture $name", (fixture) => {
  const want = fixture.expect.error!;
  const check = (error: unknown) =>
    expectFixtureError(error, want, { provider: "ollama", checkProviderCode: false });
  it("invoke and stream both throw the classified ProviderError", async () => {
    const replays = { unary: replayOf(dir, fixture.unary!), stream: replayOf(dir, fixture.stream!) };
    await replayChecks.expectBothPathsFail(server, model, request, replays, check);
  });
});

describe("ollama stream failures", () => {
  it("an {error} line inside a 200 stream ends the stream with a retryable error", async () => {
    const fixture = fixtures.find((f) => f.name === "stream-error")!;
    server.enqueue(replayOf(dir, fixture.stream!, { chunking: "awkward" }));
    const { items, error } = await drain(model().stream(request));
    expect(error).toBeUndefined();
    expect(streamedText(items)).toBe(fixture.expect.partialText);
    expect(items.at(-1)).toMatchObject({ type: "error", retryable: true });
    server.enqueue(replayOf(dir, fixture.stream!));
    const thrown = await collectStream(model().stream(request)).catch((e: unknown) => e);
    expect(ProviderError.isProviderError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ retryable: true, code: "provider" });
    expect((thrown as Error).message).toContain(fixture.expect.error?.message);
  });

  it("an {error} body with a 200 status is a ProviderError", async () => {
    server.enqueue({
      headers: { "content-type": "application/json" },
      body: '{"error":"unexpected server status"}',
    });
    const error = await model()
      .invoke(request)
      .catch((e: unknown) => e);
    expect(ProviderError.isProviderError(error)).toBe(true);
    expect((error as Error).message).toContain("unexpected server status");
  });

  it("a stream cut anywhere before the done line is a retryable error", async () => {
    const fixture = fixtures.find((f) => f.name === "parallel-tools")!;
    const stream = replayOf(dir, fixture.stream!);
    const size = stream.body!.length;
    const cuts = [0, 1, 100, 250, size - 30, size - 2];
    await replayChecks.expectCutStreamsRetryable(server, model, request, stream, cuts);
  });

  it("request.timeoutMs bounds the call: a slow server gives a timeout error", async () => {
    const fixture = fixtures.find((f) => f.name === "text")!;
    await replayChecks.expectSlowUnaryTimesOut(server, model, request, replayOf(dir, fixture.unary!));
    await replayChecks.expectSlowStreamTimesOut(server, model, request, replayOf(dir, fixture.stream!));
  });

  it("aborting mid-stream throws a cancelled error", async () => {
    const fixture = fixtures.find((f) => f.name === "text")!;
    await replayChecks.expectAbortStopsStream(server, model, request, replayOf(dir, fixture.stream!));
  });

  it("reads OLLAMA_HOST when no baseUrl is given", async () => {
    const fixture = fixtures.find((f) => f.name === "text")!;
    server.enqueue(replayOf(dir, fixture.unary!));
    const host = server.url.replace("http://", "");
    const fromEnv = new OllamaModel({ env: { OLLAMA_HOST: host, OLLAMA_MODEL: "llama3.2:1b" } });
    expect(fromEnv.modelId).toBe("llama3.2:1b");
    await fromEnv.invoke(request);
    expect((server.lastRequest.json() as { model: string }).model).toBe("llama3.2:1b");
  });
});
