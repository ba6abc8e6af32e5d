import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_ANTHROPIC_MODEL } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { selectModel } from "./select-model.js";

const noLocal = { OLLAMA_HOST: "127.0.0.1:1" };

describe("selectModel", () => {
  it("prefers --model, then TINYAGENTS_MODEL, without a notice", async () => {
    const a = await selectModel({
      model: "groq:llama-3.3-70b-versatile",
      env: { GROQ_API_KEY: "k", ...noLocal },
    });
    expect(a).toMatchObject({ spec: "groq:llama-3.3-70b-versatile", isDemo: false });
    expect(a.notice).toBeUndefined();
    const b = await selectModel({
      env: { TINYAGENTS_MODEL: "openai:gpt-4.1", OPENAI_API_KEY: "k", ...noLocal },
    });
    expect(b.spec).toBe("openai:gpt-4.1");
  });

  it("uses a provider whose key is set, and says so", async () => {
    const s = await selectModel({ env: { ANTHROPIC_API_KEY: "k", ...noLocal } });
    // The native adapter's default model (the preset agrees with it).
    expect(s.spec).toBe(`anthropic:${DEFAULT_ANTHROPIC_MODEL}`);
    expect(s.notice).toContain("ANTHROPIC_API_KEY is set");
  });

  it("finds a local Ollama server", async () => {
    const server = createServer((req, res) => {
      res.writeHead(req.url === "/api/tags" ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify({ models: [{ name: "qwen3:8b" }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const s = await selectModel({ env: { OLLAMA_HOST: `127.0.0.1:${port}` } });
      expect(s.spec).toBe("ollama:qwen3:8b");
      expect(s.notice).toContain(`local Ollama server at http://127.0.0.1:${port}`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("falls back to the demo model with one honest line", async () => {
    const s = await selectModel({ env: noLocal });
    expect(s).toMatchObject({ spec: "demo", isDemo: true });
    expect(s.notice).toContain("NOT an LLM");
    expect(s.notice?.includes("\n")).toBe(false);
  });
});
