import type { JsonValue } from "../json/json-value.js";
import type { StreamReadOptions } from "./body-reader.js";
import { readNdjson } from "./ndjson.js";
import { readSse, type SseEvent } from "./sse.js";

/**
 * How a native API frames a streamed answer, and how a native adapter tells a streamed body from
 * a whole JSON one (proxies and older servers do not always answer in the form that was asked).
 */
export interface StreamFraming<Frame> {
  /** The frames of a streamed body, in order (the reader's errors, limits and idle timeout apply). */
  read(
    body: ReadableStream<Uint8Array>,
    signal: AbortSignal,
    options: StreamReadOptions,
  ): AsyncIterable<Frame>;
  /** Whether the answer to a unary request (`stream: false`) came streamed anyway. */
  streamedAnyway(response: Response): boolean;
  /** Whether the answer to a streaming request (`stream: true`) came as one JSON body instead. */
  unaryAnyway(response: Response): boolean;
}

const contentType = (response: Response): string => response.headers.get("content-type") ?? "";

/** Server-sent events (Anthropic Messages, OpenAI Responses). */
export const SSE_FRAMING: StreamFraming<SseEvent> = {
  read: readSse,
  streamedAnyway: (response) => contentType(response).includes("text/event-stream") && response.body !== null,
  unaryAnyway: (response) => response.body === null || contentType(response).includes("application/json"),
};

/**
 * Newline-delimited JSON (Ollama's native chat). The answer to a streaming request is always read
 * as lines, whatever its content type (a body-less answer ends the stream parser at once).
 */
export const NDJSON_FRAMING: StreamFraming<JsonValue> = {
  read: readNdjson,
  streamedAnyway: (response) => contentType(response).includes("ndjson"),
  unaryAnyway: () => false,
};
