/**
 * Secret-bearing objects serialize safely (issue 35): every public credential-bearing object of
 * the model layer and the exporters — built with an API key, a custom credential header and a
 * `?key=` base-URL query — prints none of them through `JSON.stringify`, `util.inspect` or
 * `String`, and a failing call's error (`String(err)`, `util.inspect(err)`, every `err.cause`)
 * carries none of them either, even when the transport's own error echoes the request.
 */
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { createAgent, InMemoryKeyValueStore } from "@tinyagents/harness";
import { contains, EvalStore, evaluate } from "@tinyagents/harness/evals";
import { LangfuseClient, LangfuseSink } from "@tinyagents/harness/langfuse";
import { OtelTracer, ReportingBatchSpanProcessor } from "@tinyagents/harness/otel";
import {
  AnthropicModel,
  compatible,
  createModel,
  type FetchLike,
  OllamaEmbeddingModel,
  OllamaModel,
  OpenAiEmbeddingModel,
  OpenAiResponsesModel,
  user,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { expectNoSecrets as expectNoneOf, printed, printedError } from "./support/printed-secrets.js";

const API_KEY = "sk-test-apikey-9f8e7d6c5b4a";
const HEADER_SECRET = "gw-header-secret-1a2b3c4d";
const QUERY_SECRET = "query-secret-5e6f7a8b9c";
const SECRETS = [API_KEY, HEADER_SECRET, QUERY_SECRET];
const BASE_URL = `http://127.0.0.1:9/v1?key=${QUERY_SECRET}`;
const HEADERS = { "X-Gateway-Key": HEADER_SECRET };

/** A transport that fails, echoing everything it was handed (the worst a fetch can do). */
const echoingFailure: FetchLike = async (url, init) => {
  const headers = JSON.stringify(init?.headers ?? {});
  const error = new Error(`connect refused for ${String(url)} with headers ${headers}`);
  (error as Error & { request: unknown }).request = { url: String(url), headers };
  throw error;
};

const expectNoSecrets = (text: string) => expectNoneOf(text, SECRETS);

const models = {
  compatible: () => compatible(BASE_URL, "m", { apiKey: API_KEY, headers: HEADERS, fetch: echoingFailure }),
  "createModel openai": () =>
    createModel("openai:gpt-4.1-mini", {
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      headers: HEADERS,
      fetch: echoingFailure,
      env: {},
    }),
  anthropic: () =>
    new AnthropicModel({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      headers: HEADERS,
      model: "claude-x",
      fetch: echoingFailure,
    }),
  ollama: () =>
    new OllamaModel({
      baseUrl: BASE_URL,
      headers: { ...HEADERS, authorization: `Bearer ${API_KEY}` },
      model: "q",
      fetch: echoingFailure,
    }),
  responses: () =>
    new OpenAiResponsesModel({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      headers: HEADERS,
      model: "gpt-x",
      fetch: echoingFailure,
    }),
};

describe("models never print their credentials", () => {
  for (const [name, build] of Object.entries(models)) {
    it(`${name}: JSON.stringify, util.inspect and String are credential-free`, () => {
      const model = build();
      const text = printed(model);
      expectNoSecrets(text);
      // Still useful: says what it is and where.
      expect(JSON.stringify(model)).toContain("127.0.0.1:9");
      expect(JSON.stringify(model)).toContain("X-Gateway-Key");
    });

    it(`${name}: a failed call's error and its cause chain are credential-free`, async () => {
      const model = build();
      const error = await model.invoke({ messages: [user("hi")] }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeDefined();
      expectNoSecrets(printedError(error));
    });
  }

  it("an Ollama embedding model is credential-free too", () => {
    const model = new OllamaEmbeddingModel({
      baseUrl: BASE_URL,
      headers: { ...HEADERS, authorization: `Bearer ${API_KEY}` },
      fetch: echoingFailure,
    });
    expectNoSecrets(printed(model));
    expect(JSON.stringify(model)).toContain("OllamaEmbeddingModel");
  });

  it("an embedding model is credential-free too", () => {
    const model = new OpenAiEmbeddingModel({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      headers: HEADERS,
      model: "e",
      fetch: echoingFailure,
    });
    expectNoSecrets(printed(model));
    expect(JSON.stringify(model)).toContain("OpenAiEmbeddingModel");
  });
});

describe("exporters never print their credentials", () => {
  it("a Langfuse client and sink keep their keys out of JSON, inspect and String", () => {
    const client = LangfuseClient.direct("http://127.0.0.1:9", "pk-lf-public-1234", `sk-lf-${API_KEY}`);
    expect(printed(client)).not.toContain(API_KEY);
    const sink = new LangfuseSink(client);
    expect(printed(sink)).not.toContain(API_KEY);
    expect(JSON.stringify(sink)).toContain("LangfuseSink");
  });

  it("an OTel tracer and its span processor never print the exporter (whose headers hold a key)", () => {
    // An OTLP exporter keeps its configured headers on itself, as the real ones do.
    const exporter = {
      headers: { authorization: `Bearer ${API_KEY}`, ...HEADERS },
      url: BASE_URL,
      export: (_spans: unknown[], done: (result: { code: number }) => void) => done({ code: 0 }),
      shutdown: async () => {},
    };
    const processor = new ReportingBatchSpanProcessor(exporter);
    const tracer = new OtelTracer(new BasicTracerProvider().getTracer("t"), { spanProcessor: processor });
    expectNoSecrets(printed(processor));
    expectNoSecrets(printed(tracer));
    expect(JSON.stringify(tracer)).toContain("OtelTracer");
  });
});

describe("eval records never carry the credentials of the runs they scored", () => {
  it("a provider that echoes every header and the URL into its answer: the result, its trials and the stored record are credential-free", async () => {
    // The worst provider: it answers with everything it was sent (URL with ?key=, every header).
    const echoing: FetchLike = async (url, init) =>
      new Response(
        JSON.stringify({
          id: "r1",
          object: "chat.completion",
          created: 1,
          model: "m",
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: `url=${String(url)} headers=${JSON.stringify(init?.headers)}`,
              },
              finish_reason: "stop",
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
        { status: 200, headers: { "content-type": "application/json" } },
      );
    const model = compatible(BASE_URL, "m", { apiKey: API_KEY, headers: HEADERS, fetch: echoing });
    const store = new EvalStore(new InMemoryKeyValueStore());
    const result = await evaluate({
      agent: createAgent({ model }),
      dataset: [{ id: "echo", input: "hi", expected: "url=" }],
      scorers: [contains()],
      store,
      evalRunId: "eval-secrets",
    });
    const answer = JSON.stringify(result.trials[0]);
    expect(answer).toContain("headers="); // the echo reached the record, scrubbed
    expectNoSecrets(printed(result));
    expectNoSecrets(printed(await store.get("eval-secrets")));
  });
});
