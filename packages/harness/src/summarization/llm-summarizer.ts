import {
  type ChatModel,
  type Message,
  type ModelRequest,
  type ModelResponse,
  system,
  TinyAgentsError,
  text,
  user,
  validationError,
} from "@tinyagents/inference";
import type { AgentHarness } from "../runtime/agent-harness.js";
import type { SummarizeContext, Summarizer } from "./summarizer.js";

/** Makes the summarizer's model call. */
export type SummaryModelCall = (request: ModelRequest, signal?: AbortSignal) => Promise<ModelResponse>;

/** Options of {@link LlmSummarizer}. */
export interface LlmSummarizerOptions {
  /** The model: a `ChatModel`, or a function making the call (see {@link LlmSummarizer.fromHarness}). */
  model: ChatModel | SummaryModelCall;
  /** System prompt of the summarization call (a sensible default is built in). */
  instructions?: string;
  /** Cap on the summary's output tokens (default 512). */
  maxTokens?: number;
  /** Shown in provenance (default `"llm"`). */
  name?: string;
}

/** The default instructions of {@link LlmSummarizer}. */
export const DEFAULT_SUMMARY_INSTRUCTIONS =
  "You compress conversations for an AI agent. Summarize the conversation below so the agent can " +
  "continue the task without it: keep the user's goals and constraints, decisions made, facts " +
  "learned from tools (names, numbers, ids, paths), and open questions. Be concise and factual; " +
  "write plain text, no preamble.";

/**
 * A summarizer backed by a language model. The conversation is rendered as plain text
 * (`role: text`, tool calls and results included) into one user message after the instructions;
 * the model's text answer is the summary. Use a registered model through the harness
 * (`LlmSummarizer.fromHarness`, so the call gets the harness's retries, fallback, usage, cost and
 * events) or any `ChatModel`. An empty answer is an `empty_response` error; the compression
 * middleware's failure policy decides what happens then.
 */
export class LlmSummarizer implements Summarizer {
  readonly name: string;
  private readonly call: SummaryModelCall;
  private readonly instructions: string;
  private readonly maxTokens: number;

  /** Throws `validation` when `model` is neither a ChatModel nor a function, or `maxTokens` is not positive. */
  constructor(options: LlmSummarizerOptions) {
    const model = options?.model;
    if (typeof model === "function") this.call = model;
    else if (typeof model?.invoke === "function") {
      this.call = (request, signal) => model.invoke(request, signal === undefined ? {} : { signal });
    } else {
      throw validationError(
        "LlmSummarizer: `model` must be a ChatModel or a function (request) => response",
        {
          field: "model",
        },
      );
    }
    this.maxTokens = options.maxTokens ?? 512;
    if (!Number.isInteger(this.maxTokens) || this.maxTokens <= 0) {
      throw validationError(`LlmSummarizer: maxTokens must be a positive integer, got ${this.maxTokens}`, {
        field: "maxTokens",
      });
    }
    this.instructions = options.instructions ?? DEFAULT_SUMMARY_INSTRUCTIONS;
    this.name = options.name ?? "llm";
  }

  /**
   * A summarizer that calls a model registered on `harness` (default: the harness's default
   * model) through `harness.callModel`, with `state` as the call's state.
   */
  static fromHarness<State, Ctx>(
    harness: AgentHarness<State, Ctx>,
    options: { state: State; model?: string; instructions?: string; maxTokens?: number; name?: string },
  ): LlmSummarizer {
    const modelName = options.model;
    return new LlmSummarizer({
      model: (request) =>
        harness
          .callModel(modelName === undefined ? request : { ...request, model: modelName }, {
            state: options.state,
          })
          .then((call) => call.response),
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      name: options.name ?? (modelName === undefined ? "llm" : `llm:${modelName}`),
    });
  }

  async summarize(messages: readonly Message[], context: SummarizeContext = {}): Promise<string> {
    if (messages.length === 0) {
      throw validationError("LlmSummarizer: nothing to summarize (no messages)", { field: "messages" });
    }
    const parts: string[] = [];
    if (context.previousSummary !== undefined && context.previousSummary !== "") {
      parts.push(`Summary so far:\n${context.previousSummary}\n`);
    }
    parts.push("Conversation:");
    for (const message of messages) parts.push(render(message));
    const request: ModelRequest = {
      messages: [system(this.instructions), user(parts.join("\n"))],
      maxTokens: this.maxTokens,
      temperature: 0,
    };
    const response = await this.call(request, context.signal);
    const summary = text(response.message).trim();
    if (summary === "") {
      throw new TinyAgentsError("empty_response", `summarizer "${this.name}" returned an empty summary`, {
        details: { summarizer: this.name },
      });
    }
    return summary;
  }
}

function render(message: Message): string {
  const body = text(message).trim();
  if (message.role === "assistant" && message.toolCalls.length > 0) {
    const calls = message.toolCalls.map((c) => `[calls ${c.name} ${JSON.stringify(c.arguments)}]`).join(" ");
    return `assistant: ${body === "" ? calls : `${body} ${calls}`}`;
  }
  if (message.role === "tool") return `tool ${message.toolName}${message.isError ? " (error)" : ""}: ${body}`;
  return `${message.role}: ${body}`;
}
