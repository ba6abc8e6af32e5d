import type { ModelResponse } from "../model/model-response.js";
import { StreamAccumulator } from "../model/stream-accumulator.js";
import type { ModelStreamItem } from "../model/stream-item.js";

/** Test helper: a ReadableStream that yields exactly the given chunks (strings as UTF-8). */
export function streamOf(
  chunks: Array<string | Uint8Array>,
  options: { error?: Error } = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) {
        const chunk = chunks[i++]!;
        controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
        return;
      }
      if (options.error !== undefined) controller.error(options.error);
      else controller.close();
    },
  });
}

/** Split a string's UTF-8 bytes into single-byte chunks. */
export function byteChunks(text: string): Uint8Array[] {
  return [...new TextEncoder().encode(text)].map((byte) => Uint8Array.of(byte));
}

/** Drain an async iterable. */
export async function drain<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The response a stream of items accumulates to (what `collectStream` builds, without a model). */
export function accumulate(items: readonly ModelStreamItem[]): ModelResponse {
  const accumulator = new StreamAccumulator();
  for (const item of items) accumulator.push(item);
  return accumulator.finish();
}
