import {
  assistant,
  type ChatModel,
  type JsonObject,
  type ModelCallOptions,
  type ModelProfile,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamItem,
  responseToStreamItems,
  TinyAgentsError,
  type ToolCall,
  type Usage,
} from "@tinyagents/inference";
import { raceAbort, throwIfAborted } from "./abort.js";
import { fragmentStreamItems } from "./stream-chunks.js";

/** One tool call in the {@link ScriptedToolCalls} shorthand; `id` defaults to `call-<n>`. */
export interface ScriptedToolCall {
  name: string;
  arguments?: JsonObject;
  id?: string;
}

/** Shorthand for an assistant turn asking for tool calls (with optional text and usage). */
export interface ScriptedToolCalls {
  toolCalls: ScriptedToolCall[];
  text?: string;
  usage?: Usage;
}

/**
 * What one scripted call answers: a full `ModelResponse` (returned as a copy), a string (final
 * text), the tool-call shorthand, or an `Error` (a `ProviderError`, a `TinyAgentsError`, ...) to throw.
 */
export type ScriptReply = ModelResponse | string | ScriptedToolCalls | Error;

/** A script step: a reply, or a function computing the reply from the request (may be async, may throw). */
export type ScriptStep =
  | ScriptReply
  | ((request: ModelRequest, call: number) => ScriptReply | Promise<ScriptReply>);

/** Options of a {@link ScriptedModel}. */
export interface ScriptedModelOptions {
  /** `modelId` (default `"scripted"`); also names the model in error messages. */
  modelId?: string;
  profile?: ModelProfile;
  /** Usage attached to string and shorthand replies that do not carry their own. */
  usage?: Usage;
}

/**
 * A {@link ChatModel} that answers from a strict FIFO script: call N gets step N, nothing is
 * reused or skipped. Calling past the end throws a `validation` error saying the script is
 * exhausted; {@link assertConsumed} throws when steps are left over at the end of a test.
 *
 * - `requests` holds a deep copy (`structuredClone`) of every request that reached the script,
 *   including one that found it exhausted; later mutation by the harness cannot change them.
 * - Generated tool call ids are `call-1`, `call-2`, ... unique within this model.
 * - Replies to `invoke` and `stream` alike; `stream` emits the same response as realistic items
 *   (text in pieces, tool arguments in fragments) that a `StreamAccumulator` rebuilds into it.
 * - An aborted `options.signal` (before or during the call, or between stream items) throws a
 *   `cancelled` `TinyAgentsError` (or the harness's own error when that is the abort reason).
 *   A call aborted before it started consumes no step and records no request.
 */
export class ScriptedModel implements ChatModel {
  readonly provider = "scripted";
  readonly modelId: string;
  readonly profile?: ModelProfile;
  readonly cacheIdentity: string;
  /** Deep copies of the requests received, in order. */
  readonly requests: ModelRequest[] = [];
  private readonly steps: ScriptStep[];
  private readonly defaultUsage: Usage | undefined;
  private consumed = 0;
  private nextCallId = 0;

  constructor(steps: readonly ScriptStep[], options: ScriptedModelOptions = {}) {
    this.steps = [...steps];
    this.modelId = options.modelId ?? "scripted";
    if (options.profile !== undefined) this.profile = options.profile;
    this.defaultUsage = options.usage;
    this.cacheIdentity = `scripted:${this.modelId}`;
  }

  /** How many steps were consumed (calls that found a step). */
  get callCount(): number {
    return this.consumed;
  }

  /** How many steps are left. */
  get remaining(): number {
    return this.steps.length;
  }

  /** Append steps to the end of the script. */
  push(...steps: ScriptStep[]): this {
    this.steps.push(...steps);
    return this;
  }

  /** Throws a `validation` error when scripted steps were never used. */
  assertConsumed(): void {
    if (this.steps.length === 0) return;
    throw new TinyAgentsError(
      "validation",
      `ScriptedModel "${this.modelId}": ${this.steps.length} scripted step(s) left unconsumed after ${this.consumed} call(s); ` +
        "the agent made fewer model calls than the script expects — remove the extra steps or check why the run stopped early",
      { details: { model: this.modelId, remaining: this.steps.length, calls: this.consumed } },
    );
  }

  /** The next scripted reply, as a response. */
  invoke(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
    return this.respond(request, options);
  }

  /** The next scripted reply, as realistic stream items. */
  async *stream(
    request: ModelRequest,
    options?: ModelCallOptions,
  ): AsyncGenerator<ModelStreamItem, void, undefined> {
    const response = await this.respond(request, options);
    const items = fragmentStreamItems(responseToStreamItems(response));
    const [first] = items;
    if (first?.type === "start") first.model = this.modelId;
    for (const item of items) {
      throwIfAborted(options?.signal, this.what());
      yield item;
    }
  }

  private async respond(
    request: ModelRequest,
    options: ModelCallOptions | undefined,
  ): Promise<ModelResponse> {
    const signal = options?.signal;
    throwIfAborted(signal, this.what());
    this.requests.push(structuredClone(request));
    const step = this.steps.shift();
    if (step === undefined) {
      throw new TinyAgentsError(
        "validation",
        `ScriptedModel "${this.modelId}": script exhausted after ${this.consumed} call(s); add more steps ` +
          "(the agent made more model calls than scripted)",
        { details: { model: this.modelId, calls: this.consumed } },
      );
    }
    const call = ++this.consumed;
    const reply =
      typeof step === "function"
        ? await raceAbort(Promise.resolve(step(request, call)), signal, this.what())
        : step;
    throwIfAborted(signal, this.what());
    return this.toResponse(reply);
  }

  private toResponse(reply: ScriptReply): ModelResponse {
    if (reply instanceof Error || TinyAgentsError.isInstance(reply)) throw reply;
    if (typeof reply === "string")
      return this.withUsage({ message: assistant(reply), finishReason: "stop" }, undefined);
    if ("message" in reply) return structuredClone(reply);
    const calls: ToolCall[] = reply.toolCalls.map((call) => ({
      id: call.id ?? `call-${++this.nextCallId}`,
      name: call.name,
      arguments: structuredClone(call.arguments ?? {}),
    }));
    const message = assistant(reply.text ?? [], calls);
    return this.withUsage({ message, finishReason: calls.length > 0 ? "tool_calls" : "stop" }, reply.usage);
  }

  private withUsage(response: ModelResponse, usage: Usage | undefined): ModelResponse {
    const chosen = usage ?? this.defaultUsage;
    if (chosen !== undefined) response.usage = structuredClone(chosen);
    return response;
  }

  private what(): string {
    return `ScriptedModel "${this.modelId}" call`;
  }
}
