/**
 * Fault injection at the provider boundary: the REAL OpenAI-compatible adapter against the replay
 * server (and, for network failures, a closed port and an injected fetch), unary (`invoke`) and
 * streaming (`stream`) alike. Every fault must end in a typed error carrying the documented code,
 * kind and retryability — never a hang, an untyped throw or a silently shortened answer — and
 * leave nothing behind: no abort listener on the caller's signal, no timer, no socket.
 *
 * The loop-level consequences of the same faults (retries, events, status, journal) are in
 * packages/harness/test/faults/provider-loop-faults.integration.test.ts.
 */
import { getEventListeners } from "node:events";
import {
  type FetchLike,
  MAX_BODY_BYTES,
  MAX_EVENT_BYTES,
  type ModelStreamItem,
  OpenAiChatModel,
  ProviderError,
  RAW_BODY_LIMIT,
  StreamAccumulator,
  TinyAgentsError,
  user,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { activeResources, settleResources } from "../../../../test/setup/active-resources.js";
import { type ReplayResponse, ReplayServer } from "../replay/replay-server.js";
import { closedPort } from "../support/loopback.js";
import {
  chunk,
  FAULT_MODEL,
  STATUS_FAULTS,
  type StatusFaultExpectation,
  sse,
  sseResponse,
  textChunks,
} from "./wire.js";

const KEY = "test-key-0123456789";
const MODES = ["invoke", "stream"] as const;
type Mode = (typeof MODES)[number];

/** What one call produced: the items streamed before the failure, and the failure. */
interface CallOutcome {
  items: ModelStreamItem[];
  text: string;
  error: unknown;
}

/** Call the model once in `mode`; a stream's `error` item is thrown like `invoke` would. */
async function call(
  model: OpenAiChatModel,
  mode: Mode,
  signal: AbortSignal,
  timeoutMs?: number,
): Promise<CallOutcome> {
  const request = { messages: [user("hi")], ...(timeoutMs === undefined ? {} : { timeoutMs }) };
  const items: ModelStreamItem[] = [];
  let text = "";
  try {
    if (mode === "invoke") {
      const response = await model.invoke(request, { signal });
      text = response.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    } else {
      const accumulator = new StreamAccumulator({ provider: model.provider, model: model.modelId });
      for await (const item of model.stream(request, { signal })) {
        items.push(item);
        accumulator.push(item);
      }
      const response = accumulator.finish();
      text = response.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    }
    return { items, text, error: undefined };
  } catch (error) {
    return { items, text, error };
  }
}

/**
 * Run one call against a fresh replay server serving `response` and check hygiene afterwards:
 * no abort listener left on the caller's signal, and (after the server closed) no new resource.
 */
async function withReplay(
  response: ReplayResponse,
  mode: Mode,
  options: { timeoutMs?: number; fetch?: FetchLike; streamIdleTimeoutMs?: number } = {},
): Promise<CallOutcome & { requests: number }> {
  const baseline = activeResources();
  const server = await ReplayServer.start();
  server.setHandler(() => response);
  const model = new OpenAiChatModel({
    model: FAULT_MODEL,
    baseUrl: `${server.url}/v1`,
    apiKey: KEY,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.streamIdleTimeoutMs === undefined
      ? {}
      : { streamIdleTimeoutMs: options.streamIdleTimeoutMs }),
  });
  const controller = new AbortController();
  try {
    const outcome = await call(model, mode, controller.signal, options.timeoutMs);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    return { ...outcome, requests: server.requests.length };
  } finally {
    await server.close();
    expect(await settleResources(baseline)).toEqual([]);
  }
}

function expectProviderFailure(error: unknown, expected: Partial<StatusFaultExpectation> & { code: string }) {
  expect(TinyAgentsError.isInstance(error)).toBe(true);
  expect(ProviderError.isProviderError(error)).toBe(true);
  const e = error as ProviderError;
  expect(e.code).toBe(expected.code);
  if (expected.kind !== undefined) expect(e.kind).toBe(expected.kind);
  if (expected.retryable !== undefined) expect(e.retryable).toBe(expected.retryable);
  if (expected.status !== undefined) expect(e.status).toBe(expected.status);
  if (expected.providerCode !== undefined) expect(e.providerCode).toBe(expected.providerCode);
  if (expected.messageIncludes !== undefined) expect(e.message).toContain(expected.messageIncludes);
  if (expected.retryAfterMs !== undefined) expect(e.retryAfterMs).toBe(expected.retryAfterMs);
  // The summary that reaches events and journals is JSON and says the same.
  expect(JSON.parse(JSON.stringify(e.toJSON()))).toMatchObject({
    code: expected.code,
    name: "ProviderError",
  });
  expect(e.message).not.toContain(KEY);
}

describe.each(MODES)("HTTP status faults (%s)", (mode) => {
  it.each(STATUS_FAULTS.map((f) => [f.name, f] as const))("%s", async (_name, fault) => {
    const outcome = await withReplay(fault.response, mode);
    expectProviderFailure(outcome.error, fault.expect);
    const e = outcome.error as ProviderError;
    if (fault.expect.retryAfterMs === undefined) expect(e.retryAfterMs).toBeUndefined();
    // One request per call: retrying is the harness's job, never the adapter's.
    expect(outcome.requests).toBe(1);
    expect(e.rawBody?.length ?? 0).toBeLessThanOrEqual(RAW_BODY_LIMIT + 20);
  });
});

/** One fault of the byte stream of a 200 answer, with its documented outcome. */
interface StreamFault {
  name: string;
  response: ReplayResponse;
  timeoutMs?: number;
  /** The adapter's `streamIdleTimeoutMs` (default: the adapter's default). */
  streamIdleTimeoutMs?: number;
  expect:
    | { ok: true; text: string }
    | { code: string; providerCode?: string; retryable?: boolean; kind?: string; messageIncludes?: string };
  /** Text deltas a stream must have delivered before failing (streaming mode only). */
  deltasBefore?: string;
}

const TEXT = sse(textChunks(["Hel", "lo ", "world"]));
const FINISH_AT = TEXT.indexOf('"finish_reason":"stop"');

const STREAM_FAULTS: readonly StreamFault[] = [
  {
    name: "truncated mid-event (the server ends the body)",
    response: sseResponse(TEXT, { cutAfterBytes: TEXT.indexOf("lo ") + 2, chunking: "frames" }),
    expect: { code: "provider", providerCode: "stream_truncated", retryable: true },
    deltasBefore: "Hel",
  },
  {
    name: "connection reset mid-body",
    response: sseResponse(TEXT, {
      cutAfterBytes: TEXT.indexOf("lo ") + 2,
      cutMode: "destroy",
      chunking: "frames",
    }),
    expect: { code: "provider", providerCode: "stream_interrupted", retryable: true },
    deltasBefore: "Hel",
  },
  {
    name: "malformed JSON in an event",
    response: sseResponse(
      sse([chunk({ content: "a" }), '{"choices":[{"delta":{"content":"b"', ...textChunks(["c"])]),
    ),
    expect: {
      code: "provider",
      providerCode: "malformed_stream",
      retryable: false,
      messageIncludes: "not a JSON object",
    },
  },
  {
    name: "error event after deltas",
    response: sseResponse(
      sse([chunk({ content: "partial" }), { error: { message: "boom", type: "server_error" } }], false),
      { chunking: "frames" },
    ),
    expect: {
      code: "provider",
      providerCode: "server_error",
      kind: "upstream_unhealthy",
      retryable: true,
      messageIncludes: "boom",
    },
    deltasBefore: "partial",
  },
  {
    name: "no terminal event (neither finish_reason nor [DONE])",
    response: sseResponse(sse([chunk({ content: "a" }), chunk({ content: "b" })], false)),
    expect: {
      code: "provider",
      providerCode: "stream_truncated",
      retryable: true,
      messageIncludes: "before [DONE]",
    },
    deltasBefore: "ab",
  },
  {
    name: "cut right after the finish chunk (not a fault: the answer is whole)",
    response: sseResponse(TEXT, { cutAfterBytes: TEXT.indexOf("\n\n", FINISH_AT) + 2 }),
    expect: { ok: true, text: "Hello world" },
  },
  {
    name: "non-SSE reply (plain text) to a stream request",
    response: { status: 200, headers: { "content-type": "text/plain" }, body: "upstream says hello" },
    expect: {
      code: "provider",
      providerCode: "invalid_response",
      retryable: false,
      messageIncludes: "base URL",
    },
  },
  {
    name: "non-SSE reply (a whole JSON completion) to a stream request",
    response: {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "x",
        model: FAULT_MODEL,
        choices: [{ index: 0, message: { role: "assistant", content: "plain json" }, finish_reason: "stop" }],
      }),
    },
    expect: { ok: true, text: "plain json" },
  },
  {
    name: "stalled stream (no bytes after the first deltas) is caught by the stream idle timeout",
    response: sseResponse(TEXT, { stallAfterBytes: TEXT.indexOf("lo ") - 8, chunking: "frames" }),
    streamIdleTimeoutMs: 200,
    timeoutMs: 30_000,
    expect: { code: "timeout", messageIncludes: `no data for 200 ms from openai ${FAULT_MODEL}` },
    deltasBefore: "Hel",
  },
  {
    name: "stalled stream with the idle timeout disabled is bounded by request.timeoutMs",
    response: sseResponse(TEXT, { stallAfterBytes: TEXT.indexOf("lo ") - 8, chunking: "frames" }),
    streamIdleTimeoutMs: 0,
    // Generous, so the first frames arrive before it even on a loaded machine.
    timeoutMs: 1000,
    expect: { code: "timeout", messageIncludes: "timed out" },
    deltasBefore: "Hel",
  },
  {
    name: "timeout before headers (request.timeoutMs)",
    response: { ...sseResponse(TEXT), headerDelayMs: 30_000 },
    timeoutMs: 200,
    expect: { code: "timeout", messageIncludes: "timed out" },
  },
];

describe.each(MODES)("stream faults (%s)", (mode) => {
  it.each(STREAM_FAULTS.map((f) => [f.name, f] as const))("%s", async (_name, fault) => {
    const outcome = await withReplay(fault.response, mode, {
      ...(fault.timeoutMs === undefined ? {} : { timeoutMs: fault.timeoutMs }),
      ...(fault.streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs: fault.streamIdleTimeoutMs }),
    });
    if ("ok" in fault.expect) {
      expect(outcome.error).toBeUndefined();
      expect(outcome.text).toBe(fault.expect.text);
      return;
    }
    const expected = fault.expect;
    expect(TinyAgentsError.isInstance(outcome.error, expected.code as never)).toBe(true);
    if (expected.code === "provider") expectProviderFailure(outcome.error, expected as never);
    else expect((outcome.error as Error).message).toContain(expected.messageIncludes);
    if (mode === "stream" && fault.deltasBefore !== undefined) {
      // What arrived before the fault was delivered, in order, and nothing was invented.
      const streamed = outcome.items.map((i) => (i.type === "text_delta" ? i.text : "")).join("");
      expect(streamed).toBe(fault.deltasBefore);
    }
  });
});

/** A fetch that fails like undici does when DNS cannot resolve the host. */
const notFoundFetch: FetchLike = async () => {
  const cause = Object.assign(new Error("getaddrinfo ENOTFOUND api.nowhere.invalid"), {
    code: "ENOTFOUND",
    syscall: "getaddrinfo",
    hostname: "api.nowhere.invalid",
  });
  throw Object.assign(new TypeError("fetch failed"), { cause });
};

describe.each(MODES)("network faults (%s)", (mode) => {
  it("connection refused is a retryable provider error naming the URL", async () => {
    const baseline = activeResources();
    const port = await closedPort();
    const model = new OpenAiChatModel({
      model: FAULT_MODEL,
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: KEY,
    });
    const controller = new AbortController();
    const { error } = await call(model, mode, controller.signal);
    expectProviderFailure(error, { code: "provider", kind: "retryable", retryable: true });
    expect((error as Error).message).toContain("ECONNREFUSED");
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(await settleResources(baseline)).toEqual([]);
  });

  it("a DNS failure (ENOTFOUND) is a non-retryable provider error saying to check the base URL", async () => {
    const model = new OpenAiChatModel({
      model: FAULT_MODEL,
      baseUrl: "https://api.nowhere.invalid/v1",
      apiKey: KEY,
      fetch: notFoundFetch,
    });
    const { error } = await call(model, mode, new AbortController().signal);
    expectProviderFailure(error, { code: "provider", kind: "non_retryable", retryable: false });
    expect((error as Error).message).toContain("ENOTFOUND");
    expect((error as Error).message).toContain("Check the base URL");
  });
});

/** A fetch over the platform one that counts the body bytes the adapter actually pulled. */
function countingFetch(counter: { bytes: number }): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init);
    const source = response.body;
    if (source === null) return response;
    const reader = source.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else {
          counter.bytes += value.byteLength;
          controller.enqueue(value);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

const MIB = 1024 * 1024;

describe.each(MODES)("enormous responses stay bounded in memory (%s)", (mode) => {
  it("an enormous error body is read up to 64 KiB and kept up to RAW_BODY_LIMIT", async () => {
    const counter = { bytes: 0 };
    const body = JSON.stringify({ error: { message: "x".repeat(40 * MIB), type: "server_error" } });
    const outcome = await withReplay(
      { status: 500, headers: { "content-type": "application/json" }, body, chunking: { every: MIB } },
      mode,
      { fetch: countingFetch(counter) },
    );
    expectProviderFailure(outcome.error, { code: "provider", status: 500, retryable: true });
    const e = outcome.error as ProviderError;
    expect(e.rawBody?.length).toBeLessThanOrEqual(RAW_BODY_LIMIT + 20);
    expect(e.rawBody).toMatch(/…\[truncated\]$/);
    expect(e.message.length).toBeLessThan(2000);
    expect(counter.bytes).toBeLessThan(4 * MIB);
  }, 30_000);

  it("an enormous 200 body that is not a stream fails with response_too_large after MAX_BODY_BYTES", async () => {
    const counter = { bytes: 0 };
    const outcome = await withReplay(
      {
        status: 200,
        headers: { "content-type": "application/json" },
        body: `{"id":"x","pad":"${"y".repeat(MAX_BODY_BYTES + 4 * MIB)}"}`,
        chunking: { every: MIB },
      },
      mode,
      { fetch: countingFetch(counter) },
    );
    expectProviderFailure(outcome.error, {
      code: "provider",
      providerCode: "response_too_large",
      retryable: false,
    });
    expect(counter.bytes).toBeLessThanOrEqual(MAX_BODY_BYTES + 2 * MIB);
  }, 30_000);

  it("one enormous server-sent event fails with response_too_large after MAX_EVENT_BYTES", async () => {
    const counter = { bytes: 0 };
    const huge = `data: {"choices":[{"index":0,"delta":{"content":"${"z".repeat(MAX_EVENT_BYTES + 4 * MIB)}"}}]}\n\n`;
    const outcome = await withReplay(
      sseResponse(sse([chunk({ content: "ok" })], false) + huge, { chunking: { every: MIB } }),
      mode,
      {
        fetch: countingFetch(counter),
      },
    );
    expectProviderFailure(outcome.error, {
      code: "provider",
      providerCode: "response_too_large",
      retryable: false,
    });
    expect(counter.bytes).toBeLessThanOrEqual(MAX_EVENT_BYTES + 2 * MIB);
    if (mode === "stream")
      expect(outcome.items.some((i) => i.type === "text_delta" && i.text === "ok")).toBe(true);
  }, 30_000);
});
