import { createParser, type EventSourceMessage } from "eventsource-parser";
import { BodyReader, MAX_EVENT_BYTES, responseTooLarge, type StreamReadOptions } from "./body-reader.js";

/** One Server-Sent Event. `event` and `id` are undefined when the server did not send them. */
export interface SseEvent {
  event?: string | undefined;
  data: string;
  id?: string | undefined;
}

/**
 * Parse a `text/event-stream` body into events, using `eventsource-parser` (so `data:` without
 * a space, CRLF and CR line ends, multi-line `data:`, a UTF-8 BOM and bytes split anywhere,
 * including inside a multi-byte character, are all handled). Comment lines (`: keep-alive`,
 * `: OPENROUTER PROCESSING`) and `retry:` fields are ignored; a non-standard `error: <data>`
 * line (llama.cpp) is delivered as an event named `error` with that data.
 *
 * Ends when the body ends. Throws:
 * - a retryable `ProviderError` with `providerCode: "stream_truncated"` when the body ends in
 *   the middle of an event (an unterminated line, or data lines without the blank line that
 *   ends an event) — the connection was cut;
 * - a retryable `ProviderError` (`stream_interrupted`) when reading the body fails;
 * - a non-retryable `ProviderError` (`response_too_large`) when more than `MAX_EVENT_BYTES`
 *   arrive without completing an event, or when the whole body passes `options.maxBytes`
 *   (default `MAX_STREAM_BYTES`): memory stays bounded whatever the server sends;
 * - the `timeout` error of `streamIdleTimeoutError` when `options.idleTimeoutMs` of waiting pass
 *   without progress — an event with data. Keep-alive comments, `ping` events, events whose data
 *   is blank and bytes of an event that never completes are not progress (the body is cancelled);
 * - the `abortedError` of `signal` when it aborts (the body is cancelled); an abort wins over
 *   the idle timeout.
 * Breaking out of the loop early cancels the body.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  options: StreamReadOptions = {},
): AsyncGenerator<SseEvent, void, undefined> {
  for await (const batch of readSseBatches(body, signal, options)) {
    for (let i = 0; i < batch.length; i++) yield batch[i]!;
  }
}

/**
 * {@link readSse}, batched: yields the events completed by each network read as one array
 * (never empty), so a hot consumer pays one async step per read instead of one per event.
 * Same parsing, errors and cancellation as `readSse`. The array is reused: copy what you keep.
 */
export async function* readSseBatches(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  options: StreamReadOptions = {},
): AsyncGenerator<readonly SseEvent[], void, undefined> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent(event) {
      pending.push(event);
    },
    onError(error) {
      // llama.cpp writes stream errors as a non-standard `error: {...}` field; surface it as an
      // `error` event instead of dropping it.
      if (error.type === "unknown-field" && error.field === "error" && error.value !== undefined) {
        pending.push({ event: "error", data: error.value, id: undefined });
      }
    },
  });
  const decoder = new TextDecoder();
  const reader = new BodyReader(body, signal, options);
  // Bytes received since an event last completed: bounds the parser's buffered partial event.
  let open = 0;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk === undefined) break;
      const text = decoder.decode(chunk, { stream: true });
      if (text === "") continue;
      parser.feed(text);
      if (pending.length === 0) {
        open += chunk.byteLength;
        if (open > MAX_EVENT_BYTES) throw responseTooLarge("one server-sent event", MAX_EVENT_BYTES, options);
        continue;
      }
      open = 0;
      if (anyProgress(pending)) reader.progress();
      yield pending;
      pending.length = 0;
    }
    const tail = decoder.decode();
    if (tail !== "") parser.feed(tail);
    if (pending.length > 0) yield pending;
    pending.length = 0;
    // Terminate any open line and event: if that completes an event, the body ended mid-event.
    parser.feed("\n\n");
    if (pending.length > 0) {
      throw reader.truncated("the body ended in the middle of a server-sent event");
    }
  } finally {
    reader.close();
  }
}

/**
 * Whether a batch of events moves the answer on: an event with non-blank data that is not a
 * `ping` (Anthropic's keep-alive event). Comments never reach here (the parser drops them).
 */
function anyProgress(events: readonly EventSourceMessage[]): boolean {
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (event.event !== "ping" && event.data.trim() !== "") return true;
  }
  return false;
}
