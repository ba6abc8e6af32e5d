import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { ProviderError } from "../errors/provider-error.js";
import type { ModelRequest } from "../model/model-request.js";
import type { ModelStreamItem } from "../model/stream-item.js";
import type { CallBounds } from "./call-bounds.js";
import { ProviderEndpoint } from "./provider-endpoint.js";

const SECRET = "sk-endpoint-secret-123456";
const request = { messages: [] } as unknown as ModelRequest;

function endpoint(fetch?: typeof globalThis.fetch): ProviderEndpoint {
  return new ProviderEndpoint({
    url: "http://127.0.0.1:9/v1/chat",
    headers: { authorization: `Bearer ${SECRET}` },
    secrets: [SECRET],
    fetch,
    bounds: { timeoutMs: 60_000, headersTimeoutMs: 30_000, streamIdleTimeoutMs: 0 },
    provider: "test",
    model: "m",
  });
}

describe("ProviderEndpoint", () => {
  it("masks the credentials in a thrown error and releases the caller's signal (unary)", async () => {
    const caller = new AbortController();
    const error = await endpoint()
      .invoke(request, { signal: caller.signal }, async () => {
        expect(getEventListeners(caller.signal, "abort")).toHaveLength(1);
        throw new ProviderError({
          kind: "non_retryable",
          message: `server said: bad key ${SECRET}`,
          provider: "test",
        });
      })
      .catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).not.toContain(SECRET);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });

  it("masks error items and thrown errors of a stream, and disposes the bounds when it ends", async () => {
    const caller = new AbortController();
    let seen: CallBounds | undefined;
    const items: ModelStreamItem[] = [];
    const stream = endpoint().stream(request, { signal: caller.signal }, async function* (call) {
      seen = call;
      yield { type: "error", message: `quota for ${SECRET}`, kind: "rate_limited" } as ModelStreamItem;
      throw new ProviderError({
        kind: "retryable",
        message: `cut while holding ${SECRET}`,
        provider: "test",
      });
    });
    const error = await (async () => {
      for await (const item of stream) items.push(item);
    })().catch((e: unknown) => e);
    expect(items).toHaveLength(1);
    expect(JSON.stringify(items)).not.toContain(SECRET);
    expect(String((error as Error).message)).not.toContain(SECRET);
    expect(seen?.signal.aborted).toBe(false);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });

  it("posts JSON to its URL with its headers under the call's signal", async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const fetch = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response('{"ok":true}', { status: 200, headers: { "content-type": "application/json" } });
    }) as unknown as typeof globalThis.fetch;
    const target = endpoint(fetch);
    const body = await target.invoke(request, {}, async (call) => (await target.post({ a: 1 }, call)).json());
    expect(body).toEqual({ ok: true });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toBe("http://127.0.0.1:9/v1/chat");
    expect(JSON.parse(String(calls[0]?.init.body))).toEqual({ a: 1 });
    expect(new Headers(calls[0]?.init.headers).get("authorization")).toBe(`Bearer ${SECRET}`);
  });
});
