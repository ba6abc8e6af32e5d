import { createParser, type EventSourceMessage } from "eventsource-parser";
import { BodyReader, type StreamReadOptions } from "./body-reader.js";

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
 * `: OPENROUTER PROCESSING`) and `retry:` fields are ignored.
 *
 * Ends when the body ends. Throws:
 * - a retryable `ProviderError` with `providerCode: "stream_truncated"` when the body ends in
 *   the middle of an event (an unterminated line, or data lines without the blank line that
 *   ends an event) — the connection was cut;
 * - a retryable `ProviderError` (`stream_interrupted`) when reading the body fails;
 * - the `abortedError` of `signal` when it aborts (the body is cancelled).
 * Breaking out of the loop early cancels the body.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  options: StreamReadOptions = {},
): AsyncGenerator<SseEvent, void, undefined> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent(event) {
      pending.push(event);
    },
  });
  const decoder = new TextDecoder();
  const reader = new BodyReader(body, signal, options);
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk === undefined) break;
      const text = decoder.decode(chunk, { stream: true });
      if (text === "") continue;
      parser.feed(text);
      if (pending.length === 0) continue;
      for (let i = 0; i < pending.length; i++) yield pending[i]!;
      pending.length = 0;
    }
    const tail = decoder.decode();
    if (tail !== "") parser.feed(tail);
    for (let i = 0; i < pending.length; i++) yield pending[i]!;
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
