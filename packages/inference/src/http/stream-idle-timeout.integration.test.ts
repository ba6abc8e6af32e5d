/**
 * The stream idle timeout on REAL timers (the system clock), through the BodyReader that
 * readSse, readNdjson and readBodyText share: it fires after a stall, lets a slow but steady
 * stream and a slow consumer through, yields to an abort, arms one timer per stream, leaves no
 * timer behind and never overflows setTimeout. Every adapter's idle timeout on virtual time is in
 * the harness's `call-bounds-virtual-time.test.ts`. Budget: about 1 s of waits.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { activeResources, newResources } from "../../../../test/setup/active-resources.js";
import { realSleep } from "../../test/support/loopback.js";
import { type Clock, systemClock } from "../clock/clock.js";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { readBodyText } from "./body-reader.js";
import { readNdjson } from "./ndjson.js";
import { readSse } from "./sse.js";
import { isStreamIdleTimeout } from "./stream-idle-timeout.js";
import { drain, streamOf } from "./test-streams.fixture.js";

const encoder = new TextEncoder();
const WHO = { provider: "acme", model: "m-1" };

/** A body that sends `chunks`, then stalls (no byte, no end) until cancelled; records the cancel reason. */
function stallingStream(chunks: string[]): { body: ReadableStream<Uint8Array>; cancelled: unknown[] } {
  const cancelled: unknown[] = [];
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) {
        controller.enqueue(encoder.encode(chunks[i++]!));
        return;
      }
      return new Promise<void>(() => undefined); // stall: never resolves, never enqueues
    },
    cancel(reason) {
      cancelled.push(reason);
    },
  });
  return { body, cancelled };
}

/** A body that sends one chunk every `everyMs`, `count` times, then ends. */
function steadyStream(chunk: string, count: number, everyMs: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent === count) {
        controller.close();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      sent++;
      controller.enqueue(encoder.encode(chunk));
    },
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("stream idle timeout (BodyReader, through readSse / readNdjson)", () => {
  it("a stall after some bytes fails with a typed timeout naming the idle timeout, and cancels the body", async () => {
    const baseline = activeResources();
    const { body, cancelled } = stallingStream(['data: {"a":1}\n\n', "data: {"]);
    const seen: string[] = [];
    const started = performance.now();
    const error = await (async () => {
      for await (const event of readSse(body, undefined, { ...WHO, idleTimeoutMs: 80 }))
        seen.push(event.data);
    })().catch((e: unknown) => e);
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    expect(seen).toEqual(['{"a":1}']);
    expect(isStreamIdleTimeout(error)).toBe(true);
    const e = error as TinyAgentsError;
    expect(e.code).toBe("timeout");
    expect(e.message).toBe(
      "no data for 80 ms from acme m-1 (the response stream stalled after 22 bytes); raise `streamIdleTimeoutMs` (a model option or a request field; 0 disables it) or check the endpoint",
    );
    expect(e.details).toEqual({
      scope: "model_call",
      limit: "stream_idle_timeout",
      value: 80,
      provider: "acme",
      model: "m-1",
      receivedBytes: 22,
    });
    expect(cancelled).toEqual([error]);
    expect(newResources(baseline)).toEqual([]);
  });

  it("says so when nothing arrived after the headers (NDJSON)", async () => {
    const { body } = stallingStream([]);
    const error = await drain(readNdjson(body, undefined, { provider: "ollama", idleTimeoutMs: 40 })).catch(
      (e: unknown) => e,
    );
    expect(isStreamIdleTimeout(error)).toBe(true);
    expect((error as Error).message).toContain(
      "no data for 40 ms from ollama (nothing arrived after the response headers)",
    );
    expect((error as TinyAgentsError).details).toMatchObject({ receivedBytes: 0, value: 40 });
  });

  it("a slow but steady stream (a chunk every 20 ms, idle 80 ms) completes, though it lasts longer than the idle timeout", async () => {
    const baseline = activeResources();
    const lines = await drain(
      readNdjson(steadyStream('{"n":1}\n', 10, 20), undefined, { idleTimeoutMs: 80 }),
    );
    expect(lines).toHaveLength(10);
    expect(newResources(baseline)).toEqual([]);
  });

  it("counts only time spent waiting for data: a consumer slower than the idle timeout does not trip it", async () => {
    const events = streamOf(["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"]);
    const seen: string[] = [];
    for await (const event of readSse(events, undefined, { idleTimeoutMs: 30 })) {
      seen.push(event.data);
      await realSleep(80);
    }
    expect(seen).toEqual(["1", "2", "3"]);
  });

  it("arms one timer on the clock, not one per chunk", async () => {
    let armed = 0;
    const clock: Clock = {
      now: () => systemClock.now(),
      sleep: (ms, signal) => systemClock.sleep(ms, signal),
      setTimer: (ms, callback) => {
        armed++;
        return systemClock.setTimer!(ms, callback);
      },
    };
    const chunks = Array.from({ length: 2000 }, (_, i) => `data: ${i}\n\n`);
    const events = await drain(readSse(streamOf(chunks), undefined, { idleTimeoutMs: 60_000, clock }));
    expect(events).toHaveLength(2000);
    expect(armed).toBe(1);
  });

  it("an abort during a stall gives the abort error, not the idle timeout", async () => {
    const baseline = activeResources();
    const { body } = stallingStream(["data: 1\n\n"]);
    const controller = new AbortController();
    const pending = drain(readSse(body, controller.signal, { idleTimeoutMs: 150 })).catch((e: unknown) => e);
    await realSleep(30);
    controller.abort();
    const error = await pending;
    expect(TinyAgentsError.isInstance(error, "cancelled")).toBe(true);
    expect(newResources(baseline)).toEqual([]);
  });

  it.each([
    ["0", 0],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["undefined", undefined],
  ])("idleTimeoutMs %s disables it (no timer at all)", async (_name, idleTimeoutMs) => {
    const spy = vi.spyOn(globalThis, "setTimeout");
    const { body } = stallingStream(["data: 1\n\n"]);
    const controller = new AbortController();
    const pending = drain(readSse(body, controller.signal, { idleTimeoutMs })).catch((e: unknown) => e);
    await new Promise((resolve) => setImmediate(resolve));
    expect(spy).not.toHaveBeenCalled();
    controller.abort();
    expect(TinyAgentsError.isInstance(await pending, "cancelled")).toBe(true);
  });

  it("an idle timeout longer than setTimeout allows is re-armed in steps, without an overflow warning", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const { body } = stallingStream(["data: 1\n\n"]);
      const controller = new AbortController();
      const pending = drain(readSse(body, controller.signal, { idleTimeoutMs: 2 ** 40 })).catch(
        (e: unknown) => e,
      );
      await realSleep(20);
      controller.abort();
      expect(TinyAgentsError.isInstance(await pending, "cancelled")).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === "TimeoutOverflowWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("also bounds readBodyText when asked (the adapters only ask for streamed bodies)", async () => {
    const { body } = stallingStream(['{"partial":']);
    const error = await readBodyText(body, undefined, { idleTimeoutMs: 30 }).catch((e: unknown) => e);
    expect(isStreamIdleTimeout(error)).toBe(true);
  });
});
