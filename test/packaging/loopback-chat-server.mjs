// Plain JavaScript so that both the packed-consumer test (TypeScript, through
// loopback-chat-server.d.mts) and `.ci/pack-consumer.mjs` (plain Node, no build) start the same server.
import { createServer } from "node:http";

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 (no network beyond loopback): when
 * tools are offered and the last message is the user's, it calls the first tool (every argument
 * filled by its JSON Schema type); otherwise it answers "It is sunny in Lisbon.". Streams SSE when
 * asked, with usage in the last chunk.
 */
export async function startLoopbackChatServer() {
  /** @type {import("./loopback-chat-server.d.mts").SeenRequest[]} */
  const seen = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      if (req.method !== "POST" || req.url?.endsWith("/chat/completions") !== true) {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
        return;
      }
      const request = JSON.parse(body || "{}");
      const last = request.messages?.at(-1);
      const tool = request.tools?.[0]?.function;
      seen.push({
        url: req.url,
        stream: request.stream === true,
        withToolResult: request.messages?.some((m) => m.role === "tool") ?? false,
        offeredTools: tool !== undefined,
      });
      const callTool = tool !== undefined && last?.role === "user";
      /** @type {Record<string, unknown>} */
      const args = {};
      for (const [key, schema] of Object.entries(tool?.parameters?.properties ?? {})) {
        args[key] =
          schema.type === "number" || schema.type === "integer"
            ? 1
            : schema.type === "boolean"
              ? true
              : "Lisbon";
      }
      const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
      const toolCall = {
        id: `call_${seen.length}`,
        type: "function",
        function: { name: tool?.name, arguments: JSON.stringify(args) },
      };
      const text = "It is sunny in Lisbon.";
      const base = { id: `chatcmpl-${seen.length}`, created: 1_700_000_000, model: request.model };
      if (request.stream === true) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        const send = (data) => res.write(`data: ${JSON.stringify(data)}\n\n`);
        const chunk = (delta, finish = null) => ({
          ...base,
          object: "chat.completion.chunk",
          choices: [{ index: 0, delta, finish_reason: finish }],
        });
        send(chunk({ role: "assistant", content: "" }));
        if (callTool) send(chunk({ tool_calls: [{ index: 0, ...toolCall }] }));
        else for (const piece of text.split(" ")) send(chunk({ content: `${piece} ` }));
        send(chunk({}, callTool ? "tool_calls" : "stop"));
        send({ ...base, object: "chat.completion.chunk", choices: [], usage });
        res.end("data: [DONE]\n\n");
        return;
      }
      const message = callTool
        ? { role: "assistant", content: null, tool_calls: [toolCall] }
        : { role: "assistant", content: text };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          ...base,
          object: "chat.completion",
          choices: [{ index: 0, message, finish_reason: callTool ? "tool_calls" : "stop" }],
          usage,
        }),
      );
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the loopback server has no port");
  return {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    seen,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
