import {
  assistant,
  type ChatModel,
  defaultTokenCounter,
  type Message,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamItem,
  responseToStreamItems,
  text,
  toolCall,
  usage,
} from "@tinyagents/inference";
import { describeResults, fillSchema, resultsSince, SCRIPTED_NOTE } from "./demo-answer.js";
import { planStages } from "./demo-plan.js";

/** Options of {@link DemoModel}. */
export interface DemoModelOptions {
  /** Delay between streamed words, in ms (default 15; 0 for tests). */
  delayMs?: number;
}

/**
 * The offline demo model. It is NOT a language model: it follows fixed keyword rules
 * (`planStages`): a time question calls `current_time` for the place named, numbers go to `add` or
 * `calculator`, and any `*_agent` tool (a sub-agent) is consulted; then it answers from the tool
 * results with fixed templates, or as JSON filling the requested schema. Without an applicable
 * tool it says what it is. So the CLI, the demo and the tests show a real tool loop, streaming,
 * memory and accounting without a network or an API key — and never pass this off as a real model.
 */
export class DemoModel implements ChatModel {
  readonly provider = "demo";
  readonly modelId = "offline-demo";
  private readonly delayMs: number;
  private calls = 0;

  constructor(options: DemoModelOptions = {}) {
    this.delayMs = options.delayMs ?? 15;
  }

  async invoke(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    options.signal?.throwIfAborted();
    this.calls++;
    const message = this.reply(request);
    const input = defaultTokenCounter.countMessages(request.messages);
    const output = defaultTokenCounter.countText(text(message)) + 10 * message.toolCalls.length;
    return {
      message,
      usage: usage({ inputTokens: input, outputTokens: output }),
      finishReason: message.toolCalls.length > 0 ? "tool_calls" : "stop",
    };
  }

  async *stream(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<ModelStreamItem> {
    const response = await this.invoke(request, options);
    for (const item of responseToStreamItems(response)) {
      if (item.type !== "text_delta" || this.delayMs <= 0) {
        yield item;
        continue;
      }
      // Word by word, so the terminal shows text arriving as it would from a real model.
      for (const piece of item.text.split(/(?<= )/)) {
        await sleep(this.delayMs, options.signal);
        yield { type: "text_delta", text: piece };
      }
    }
  }

  private reply(request: ModelRequest) {
    const messages = request.messages;
    const inputAt = lastIndex(messages, (m) => m.role === "user");
    const prompt = inputAt === -1 ? "" : text(messages[inputAt]);
    const results = resultsSince(messages, inputAt + 1);
    const stages = planStages(prompt, request.tools ?? []);
    const done = new Set(results.map((r) => r.toolName));
    const next = stages.find((stage) => stage.some((call) => !done.has(call.name)));
    if (next !== undefined) {
      const calls = next.filter((call) => !done.has(call.name));
      const names = calls.map((c) => c.name).join(" and ");
      return assistant(
        `Let me use ${names}.`,
        calls.map((c, i) => toolCall(`demo-${this.calls}-${i + 1}`, c.name, c.arguments)),
      );
    }
    const answer =
      results.length > 0
        ? `${describeResults(results).join(" ")} ${SCRIPTED_NOTE}`
        : this.introduction(messages, inputAt, request);
    const format = request.responseFormat;
    if (format?.type === "json_schema")
      return assistant(JSON.stringify(fillSchema(format.schema, answer, results)));
    if (format?.type === "json_object") return assistant(JSON.stringify({ answer }));
    return assistant(answer);
  }

  private introduction(messages: readonly Message[], inputAt: number, request: ModelRequest): string {
    const earlier = messages
      .slice(0, Math.max(inputAt, 0))
      .filter((m) => m.role === "user" || m.role === "assistant");
    const lastUser = [...earlier].reverse().find((m) => m.role === "user");
    const memory =
      earlier.length === 0
        ? "This is the first message of the thread."
        : `This thread has ${earlier.length} earlier messages; your previous message was "${text(lastUser).slice(0, 80)}".`;
    const tools = (request.tools ?? []).map((t) => t.name);
    return (
      "I am the offline demo model: scripted rules, not an LLM. " +
      (tools.length > 0
        ? `Tools I can use: ${tools.join(", ")} (I call them for time questions and arithmetic). `
        : "Give me tools (for example --tools time,calc) and ask for the time or a sum. ") +
      `${memory} For real answers set TINYAGENTS_MODEL=provider:model and its API key.`
    );
  }
}

function lastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i] as T)) return i;
  return -1;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
