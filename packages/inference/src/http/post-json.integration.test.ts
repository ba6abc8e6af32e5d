import { describe, expect, it } from "vitest";
import { closedPort } from "../../test/support/loopback.js";
import { ProviderError } from "../errors/provider-error.js";
import type { FetchLike } from "./fetch-types.js";
import { postJson } from "./post-json.js";

const KEY = "sk-test-0123456789abcdefghijklmnop";

describe("postJson", () => {
  it("sends JSON with the given headers and returns 2xx responses unread", async () => {
    let seen: { url: string; init: RequestInit } | undefined;
    const fake: FetchLike = async (url, init) => {
      seen = { url: String(url), init: init ?? {} };
      return new Response('{"ok":1}', { status: 200 });
    };
    const response = await postJson({
      url: "https://api.example.com/v1/x",
      body: { a: 1 },
      headers: { authorization: `Bearer ${KEY}` },
      fetch: fake,
      provider: "p",
    });
    expect(await response.json()).toEqual({ ok: 1 });
    expect(seen?.init.method).toBe("POST");
    expect(seen?.init.body).toBe('{"a":1}');
    expect(seen?.init.headers).toMatchObject({
      "content-type": "application/json",
      authorization: `Bearer ${KEY}`,
    });
  });

  it("turns non-2xx into a ProviderError", async () => {
    const fake: FetchLike = async () =>
      new Response('{"error":{"message":"nope","code":"model_not_found"}}', { status: 404 });
    const error = await postJson({
      url: "http://x/y",
      body: {},
      fetch: fake,
      provider: "p",
      model: "m",
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 404,
      providerCode: "model_not_found",
      model: "m",
      retryable: false,
    });
  });

  it("names the URL when the endpoint is unreachable, without secrets", async () => {
    const port = await closedPort();
    const error = await postJson({
      url: `http://127.0.0.1:${port}/v1/chat/completions?api_key=supersecretvalue`,
      body: {},
      headers: { authorization: `Bearer ${KEY}` },
      provider: "local",
    }).catch((e: unknown) => e);
    expect(ProviderError.isProviderError(error)).toBe(true);
    const message = (error as ProviderError).message;
    expect(message).toContain(`could not reach http://127.0.0.1:${port}/v1/chat/completions`);
    expect(message).toContain("ECONNREFUSED");
    expect(message).not.toContain("supersecretvalue");
    expect(message).not.toContain(KEY);
    expect(error).toMatchObject({ retryable: true, kind: "retryable" });
  });

  it("reports a DNS failure as non-retryable", async () => {
    const fake: FetchLike = async () => {
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("getaddrinfo ENOTFOUND nohost"), { code: "ENOTFOUND" }),
      });
    };
    const error = await postJson({
      url: "https://nohost.invalid/v1",
      body: {},
      fetch: fake,
      provider: "p",
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ retryable: false });
    expect((error as Error).message).toContain("could not reach https://nohost.invalid/v1");
  });

  it("maps an aborted signal to cancelled, before and during the request", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      postJson({ url: "http://x", body: {}, provider: "p", signal: controller.signal }),
    ).rejects.toMatchObject({
      code: "cancelled",
    });
    const during = new AbortController();
    const fake: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        setTimeout(() => during.abort(), 1);
      });
    await expect(
      postJson({ url: "http://x", body: {}, provider: "p", signal: during.signal, fetch: fake }),
    ).rejects.toMatchObject({
      code: "cancelled",
    });
  });
});
