import { type Clock, startTimer } from "../clock/clock.js";
import type { Timer } from "../clock/timer-queue.js";
import { abortedError } from "../errors/normalize.js";
import { ProviderError } from "../errors/provider-error.js";
import type { TinyAgentsError } from "../errors/tinyagents-error.js";
import { limitClock } from "./call-bounds.js";
import { streamIdleTimeoutError } from "./stream-idle-timeout.js";

/** Who is being read, for the errors a stream reader throws, and how long it may stay silent. */
export interface StreamReadOptions {
  /** Provider name for errors (default `"unknown"`). */
  provider?: string | undefined;
  /** Model id for errors. */
  model?: string | undefined;
  /**
   * Idle timeout: fail when this many ms of waiting for the server pass without PROGRESS — a
   * server-sent event or NDJSON line with data, or (for `readBodyText`) a byte that is not
   * whitespace. Keep-alive comments, blank lines and bytes trickled into an event that never
   * completes are not progress, so a keep-alive loop or a slow-loris cannot hold a call forever.
   * Counts only time spent waiting for the server — not time the consumer spends between reads —
   * and starts with the first read, so the wait between the headers and the first event counts.
   * Fails with the `timeout` error of `streamIdleTimeoutError` (the body is cancelled).
   * `undefined`, `0` or `Infinity`: no idle timeout. An abort of the signal always wins over it.
   */
  idleTimeoutMs?: number | undefined;
  /** The clock the idle timeout runs on (default the system clock; a clock without `setTimer` is replaced by it, see `limitClock`). */
  clock?: Clock | undefined;
  /**
   * Total byte cap for the whole body: a body that grows past it fails with a non-retryable
   * `response_too_large` (the rest is cancelled unread), so a broken or hostile endpoint cannot
   * run the host out of memory. Default {@link MAX_STREAM_BYTES} for streams, {@link MAX_BODY_BYTES}
   * for `readBodyText`; `Infinity` disables it. Models take it as their `maxResponseBytes` option.
   */
  maxBytes?: number | undefined;
}

/**
 * A byte reader over a response body that honours an `AbortSignal` even when the `fetch` that
 * produced the body ignores it (an abort cancels the reader), enforces an optional idle timeout,
 * and turns failures into errors: abort -> `abortedError`; no byte for `idleTimeoutMs` ->
 * `streamIdleTimeoutError` (`timeout`); a body that breaks mid-read -> retryable `ProviderError`
 * (`providerCode: "stream_interrupted"`). Call {@link close} in a `finally`: it clears the timer.
 *
 * The idle timer runs on the call's clock (`options.clock`) and is ONE timer per reader, not one
 * per chunk: reads only record when they started waiting, the parser on top reports progress
 * ({@link progress}), and when the timer fires it adds up the time spent waiting since the last
 * progress and either fails the pending read or re-arms for the remainder. While no read is
 * pending (the consumer is busy) the timer lapses and the next read re-arms it, so a reader that
 * is never read again holds no timer.
 * @internal shared by `readSse`, `readNdjson` and `readBodyText`.
 */
export class BodyReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly signal: AbortSignal | undefined;
  private readonly options: StreamReadOptions;
  private readonly onAbort: (() => void) | undefined;
  private finished = false;
  /** The idle timeout in ms; 0 when off. */
  private readonly idleMs: number;
  private timer: Timer | undefined;
  private readonly clock: Clock;
  /** A read is pending (waiting for the server). */
  private waiting = false;
  /** When the pending read started waiting (`clock.now()`). */
  private waitingSince = 0;
  /** Time spent waiting for the server since the last progress, not counting the pending read. */
  private stalledMs = 0;
  /** Body bytes received so far (for the idle error's message and the total cap). */
  private received = 0;
  /** The total byte cap (`Infinity`: none). */
  private readonly maxBytes: number;
  /** Set when the idle timeout fired; every later read throws it. */
  private idleError: TinyAgentsError | undefined;

  constructor(body: ReadableStream<Uint8Array>, signal: AbortSignal | undefined, options: StreamReadOptions) {
    this.reader = body.getReader();
    this.signal = signal;
    this.options = options;
    const idle = options.idleTimeoutMs;
    this.idleMs = idle !== undefined && idle > 0 && idle !== Number.POSITIVE_INFINITY ? idle : 0;
    this.maxBytes = options.maxBytes ?? MAX_STREAM_BYTES;
    this.clock = limitClock(options.clock);
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
    if (this.idleError !== undefined) throw this.idleError;
    if (this.idleMs > 0) {
      this.waitingSince = this.clock.now();
      this.waiting = true;
      if (this.timer === undefined) this.arm(this.idleMs - this.stalledMs);
    }
    let result: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;
    try {
      result = await this.reader.read();
    } catch (error) {
      this.stopWaiting();
      if (isAborted(this.signal)) throw abortedError(this.signal, `${this.provider} stream`);
      if (this.idleError !== undefined) throw this.idleError;
      throw this.interrupted(error);
    }
    this.stopWaiting();
    if (isAborted(this.signal)) throw abortedError(this.signal, `${this.provider} stream`);
    if (this.idleError !== undefined) throw this.idleError;
    if (result.done) {
      this.finished = true;
      this.stopTimer();
      return undefined;
    }
    this.received += result.value.byteLength;
    if (this.received > this.maxBytes)
      throw responseTooLarge("the response body", this.maxBytes, this.options);
    return result.value;
  }

  /**
   * The body made progress (a complete event or line with data arrived): the idle timeout starts
   * over. Called by the parser on top; bytes alone are not progress.
   */
  progress(): void {
    this.stalledMs = 0;
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

  /** Release the body: cancel it when it was not read to the end, clear the idle timer. Never throws. */
  close(): void {
    this.stopTimer();
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

  private arm(ms: number): void {
    this.timer = startTimer(this.clock, Math.max(1, Math.ceil(ms)), this.onTimer);
  }

  /** A read returned: its wait counts towards the idle timeout until the parser reports progress. */
  private stopWaiting(): void {
    if (!this.waiting) return;
    this.waiting = false;
    this.stalledMs += Math.max(0, this.clock.now() - this.waitingSince);
  }

  private stopTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.waiting = false;
  }

  /** The idle check: fail the pending read if `idleMs` passed without progress, else re-arm for the rest. */
  private readonly onTimer = (): void => {
    this.timer = undefined;
    // No pending read: the consumer holds the stream; the next read re-arms. An abort wins: its
    // listener already cancelled the body and the read throws the abort error.
    if (!this.waiting || this.finished || this.idleError !== undefined || isAborted(this.signal)) return;
    const waited = this.stalledMs + (this.clock.now() - this.waitingSince);
    if (waited < this.idleMs) {
      this.arm(this.idleMs - waited);
      return;
    }
    this.idleError = streamIdleTimeoutError({
      provider: this.provider,
      model: this.options.model,
      idleTimeoutMs: this.idleMs,
      receivedBytes: this.received,
    });
    // Settles the pending read (done, or a rejection), which then throws `idleError`.
    this.reader.cancel(this.idleError).catch(() => undefined);
  };

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

/**
 * Most bytes read from a streamed response body (SSE, NDJSON) in total, unless the model's
 * `maxResponseBytes` says otherwise. Larger than {@link MAX_BODY_BYTES} because stream framing
 * costs ~200 bytes per token on OpenAI-style endpoints: 48 MiB still holds a 200k-token answer.
 */
export const MAX_STREAM_BYTES = 48 * 1024 * 1024;

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
 * broken bodies throw like `BodyReader.read`. A missing body reads as `""`.
 */
export async function readBodyText(
  body: ReadableStream<Uint8Array> | null,
  signal: AbortSignal | undefined,
  options: StreamReadOptions,
  limit = options.maxBytes ?? MAX_BODY_BYTES,
): Promise<string> {
  if (body === null) return "";
  // The reader enforces the limit; the check below keeps the error's wording for unary bodies.
  const reader = new BodyReader(body, signal, { ...options, maxBytes: Number.POSITIVE_INFINITY });
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk === undefined) break;
      bytes += chunk.byteLength;
      if (bytes > limit) throw responseTooLarge("the response body", limit, options);
      if (hasNonWhitespace(chunk)) reader.progress();
      parts.push(decoder.decode(chunk, { stream: true }));
    }
    parts.push(decoder.decode());
    return parts.join("");
  } finally {
    reader.close();
  }
}

/** True when `chunk` holds a byte other than JSON whitespace (space, tab, CR, LF). */
function hasNonWhitespace(chunk: Uint8Array): boolean {
  for (let i = 0; i < chunk.length; i++) {
    const b = chunk[i]!;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return true;
  }
  return false;
}

/** Re-reads `aborted` (a plain property read that TypeScript would otherwise narrow away). */
export function isAborted(signal: AbortSignal | undefined): signal is AbortSignal {
  return signal?.aborted === true;
}
