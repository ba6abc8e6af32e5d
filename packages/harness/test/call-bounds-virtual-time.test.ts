/**
 * The model-call bounds of every HTTP adapter on the call's clock: under a `DeterministicClock`
 * each bound fires at its exact virtual time and nothing waits on real time (each case simulates
 * up to minutes in well under a second of wall time). The servers are fake `fetch` functions whose
 * waits are sleeps on the same clock. First the defaults (total 10 min, headers 60 s, stream idle
 * 240 s), then configured and per-call bounds and the caller's abort. One real-timer case per
 * bound, on loopback servers, is in inference's `providers/call-bounds.integration.test.ts`.
 */

import { lowerLayer } from "@tinyagents/harness/internal";
import {
  type ChatModel,
  type FetchLike,
  type ModelRequest,
  OpenAiResponsesModel,
  TinyAgentsError,
  user,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import {
  BOUNDED_ADAPTERS,
  type CallBounds,
  expectTimeout,
} from "../../inference/test/support/call-bounds.js";
import { AgentHarness } from "../src/runtime/agent-harness.js";
import { DeterministicClock } from "../src/testkit/deterministic-clock.js";
import { DeterministicIds } from "../src/testkit/deterministic-ids.js";

const encoder = new TextEncoder();
const REQUEST: ModelRequest = { messages: [user("hi")] };
/** Fake servers: the URL is never dialled. */
const NOWHERE = "http://127.0.0.1:9";

/** A server that accepts and never answers: it waits forever on the clock (until aborted). */
function silentFetch(clock: DeterministicClock): FetchLike {
  return (_url, init) =>
    new Promise<Response>((_resolve, reject) => {
      clock.sleep(Number.POSITIVE_INFINITY, init?.signal ?? undefined).catch(reject);
    });
}

/**
 * A server that answers 200 at once with `preamble`, then sends `frameAt(0)`, `frameAt(1)`, ...
 * one every `everyMs` of virtual time, forever.
 */
function endlessFetch(
  clock: DeterministicClock,
  contentType: string,
  frameAt: (i: number) => string,
  everyMs: number,
  preamble = "",
): FetchLike {
  return async (_url, init) => {
    const signal = init?.signal ?? undefined;
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (preamble !== "") controller.enqueue(encoder.encode(preamble));
      },
      async pull(controller) {
        try {
          await clock.sleep(everyMs, signal);
          controller.enqueue(encoder.encode(frameAt(i++)));
        } catch {
          // aborted: the reader was cancelled
        }
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": contentType } });
  };
}

/** `frame` every `everyMs`, forever. */
const foreverFetch = (clock: DeterministicClock, contentType: string, frame: string, everyMs: number) =>
  endlessFetch(clock, contentType, () => frame, everyMs);

const CASES = BOUNDED_ADAPTERS.map((adapter) => ({
  ...adapter,
  /** The adapter behind a fake server, with the default bounds. */
  build: (fetch: FetchLike) => adapter.build(NOWHERE, {}, fetch),
  /** The adapter behind a fake server, with `bounds`. */
  bounded: (fetch: FetchLike, bounds: CallBounds) => adapter.build(NOWHERE, bounds, fetch),
}));

/** Stream to the end on `clock`: what it threw, the text it delivered, virtual and wall time taken. */
async function streamFailure(
  model: ChatModel,
  clock: DeterministicClock,
  request: ModelRequest = REQUEST,
  signal?: AbortSignal,
) {
  const start = clock.now();
  const wall = performance.now();
  let text = "";
  const error = await (async () => {
    for await (const item of model.stream?.(request, { clock, ...(signal ? { signal } : {}) }) ?? []) {
      if (item.type === "text_delta") text += item.text;
    }
  })().catch((e: unknown) => e);
  return {
    error: error as TinyAgentsError,
    text,
    virtualMs: clock.now() - start,
    wallMs: performance.now() - wall,
  };
}

describe.each(CASES)("default call bounds in virtual time: $name", (c) => {
  it("a silent server: the streamed call fails headers_timeout at exactly 60 s virtual", async () => {
    const clock = new DeterministicClock();
    const { error, virtualMs, wallMs } = await streamFailure(c.build(silentFetch(clock)), clock);
    expect(TinyAgentsError.isInstance(error, "timeout")).toBe(true);
    expect(error.details).toMatchObject({ limit: "headers_timeout", value: 60_000 });
    expect(virtualMs).toBe(60_000);
    expect(wallMs).toBeLessThan(5_000);
    expect(clock.pendingTimers).toBe(0);
  });

  it("a silent server: the unary call fails the total timeout at exactly 10 min virtual", async () => {
    const clock = new DeterministicClock();
    const start = clock.now();
    const wall = performance.now();
    const error = (await c
      .build(silentFetch(clock))
      .invoke(REQUEST, { clock })
      .catch((e: unknown) => e)) as TinyAgentsError;
    expect(error.details).toMatchObject({ limit: "model_call_timeout", value: 600_000 });
    expect(clock.now() - start).toBe(600_000);
    expect(performance.now() - wall).toBeLessThan(5_000);
    expect(clock.pendingTimers).toBe(0);
  });

  it("keep-alives every 7 s are not progress: stream_idle_timeout at exactly 240 s virtual", async () => {
    const clock = new DeterministicClock();
    const { error, virtualMs, wallMs } = await streamFailure(
      c.build(foreverFetch(clock, c.contentType, c.keepAlive, 7_000)),
      clock,
    );
    expect(error.details).toMatchObject({ limit: "stream_idle_timeout", value: 240_000 });
    expect(virtualMs).toBe(240_000);
    expect(wallMs).toBeLessThan(5_000);
  });

  it("a slow-loris (one byte every 310 ms) is not progress: stream_idle_timeout at exactly 240 s virtual", async () => {
    const clock = new DeterministicClock();
    const { error, virtualMs, wallMs } = await streamFailure(
      c.build(foreverFetch(clock, c.contentType, "a", 310)),
      clock,
    );
    expect(error.details).toMatchObject({ limit: "stream_idle_timeout", value: 240_000 });
    expect(virtualMs).toBe(240_000);
    expect(wallMs).toBeLessThan(5_000);
  });

  it("steady progress forever (a delta every 9 s) ends at the total timeout, exactly 10 min virtual", async () => {
    const clock = new DeterministicClock();
    const { error, virtualMs, wallMs } = await streamFailure(
      c.build(foreverFetch(clock, c.contentType, c.progress, 9_000)),
      clock,
    );
    expect(error.details).toMatchObject({ limit: "model_call_timeout", value: 600_000 });
    expect(virtualMs).toBe(600_000);
    expect(wallMs).toBeLessThan(5_000);
  });
});

describe("the harness hands its clock to the model call", () => {
  it("a run against a silent server fails `timeout` (the total call bound) at 10 min on the run's DeterministicClock", async () => {
    const clock = new DeterministicClock();
    const harness = new AgentHarness<undefined, undefined>({ clock, ids: new DeterministicIds() });
    harness.registerModel("silent", CASES[0]!.build(silentFetch(clock)));
    const start = clock.now();
    const wall = performance.now();
    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "r" },
      "hi",
    );
    expect(outcome.error?.code).toBe("timeout");
    // The loop calls `invoke` (a unary call: no headers bound), so the total bound ends it.
    expect(outcome.error?.details).toMatchObject({ limit: "model_call_timeout", value: 600_000 });
    expect(clock.now() - start).toBe(600_000);
    expect(performance.now() - wall).toBeLessThan(5_000);
  });
});

describe.each(CASES)("configured call bounds in virtual time: $name", (c) => {
  it("a silent server: a streamed call ends with headers_timeout at exactly the configured 200 ms", async () => {
    const clock = new DeterministicClock();
    const { error, virtualMs } = await streamFailure(
      c.bounded(silentFetch(clock), { headersTimeoutMs: 200 }),
      clock,
    );
    expectTimeout(error, "headers_timeout", 200, "headersTimeoutMs");
    expect(error.message).toContain("waiting for the response headers");
    expect(virtualMs).toBe(200);
    expect(clock.pendingTimers).toBe(0);
  });

  it("a silent server: a unary call (headers come with the answer) ends with the total timeout", async () => {
    const clock = new DeterministicClock();
    const start = clock.now();
    const error = await c
      .bounded(silentFetch(clock), { timeoutMs: 300 })
      .invoke(REQUEST, { clock })
      .catch((e: unknown) => e);
    expectTimeout(error, "model_call_timeout", 300, "timeoutMs");
    expect(clock.now() - start).toBe(300);
  });

  it("a slow-loris (one byte every 40 ms of a frame that never completes) ends with stream_idle_timeout", async () => {
    const clock = new DeterministicClock();
    const trickle = endlessFetch(
      clock,
      c.contentType,
      (i) => c.unfinished[i % c.unfinished.length]!,
      40,
      c.preamble,
    );
    const { error, virtualMs } = await streamFailure(c.bounded(trickle, { streamIdleTimeoutMs: 400 }), clock);
    const e = expectTimeout(error, "stream_idle_timeout", 400, "streamIdleTimeoutMs");
    // Bytes kept arriving; they were not progress.
    expect((e.details as { receivedBytes: number }).receivedBytes).toBeGreaterThan(c.preamble.length);
    expect(virtualMs).toBe(400);
  });

  it("an endless keep-alive stream (every 30 ms, no data) ends with stream_idle_timeout", async () => {
    const clock = new DeterministicClock();
    const keepAlives = endlessFetch(clock, c.contentType, () => c.keepAlive, 30, c.preamble);
    const { error, virtualMs } = await streamFailure(
      c.bounded(keepAlives, { streamIdleTimeoutMs: 300 }),
      clock,
    );
    expectTimeout(error, "stream_idle_timeout", 300, "streamIdleTimeoutMs");
    expect(virtualMs).toBe(300);
  });

  it("a steady stream that never ends (a delta every 30 ms) is cut by the total timeout; the deltas were delivered", async () => {
    const clock = new DeterministicClock();
    const steady = endlessFetch(clock, c.contentType, () => c.progress, 30, c.preamble);
    const { error, text, virtualMs } = await streamFailure(
      c.bounded(steady, { timeoutMs: 500, streamIdleTimeoutMs: 200 }),
      clock,
    );
    expectTimeout(error, "model_call_timeout", 500, "timeoutMs");
    expect(virtualMs).toBe(500);
    // A delta at 30, 60, ... 480 ms: 16 of them.
    expect(text).toBe("a".repeat(16));
  });

  it("per call: request.headersTimeoutMs / timeoutMs override the model's bounds, and 0 removes one", async () => {
    const clock = new DeterministicClock();
    const model = c.bounded(silentFetch(clock), { headersTimeoutMs: 60_000, timeoutMs: 60_000 });
    const headers = await streamFailure(model, clock, { ...REQUEST, headersTimeoutMs: 150 });
    expectTimeout(headers.error, "headers_timeout", 150, "headersTimeoutMs");
    expect(headers.virtualMs).toBe(150);
    // No headers bound for this call: the total one (per call too) ends it.
    const total = await streamFailure(model, clock, { ...REQUEST, headersTimeoutMs: 0, timeoutMs: 250 });
    expectTimeout(total.error, "model_call_timeout", 250, "timeoutMs");
    expect(total.virtualMs).toBe(250);
  });

  it("the caller's abort still wins, as `cancelled`, at the instant it aborts", async () => {
    const clock = new DeterministicClock();
    const controller = new AbortController();
    void clock.sleep(50).then(() => controller.abort());
    const { error, virtualMs } = await streamFailure(
      c.bounded(silentFetch(clock), { headersTimeoutMs: 10_000 }),
      clock,
      REQUEST,
      controller.signal,
    );
    expect(TinyAgentsError.isInstance(error, "cancelled")).toBe(true);
    expect(virtualMs).toBe(50);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe("configured call bounds: the OpenAI Responses adapter goes through the same layer", () => {
  it("silent server: headers_timeout (streamed), model_call_timeout (unary); keep-alives: stream_idle_timeout", async () => {
    const clock = new DeterministicClock();
    const build = (fetch: FetchLike, bounds: CallBounds) =>
      new OpenAiResponsesModel({
        model: "m",
        apiKey: "k-123456",
        env: {},
        baseUrl: `${NOWHERE}/v1`,
        fetch,
        ...bounds,
      });
    const streamed = await streamFailure(build(silentFetch(clock), { headersTimeoutMs: 150 }), clock);
    expectTimeout(streamed.error, "headers_timeout", 150, "headersTimeoutMs");
    expect(streamed.virtualMs).toBe(150);
    const start = clock.now();
    const unary = await build(silentFetch(clock), { timeoutMs: 200 })
      .invoke(REQUEST, { clock })
      .catch((e: unknown) => e);
    expectTimeout(unary, "model_call_timeout", 200, "timeoutMs");
    expect(clock.now() - start).toBe(200);
    const keepAlives = foreverFetch(clock, "text/event-stream", ": keep-alive\n\n", 30);
    const idle = await streamFailure(build(keepAlives, { streamIdleTimeoutMs: 250 }), clock);
    expectTimeout(idle.error, "stream_idle_timeout", 250, "streamIdleTimeoutMs");
    expect(idle.virtualMs).toBe(250);
  });
});

describe("call bounds with a fetch that ignores its signal", () => {
  it("the headers timeout still ends the call when its time comes", async () => {
    const clock = new DeterministicClock();
    let called: () => void = () => undefined;
    const fetchCalled = new Promise<void>((resolve) => {
      called = resolve;
    });
    // Neither answers nor listens to its signal, and sleeps on no clock: time moves only by advance.
    const deaf: FetchLike = () => {
      called();
      return new Promise<Response>(() => undefined);
    };
    const failure = streamFailure(CASES[0]!.bounded(deaf, { headersTimeoutMs: 100 }), clock);
    await fetchCalled;
    clock.advance(99);
    clock.advance(1);
    const { error, virtualMs } = await failure;
    expectTimeout(error, "headers_timeout", 100, "headersTimeoutMs");
    expect(virtualMs).toBe(100);
  });
});
