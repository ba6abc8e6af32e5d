import { inspect } from "node:util";
import { AgentHarness, type EventRecord, EventSink } from "@tinyagents/harness";
import { LangfuseClient, otlpTraceId } from "@tinyagents/harness/langfuse";
import {
  DeterministicClock,
  DeterministicIds,
  EventRecorder,
  FakeTool,
  ScriptedModel,
} from "@tinyagents/harness/testkit";
import { ProviderError, type TinyAgentsError, usage } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { rejection } from "../../test/support/thrown.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { acceptAll, closeServers, type Received, serve } from "./langfuse-server.fixture.js";

const PUBLIC_KEY = "pk-lf-public-1234";
const SECRET_KEY = "sk-lf-very-secret-5678";
const TOKEN = "proxy-token-abcdef";

afterEach(closeServers);

// ---- a real run: retry, tool, sub-agent, usage with cache reads, cost ---------------------------

async function recordRun(): Promise<EventRecord[]> {
  const clock = new DeterministicClock();
  const ids = new DeterministicIds();
  const child = new AgentHarness<undefined, undefined>({ clock, ids });
  child.registerModel("mini", new ScriptedModel(["child says hi"], { modelId: "gpt-mini" }), {
    pricing: { inputPerMillion: 0.5, outputPerMillion: 1 },
  });
  const parent = new AgentHarness<undefined, undefined>({ clock, ids });
  const busy = new ProviderError({
    provider: "openai",
    message: "busy",
    kind: "upstream_unhealthy",
    status: 503,
  });
  parent
    .registerModel(
      "main",
      new ScriptedModel(
        [
          busy,
          {
            toolCalls: [{ name: "delegate", id: "call-d", arguments: { task: "secret plan" } }],
            usage: usage({ inputTokens: 1000, outputTokens: 100, cacheReadTokens: 800 }),
          },
          { toolCalls: [], text: "final", usage: usage({ inputTokens: 1200, outputTokens: 20 }) },
        ],
        { modelId: "gpt-x" },
      ),
      { pricing: { inputPerMillion: 2, outputPerMillion: 8, cacheReadPerMillion: 0.5 } },
    )
    .withPolicy({ retry: { initialBackoffMs: 100 } })
    .registerTool(
      new FakeTool("delegate", async (_args, ctx) => {
        const sub = lowerLayer(child).createContext(
          { runId: "child-1", parentRunId: ctx.run.runId, rootRunId: ctx.run.scope.rootRunId, depth: 1 },
          undefined,
          { events: ctx.run.events, signal: ctx.run.signal },
        );
        await lowerLayer(child).invokeInContext(undefined, sub, "sub task");
        return "delegated";
      }),
    );
  const sink = new EventSink("run-1", { now: () => clock.now() });
  const recorder = new EventRecorder();
  recorder.attach(sink);
  await lowerLayer(parent).invoke(undefined, undefined, { runId: "run-1", threadId: "thread-7" }, "go", {
    events: sink,
  });
  return recorder.records;
}

interface OtlpSpanJson {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  status: { code: number; message?: string };
}

function attr(span: OtlpSpanJson, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (value === undefined) return undefined;
  if ("arrayValue" in value)
    return (value.arrayValue as { values: { stringValue: string }[] }).values.map((v) => v.stringValue);
  return Object.values(value)[0];
}

function spansOf(request: Received | undefined): OtlpSpanJson[] {
  const body = JSON.parse(request?.body ?? "{}");
  return body.resourceSpans.flatMap((r: { scopeSpans: { spans: OtlpSpanJson[] }[] }) =>
    r.scopeSpans.flatMap((s) => s.spans),
  );
}

describe("LangfuseClient OTLP export (default)", () => {
  it("POSTs OTLP protobuf with Basic auth, GenAI and Langfuse attributes, and a nested span tree", async () => {
    const records = await recordRun();
    const server = await serve(() => ({ status: 200, body: "{}" }));
    const client = LangfuseClient.direct(`${server.url}/`, PUBLIC_KEY, SECRET_KEY);

    const result = await client.exportRun(records, {
      userId: "user-1",
      tags: ["prod", "support"],
      agentName: (run) => (run.depth === 0 ? "planner" : "worker"),
    });

    expect(result).toMatchObject({ transport: "otlp", requests: 1, failed: [], rejectedSpans: 0, ok: true });
    expect(result.traceIds).toEqual([otlpTraceId("run-1")]);
    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/api/public/otel/v1/traces");
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${PUBLIC_KEY}:${SECRET_KEY}`).toString("base64")}`,
    );
    expect(request?.headers["content-type"]).toBe("application/x-protobuf");
    expect(request?.headers["x-langfuse-public-key"]).toBe(PUBLIC_KEY);
    expect(request?.headers["x-langfuse-sdk-name"]).toBe("tinyagents");
    const body = JSON.parse(request?.body ?? "{}");
    expect(body.resourceSpans[0].scopeSpans[0].scope.name).toBe("tinyagents");

    const spans = spansOf(request);
    expect(result.items).toBe(spans.length);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const parentName = (s: OtlpSpanJson) =>
      s.parentSpanId === undefined ? null : byId.get(s.parentSpanId)?.name;
    expect(spans.map((s) => [s.name, parentName(s), attr(s, "langfuse.observation.type")])).toEqual([
      ["invoke_agent planner", null, "agent"],
      // One generation per model call: the failed attempt and the retry are events inside it.
      ["chat gpt-x", "invoke_agent planner", "generation"],
      ["model.failed", "chat gpt-x", "event"],
      ["retry.scheduled", "chat gpt-x", "event"],
      ["execute_tool delegate", "invoke_agent planner", "tool"],
      ["invoke_agent worker", "execute_tool delegate", "agent"],
      ["chat gpt-mini", "invoke_agent worker", "generation"],
      ["chat gpt-x", "invoke_agent planner", "generation"],
    ]);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([otlpTraceId("run-1")]));
    for (const span of spans) {
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
    }

    const [root, withTools, failed] = spans as [OtlpSpanJson, OtlpSpanJson, OtlpSpanJson];
    expect(attr(root, "langfuse.trace.name")).toBe("planner");
    expect(attr(root, "user.id")).toBe("user-1");
    expect(attr(root, "session.id")).toBe("thread-7");
    expect(attr(root, "langfuse.trace.tags")).toEqual(["prod", "support"]);
    expect(attr(root, "gen_ai.operation.name")).toBe("invoke_agent");
    expect(attr(root, "gen_ai.usage.input_tokens")).toBeUndefined(); // totals would double count
    // The failed attempt: a WARNING event inside the generation, which itself succeeded.
    expect(failed.name).toBe("model.failed");
    expect(attr(failed, "langfuse.observation.level")).toBe("WARNING");
    expect(attr(failed, "langfuse.observation.status_message")).toBe("busy");
    expect(withTools.status).toEqual({ code: 0 });
    expect(withTools.kind).toBe(3);
    expect(JSON.parse(String(attr(withTools, "langfuse.observation.metadata"))).attempts).toBe(2);
    expect(attr(withTools, "gen_ai.request.model")).toBe("gpt-x");
    expect(attr(withTools, "langfuse.observation.model.name")).toBe("gpt-x");
    expect(JSON.parse(String(attr(withTools, "langfuse.observation.usage_details")))).toEqual({
      input: 200,
      input_cache_read: 800,
      input_cache_creation: 0,
      output: 100,
      total: 1100,
    });
    const cost = JSON.parse(String(attr(withTools, "langfuse.observation.cost_details")));
    expect(cost.total).toBeCloseTo((200 * 2 + 800 * 0.5 + 100 * 8) / 1e6, 12);
    expect(attr(withTools, "gen_ai.usage.cache_read.input_tokens")).toBe("800"); // OTLP/JSON int64: a string
    const tool = spans[4] as OtlpSpanJson;
    expect(tool.name).toBe("execute_tool delegate");
    expect(attr(tool, "gen_ai.tool.call.id")).toBe("call-d");
    expect(request?.body).not.toContain("secret plan"); // no content unless captureContent
  });

  it("is deterministic: exporting twice sends the same ids", async () => {
    const records = await recordRun();
    const server = await serve(() => ({ status: 200, body: "{}" }));
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY);
    await client.exportRun(records);
    await client.exportRun(records);
    const ids = server.requests.map((r) => spansOf(r).map((s) => s.spanId));
    expect(ids[0]).toEqual(ids[1]);
  });

  it("splits large exports into several requests", async () => {
    const records = await recordRun();
    const server = await serve(() => ({ status: 200, body: "" }));
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY, { maxRequestBytes: 2_000 });
    const result = await client.exportRun(records);
    expect(server.requests.length).toBeGreaterThan(1);
    expect(result.requests).toBe(server.requests.length);
    expect(server.requests.flatMap((r) => spansOf(r)).length).toBe(result.items);
    expect(result.ok).toBe(true);
  });
});

describe("LangfuseClient legacy batch ingestion", () => {
  it("sends envelopes with ids, types, timestamps and parent links, and reports 207 failures", async () => {
    const records = await recordRun();
    const server = await serve((request) => {
      const batch = JSON.parse(request.body).batch as { id: string; type: string }[];
      const bad = batch.find((e) => e.type === "event-create");
      return {
        status: 207,
        body: JSON.stringify({
          successes: batch.filter((e) => e !== bad).map((e) => ({ id: e.id, status: 201 })),
          errors: [{ id: bad?.id, status: 400, message: "Invalid request data", error: { issue: "level" } }],
        }),
      };
    });
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY, { transport: "ingestion" });

    const result = await client.exportRun(records, { sessionId: "s-1" });

    const [request] = server.requests;
    expect(request?.path).toBe("/api/public/ingestion");
    const batch = JSON.parse(request?.body ?? "{}").batch as {
      id: string;
      type: string;
      timestamp: string;
      body: Record<string, unknown>;
    }[];
    expect(batch.map((e) => e.type)).toEqual([
      "trace-create",
      "span-create",
      "generation-create",
      "event-create",
      "event-create",
      "span-create",
      "span-create",
      "generation-create",
      "generation-create",
    ]);
    expect(new Set(batch.map((e) => e.id)).size).toBe(batch.length);
    for (const envelope of batch) expect(envelope.timestamp).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(batch[0]?.body).toMatchObject({ id: "run-1", name: "tinyagents run", sessionId: "s-1" });
    const ids = new Set(batch.map((e) => e.body.id));
    for (const envelope of batch.slice(1)) {
      expect(envelope.body.traceId).toBe("run-1");
      if (envelope.body.parentObservationId !== undefined)
        expect(ids.has(envelope.body.parentObservationId)).toBe(true);
    }
    const childRun = batch.find((e) => e.body.id === "run-1:run:child-1");
    expect(childRun?.body.parentObservationId).toBe("run-1:tool:run-1:call-d");
    const generation = batch.find((e) => e.body.id === "run-1:model:run-1:run-1-model-1");
    expect(generation?.body).toMatchObject({
      model: "gpt-x",
      level: "DEFAULT",
      usageDetails: { input: 200, input_cache_read: 800, input_cache_creation: 0, output: 100, total: 1100 },
      costDetails: { total: expect.closeTo(0.0016, 10) },
      metadata: expect.objectContaining({ attempts: 2 }),
    });
    const failedAttempt = batch.find((e) => e.body.name === "model.failed");
    expect(failedAttempt?.body).toMatchObject({
      level: "WARNING",
      statusMessage: "busy",
      parentObservationId: "run-1:model:run-1:run-1-model-1",
    });

    const bad = batch.find((e) => e.type === "event-create");
    expect(result.ok).toBe(false);
    expect(result.failed).toEqual([
      { id: bad?.id, status: 400, message: 'Invalid request data: {"issue":"level"}' },
    ]);
    expect(server.requests).toHaveLength(1); // nothing retried
  });

  it("goes through the proxy with a bearer token", async () => {
    const records = await recordRun();
    const server = await serve(acceptAll);
    const client = LangfuseClient.proxy(server.url, TOKEN);
    const result = await client.exportRun(records);
    expect(server.requests[0]?.path).toBe("/telemetry/langfuse/ingestion");
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(result).toMatchObject({ transport: "ingestion", ok: true, failed: [], traceIds: ["run-1"] });
  });

  it("reports envelopes a 207 does not mention, and rejects a 207 it cannot read", async () => {
    const records = await recordRun();
    const silent = await serve(() => ({ status: 207, body: '{"successes":[],"errors":[]}' }));
    const result = await LangfuseClient.direct(silent.url, PUBLIC_KEY, SECRET_KEY, {
      transport: "ingestion",
    }).exportRun(records);
    expect(result.failed.length).toBe(result.items);
    expect(result.failed[0]).toEqual({
      id: "run-1:trace-create",
      status: 0,
      message: "not acknowledged by the server",
    });

    const garbled = await serve(() => ({ status: 207, body: "<html>" }));
    const client = LangfuseClient.direct(garbled.url, PUBLIC_KEY, SECRET_KEY, { transport: "ingestion" });
    const error = await rejection(client.exportRun(records));
    expect(error.code).toBe("provider");
    expect(error.message).toContain("unknown which events were stored");
  });
});

describe("LangfuseClient failures", () => {
  it("401: a non-retryable provider error that never shows the secret, even when the server echoes it", async () => {
    const records = await recordRun();
    const server = await serve((request) => ({
      status: 401,
      body: JSON.stringify({
        message: "Invalid credentials",
        got: request.headers.authorization,
        key: SECRET_KEY,
      }),
    }));
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY);
    const error = await rejection(client.exportRun(records));
    expect(ProviderError.isProviderError(error)).toBe(true);
    const providerError = error as ProviderError;
    expect(providerError.code).toBe("provider");
    expect(providerError.status).toBe(401);
    expect(providerError.retryable).toBe(false);
    expect(providerError.message).toContain("credentials were rejected");
    const everything = `${providerError.message} ${providerError.rawBody} ${JSON.stringify(providerError)}`;
    expect(everything).not.toContain(SECRET_KEY);
    expect(everything).not.toContain(Buffer.from(`${PUBLIC_KEY}:${SECRET_KEY}`).toString("base64"));
    expect(everything).toContain("[REDACTED]");
  });

  it("500 and 429: retryable, with Retry-After, and not retried by the client", async () => {
    const records = await recordRun();
    const down = await serve(() => ({ status: 500, body: '{"message":"boom"}' }));
    const error = (await rejection(
      LangfuseClient.direct(down.url, PUBLIC_KEY, SECRET_KEY).exportRun(records),
    )) as ProviderError;
    expect(error).toMatchObject({ code: "provider", status: 500, retryable: true });
    expect(error.message).toContain("boom");
    expect(down.requests).toHaveLength(1);

    const limited = await serve(() => ({ status: 429, headers: { "retry-after": "7" }, body: "{}" }));
    const proxy = LangfuseClient.proxy(limited.url, TOKEN);
    const rateLimited = (await rejection(proxy.exportRun(records))) as ProviderError;
    expect(rateLimited).toMatchObject({ status: 429, retryable: true, retryAfterMs: 7000 });
  });

  it("times out a server that never answers", async () => {
    const records = await recordRun();
    const server = await serve(() => ({ status: 200, hang: true }));
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY, { timeoutMs: 150 });
    const error = (await rejection(client.exportRun(records))) as ProviderError;
    expect(error).toMatchObject({ code: "provider", retryable: true });
    expect(error.message).toContain("until its 150 ms budget ran out");
  });

  it("reports an unreachable server and an abort", async () => {
    const records = await recordRun();
    const server = await serve(() => ({ status: 200 }));
    const closed = server.url;
    await closeServers();
    // The OTLP exporter retries a refused connection within timeoutMs, then gives up.
    const error = await rejection(
      LangfuseClient.direct(closed, PUBLIC_KEY, SECRET_KEY, { timeoutMs: 1_500 }).exportRun(records),
    );
    expect(error.code).toBe("provider");
    expect(error.message).toContain("could not reach http://127.0.0.1:");
    expect(error.message).not.toContain(SECRET_KEY);

    const controller = new AbortController();
    controller.abort();
    const aborted = await rejection(
      LangfuseClient.direct(closed, PUBLIC_KEY, SECRET_KEY).exportRun(records, { signal: controller.signal }),
    );
    expect(aborted.code).toBe("cancelled");
  });

  it("uses an injected fetch (ingestion endpoint)", async () => {
    const records = await recordRun();
    const seen: string[] = [];
    const fakeFetch: typeof fetch = async (input, init) => {
      seen.push(String(input));
      const batch = JSON.parse(String(init?.body)).batch as { id: string }[];
      return new Response(JSON.stringify({ successes: batch.map((e) => ({ id: e.id, status: 201 })) }), {
        status: 207,
      });
    };
    const client = LangfuseClient.direct("https://langfuse.example", PUBLIC_KEY, SECRET_KEY, {
      fetch: fakeFetch,
      transport: "ingestion",
    });
    expect((await client.exportRun(records)).ok).toBe(true);
    expect(seen).toEqual(["https://langfuse.example/api/public/ingestion"]);
  });
});

describe("LangfuseClient configuration", () => {
  it("fromEnv prefers the proxy, then direct, and names missing variables", () => {
    const proxy = LangfuseClient.fromEnv({
      TINYHUMANS_LANGFUSE_PROXY_URL: "https://api.example",
      TINYHUMANS_AUTH_TOKEN: TOKEN,
    });
    expect(proxy.toJSON()).toEqual({
      mode: "proxy",
      transport: "ingestion",
      endpoint: "https://api.example/telemetry/langfuse/ingestion",
    });
    const direct = LangfuseClient.fromEnv({
      LANGFUSE_BASE_URL: "https://cloud.langfuse.com/",
      LANGFUSE_PUBLIC_KEY: PUBLIC_KEY,
      LANGFUSE_SECRET_KEY: SECRET_KEY,
    });
    expect(direct.endpoint).toBe("https://cloud.langfuse.com/api/public/otel/v1/traces");

    const missing = (() => {
      try {
        LangfuseClient.fromEnv({ LANGFUSE_PUBLIC_KEY: PUBLIC_KEY, LANGFUSE_SECRET_KEY: " " });
      } catch (error) {
        return error as TinyAgentsError;
      }
      return undefined;
    })();
    expect(missing?.code).toBe("validation");
    expect(missing?.message).toContain("missing LANGFUSE_BASE_URL, LANGFUSE_SECRET_KEY");
    expect(missing?.details).toEqual({ missing: ["LANGFUSE_BASE_URL", "LANGFUSE_SECRET_KEY"] });
    expect(() => LangfuseClient.fromEnv({ TINYHUMANS_LANGFUSE_PROXY_URL: "https://api.example" })).toThrow(
      /TINYHUMANS_AUTH_TOKEN is missing/,
    );
    expect(() => LangfuseClient.fromEnv({})).toThrow(/TINYHUMANS_LANGFUSE_PROXY_URL/);
  });

  it("validates URLs, keys and records without echoing secrets", async () => {
    expect(() => LangfuseClient.direct(SECRET_KEY, PUBLIC_KEY, SECRET_KEY)).toThrow(/absolute http\(s\) URL/);
    try {
      LangfuseClient.direct(SECRET_KEY, PUBLIC_KEY, SECRET_KEY);
    } catch (error) {
      expect(String(error)).not.toContain(SECRET_KEY);
    }
    expect(() => LangfuseClient.direct("https://u:p@host.example", PUBLIC_KEY, SECRET_KEY)).toThrow(
      /credentials/,
    );
    expect(() => LangfuseClient.direct("https://x.example", SECRET_KEY, PUBLIC_KEY)).toThrow(
      /looks like a secret key/,
    );
    expect(() => LangfuseClient.direct("https://x.example", PUBLIC_KEY, "")).toThrow(
      /secretKey must be a non-empty/,
    );
    expect(() => LangfuseClient.proxy("https://x.example", "to ken")).toThrow(/whitespace/);
    expect(() =>
      LangfuseClient.direct("https://x.example", PUBLIC_KEY, SECRET_KEY, { timeoutMs: 0 }),
    ).toThrow(/timeoutMs must be a positive number/);
    const client = LangfuseClient.direct("https://x.example", PUBLIC_KEY, SECRET_KEY);
    expect((await rejection(client.exportRun([]))).code).toBe("validation");
    expect((await rejection(client.exportRun([{ nope: 1 } as unknown as EventRecord]))).message).toContain(
      "records[0] is not an event record",
    );
  });

  it("never shows credentials in String, JSON or inspect", () => {
    const direct = LangfuseClient.direct("https://x.example", PUBLIC_KEY, SECRET_KEY);
    const proxy = LangfuseClient.proxy("https://x.example", `Bearer ${TOKEN}`);
    for (const client of [direct, proxy]) {
      const shown = `${String(client)} ${JSON.stringify(client)} ${inspect(client, { showHidden: true, depth: 5 })}`;
      expect(shown).not.toContain(SECRET_KEY);
      expect(shown).not.toContain(TOKEN);
    }
    expect(String(direct)).toBe("LangfuseClient(direct, otlp, https://x.example)");
  });
});
