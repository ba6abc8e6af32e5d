import { afterEach, describe, expect, it } from "vitest";
import { type RecordedRequest, ReplayServer } from "../../../inference/test/replay/replay-server.js";
import { useCli } from "../../test/support/cli.js";

// The agent flags of `run` and `chat` against a loopback OpenAI-compatible server that replays
// Chat Completions traffic as documented (unary JSON, SSE chunks ending in `data: [DONE]`).

const { cli } = useCli("tinyagents-flags-");
let server: ReplayServer;
afterEach(async () => {
  await server?.close();
});

const SECRET = "sk-test-0123456789abcdef";

const completion = (content: string, usage = true) => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "my-model",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    ...(usage ? { usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } } : {}),
  }),
});

/** An SSE stream of `parts` as content deltas, with no usage chunk (some servers send none). */
const streamed = (parts: string[]) => {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({
      id: "chatcmpl-2",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: "my-model",
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
  return {
    status: 200,
    headers: { "content-type": "text/event-stream" },
    body: [
      chunk({ role: "assistant", content: "" }, null),
      ...parts.map((content) => chunk({ content }, null)),
      chunk({}, "stop"),
      "data: [DONE]\n\n",
    ].join(""),
    chunking: { every: 7 } as const,
  };
};

const body = (request: RecordedRequest | undefined) => request?.json() as Record<string, unknown>;
const baseUrl = () => `${server.url}/v1`;

describe("run against any OpenAI-compatible server", () => {
  it("--base-url, --api-key-env, --system and --no-stream: what is sent, and the key never printed", async () => {
    server = await ReplayServer.start();
    server.enqueue(completion("hello from the server"));
    const { code, stdout, stderr } = await cli(
      [
        "run",
        "say hi",
        "--base-url",
        baseUrl(),
        "--model",
        "my-model",
        "--api-key-env",
        "MY_SERVER_KEY",
        "--system",
        "You are terse.",
        "--no-stream",
        "--json",
      ],
      { env: { MY_SERVER_KEY: SECRET } },
    );
    expect({ code, stderr }).toEqual({
      code: 0,
      stderr: `using compatible:my-model at ${baseUrl()} (API key from MY_SERVER_KEY)\n`,
    });
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    const sent = body(server.requests[0]);
    expect(sent.model).toBe("my-model");
    expect(sent.stream ?? false).toBe(false);
    expect((sent.messages as { role: string; content: unknown }[])[0]).toEqual({
      role: "system",
      content: "You are terse.",
    });
    const out = JSON.parse(stdout);
    expect(out.answer).toBe("hello from the server");
    // Usage reported, but no price known for this model: unknown, never $0.
    expect(out.cost.unknown).toBe(true);
    expect(stdout + stderr).not.toContain(SECRET);
  });

  it("streams by default; a model that reports no usage has cost 'unknown', not $0", async () => {
    server = await ReplayServer.start();
    server.enqueue(streamed(["Hel", "lo ", "there"]));
    const { code, stdout } = await cli(["run", "hi", "--base-url", baseUrl(), "--model", "my-model"]);
    expect(code).toBe(0);
    expect(body(server.requests[0]).stream).toBe(true);
    expect(stdout).toContain("Hello there");
    expect(stdout).toContain("cost: unknown (the model reported no token usage)");
    expect(stdout).not.toContain("$0.000000");
  });

  it("--prompt-tools: tools go in the system prompt, never as `tools`, and a <tool_call> in the text runs", async () => {
    server = await ReplayServer.start();
    server.enqueue(
      completion(
        'Let me compute.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "6 * 7"}}\n</tool_call>',
      ),
    );
    server.enqueue(completion("6 * 7 is 42."));
    const { code, stdout } = await cli([
      "run",
      "what is 6 * 7?",
      "--base-url",
      baseUrl(),
      "--model",
      "my-model",
      "--tools",
      "calc",
      "--prompt-tools",
    ]);
    expect(code).toBe(0);
    expect(server.requests).toHaveLength(2);
    const first = body(server.requests[0]);
    expect(first).not.toHaveProperty("tools");
    expect(JSON.stringify(first.messages)).toContain("<tool_call>");
    expect(JSON.stringify(first.messages)).toContain("calculator");
    expect(stdout).toMatch(/-> calculator\(\{"expression":"6 \* 7"\}\) ok/);
    expect(JSON.stringify(body(server.requests[1]).messages)).toContain("42");
    expect(stdout).toContain("6 * 7 is 42.");
  });

  it("without --prompt-tools the same tools are sent natively", async () => {
    server = await ReplayServer.start();
    server.enqueue(completion("no tools needed"));
    const { code } = await cli(["run", "hi", "--base-url", baseUrl(), "--model", "m", "--tools", "calc"]);
    expect(code).toBe(0);
    expect(JSON.stringify(body(server.requests[0]).tools)).toContain("calculator");
  });

  it("bad flags fail with the documented exit codes, naming what to fix", async () => {
    const missingKey = await cli([
      "run",
      "hi",
      "--model",
      "openai:gpt-4.1-mini",
      "--api-key-env",
      "NOPE_KEY",
    ]);
    expect(missingKey.code).toBe(3);
    expect(missingKey.stderr).toContain("the environment variable NOPE_KEY is not set or empty");
    const keyItself = await cli(["run", "hi", "--model", "openai:gpt-4.1-mini", "--api-key-env", SECRET]);
    expect(keyItself.code).toBe(2);
    expect(keyItself.stderr).toContain("takes the NAME of an environment variable");
    expect(keyItself.stderr).not.toContain(SECRET);
    const noModel = await cli(["run", "hi", "--base-url", "http://127.0.0.1:1/v1"]);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain("--base-url needs --model");
    const emptySystem = await cli(["run", "hi", "--system", " "]);
    expect(emptySystem.code).toBe(2);
    expect(emptySystem.stderr).toContain("--system needs the instructions text");
  });
});
