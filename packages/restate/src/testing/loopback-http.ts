import { request } from "node:http";

/** The answer of {@link loopbackRequest}: status and body text. */
export interface LoopbackResponse {
  status: number;
  body: string;
}

/**
 * One HTTP/1.1 request to a loopback server (Restate's admin API or ingress) on a fresh
 * connection that closes afterwards (`agent: false`): no keep-alive socket outlives the call,
 * so test files stay free of leaked handles. Rejects on connection errors and after `timeoutMs`.
 */
export function loopbackRequest(
  method: string,
  url: string,
  body?: unknown,
  options: { timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<LoopbackResponse> {
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  const headers: Record<string, string> = { connection: "close", ...options.headers };
  if (payload !== undefined) {
    headers["content-type"] ??= "application/json";
    headers["content-length"] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on("error", reject);
    });
    req.setTimeout(options.timeoutMs ?? 10_000, () => {
      req.destroy(new Error(`${method} ${url} timed out after ${options.timeoutMs ?? 10_000} ms`));
    });
    req.on("error", reject);
    req.end(payload);
  });
}
