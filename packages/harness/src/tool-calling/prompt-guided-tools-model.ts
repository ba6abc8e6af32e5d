import {
  type ChatModel,
  type ModelCallOptions,
  type ModelProfile,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamItem,
  streamModel,
} from "@tinyagents/inference";
import { createRandomIds, type IdGenerator } from "../ids/index.js";
import { toPromptGuidedRequest } from "./prompt-guided-request.js";
import {
  applyPromptToolCalls,
  type PromptToolParseOptions,
  promptGuidedStream,
} from "./prompt-guided-response.js";
import { isToolsUnsupportedError } from "./tools-rejection.js";

/** Options of {@link PromptGuidedToolsModel}. */
export interface PromptGuidedToolsOptions {
  /**
   * `"always"` (default): every call is prompt-guided. `"fallback"`: calls go to the wrapped model
   * natively until it refuses `tools` (see `isToolsRejection`); that call is retried
   * prompt-guided and every later call of this wrapper (and of any wrapper sharing `latch`) is
   * prompt-guided from the start.
   */
  mode?: "always" | "fallback";
  /** Decides whether a native call's error means "tools unsupported" (default {@link isToolsUnsupportedError}). */
  isToolsRejection?: (error: unknown) => boolean;
  /**
   * Shared record of endpoints known to refuse tools, keyed by the wrapped model's
   * `cacheIdentity` (else `provider|modelId`). Pass the same set to several wrappers of one
   * endpoint so one discovery serves them all. Default: private to this wrapper.
   */
  latch?: Set<string>;
  /** Ids of recovered calls: `ids.next("ptc")` (default: random `ptc-<nonce>-<n>`). */
  ids?: IdGenerator;
  /** Recognise bare JSON tool-call objects in replies (default true; they must name a declared tool). */
  bareJson?: boolean;
}

/**
 * A `ChatModel` decorator that gives tool calling to models and servers without it
 * ("prompt-guided" tool calling). Per prompt-guided call:
 * 1. the request is rewritten by `toPromptGuidedRequest`: the tools are declared in the system
 *    prompt with the `<tool_call>` protocol, earlier assistant tool calls and tool results are
 *    coalesced into text, and `tools` / `toolChoice` / `parallelToolCalls` never reach the wire;
 * 2. the reply's text is parsed back (`parseToolCallsFromText`, limited to the declared tools for
 *    unmarked JSON) into `message.toolCalls` with synthetic ids `ptc-...` — only when the request
 *    offers tools (declared, and `toolChoice` is not `"none"`); otherwise the reply is returned as is;
 * 3. when streaming, the markup is scrubbed from the text deltas and the calls arrive as
 *    `tool_call_delta` items at the end; `invoke` and accumulated `stream` give the same response.
 *
 * `provider` and `modelId` are the wrapped model's; `cacheIdentity` gains a `|prompt-tools`
 * suffix while calls are prompt-guided (the replies differ); `profile` claims `tools` and
 * `parallelToolCalls`. Errors of the wrapped model propagate unchanged (except the one refusal
 * that triggers the fallback).
 */
export class PromptGuidedToolsModel<State = unknown> implements ChatModel<State> {
  readonly provider: string;
  readonly modelId: string;
  readonly profile?: ModelProfile;
  private readonly mode: "always" | "fallback";
  private readonly isRejection: (error: unknown) => boolean;
  private readonly latch: Set<string>;
  /** The key of the refusal latch (the wrapped model's cache identity). */
  private readonly latchKey: string;
  readonly endpoint?: string;
  private readonly parse: PromptToolParseOptions;

  constructor(
    readonly inner: ChatModel<State>,
    options: PromptGuidedToolsOptions = {},
  ) {
    this.provider = inner.provider;
    this.modelId = inner.modelId;
    if (inner.profile !== undefined) {
      this.profile = {
        ...inner.profile,
        capabilities: { ...inner.profile.capabilities, tools: true, parallelToolCalls: true },
      };
    }
    this.mode = options.mode ?? "always";
    this.isRejection = options.isToolsRejection ?? isToolsUnsupportedError;
    this.latch = options.latch ?? new Set();
    this.latchKey = inner.cacheIdentity ?? `${inner.provider}|${inner.modelId}`;
    if (inner.endpoint !== undefined) this.endpoint = inner.endpoint;
    const ids = options.ids ?? createRandomIds();
    this.parse = { generateId: () => ids.next("ptc") };
    if (options.bareJson !== undefined) this.parse.bareJson = options.bareJson;
  }

  /** True when calls are prompt-guided now (always in `"always"` mode; after the latch in `"fallback"`). */
  get promptGuided(): boolean {
    return this.mode === "always" || this.latch.has(this.latchKey);
  }

  /** The wrapped model's cache identity, suffixed `|prompt-tools` while calls are prompt-guided. */
  get cacheIdentity(): string {
    return this.promptGuided ? `${this.latchKey}|prompt-tools` : this.latchKey;
  }

  async invoke(request: ModelRequest, options?: ModelCallOptions<State>): Promise<ModelResponse> {
    if (!this.promptGuided) {
      if (!hasTools(request)) return this.inner.invoke(request, options);
      try {
        return await this.inner.invoke(request, options);
      } catch (error) {
        if (!this.isRejection(error)) throw error;
        this.latch.add(this.latchKey);
      }
    }
    const response = await this.inner.invoke(toPromptGuidedRequest(request), options);
    return offersTools(request) ? applyPromptToolCalls(response, this.parseOptions(request)) : response;
  }

  async *stream(
    request: ModelRequest,
    options?: ModelCallOptions<State>,
  ): AsyncGenerator<ModelStreamItem, void, undefined> {
    if (this.promptGuided) {
      yield* this.streamPromptGuided(request, options);
      return;
    }
    const iterator = streamModel(this.inner, request, options)[Symbol.asyncIterator]();
    let first: IteratorResult<ModelStreamItem>;
    try {
      first = await iterator.next();
    } catch (error) {
      if (!hasTools(request) || !this.isRejection(error)) throw error;
      this.latch.add(this.latchKey);
      yield* this.streamPromptGuided(request, options);
      return;
    }
    try {
      for (let next = first; next.done !== true; next = await iterator.next()) yield next.value;
    } finally {
      await iterator.return?.();
    }
  }

  private streamPromptGuided(
    request: ModelRequest,
    options: ModelCallOptions<State> | undefined,
  ): AsyncGenerator<ModelStreamItem, void, undefined> {
    const items = streamModel(this.inner, toPromptGuidedRequest(request), options);
    return offersTools(request) ? promptGuidedStream(items, this.parseOptions(request)) : passThrough(items);
  }

  private parseOptions(request: ModelRequest): PromptToolParseOptions {
    return { ...this.parse, tools: request.tools ?? [] };
  }
}

/**
 * Wrap `model` so that an endpoint answering `tools` with a refusal (see
 * {@link isToolsUnsupportedError}) falls back to prompt-guided tool calling, latched for the
 * endpoint. Shorthand for `new PromptGuidedToolsModel(model, { ...options, mode: "fallback" })`.
 */
export function withPromptToolsFallback<State>(
  model: ChatModel<State>,
  options: Omit<PromptGuidedToolsOptions, "mode"> = {},
): PromptGuidedToolsModel<State> {
  return new PromptGuidedToolsModel(model, { ...options, mode: "fallback" });
}

function hasTools(request: ModelRequest): boolean {
  return request.tools !== undefined && request.tools.length > 0;
}

/** Tools the model may call on this request (a reply is only parsed for calls then). */
function offersTools(request: ModelRequest): boolean {
  return hasTools(request) && request.toolChoice !== "none";
}

async function* passThrough(
  items: AsyncIterable<ModelStreamItem>,
): AsyncGenerator<ModelStreamItem, void, undefined> {
  yield* items;
}
