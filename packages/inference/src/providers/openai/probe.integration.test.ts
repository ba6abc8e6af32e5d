import { describe, expect, it } from "vitest";
import type { RecordedRequest, ReplayResponse } from "../../../test/replay/replay-server.js";
import { useReplayServer } from "../../../test/support/replay.js";
import { probeOpenAiCompatible } from "./probe.js";

const server = useReplayServer({ resetBeforeEach: false });

const sse = (chunks: object[]): ReplayResponse => ({
  headers: { "content-type": "text/event-stream" },
  body: `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`,
});
const choice = (delta: object, finish: string | null = null) => ({
  id: "x",
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const unary = (message: object, finish: string): ReplayResponse => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ id: "x", choices: [{ index: 0, message, finish_reason: finish }] }),
});
const CALL = {
  id: "call_1",
  type: "function",
  function: { name: "get_weather", arguments: '{"city":"Paris"}' },
};

/** A small fake server: answers by what the request asks for; `noTools` rejects tools with 400. */
function fake(noTools: boolean) {
  return (request: RecordedRequest): ReplayResponse => {
    const body = request.json() as { stream?: boolean; tools?: unknown; response_format?: unknown };
    if (body.tools !== undefined && noTools) {
      return {
        status: 400,
        headers: { "content-type": "application/json" },
        body: '{"error":{"message":"tools is not supported"}}',
      };
    }
    if (body.tools !== undefined) {
      return body.stream
        ? sse([
            choice({ tool_calls: [{ index: 0, ...CALL, function: { name: "get_weather", arguments: "" } }] }),
            choice({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }),
            choice({}, "tool_calls"),
          ])
        : unary({ role: "assistant", content: null, tool_calls: [CALL] }, "tool_calls");
    }
    if (body.response_format !== undefined)
      return unary({ role: "assistant", content: '{"city":"Paris","population_millions":2.1}' }, "stop");
    return body.stream
      ? sse([choice({ content: "1 2" }), choice({ content: " 3" }), choice({}, "stop")])
      : unary({ role: "assistant", content: "OK" }, "stop");
  };
}

describe("probeOpenAiCompatible", () => {
  it("reports every capability of a capable server", async () => {
    server.reset();
    server.setHandler(fake(false));
    const report = await probeOpenAiCompatible(`${server.url}/v1`, "m");
    expect(report).toMatchObject({
      model: "m",
      text: { ok: true, detail: "OK" },
      streaming: { ok: true, detail: "2 text deltas" },
      tools: { ok: true },
      streamingToolChunks: { ok: true },
      structuredOutput: { ok: true },
    });
    expect(report.streamingToolChunks.detail).toContain("2 tool-call items");
  });

  it("reports failures with their messages instead of throwing", async () => {
    server.reset();
    server.setHandler(fake(true));
    const report = await probeOpenAiCompatible(`${server.url}/v1`, "m", { apiKey: "sk-probe-secret-123456" });
    expect(report.text.ok).toBe(true);
    expect(report.tools).toMatchObject({ ok: false });
    expect(report.tools.error).toContain("tools is not supported");
    expect(report.streamingToolChunks.ok).toBe(false);
    expect(JSON.stringify(report)).not.toContain("sk-probe-secret-123456");
  });
});
