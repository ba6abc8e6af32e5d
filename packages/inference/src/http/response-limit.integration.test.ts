import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderError } from "../errors/provider-error.js";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { user } from "../message/constructors.js";
import { OllamaModel } from "../providers/ollama/ollama-model.js";
import { OpenAiChatModel } from "../providers/openai/openai-chat-model.js";
import { MAX_BODY_BYTES, MAX_STREAM_BYTES, readBodyText } from "./body-reader.js";
import { readNdjson } from "./ndjson.js";
import { resolveMaxResponseBytes } from "./response-limit.js";
import { readSse } from "./sse.js";
import { drain, streamOf } from "./test-streams.fixture.js";

const MiB = 1024 * 1024;

function tooLarge(error: unknown): boolean {
  return (
    ProviderError.isProviderError(error) &&
    error.providerCode === "response_too_large" &&
    error.kind === "non_retryable"
  );
}

describe("total byte cap of a streamed body", () => {
  it("readSse fails with response_too_large once the whole body passes maxBytes, though each event is small", async () => {
    const events = Array.from({ length: 100 }, (_, i) => `data: {"n":${i}}\n\n`);
    const seen: string[] = [];
    const error = await (async () => {
      for await (const e of readSse(streamOf(events), undefined, { provider: "p", maxBytes: 200 }))
        seen.push(e.data);
    })().catch((e: unknown) => e);
    expect(tooLarge(error)).toBe(true);
    expect((error as Error).message).toContain("exceeded 200 bytes");
    // Events before the cap were delivered; reading stopped right after it.
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.length).toBeLessThan(20);
  });

  it("readNdjson fails the same way", async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `{"n":${i}}\n`);
    const error = await drain(readNdjson(streamOf(lines), undefined, { provider: "p", maxBytes: 100 })).catch(
      (e: unknown) => e,
    );
    expect(tooLarge(error)).toBe(true);
  });

  it("readBodyText honours options.maxBytes and defaults to MAX_BODY_BYTES", async () => {
    const error = await readBodyText(streamOf(["x".repeat(60), "x".repeat(60)]), undefined, {
      maxBytes: 100,
    }).catch((e: unknown) => e);
    expect(tooLarge(error)).toBe(true);
    expect(await readBodyText(streamOf(["x".repeat(60)]), undefined, { maxBytes: 100 })).toHaveLength(60);
    expect(MAX_BODY_BYTES).toBe(32 * MiB);
    expect(MAX_STREAM_BYTES).toBe(48 * MiB);
  });

  it("maxResponseBytes is validated at construction (NaN, strings, 0, fractions are validation errors)", () => {
    for (const bad of [Number.NaN, "10", 0, -1, 1.5]) {
      const error = (() => {
        try {
          resolveMaxResponseBytes(bad, "M");
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
      expect((error as TinyAgentsError).details?.field).toBe("maxResponseBytes");
    }
    expect(() => new OpenAiChatModel({ model: "m", maxResponseBytes: Number.NaN })).toThrow(
      /maxResponseBytes/,
    );
    expect(resolveMaxResponseBytes(Number.POSITIVE_INFINITY, "M")).toBe(Number.POSITIVE_INFINITY);
    expect(resolveMaxResponseBytes(undefined, "M")).toBeUndefined();
  });
});

/** A loopback server that streams `total` bytes of OpenAI-style SSE (or one JSON body) lazily. */
describe("a 64 MiB response from a loopback server", () => {
  let server: Server;
  let baseUrl: string;
  const TOTAL = 64 * MiB;
  const piece = "x".repeat(8000);
  const event = `data: {"choices":[{"index":0,"delta":{"content":"${piece}"}}]}\n\n`;
  const ndjsonLine = `${JSON.stringify({ model: "m", message: { role: "assistant", content: piece }, done: false })}\n`;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        const kind = req.url?.includes("json") ? "json" : req.url?.includes("api/chat") ? "ndjson" : "sse";
        res.writeHead(200, {
          "content-type":
            kind === "json"
              ? "application/json"
              : kind === "ndjson"
                ? "application/x-ndjson"
                : "text/event-stream",
        });
        const unit = kind === "json" ? piece : kind === "ndjson" ? ndjsonLine : event;
        if (kind === "json") res.write('{"choices":[{"index":0,"message":{"role":"assistant","content":"');
        let sent = 0;
        const pump = (): void => {
          while (sent < TOTAL) {
            sent += unit.length;
            if (!res.write(unit)) {
              res.once("drain", pump);
              return;
            }
          }
          res.end(kind === "json" ? '"}}]}' : "data: [DONE]\n\n");
        };
        res.on("close", () => {
          sent = TOTAL;
        });
        pump();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Run `work`, sampling the heap; the peak growth over the starting heap in MiB. */
  async function peakHeapGrowth(
    work: () => Promise<unknown>,
  ): Promise<{ error: unknown; growthMiB: number }> {
    const start = process.memoryUsage().heapUsed;
    let peak = start;
    const sample = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 2);
    let error: unknown;
    try {
      await work();
    } catch (e) {
      error = e;
    } finally {
      clearInterval(sample);
    }
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    if (process.env.DBG) console.log(`peak heap growth ${((peak - start) / MiB).toFixed(1)} MiB`);
    return { error, growthMiB: (peak - start) / MiB };
  }

  it("streaming: ends in response_too_large at the 48 MiB default, the heap stays bounded", async () => {
    const model = new OpenAiChatModel({ model: "m", baseUrl: `${baseUrl}/v1` });
    let received = 0;
    const { error, growthMiB } = await peakHeapGrowth(async () => {
      for await (const item of model.stream({ messages: [user("hi")] })) {
        if (item.type === "text_delta") received += item.text.length;
      }
    });
    expect(tooLarge(error)).toBe(true);
    expect((error as Error).message).toContain(`exceeded ${MAX_STREAM_BYTES} bytes`);
    expect(received).toBeGreaterThan(40 * MiB);
    expect(received).toBeLessThan(MAX_STREAM_BYTES);
    expect(growthMiB).toBeLessThan(48);
  }, 60_000);

  it("unary (invoke) against the SSE reply: response_too_large, the heap bounded by the cap", async () => {
    const model = new OpenAiChatModel({ model: "m", baseUrl: `${baseUrl}/v1` });
    const { error, growthMiB } = await peakHeapGrowth(() => model.invoke({ messages: [user("hi")] }));
    expect(tooLarge(error)).toBe(true);
    expect(growthMiB).toBeLessThan(48 + 64);
  }, 60_000);

  it("unary JSON body: response_too_large at the 32 MiB default", async () => {
    const model = new OpenAiChatModel({ model: "m", baseUrl: `${baseUrl}/json` });
    const { error, growthMiB } = await peakHeapGrowth(() => model.invoke({ messages: [user("hi")] }));
    expect(tooLarge(error)).toBe(true);
    expect((error as Error).message).toContain(`exceeded ${MAX_BODY_BYTES} bytes`);
    expect(growthMiB).toBeLessThan(32 + 64);
  }, 60_000);

  it("NDJSON (Ollama) stream: response_too_large", async () => {
    const model = new OllamaModel({ model: "m", baseUrl });
    const error = await drain(model.stream({ messages: [user("hi")] })).catch((e: unknown) => e);
    expect(tooLarge(error)).toBe(true);
  }, 60_000);

  it("the per-model maxResponseBytes option lowers (or lifts) the cap", async () => {
    const low = new OpenAiChatModel({ model: "m", baseUrl: `${baseUrl}/v1`, maxResponseBytes: MiB });
    const error = await drain(low.stream({ messages: [user("hi")] })).catch((e: unknown) => e);
    expect(tooLarge(error)).toBe(true);
    expect((error as Error).message).toContain(`exceeded ${MiB} bytes`);
    const high = new OpenAiChatModel({ model: "m", baseUrl: `${baseUrl}/v1`, maxResponseBytes: 128 * MiB });
    let text = 0;
    for await (const item of high.stream({ messages: [user("hi")] })) {
      if (item.type === "text_delta") text += item.text.length;
    }
    expect(text).toBeGreaterThan(60 * MiB);
  }, 60_000);
});
