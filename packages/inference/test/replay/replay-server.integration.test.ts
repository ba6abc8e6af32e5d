import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReplayServer, splitBody } from "./replay-server.js";

describe("splitBody", () => {
  const body = Buffer.from('data: {"a":"é€"}\r\n\r\ndata: [DONE]\n\n', "utf8");
  it.each(["whole", "frames", "awkward", { every: 3 }, { sizes: [1, 2, 5] }] as const)(
    "%j concatenates back to the body",
    (chunking) => {
      const parts = splitBody(body, chunking);
      expect(Buffer.concat(parts).equals(body)).toBe(true);
    },
  );
  it("awkward cuts inside multi-byte characters and between CR and LF", () => {
    const parts = splitBody(body, "awkward").map((part) => Buffer.from(part).toString("latin1"));
    expect(parts.length).toBeGreaterThan(8);
    expect(parts.some((part) => part.endsWith("\r"))).toBe(true);
    expect(splitBody(body, "frames")).toHaveLength(2);
  });
});

describe("ReplayServer", () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await ReplayServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it("serves queued responses in order and records requests", async () => {
    server.reset();
    server.enqueue(
      { status: 201, headers: { "content-type": "application/json", "x-a": "1" }, body: '{"ok":true}' },
      { status: 429, body: "slow down", chunking: { every: 2 } },
    );
    const first = await fetch(`${server.url}/v1/x?y=1`, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: JSON.stringify({ hello: "world" }),
    });
    expect(first.status).toBe(201);
    expect(first.headers.get("x-a")).toBe("1");
    expect(await first.json()).toEqual({ ok: true });
    const second = await fetch(`${server.url}/two`, { method: "POST", body: "plain" });
    expect(second.status).toBe(429);
    expect(await second.text()).toBe("slow down");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/v1/x?y=1" });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer k");
    expect(server.requests[0]?.json()).toEqual({ hello: "world" });
    expect(server.lastRequest.body).toBe("plain");
  });

  it("cuts the body cleanly or by resetting the socket", async () => {
    server.reset();
    server.enqueue(
      { body: "0123456789", cutAfterBytes: 4 },
      { body: "0123456789", cutAfterBytes: 4, cutMode: "destroy" },
    );
    expect(await (await fetch(server.url)).text()).toBe("0123");
    const response = await fetch(server.url);
    await expect(response.text()).rejects.toThrow();
  });

  it("uses a handler when the queue is empty and says so when there is neither", async () => {
    server.reset();
    const empty = await fetch(server.url);
    expect(empty.status).toBe(599);
    server.setHandler((request) => ({ body: `echo ${request.path}` }));
    expect(await (await fetch(`${server.url}/p`)).text()).toBe("echo /p");
  });
});
