import {
  assistant,
  type ChatModel,
  type Message,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
  systemClock,
  type ToolCall,
  text,
  usage,
} from "@tinyagents/inference";

/** The tool calls the scenario asks for, one per turn, in order: ids are fixed so replay sees the same ones. */
export const CONFORMANCE_CALLS: readonly ToolCall[] = [
  { id: "call_fetch", name: "fetch_order", arguments: { order: "42" } },
  { id: "call_email", name: "send_email", arguments: { to: "ops@example.com" } },
  { id: "call_deploy", name: "deploy", arguments: { env: "staging" } },
];

/** The prompt of a conformance run. */
export const CONFORMANCE_INPUT = "Fetch order 42, email ops about it, then deploy it to staging.";

/**
 * The scenario's fake model: a pure function of the request (NOT of how many calls it saw), so a
 * run re-driven on a fresh worker gets the same answer for the same turn. It asks for the next
 * tool of {@link CONFORMANCE_CALLS} whose result is not in the transcript yet, then answers with
 * a final text quoting every tool result. Each call takes `delayMs` on the run's clock and
 * reports a fixed usage per turn (so the run's totals are predictable).
 */
export class ConformanceModel implements ChatModel {
  readonly provider = "conformance";
  readonly modelId = "conformance-1";
  readonly cacheIdentity = "conformance:conformance-1";
  private readonly delayMs: number;

  constructor(delayMs: number) {
    this.delayMs = delayMs;
  }

  async invoke(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
    if (this.delayMs > 0) await (options?.clock ?? systemClock).sleep(this.delayMs, options?.signal);
    return conformanceReply(request.messages);
  }
}

/** The reply to a transcript (see {@link ConformanceModel}). */
export function conformanceReply(messages: readonly Message[]): ModelResponse {
  const answered = new Map<string, string>();
  for (const m of messages) if (m.role === "tool") answered.set(m.toolCallId, text(m));
  const turn = answered.size + 1;
  const spent = usage({ inputTokens: 100 * turn, outputTokens: 20 + turn });
  const next = CONFORMANCE_CALLS.find((call) => !answered.has(call.id));
  if (next !== undefined) {
    return {
      message: assistant(`Step ${turn}: calling ${next.name}.`, [structuredClone(next)]),
      finishReason: "tool_calls",
      usage: spent,
    };
  }
  const summary = CONFORMANCE_CALLS.map((call) => `${call.name}: ${answered.get(call.id)}`).join("; ");
  return { message: assistant(`Done. ${summary}`), finishReason: "stop", usage: spent };
}
