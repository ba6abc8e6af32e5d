/**
 * Provider faults through the whole loop: the REAL OpenAI-compatible adapter against the replay
 * server, unary and streaming. The first model turn succeeds (a tool call that runs), then every
 * later request meets the fault, so each failed run has a partial transcript to keep.
 *
 * Documented outcomes checked for every fault (see fault-kit.ts for the common part):
 * - retryable failures are retried `RunPolicy.retry.maxRetries` times (each `retry.scheduled`
 *   waiting the provider's hint, else the exponential backoff), non-retryable ones never;
 * - a streaming attempt that already delivered deltas is never retried invisibly;
 * - a stream that stalls is caught by the adapter's stream idle timeout (`streamIdleTimeoutMs`):
 *   a `timeout` error (`details.limit: "stream_idle_timeout"`, scope `model_call`), like the call
 *   timeout never retried on the same model, but a fallback model takes over when configured;
 * - the run fails with the final error's code, `run.failed` last, balanced middleware events,
 *   a `failed` status record, the journal on disk equal to the events, and the transcript
 *   `[user, assistant(tool call), tool result]`.
 */
import type { Middleware } from "@tinyagents/harness";
import { FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import {
  type ChatModel,
  type Clock,
  type FetchLike,
  OpenAiChatModel,
  type ProviderError,
  systemClock,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import {
  chunk,
  FAULT_MODEL,
  STATUS_FAULTS,
  sse,
  sseResponse,
  textChunks,
  toolTurn,
} from "../../../inference/test/faults/wire.js";
import type { ReplayResponse } from "../../../inference/test/replay/replay-server.js";
import { closedPort } from "../../../inference/test/support/loopback.js";
import { useReplayServer } from "../../../inference/test/support/replay.js";
import {
  BOTH_PATHS,
  eventsOf,
  expectCompletedRun,
  expectFailedRun,
  type FaultRun,
  runFault,
} from "./fault-kit.js";

const MAX_RETRIES = 2;
/** `DEFAULT_RETRY_POLICY` backoff: 200 ms x 2^(n-1). */
const backoff = (attempt: number) => 200 * 2 ** (attempt - 1);

const server = useReplayServer({ resetBeforeEach: false });

const lookup = () => FakeTool.returning("lookup", { answer: 42 });

function adapter(baseUrl = `${server.url}/v1`, fetch?: FetchLike, streamIdleTimeoutMs?: number): ChatModel {
  return new OpenAiChatModel({
    model: FAULT_MODEL,
    baseUrl,
    apiKey: "test-key-0123456789",
    ...(fetch === undefined ? {} : { fetch }),
    ...(streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs }),
  });
}

/** The first request gets a tool-call turn, every later one `fault`. */
function serveFaultAfterToolTurn(fault: ReplayResponse): void {
  server.reset();
  let calls = 0;
  server.setHandler(() => (++calls === 1 ? toolTurn("call_1", "lookup", { q: "x" }) : fault));
}

/** A middleware giving every model request a timeout (`request.timeoutMs`). */
function callTimeout(timeoutMs: number): Middleware {
  return {
    name: "call_timeout",
    changes: "metadata",
    beforeModel: (_ctx, request) => ({ ...request, timeoutMs }),
  };
}

/**
 * The adapter's call bounds and the loop's model-call budget run on the run's clock, so a case
 * that waits for a real server to time out runs on the real clock: a `DeterministicClock` does
 * not time real I/O (nothing sleeps on it while the socket is silent).
 */
const REAL_TIME: Clock = systemClock;

async function runAgainstServer(
  streaming: boolean,
  middleware: Middleware[] = [],
  streamIdleTimeoutMs?: number,
  clock?: Clock,
): Promise<FaultRun> {
  return runFault({
    ...(clock === undefined ? {} : { clock }),
    models: { primary: adapter(undefined, undefined, streamIdleTimeoutMs) },
    streaming,
    tools: [lookup()],
    middleware,
    policy: { retry: { maxRetries: MAX_RETRIES } },
    afterRun: () => server.closeConnections(),
  });
}

/** Attempts of the faulted (second) model call: its `model.started` events. */
function faultedAttempts(result: FaultRun): number {
  return eventsOf(result, "model.started").filter((e) => e.callId.endsWith("-model-2")).length;
}

describe.each(BOTH_PATHS)("HTTP status faults through the loop (%s)", (_path, streaming) => {
  it.each(STATUS_FAULTS.map((f) => [f.name, f] as const))("%s", async (_name, fault) => {
    serveFaultAfterToolTurn(fault.response);
    const result = await runAgainstServer(streaming);
    expectFailedRun(result, { code: fault.expect.code, transcript: ["user", "assistant", "tool"] });
    const error = result.error as ProviderError;
    expect(error.status).toBe(fault.expect.status);
    expect(error.kind).toBe(fault.expect.kind);

    const attempts = fault.expect.retryable ? MAX_RETRIES + 1 : 1;
    expect(faultedAttempts(result)).toBe(attempts);
    expect(server.requests).toHaveLength(1 + attempts);
    const retries = eventsOf(result, "retry.scheduled");
    expect(retries.map((r) => r.delayMs)).toEqual(
      Array.from({ length: attempts - 1 }, (_, i) => fault.expect.retryAfterMs ?? backoff(i + 1)),
    );
    expect(eventsOf(result, "model.failed")).toHaveLength(attempts);
    // The failed call counts, in the run and in its status record alike.
    expect(result.run.modelCalls).toBe(2);
    expect(result.run.toolCalls).toBe(1);
    expect(result.status.modelCalls).toBe(2);
  });
});

const TEXT = sse(textChunks(["Hel", "lo ", "world"]));

/** A fault of a 200 answer's byte stream, and its documented loop outcome per path. */
interface StreamLoopFault {
  name: string;
  response: ReplayResponse;
  code: "provider" | "timeout";
  providerCode?: string;
  /** Attempts of the faulted call in a unary run / a streaming run. */
  attempts: { unary: number; streaming: number };
  /** Text a streaming run delivered as `model.*_delta` events before the fault. */
  streamedBefore?: string;
  /** `request.timeoutMs` (set by a middleware). */
  timeoutMs?: number;
  /** The adapter's `streamIdleTimeoutMs` (default: the adapter's default, 240 s). */
  streamIdleTimeoutMs?: number;
  /** `details` the final error must carry (a timeout's scope, limit and value). */
  details?: Record<string, unknown>;
  /** Words the final error's message must contain (what happened, what to change). */
  messageIncludes?: string;
}

const STREAM_LOOP_FAULTS: readonly StreamLoopFault[] = [
  {
    name: "truncated mid-event after deltas",
    response: sseResponse(TEXT, { cutAfterBytes: TEXT.indexOf("lo ") + 2, chunking: "frames" }),
    code: "provider",
    providerCode: "stream_truncated",
    // Unary: nothing reached consumers, so it is retried; streaming: deltas were shown, never replayed.
    attempts: { unary: MAX_RETRIES + 1, streaming: 1 },
    streamedBefore: "Hel",
  },
  {
    name: "error event after deltas",
    response: sseResponse(
      sse([chunk({ content: "partial" }), { error: { message: "boom", type: "server_error" } }], false),
      { chunking: "frames" },
    ),
    code: "provider",
    providerCode: "server_error",
    attempts: { unary: MAX_RETRIES + 1, streaming: 1 },
    streamedBefore: "partial",
  },
  {
    name: "stream without a terminal event",
    response: sseResponse(sse([chunk({ content: "a" }), chunk({ content: "b" })], false), {
      chunking: "frames",
    }),
    code: "provider",
    providerCode: "stream_truncated",
    attempts: { unary: MAX_RETRIES + 1, streaming: 1 },
    streamedBefore: "ab",
  },
  {
    name: "malformed JSON in an event (never retried)",
    response: sseResponse(sse([chunk({ content: "a" }), "{oops", ...textChunks(["b"])])),
    code: "provider",
    providerCode: "malformed_stream",
    attempts: { unary: 1, streaming: 1 },
  },
  {
    name: "non-SSE reply to a stream request (never retried)",
    response: {
      status: 200,
      headers: { "content-type": "text/html" },
      body: "<html><body>proxy login</body></html>",
    },
    code: "provider",
    providerCode: "invalid_response",
    attempts: { unary: 1, streaming: 1 },
  },
  {
    name: "stalled stream (caught by the stream idle timeout; a timeout is not retried)",
    response: sseResponse(TEXT, { stallAfterBytes: TEXT.indexOf("lo ") - 8, chunking: "frames" }),
    code: "timeout",
    attempts: { unary: 1, streaming: 1 },
    streamedBefore: "Hel",
    // Short idle timeout on the model; the call timeout is far away, so the idle timer catches it.
    streamIdleTimeoutMs: 200,
    timeoutMs: 30_000,
    details: { scope: "model_call", limit: "stream_idle_timeout", value: 200, provider: "openai" },
    messageIncludes: `no data for 200 ms from openai ${FAULT_MODEL}`,
  },
  {
    name: "stalled stream, idle timeout disabled (bounded by the call timeout)",
    response: sseResponse(TEXT, { stallAfterBytes: TEXT.indexOf("lo ") - 8, chunking: "frames" }),
    code: "timeout",
    attempts: { unary: 1, streaming: 1 },
    streamedBefore: "Hel",
    streamIdleTimeoutMs: 0,
    // Generous, so the first frames arrive before it even on a loaded machine.
    timeoutMs: 1000,
    details: { scope: "model_call", limit: "model_call_timeout", value: 1000 },
    messageIncludes: "timed out after 1000 ms",
  },
  {
    name: "timeout before headers",
    response: { ...sseResponse(TEXT), headerDelayMs: 30_000 },
    code: "timeout",
    attempts: { unary: 1, streaming: 1 },
    timeoutMs: 200,
  },
];

describe.each(BOTH_PATHS)("stream faults through the loop (%s)", (path, streaming) => {
  it.each(STREAM_LOOP_FAULTS.map((f) => [f.name, f] as const))("%s", async (_name, fault) => {
    serveFaultAfterToolTurn(fault.response);
    const result = await runAgainstServer(
      streaming,
      fault.timeoutMs === undefined ? [] : [callTimeout(fault.timeoutMs)],
      fault.streamIdleTimeoutMs,
      fault.code === "timeout" ? REAL_TIME : undefined,
    );
    expectFailedRun(result, { code: fault.code, transcript: ["user", "assistant", "tool"] });
    if (fault.providerCode !== undefined)
      expect((result.error as ProviderError).providerCode).toBe(fault.providerCode);
    if (fault.code === "timeout") expect(result.error?.details?.scope).toBe("model_call");
    if (fault.details !== undefined) expect(result.error?.details).toMatchObject(fault.details);
    if (fault.messageIncludes !== undefined) expect(result.error?.message).toContain(fault.messageIncludes);
    expect(faultedAttempts(result)).toBe(fault.attempts[path]);
    const deltas = eventsOf(result, "model.text_delta").filter((e) => e.callId.endsWith("-model-2"));
    const shown = deltas.map((e) => e.text).join("");
    // Unary runs show nothing; streaming runs show exactly what arrived before the fault.
    expect(shown).toBe(streaming ? (fault.streamedBefore ?? "") : "");
  });
});

describe.each(BOTH_PATHS)("an in-stream rate limit keeps its classification (%s)", (_path, streaming) => {
  it("retries after the provider's hint and fails as rate limited by openai", async () => {
    // A 200 stream whose first event is a 429-style error: nothing was shown, so both paths retry.
    const limited = sseResponse(
      sse(
        [
          {
            error: {
              message:
                "Rate limit reached for gpt-fault-1 on requests per min (RPM). Please try again in 1.5s.",
              type: "requests",
              param: null,
              code: "rate_limit_exceeded",
            },
          },
        ],
        false,
      ),
    );
    serveFaultAfterToolTurn(limited);
    const result = await runAgainstServer(streaming);
    expectFailedRun(result, { code: "provider", transcript: ["user", "assistant", "tool"] });
    const error = result.error as ProviderError;
    expect(error).toMatchObject({
      kind: "rate_limited",
      retryable: true,
      retryAfterMs: 1500,
      provider: "openai",
      providerCode: "rate_limit_exceeded",
    });
    expect(error.message).not.toContain("unknown");
    expect(faultedAttempts(result)).toBe(MAX_RETRIES + 1);
    expect(eventsOf(result, "retry.scheduled").map((r) => r.delayMs)).toEqual([1500, 1500]);
  });
});

const notFound: FetchLike = async () => {
  const cause = Object.assign(new Error("getaddrinfo ENOTFOUND api.nowhere.invalid"), { code: "ENOTFOUND" });
  throw Object.assign(new TypeError("fetch failed"), { cause });
};

describe.each(BOTH_PATHS)("network faults through the loop (%s)", (_path, streaming) => {
  it("connection refused: retried, then fails with the network error and keeps the input", async () => {
    const result = await runFault({
      models: { primary: adapter(`http://127.0.0.1:${await closedPort()}/v1`) },
      streaming,
      policy: { retry: { maxRetries: MAX_RETRIES } },
    });
    expectFailedRun(result, { code: "provider", transcript: ["user"] });
    expect(result.error?.message).toContain("ECONNREFUSED");
    expect(eventsOf(result, "model.started")).toHaveLength(MAX_RETRIES + 1);
    expect(eventsOf(result, "retry.scheduled").map((r) => r.delayMs)).toEqual([backoff(1), backoff(2)]);
  });

  it("DNS failure (ENOTFOUND): never retried", async () => {
    const result = await runFault({
      models: { primary: adapter("https://api.nowhere.invalid/v1", notFound) },
      streaming,
      policy: { retry: { maxRetries: MAX_RETRIES } },
    });
    expectFailedRun(result, { code: "provider", transcript: ["user"] });
    expect(result.error?.message).toContain("ENOTFOUND");
    expect(eventsOf(result, "model.started")).toHaveLength(1);
    expect(eventsOf(result, "retry.scheduled")).toHaveLength(0);
  });
});

describe.each(BOTH_PATHS)("a timed-out call falls back (%s)", (_path, streaming) => {
  it("the adapter's own timeout counts as the model call's timeout: the fallback model answers", async () => {
    server.reset();
    server.setHandler(() => ({ ...sseResponse(TEXT), headerDelayMs: 30_000 }));
    const result = await runFault({
      clock: REAL_TIME,
      models: { primary: adapter(), backup: new ScriptedModel(["from the backup"]) },
      streaming,
      middleware: [callTimeout(150)],
      policy: { fallback: ["backup"], retry: { maxRetries: 2 } },
      afterRun: () => server.closeConnections(),
    });
    expectCompletedRun(result, ["user", "assistant"]);
    const fallback = eventsOf(result, "fallback.selected");
    expect(fallback.map((f) => [f.from, f.to, f.error.code])).toEqual([["primary", "backup", "timeout"]]);
    expect(fallback[0]?.error.details).toMatchObject({ scope: "model_call", value: 150 });
    // A timeout is not retried on the same model.
    expect(eventsOf(result, "retry.scheduled")).toHaveLength(0);
    expect(result.run.resolvedModel?.name).toBe("backup");
  });

  it("a stalled stream (stream idle timeout) falls back the same way, without a retry", async () => {
    server.reset();
    server.setHandler(() =>
      sseResponse(TEXT, { stallAfterBytes: TEXT.indexOf("lo ") - 8, chunking: "frames" }),
    );
    const result = await runFault({
      clock: REAL_TIME,
      models: {
        primary: adapter(undefined, undefined, 150),
        backup: new ScriptedModel(["from the backup"]),
      },
      streaming,
      policy: { fallback: ["backup"], retry: { maxRetries: 2 } },
      afterRun: () => server.closeConnections(),
    });
    expectCompletedRun(result, ["user", "assistant"]);
    const fallback = eventsOf(result, "fallback.selected");
    expect(fallback.map((f) => [f.from, f.to, f.error.code])).toEqual([["primary", "backup", "timeout"]]);
    expect(fallback[0]?.error.details).toMatchObject({
      scope: "model_call",
      limit: "stream_idle_timeout",
      value: 150,
    });
    expect(eventsOf(result, "retry.scheduled")).toHaveLength(0);
    expect(result.run.resolvedModel?.name).toBe("backup");
  });
});
