import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { JsonObject } from "@tinyagents/inference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import type { ToolReturn } from "../tool/tool.js";
import { httpFetchTool } from "./http-fetch.js";
import { UrlAllowlist } from "./url-allowlist.js";

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/hello") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      res.end("hello from loopback");
    } else if (req.url === "/json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true }));
    } else if (req.url === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(5000));
    } else if (req.url === "/redirect-in") {
      res.writeHead(302, { location: "/hello" });
      res.end();
    } else if (req.url === "/redirect-out") {
      res.writeHead(302, { location: "http://example.invalid/" });
      res.end();
    } else if (req.url === "/image") {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(Buffer.from([137, 80, 78, 71]));
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function fetchWith(allow: string[], url: string, maxBytes?: number) {
  const t = httpFetchTool({ allow, ...(maxBytes === undefined ? {} : { maxBytes }) });
  const run = lowerLayer(new AgentHarness()).createContext({}, undefined);
  return t.execute({ url }, { state: undefined, run, callId: "c", signal: run.signal, progress: () => {} });
}

const errorText = (out: unknown): string => {
  const ret = out as ToolReturn;
  expect(ret.isError).toBe(true);
  return ret.content.map((b) => (b.type === "text" ? b.text : "")).join("");
};

describe("UrlAllowlist", () => {
  const list = new UrlAllowlist([
    "example.com",
    "*.docs.dev",
    "https://api.github.com/repos/",
    "127.0.0.1:8080",
  ]);
  it.each([
    ["https://example.com/a", true],
    ["http://example.com:80/a", true],
    ["https://example.com.evil.net/", false],
    ["https://user@example.com/", false],
    ["https://evil.net/?example.com", false],
    ["https://a.docs.dev/x", true],
    ["https://docs.dev/x", false],
    ["https://api.github.com/repos/x", true],
    ["https://api.github.com/users/x", false],
    ["http://api.github.com/repos/x", false],
    ["http://127.0.0.1:8080/", true],
    ["http://127.0.0.1:9090/", false],
    ["file:///etc/passwd", false],
  ])("%s -> %s", (url, allowed) => {
    expect(list.allows(new URL(url))).toBe(allowed);
  });

  it("needs at least one entry and rejects malformed ones", () => {
    expect(() => new UrlAllowlist([])).toThrow("needs an allowlist");
    expect(() => new UrlAllowlist(["example.com/path"])).toThrow("must be a host");
  });
});

describe("http_fetch (loopback server)", () => {
  it("fetches allowed URLs", async () => {
    expect(await fetchWith(["127.0.0.1"], `${base}/hello`)).toEqual({
      url: `${base}/hello`,
      status: 200,
      contentType: "text/plain; charset=utf-8",
      body: "hello from loopback",
      truncated: false,
    });
    expect(await fetchWith([`${base}/json`], `${base}/json`)).toMatchObject({ body: '{"ok":true}' });
    expect(await fetchWith(["127.0.0.1"], `${base}/nope`)).toMatchObject({ status: 404, body: "not found" });
  });

  it("truncates large bodies and describes binary ones", async () => {
    const big = (await fetchWith(["127.0.0.1"], `${base}/big`, 100)) as JsonObject;
    expect(big.truncated).toBe(true);
    expect(big.body).toBe("x".repeat(100));
    expect(await fetchWith(["127.0.0.1"], `${base}/image`)).toMatchObject({
      body: "[image/png body not shown]",
    });
  });

  it("re-checks every redirect against the allowlist", async () => {
    expect(await fetchWith(["127.0.0.1"], `${base}/redirect-in`)).toMatchObject({
      body: "hello from loopback",
    });
    expect(errorText(await fetchWith(["127.0.0.1"], `${base}/redirect-out`))).toContain(
      "http://example.invalid/ is not on the allowlist",
    );
  });

  it("refuses URLs off the allowlist and bad URLs without any request", async () => {
    expect(errorText(await fetchWith(["example.com"], `${base}/hello`))).toContain("is not on the allowlist");
    expect(errorText(await fetchWith(["example.com"], "not a url"))).toContain("not a valid absolute URL");
  });

  it("reports connection failures as error results", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(errorText(await fetchWith(["127.0.0.1"], `http://127.0.0.1:${port}/`))).toContain("failed");
  });
});

describe("http_fetch redirects and credentials", () => {
  /** A second loopback origin that echoes the headers it received (lower-cased names). */
  let echo: Server;
  let echoBase: string;
  /** The first origin: `/to-echo` redirects to the echo origin, `/same` to itself, `/back` bounces back. */
  let origin: Server;
  let originBase: string;

  beforeAll(async () => {
    echo = createServer((req, res) => {
      if (req.url === "/back") {
        res.writeHead(302, { location: `${originBase}/headers` });
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(req.headers));
    });
    origin = createServer((req, res) => {
      if (req.url === "/to-echo") res.writeHead(302, { location: `${echoBase}/headers` });
      else if (req.url === "/via-echo") res.writeHead(302, { location: `${echoBase}/back` });
      else if (req.url === "/same") res.writeHead(301, { location: "/headers" });
      else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(req.headers));
        return;
      }
      res.end();
    });
    for (const s of [echo, origin]) await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
    echoBase = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    originBase = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const s of [echo, origin]) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  });

  const headers = {
    Authorization: "Bearer sk-secret-1",
    Cookie: "session=secret-2",
    "X-Api-Key": "secret-3",
    "X-Team-Token": "secret-4",
    "User-Agent": "tinyagents-test",
  };

  async function received(url: string): Promise<Record<string, string>> {
    const t = httpFetchTool({
      allow: [originBase, echoBase].map((b) => new URL(b).host),
      headers,
      credentialHeaders: ["x-team-token"],
    });
    const run = lowerLayer(new AgentHarness()).createContext({}, undefined);
    const out = (await t.execute(
      { url },
      { state: undefined, run, callId: "c", signal: run.signal, progress: () => {} },
    )) as JsonObject;
    return JSON.parse(String(out.body)) as Record<string, string>;
  }

  it("drops Authorization, Cookie, API-key and configured credential headers on a cross-origin hop", async () => {
    const seen = await received(`${originBase}/to-echo`);
    expect(seen.host).toBe(new URL(echoBase).host); // it did reach the other origin
    expect(seen.authorization).toBeUndefined();
    expect(seen.cookie).toBeUndefined();
    expect(seen["x-api-key"]).toBeUndefined();
    expect(seen["x-team-token"]).toBeUndefined();
    expect(seen["user-agent"]).toBe("tinyagents-test"); // non-credential headers still go
  });

  it("keeps them on a same-origin redirect, and never restores them after leaving the origin", async () => {
    const same = await received(`${originBase}/same`);
    expect(same.authorization).toBe("Bearer sk-secret-1");
    expect(same["x-team-token"]).toBe("secret-4");
    const bounced = await received(`${originBase}/via-echo`); // origin -> echo -> origin
    expect(bounced.host).toBe(new URL(originBase).host);
    expect(bounced.authorization).toBeUndefined();
    expect(bounced.cookie).toBeUndefined();
  });
});
