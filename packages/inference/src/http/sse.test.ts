import { describe, expect, it } from "vitest";
import { ProviderError } from "../errors/provider-error.js";
import { readSse } from "./sse.js";
import { byteChunks, drain, streamOf } from "./test-streams.fixture.js";

const body = 'data: {"a":"é€😀"}\n\n: keep-alive\n\nevent: ping\nid: 7\ndata: x\ndata: y\n\ndata:[DONE]\n\n';

describe("readSse", () => {
  it("parses events, multi-line data, ids and event names; ignores comments", async () => {
    const events = await drain(readSse(streamOf([body])));
    expect(events.map((e) => e.data)).toEqual(['{"a":"é€😀"}', "x\ny", "[DONE]"]);
    expect(events[1]).toMatchObject({ event: "ping", id: "7" });
    expect(events[0]?.event).toBeUndefined();
  });

  it("gives the same events when the bytes arrive one at a time (split UTF-8, split prefixes)", async () => {
    const events = await drain(readSse(streamOf(byteChunks(body))));
    expect(events.map((e) => e.data)).toEqual(['{"a":"é€😀"}', "x\ny", "[DONE]"]);
  });

  it("accepts CRLF and CR line ends and a BOM", async () => {
    const events = await drain(
      readSse(streamOf(["\uFEFFdata: 1\r\n\r\ndata: 2\r\r", "data: 3\r", "\n\r\n"])),
    );
    expect(events.map((e) => e.data)).toEqual(["1", "2", "3"]);
  });

  it("throws a retryable stream_truncated error when the body ends mid-event", async () => {
    for (const cut of ['data: {"a":1', 'data: {"a":1}\n', "data: x\ndata: y"]) {
      const error = await drain(readSse(streamOf(["data: ok\n\n", cut]), undefined, { provider: "p" })).catch(
        (e: unknown) => e,
      );
      expect(ProviderError.isProviderError(error)).toBe(true);
      expect(error).toMatchObject({ retryable: true, providerCode: "stream_truncated", provider: "p" });
    }
  });

  it("does not treat a trailing comment or blank lines as a truncation", async () => {
    const events = await drain(readSse(streamOf(["data: ok\n\n: bye", "\n\n\n"])));
    expect(events.map((e) => e.data)).toEqual(["ok"]);
    expect(await drain(readSse(streamOf(["data: ok\n\n: trailing comment without newline"])))).toHaveLength(
      1,
    );
  });

  it("turns a broken body into a retryable stream_interrupted error", async () => {
    const error = await drain(
      readSse(streamOf(["data: 1\n\n"], { error: new TypeError("terminated") })),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ retryable: true, providerCode: "stream_interrupted" });
  });

  it("stops with the cancelled error when the signal aborts, even if the body ignores it", async () => {
    const controller = new AbortController();
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new TextEncoder().encode("data: tick\n\n"));
        return new Promise((resolve) => setImmediate(resolve)); // the next tick on a later turn
      },
    });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of readSse(endless, controller.signal)) {
        seen.push(event.data);
        if (seen.length === 3) controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(seen).toHaveLength(3);
    expect(error).toMatchObject({ code: "cancelled" });
  });

  it("cancels the body when the consumer stops early", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new TextEncoder().encode("data: x\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const _ of readSse(stream)) break;
    expect(cancelled).toBe(true);
  });
});

describe("readSse non-standard fields", () => {
  it("surfaces llama.cpp's `error:` field as an error event and ignores other unknown fields", async () => {
    const events = await drain(readSse(streamOf(['data: 1\n\nerror: {"code":500}\n\nfoo: bar\n\n'])));
    expect(events).toEqual([
      expect.objectContaining({ data: "1" }),
      { event: "error", data: '{"code":500}', id: undefined },
    ]);
  });
});
