import {
  type ChatModel,
  isJsonObject,
  type JsonValue,
  type ModelRequest,
  type ModelResponse,
  validationError,
} from "@tinyagents/inference";
import { cacheKey, modelCacheIdentity } from "../cache/cache-key.js";
import type { ResponseCache } from "../cache/response-cache.js";
import { SingleFlight } from "../cache/single-flight.js";
import type { RunContext } from "../contracts/run-context.js";

/** How a harness uses its response cache (`harness.withResponseCache(cache, options)`). */
export interface ResponseCacheOptions {
  /** Keeps applications, tenants or prompt versions apart (part of every key; default ""). */
  namespace?: string;
  /** Time to live of stored responses (a request's `responseCache.ttlMs` wins). */
  ttlMs?: number;
  /**
   * Also serve turns whose request already holds assistant or tool messages (default true: the
   * key covers the whole transcript, tool results included). `false` caches only first turns.
   */
  multiTurn?: boolean;
  /** Collapse concurrent identical misses into one provider call (default true). */
  coalesce?: boolean;
  /** Told about cache failures; the call then goes to the provider as if it were a miss. */
  onError?: (error: unknown, operation: "get" | "put") => void;
}

/** The provider call a cache lookup stands in front of. */
export interface CachedCall {
  /** Call the provider (streams deltas in streaming runs). */
  live(): Promise<ModelResponse>;
  /** Deliver a response that did not come from the provider (streaming runs replay it as deltas). */
  replay(response: ModelResponse): Promise<ModelResponse>;
  /** Wait for another call's promise, honouring the run's abort signal. */
  wait(promise: Promise<ModelResponse>): Promise<ModelResponse>;
}

/**
 * A response cache attached to a harness, with its options and its single-flight table (shared
 * by every run of the harness, so concurrent runs asking the same thing make one provider call).
 */
export class ResponseCacheBinding {
  readonly cache: ResponseCache;
  readonly namespace: string;
  readonly ttlMs: number | undefined;
  readonly multiTurn: boolean;
  readonly coalesce: boolean;
  private readonly onError: ((error: unknown, operation: "get" | "put") => void) | undefined;
  private readonly flights = new SingleFlight<ModelResponse>();

  /** Throws `validation` when `cache` lacks `get`/`put` or `ttlMs` is not a positive number. */
  constructor(cache: ResponseCache, options: ResponseCacheOptions = {}) {
    if (typeof cache?.get !== "function" || typeof cache.put !== "function") {
      throw validationError(
        "withResponseCache: the cache needs get(key) and put(key, value, options) methods",
        {
          field: "cache",
        },
      );
    }
    if (options.ttlMs !== undefined && !(Number.isFinite(options.ttlMs) && options.ttlMs > 0)) {
      throw validationError(
        `withResponseCache: ttlMs must be a positive number of ms, got ${options.ttlMs}`,
        {
          field: "ttlMs",
        },
      );
    }
    this.cache = cache;
    this.namespace = options.namespace ?? "";
    this.ttlMs = options.ttlMs;
    this.multiTurn = options.multiTurn ?? true;
    this.coalesce = options.coalesce ?? true;
    this.onError = options.onError;
  }

  /**
   * Serve one provider call through the cache:
   * - skipped (straight to the provider, no event) when `request.responseCache.enabled` is
   *   false, or for a multi-turn request with `multiTurn: false`;
   * - a hit emits `cache.hit`, marks the response `servedFromCache` (never billed: usage and
   *   cost skip it) and, in streaming runs, replays it as deltas;
   * - a miss emits `cache.miss`; when an identical call is already in flight (single flight) this
   *   one waits for it and is served from it as a `cache.hit` with `coalesced: true`; otherwise
   *   the provider is called and a usable answer (not `finishReason: "error"`) is stored.
   * Cache failures are reported to `onError` and treated as misses.
   */
  async call(
    ctx: RunContext<unknown>,
    model: ChatModel<unknown>,
    modelName: string,
    callId: string,
    request: ModelRequest,
    streaming: boolean,
    call: CachedCall,
  ): Promise<ModelResponse> {
    if (request.responseCache?.enabled === false) return call.live();
    if (!this.multiTurn && request.messages.some((m) => m.role === "assistant" || m.role === "tool")) {
      return call.live();
    }
    const key = cacheKey(request, modelCacheIdentity(model), { streaming, namespace: this.namespace });
    const stored = await this.read(key);
    if (stored !== undefined) {
      ctx.emit({ type: "cache.hit", callId, model: modelName, key, coalesced: false });
      return served(await call.replay(stored));
    }
    const leader = this.coalesce ? this.flights.pending(key) : undefined;
    if (leader !== undefined) {
      let shared: ModelResponse | undefined;
      try {
        shared = await call.wait(leader);
      } catch (error) {
        if (ctx.aborted) throw error;
        // The leader failed: this call tries on its own (its own retry policy applies).
      }
      if (shared !== undefined) {
        ctx.emit({ type: "cache.hit", callId, model: modelName, key, coalesced: true });
        return served(await call.replay(structuredClone(shared)));
      }
    }
    ctx.emit({ type: "cache.miss", callId, model: modelName, key });
    const work = async () => {
      const response = await call.live();
      if (response.finishReason !== "error") await this.write(key, response, request.responseCache?.ttlMs);
      return response;
    };
    return this.coalesce ? this.flights.lead(key, work) : work();
  }

  private async read(key: string): Promise<ModelResponse | undefined> {
    let value: JsonValue | undefined;
    try {
      value = await this.cache.get(key);
    } catch (error) {
      this.onError?.(error, "get");
      return undefined;
    }
    return isCachedResponse(value) ? value : undefined;
  }

  private async write(key: string, response: ModelResponse, ttlMs: number | undefined): Promise<void> {
    const ttl = ttlMs ?? this.ttlMs;
    try {
      await this.cache.put(key, response as unknown as JsonValue, ttl === undefined ? {} : { ttlMs: ttl });
    } catch (error) {
      this.onError?.(error, "put");
    }
  }
}

function served(response: ModelResponse): ModelResponse {
  response.servedFromCache = true;
  return response;
}

/** A stored value that looks like a ModelResponse (anything else is treated as a miss). */
function isCachedResponse(value: JsonValue | undefined): value is JsonValue & ModelResponse {
  if (!isJsonObject(value) || !isJsonObject(value.message)) return false;
  const message = value.message;
  return message.role === "assistant" && Array.isArray(message.content) && Array.isArray(message.toolCalls);
}
