/**
 * Properties of the stream parsers (fast-check, seeded globally by test/setup/fast-check.ts):
 * - SSE and NDJSON: however a valid byte stream is cut into chunks (inside CRLFs, inside
 *   multi-byte characters), the same events come out, equal to what was encoded;
 * - random bytes never escape the parsers — or the provider adapters reading them — as anything
 *   but a typed `ProviderError`.
 */
import {
  AnthropicModel,
  collectStream,
  type FetchLike,
  type JsonValue,
  OllamaModel,
  OpenAiChatModel,
  ProviderError,
  readNdjson,
  readSse,
  type SseEvent,
  user,
} from "@tinyagents/inference";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** A body stream delivering `bytes` cut at `cuts` (sorted, deduplicated positions). */
function chunked(bytes: Uint8Array, cuts: readonly number[]): ReadableStream<Uint8Array> {
  const points = [...new Set(cuts.map((c) => Math.min(bytes.length, Math.max(0, c))))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    if (point > start) parts.push(bytes.slice(start, point));
    start = Math.max(start, point);
  }
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[i++];
      if (part === undefined) controller.close();
      else controller.enqueue(part);
    },
  });
}

const cutsFor = (maxLength: number) => fc.array(fc.nat({ max: Math.max(0, maxLength) }), { maxLength: 40 });

/** Text without CR/LF (field values cannot hold line breaks), with multi-byte characters. */
const lineText = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom("a", "é", "€", "😀", " ", ":", "{", "}", '"'),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
    ),
  })
  .map((s) => s.replace(/[\r\n]/g, ""));

const sseEvent = fc.record(
  {
    event: fc.option(fc.stringMatching(/^[a-z_]{1,12}$/), { nil: undefined }),
    id: fc.option(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { nil: undefined }),
    dataLines: fc.array(lineText, { minLength: 1, maxLength: 3 }),
  },
  { requiredKeys: ["dataLines"] },
);

type GeneratedEvent = { event?: string | undefined; id?: string | undefined; dataLines: string[] };

/** Encode events as SSE: `data:` with or without a space, comments, CRLF or LF line ends. */
function encodeSse(
  events: readonly GeneratedEvent[],
  crlf: boolean,
  comments: boolean,
  bom: boolean,
): string {
  const nl = crlf ? "\r\n" : "\n";
  let out = bom ? "\uFEFF" : "";
  for (const [i, e] of events.entries()) {
    if (comments) out += `: keep-alive ${i}${nl}`;
    if (e.event !== undefined) out += `event: ${e.event}${nl}`;
    if (e.id !== undefined) out += `id: ${e.id}${nl}`;
    for (const [j, line] of e.dataLines.entries()) {
      // One space after the colon is optional (and stripped); a value starting with a space needs it.
      const space = (i + j) % 2 === 0 || line.startsWith(" ") ? " " : "";
      out += `data:${space}${line}${nl}`;
    }
    out += nl;
  }
  return out;
}

async function drainSse(body: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(body)) events.push({ ...event });
  return events;
}

const expectedOf = (events: readonly GeneratedEvent[]) =>
  events.map((e) => ({ data: e.dataLines.join("\n"), event: e.event, id: e.id }));

describe("SSE parser properties", () => {
  it("any chunking of a valid stream yields the encoded events", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(sseEvent, { maxLength: 8 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        cutsFor(4000),
        async (events, crlf, comments, bom, cuts) => {
          const bytes = new TextEncoder().encode(encodeSse(events, crlf, comments, bom));
          const got = await drainSse(chunked(bytes, cuts));
          const normalized = got.map((e) => ({ data: e.data, event: e.event, id: e.id }));
          // eventsource-parser reports a missing `id` as "" once one was seen; compare what was sent.
          expect(normalized.map((e) => e.data)).toEqual(expectedOf(events).map((e) => e.data));
          expect(normalized.map((e) => e.event)).toEqual(expectedOf(events).map((e) => e.event));
          const whole = await drainSse(chunked(bytes, []));
          expect(got).toEqual(whole);
        },
      ),
    );
  });

  it("random bytes only ever end in events or a typed ProviderError", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2000 }), cutsFor(2000), async (bytes, cuts) => {
        try {
          await drainSse(chunked(bytes, cuts));
        } catch (error) {
          expect(ProviderError.isProviderError(error), String(error)).toBe(true);
        }
      }),
    );
  });
});

/** JSON values as a provider would send them (no -0: JSON cannot tell it from 0). */
const jsonLineValue = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as JsonValue);

describe("NDJSON parser properties", () => {
  it("any chunking of a valid stream yields the encoded values", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(jsonLineValue, { maxLength: 10 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        cutsFor(4000),
        async (values, crlf, blankLines, finalNewline, cuts) => {
          const nl = crlf ? "\r\n" : "\n";
          let text = values.map((v) => JSON.stringify(v)).join(blankLines ? `${nl}${nl}` : nl);
          if (finalNewline && values.length > 0) text += nl;
          const bytes = new TextEncoder().encode(text);
          const got: JsonValue[] = [];
          for await (const value of readNdjson(chunked(bytes, cuts))) got.push(value);
          expect(got).toEqual(values);
        },
      ),
    );
  });

  it("the values do not depend on where the chunks were cut", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(jsonLineValue, { maxLength: 10 }), cutsFor(4000), async (values, cuts) => {
        const bytes = new TextEncoder().encode(values.map((v) => `${JSON.stringify(v)}\n`).join(""));
        const got: JsonValue[] = [];
        for await (const value of readNdjson(chunked(bytes, cuts))) got.push(value);
        expect(got).toEqual(values);
      }),
    );
  });

  it("random bytes only ever end in values or a typed ProviderError", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2000 }), cutsFor(2000), async (bytes, cuts) => {
        try {
          for await (const _ of readNdjson(chunked(bytes, cuts))) {
            // drain
          }
        } catch (error) {
          expect(ProviderError.isProviderError(error), String(error)).toBe(true);
        }
      }),
    );
  });
});

/** Bytes that look like a provider stream: fragments of real frames mixed with garbage. */
const streamish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "data: ",
        "data: [DONE]\n\n",
        '{"choices":[{"index":0,"delta":{"content":"hi"}}]}',
        '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\\"a\\""}}]}}]}',
        '{"choices":[{"index":0,"finish_reason":"stop"}]}',
        '{"error":{"message":"boom","type":"server_error"}}',
        '{"type":"message_start","message":{"id":"m","usage":{"input_tokens":1}}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}',
        '{"type":"message_stop"}',
        '{"message":{"role":"assistant","content":"x"},"done":false}',
        '{"done":true,"done_reason":"stop"}',
        "event: error\n",
        "\n",
        "\n\n",
        "\r\n",
        "}",
        "{",
      ),
      fc.string({ maxLength: 20 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(""));

const contentTypes = ["text/event-stream", "application/json", "application/x-ndjson", "text/plain"] as const;

function fakeFetch(body: string, contentType: string, status: number, cuts: readonly number[]): FetchLike {
  return async () =>
    new Response(chunked(new TextEncoder().encode(body), cuts), {
      status,
      headers: { "content-type": contentType },
    });
}

const adapters = {
  openai: (fetch: FetchLike) =>
    new OpenAiChatModel({ model: "m", baseUrl: "http://fake/v1", apiKey: "k-123456", fetch }),
  anthropic: (fetch: FetchLike) =>
    new AnthropicModel({ model: "m", baseUrl: "http://fake", apiKey: "k-123456", fetch }),
  ollama: (fetch: FetchLike) => new OllamaModel({ model: "m", baseUrl: "http://fake", fetch }),
};

describe("provider adapters fed garbage", () => {
  it.each(Object.keys(adapters) as (keyof typeof adapters)[])(
    "%s: invoke and stream only ever fail with a typed ProviderError",
    async (name) => {
      await fc.assert(
        fc.asyncProperty(
          streamish,
          fc.constantFrom(...contentTypes),
          fc.constantFrom(200, 200, 200, 400, 429, 500),
          cutsFor(600),
          fc.boolean(),
          async (body, contentType, status, cuts, streaming) => {
            const model = adapters[name](fakeFetch(body, contentType, status, cuts));
            const request = { messages: [user("hi")] };
            try {
              if (streaming) await collectStream(model.stream?.(request) ?? []);
              else await model.invoke(request);
            } catch (error) {
              expect(
                ProviderError.isProviderError(error),
                `${String(error)}\n${(error as Error).stack}`,
              ).toBe(true);
            }
          },
        ),
      );
    },
  );
});
