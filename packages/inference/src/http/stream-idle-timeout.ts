import { TinyAgentsError, validationError } from "../errors/tinyagents-error.js";

/**
 * Default stream idle timeout: how long a streamed response body may send nothing at all (not a
 * byte: SSE keep-alive comments, Anthropic `ping` events and blank NDJSON lines all count as data)
 * before the call fails with a `timeout` error.
 *
 * Why 240 s and not less: the wait for the FIRST byte after the headers counts too, and some
 * healthy streams are silent there for minutes — OpenAI Chat Completions sends nothing while a
 * reasoning model thinks (gaps of 30 s to a few minutes at high effort), local servers (llama.cpp,
 * Ollama) send nothing while they process a long prompt on slow hardware, and some gateways send
 * headers before the upstream answers. A default that kills those calls would be a regression.
 * Why not more: the platform `fetch` (undici) already cuts a body that is silent for 300 s
 * (`bodyTimeout`) with an opaque "terminated" error; 240 s stays under it, so what users see is
 * this typed error saying what happened and what to change. Endpoints known to stream steadily
 * (hosted APIs without silent reasoning) can use a much tighter value, e.g. 30_000.
 */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 240_000;

/** `details.limit` of the error a stalled stream fails with (see {@link streamIdleTimeoutError}). */
export const STREAM_IDLE_TIMEOUT_LIMIT = "stream_idle_timeout";

/** Facts for {@link streamIdleTimeoutError}. */
export interface StreamIdleFacts {
  provider: string;
  model?: string | undefined;
  /** The idle timeout that elapsed. */
  idleTimeoutMs: number;
  /** Body bytes received before the stream went silent (0: nothing after the headers). */
  receivedBytes: number;
}

/**
 * The error of a response stream that sent no data for `idleTimeoutMs`: code `timeout`, with
 * `details: { scope: "model_call", limit: "stream_idle_timeout", value, provider, model,
 * receivedBytes }`. `scope: "model_call"` makes retry and fallback logic treat it like the
 * model call's own timeout (the harness does not retry a timeout on the same model; it falls
 * back when a fallback chain is configured).
 */
export function streamIdleTimeoutError(facts: StreamIdleFacts): TinyAgentsError {
  const who = facts.model === undefined ? facts.provider : `${facts.provider} ${facts.model}`;
  const where =
    facts.receivedBytes === 0
      ? "nothing arrived after the response headers"
      : `the response stream stalled after ${facts.receivedBytes} bytes`;
  return new TinyAgentsError(
    "timeout",
    `no data for ${facts.idleTimeoutMs} ms from ${who} (${where}); raise \`streamIdleTimeoutMs\` (a model option or a request field; 0 disables it) or check the endpoint`,
    {
      details: {
        scope: "model_call",
        limit: STREAM_IDLE_TIMEOUT_LIMIT,
        value: facts.idleTimeoutMs,
        provider: facts.provider,
        ...(facts.model === undefined ? {} : { model: facts.model }),
        receivedBytes: facts.receivedBytes,
      },
    },
  );
}

/** True for the error of a stalled response stream (from any copy of the package). */
export function isStreamIdleTimeout(error: unknown): error is TinyAgentsError {
  return TinyAgentsError.isInstance(error, "timeout") && error.details?.limit === STREAM_IDLE_TIMEOUT_LIMIT;
}

/**
 * Check a `streamIdleTimeoutMs` model option: `undefined` gives the default
 * ({@link DEFAULT_STREAM_IDLE_TIMEOUT_MS}); `0` and `Infinity` disable the idle timeout; anything
 * else must be a number > 0. Throws a `validation` error naming `who`.
 */
export function resolveStreamIdleTimeout(value: unknown, who: string): number {
  if (value === undefined) return DEFAULT_STREAM_IDLE_TIMEOUT_MS;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw validationError(
      `${who}: streamIdleTimeoutMs must be a number of milliseconds >= 0 (0 or Infinity disables it), got ${String(value)}`,
      { field: "streamIdleTimeoutMs" },
    );
  }
  return value;
}
