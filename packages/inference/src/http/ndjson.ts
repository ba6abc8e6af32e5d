import { ProviderError } from "../errors/provider-error.js";
import type { JsonValue } from "../json/json-value.js";
import { BodyReader, MAX_EVENT_BYTES, responseTooLarge, type StreamReadOptions } from "./body-reader.js";

/**
 * Parse a newline-delimited JSON body (`application/x-ndjson`, Ollama's native stream) into
 * values, one per line. Blank lines and `\r\n` line ends are tolerated, and so is a final line
 * without a newline.
 *
 * Throws:
 * - a non-retryable `ProviderError` (`providerCode: "malformed_stream"`) for a complete line
 *   that is not JSON (the raw line, capped, is kept in `rawBody`);
 * - a retryable `ProviderError` (`stream_truncated`) when the final, unterminated line is not
 *   JSON (the connection was cut mid-line);
 * - a non-retryable `ProviderError` (`response_too_large`) for a line longer than
 *   `MAX_EVENT_BYTES` characters, or a body longer than `options.maxBytes` (default
 *   `MAX_STREAM_BYTES`);
 * - a retryable `ProviderError` (`stream_interrupted`) when reading fails;
 * - the `timeout` error of `streamIdleTimeoutError` when `options.idleTimeoutMs` of waiting pass
 *   without a complete non-blank line (blank lines and bytes of an unfinished line are not
 *   progress; the body is cancelled);
 * - the `abortedError` of `signal` when it aborts (it wins over the idle timeout).
 */
export async function* readNdjson(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  options: StreamReadOptions = {},
): AsyncGenerator<JsonValue, void, undefined> {
  const decoder = new TextDecoder();
  const reader = new BodyReader(body, signal, options);
  let buffer = "";
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk === undefined) break;
      buffer += decoder.decode(chunk, { stream: true });
      let start = 0;
      let newline = buffer.indexOf("\n", start);
      while (newline !== -1) {
        const value = parseLine(buffer.slice(start, newline), options);
        if (value !== undefined) {
          reader.progress();
          yield value;
        }
        start = newline + 1;
        newline = buffer.indexOf("\n", start);
      }
      if (start > 0) buffer = buffer.slice(start);
      // A line that never ends must not grow without bound (a character is at least one byte).
      if (buffer.length > MAX_EVENT_BYTES) {
        throw responseTooLarge("one NDJSON line", MAX_EVENT_BYTES, options);
      }
    }
    buffer += decoder.decode();
    if (buffer.trim() !== "") {
      let value: JsonValue;
      try {
        value = JSON.parse(buffer) as JsonValue;
      } catch {
        throw reader.truncated("the last NDJSON line is incomplete");
      }
      yield value;
    }
  } finally {
    reader.close();
  }
}

function parseLine(line: string, options: StreamReadOptions): JsonValue | undefined {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    const provider = options.provider ?? "unknown";
    throw new ProviderError({
      provider,
      kind: "non_retryable",
      providerCode: "malformed_stream",
      message: `${provider}: the response stream contained a line that is not JSON (${(error as Error).message}): ${text.slice(0, 200)}`,
      rawBody: text.slice(0, 8192),
      cause: error,
      ...(options.model === undefined ? {} : { model: options.model }),
    });
  }
}
