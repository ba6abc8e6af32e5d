import { abortedError } from "../errors/normalize.js";
import { ProviderError } from "../errors/provider-error.js";

/** Who is being read, for the errors a stream reader throws. */
export interface StreamReadOptions {
  /** Provider name for errors (default `"unknown"`). */
  provider?: string | undefined;
  /** Model id for errors. */
  model?: string | undefined;
}

/**
 * A byte reader over a response body that honours an `AbortSignal` even when the `fetch` that
 * produced the body ignores it (an abort cancels the reader), and turns failures into errors:
 * abort -> `abortedError`; a body that breaks mid-read -> retryable `ProviderError`
 * (`providerCode: "stream_interrupted"`). Call {@link close} in a `finally`.
 * @internal shared by `readSse` and `readNdjson`.
 */
export class BodyReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly signal: AbortSignal | undefined;
  private readonly options: StreamReadOptions;
  private readonly onAbort: (() => void) | undefined;
  private finished = false;

  constructor(body: ReadableStream<Uint8Array>, signal: AbortSignal | undefined, options: StreamReadOptions) {
    this.reader = body.getReader();
    this.signal = signal;
    this.options = options;
    if (signal !== undefined) {
      if (signal.aborted) {
        this.onAbort = undefined;
      } else {
        this.onAbort = () => {
          this.reader.cancel(signal.reason).catch(() => undefined);
        };
        signal.addEventListener("abort", this.onAbort, { once: true });
      }
    }
  }

  /** The next chunk, or `undefined` at the end of the body. */
  async read(): Promise<Uint8Array | undefined> {
    if (isAborted(this.signal)) throw abortedError(this.signal, `${this.provider} stream`);
    let result: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;
    try {
      result = await this.reader.read();
    } catch (error) {
      if (isAborted(this.signal)) throw abortedError(this.signal, `${this.provider} stream`);
      throw this.interrupted(error);
    }
    if (isAborted(this.signal)) throw abortedError(this.signal, `${this.provider} stream`);
    if (result.done) {
      this.finished = true;
      return undefined;
    }
    return result.value;
  }

  /** A retryable error for a body that ended where it must not (`stream_truncated`). */
  truncated(detail: string): ProviderError {
    return new ProviderError({
      provider: this.provider,
      kind: "retryable",
      providerCode: "stream_truncated",
      message: `${this.provider}: the response stream ended early (${detail}); the connection was probably cut. Retry the call.`,
      ...(this.options.model === undefined ? {} : { model: this.options.model }),
    });
  }

  /** Release the body: cancel it when it was not read to the end. Never throws. */
  close(): void {
    if (this.onAbort !== undefined) this.signal?.removeEventListener("abort", this.onAbort);
    if (!this.finished) this.reader.cancel().catch(() => undefined);
    try {
      this.reader.releaseLock();
    } catch {
      // A pending read keeps the lock; cancel above settles it.
    }
  }

  private get provider(): string {
    return this.options.provider ?? "unknown";
  }

  private interrupted(error: unknown): ProviderError {
    const reason = error instanceof Error ? error.message : String(error);
    return new ProviderError({
      provider: this.provider,
      kind: "retryable",
      providerCode: "stream_interrupted",
      message: `${this.provider}: the response stream broke while reading (${reason}). Retry the call.`,
      cause: error,
      ...(this.options.model === undefined ? {} : { model: this.options.model }),
    });
  }
}

/**
 * Most bytes read from a non-streamed (unary) response body. A chat answer is a few KiB to a few
 * MiB; anything past this is a misbehaving server or proxy, and buffering it could exhaust memory.
 */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Most bytes one server-sent event or NDJSON line may hold before it completes. */
export const MAX_EVENT_BYTES = 16 * 1024 * 1024;

/**
 * The non-retryable `ProviderError` (`providerCode: "response_too_large"`) for a body or a single
 * event that grew past `limit` bytes: reading stops there, so memory stays bounded.
 */
export function responseTooLarge(what: string, limit: number, options: StreamReadOptions): ProviderError {
  const provider = options.provider ?? "unknown";
  return new ProviderError({
    provider,
    kind: "non_retryable",
    providerCode: "response_too_large",
    message: `${provider}: ${what} exceeded ${limit} bytes, so reading stopped (memory stays bounded); check that the base URL points at the provider's API and not at a proxy or file server.`,
    ...(options.model === undefined ? {} : { model: options.model }),
  });
}

/**
 * Read a whole (unary) response body as UTF-8 text, at most `limit` bytes: a longer body throws
 * `responseTooLarge` after reading just past the limit (the rest is cancelled unread). Aborts and
 * broken bodies throw like {@link BodyReader.read}. A missing body reads as `""`.
 */
export async function readBodyText(
  body: ReadableStream<Uint8Array> | null,
  signal: AbortSignal | undefined,
  options: StreamReadOptions,
  limit = MAX_BODY_BYTES,
): Promise<string> {
  if (body === null) return "";
  const reader = new BodyReader(body, signal, options);
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk === undefined) break;
      bytes += chunk.byteLength;
      if (bytes > limit) throw responseTooLarge("the response body", limit, options);
      parts.push(decoder.decode(chunk, { stream: true }));
    }
    parts.push(decoder.decode());
    return parts.join("");
  } finally {
    reader.close();
  }
}

/** Re-reads `aborted` (a plain property read that TypeScript would otherwise narrow away). */
export function isAborted(signal: AbortSignal | undefined): signal is AbortSignal {
  return signal?.aborted === true;
}
