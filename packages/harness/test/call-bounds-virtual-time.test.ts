/**
 * The default model-call bounds (total 10 min, headers 60 s, stream idle 240 s) of every HTTP
 * adapter run on the call's clock: under a `DeterministicClock` each fires at its exact virtual
 * time and nothing waits on real time (each case simulates minutes in well under a second of
 * wall time). The servers are fake `fetch` functions whose waits are sleeps on the same clock.
 */
import {
  AnthropicModel,
  type ChatModel,
  type FetchLike,
  type ModelRequest,
  OllamaModel,
  OpenAiChatModel,
  TinyAgentsError,
  user,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { AgentHarness } from "../src/runtime/agent-harness.js";
import { DeterministicClock } from "../src/testkit/deterministic-clock.js";
import { DeterministicIds } from "../src/testkit/deterministic-ids.js";

const encoder = new TextEncoder();
const REQUEST: ModelRequest = { messages: [user("hi")] };

/** A server that accepts and never answers: it waits forever on the clock (until aborted). */
function silentFetch(clock: DeterministicClock): FetchLike {
  return (_url, init) =>
    new Promise<Response>((_resolve, reject) => {
      clock.sleep(Number.POSITIVE_INFINITY, init?.signal ?? undefined).catch(reject);
    });
}

/** A server that answers 200 at once, then sends `frame` every `everyMs` of virtual time, forever. */
function foreverFetch(
  clock: DeterministicClock,
  contentType: string,
  frame: string,
  everyMs: number,
): FetchLike {
  return async (_url, init) => {
    const signal = init?.signal ?? undefined;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          await clock.sleep(everyMs, signal);
          controller.enqueue(encoder.encode(frame));
        } catch {
          // aborted: the reader was cancelled
        }
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": contentType } });
  };
}

interface AdapterCase {
  name: string;
  build(fetch: FetchLike): ChatModel;
  contentType: string;
  keepAlive: string;
  progress: string;
}

const CASES: readonly AdapterCase[] = [
  {
    name: "OpenAI-compatible",
    build: (fetch) => new OpenAiChatModel({ model: "m", baseUrl: "http://127.0.0.1:9/v1", fetch }),
    contentType: "text/event-stream",
    keepAlive: ": keep-alive\n\n",
    progress:
      'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a"}}]}\n\n',
  },
  {
    name: "Anthropic",
    build: (fetch) =>
      new AnthropicModel({ apiKey: "k-123456", env: {}, baseUrl: "http://127.0.0.1:9", fetch }),
    contentType: "text/event-stream",
    keepAlive: 'event: ping\ndata: {"type": "ping"}\n\n',
    progress:
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}\n\n',
  },
  {
    name: "Ollama",
    build: (fetch) => new OllamaModel({ env: {}, baseUrl: "http://127.0.0.1:9", fetch }),
    contentType: "application/x-ndjson",
    keepAlive: "\n",
    progress: '{"model":"llama3.2","message":{"role":"assistant","content":"a"},"done":false}\n',
  },
];

async function streamFailure(model: ChatModel, clock: DeterministicClock) {
  const start = clock.now();
  const wall = performance.now();
  const error = await (async () => {
    for await (const _ of model.stream?.(REQUEST, { clock }) ?? []) {
      // drain
    }
  })().catch((e: unknown) => e);
  return {
    error: error as TinyAgentsError,
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
    const outcome = await harness.invokeCollectingPartial(undefined, undefined, { runId: "r" }, "hi");
    expect(outcome.error?.code).toBe("timeout");
    // The loop calls `invoke` (a unary call: no headers bound), so the total bound ends it.
    expect(outcome.error?.details).toMatchObject({ limit: "model_call_timeout", value: 600_000 });
    expect(clock.now() - start).toBe(600_000);
    expect(performance.now() - wall).toBeLessThan(5_000);
  });
});
