import type { ModelCallOptions } from "../model/chat-model.js";
import type { ModelRequest } from "../model/model-request.js";
import type { ModelStreamItem } from "../model/stream-item.js";
import { boundsForRequest, type CallBoundSettings, CallBounds } from "./call-bounds.js";
import type { FetchLike } from "./fetch-types.js";
import { postJson } from "./post-json.js";
import { redactProviderError, redactSecrets } from "./redact.js";

/** Where and how a native adapter posts its requests. */
export interface ProviderEndpointOptions {
  /** The full request URL (base URL joined with the API path, query kept). */
  url: string;
  headers: Record<string, string>;
  /** Credential values (API key, configured header values, base-URL query values), masked in every error. */
  secrets: readonly string[];
  fetch: FetchLike | undefined;
  /** The model's call bounds, unless a request sets its own. */
  bounds: Readonly<CallBoundSettings>;
  provider: string;
  model: string;
}

/**
 * One provider endpoint as the native adapters call it. It owns the wrapping every call needs —
 * start the call's time bounds on the call's clock, post the JSON body, mask the credentials in
 * whatever fails (thrown errors and in-stream error items), release the bounds when the call
 * ends — so an adapter only says how a request maps and how a response parses.
 */
export class ProviderEndpoint {
  constructor(private readonly options: ProviderEndpointOptions) {}

  /** Runs one unary call: `run` gets the call's bounds; errors come back with secrets masked. */
  async invoke<T>(
    request: ModelRequest,
    options: ModelCallOptions,
    run: (call: CallBounds) => Promise<T>,
  ): Promise<T> {
    const call = this.startCall(request, options, false);
    try {
      return await run(call);
    } catch (error) {
      throw redactProviderError(error, this.options.secrets);
    } finally {
      call.dispose();
    }
  }

  /** Runs one streamed call: the items of `run`, error items and thrown errors with secrets masked. */
  async *stream(
    request: ModelRequest,
    options: ModelCallOptions,
    run: (call: CallBounds) => AsyncIterable<ModelStreamItem>,
  ): AsyncGenerator<ModelStreamItem> {
    const call = this.startCall(request, options, true);
    try {
      yield* this.redactItems(run(call));
    } catch (error) {
      throw redactProviderError(error, this.options.secrets);
    } finally {
      call.dispose();
    }
  }

  /** POSTs `body` as JSON under the call's bounds; a non-2xx answer throws a classified `ProviderError`. */
  post(body: unknown, call: CallBounds): Promise<Response> {
    const { url, headers, fetch, secrets, provider, model } = this.options;
    return postJson({ url, body, headers, fetch, bounds: call, secrets, provider, model });
  }

  /** The items, with an error item's message masked (an error event can quote the credentials). */
  async *redactItems(items: AsyncIterable<ModelStreamItem>): AsyncGenerator<ModelStreamItem> {
    const secrets = this.options.secrets;
    for await (const item of items) {
      yield item.type === "error" ? { ...item, message: redactSecrets(item.message, secrets) } : item;
    }
  }

  /** The call's time bounds (total, headers, stream idle) on the call's clock. */
  private startCall(request: ModelRequest, options: ModelCallOptions, streaming: boolean): CallBounds {
    return new CallBounds({
      signal: options.signal,
      clock: options.clock,
      bounds: boundsForRequest(this.options.bounds, request),
      streaming,
      provider: this.options.provider,
      model: this.options.model,
    });
  }
}
