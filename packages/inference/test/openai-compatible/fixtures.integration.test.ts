import { describe, expect, it } from "vitest";
import { ProviderError } from "../../src/errors/provider-error.js";
import { accumulate } from "../../src/http/test-streams.fixture.js";
import type { ModelStreamItem } from "../../src/model/stream-item.js";
import type { Fixture } from "../replay/fixtures.js";
import { replayOf } from "../replay/fixtures.js";
import type { Chunking } from "../replay/replay-server.js";
import { useReplayServer } from "../support/replay.js";
import { type CorpusExpect, corpus, modelFor, requestFor, summarize, TEST_KEY } from "./corpus.js";

const all = corpus();
const answers = all.filter(([, f]) => f.expect.error === undefined);
const failures = all.filter(([, f]) => f.expect.error !== undefined);
const CHUNKINGS: Chunking[] = ["whole", "frames", "awkward", { every: 7 }];

const server = useReplayServer({ resetBeforeEach: false });

async function streamItems(fixture: Fixture<CorpusExpect>, chunking: Chunking): Promise<ModelStreamItem[]> {
  server.reset();
  server.enqueue(replayOf(fixture.dir, fixture.stream!, { chunking }));
  const items: ModelStreamItem[] = [];
  for await (const item of modelFor(fixture, server.url).stream(requestFor(fixture))) items.push(item);
  return items;
}

function checkExpected(fixture: Fixture<CorpusExpect>, summary: ReturnType<typeof summarize>): void {
  const e = fixture.expect;
  if (e.text !== undefined) expect(summary.text).toBe(e.text);
  if (e.json !== undefined) expect(JSON.parse(summary.text ?? "")).toEqual(e.json);
  if (e.reasoning !== undefined) expect(summary.reasoning).toBe(e.reasoning);
  if (e.toolCalls !== undefined) {
    expect(summary.toolCalls).toEqual(
      e.toolCalls.map((call) => ({
        ...call,
        id: e.generatedIds ? "" : call.id,
        invalid: call.invalid ?? false,
      })),
    );
  }
  if (e.finishReason !== undefined) expect(summary.finishReason).toBe(e.finishReason);
  if (e.usage !== undefined) expect(summary.usage).toEqual(e.usage);
}

// Only the cases a fixture has answers for are defined (a stream-only fixture has no unary case).
describe.each(answers)("%s", (_label, fixture) => {
  if (fixture.stream !== undefined)
    it.each(CHUNKINGS)("streams (chunking %j) to the expected answer", async (chunking) => {
      const items = await streamItems(fixture, chunking);
      expect(items[0]?.type).toBe("start");
      expect(items.at(-1)?.type).toBe("finish");
      expect(items.some((item) => item.type === "text_delta" && item.text === "")).toBe(false);
      const response = accumulate(items);
      checkExpected(fixture, summarize(response, !fixture.expect.generatedIds));
      if (fixture.expect.id !== undefined) expect(response.message.id).toBe(fixture.expect.id);
      const sent = server.lastRequest;
      expect(sent.path).toBe("/v1/chat/completions");
      expect(sent.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
      expect(sent.headers.accept).toBe("text/event-stream");
      const body = sent.json() as Record<string, unknown>;
      expect(body.stream).toBe(true);
      expect(body.model).toBe(fixture.model);
    });

  if (fixture.unary !== undefined)
    it("parses the unary answer to the expected answer", async () => {
      server.reset();
      server.enqueue(replayOf(fixture.dir, fixture.unary!));
      const response = await modelFor(fixture, server.url).invoke(requestFor(fixture));
      checkExpected(fixture, summarize(response, !fixture.expect.generatedIds));
      const body = server.lastRequest.json() as Record<string, unknown>;
      if (fixture.expect.sent !== undefined) expect(body).toMatchObject(fixture.expect.sent);
      expect(body.stream).toBeUndefined();
      expect(body.stream_options).toBeUndefined();
    });

  if (fixture.stream !== undefined && fixture.unary !== undefined)
    it("streaming and unary parsing agree (text, reasoning, tool calls, usage, finish)", async () => {
      const streamed = summarize(accumulate(await streamItems(fixture, "awkward")), false);
      server.reset();
      server.enqueue(replayOf(fixture.dir, fixture.unary!));
      const unary = summarize(await modelFor(fixture, server.url).invoke(requestFor(fixture)), false);
      expect(streamed).toEqual(unary);
    });

  if (fixture.stream !== undefined)
    it("answers a streaming request with the unary body (non-SSE reply)", async () => {
      if (fixture.unary === undefined) return;
      server.reset();
      server.enqueue(replayOf(fixture.dir, fixture.unary));
      const items: ModelStreamItem[] = [];
      for await (const item of modelFor(fixture, server.url).stream(requestFor(fixture))) items.push(item);
      checkExpected(fixture, summarize(accumulate(items), !fixture.expect.generatedIds));
    });
});

describe.each(failures)("%s", (_label, fixture) => {
  const e = fixture.expect.error!;
  const check = (error: unknown): void => {
    expect(ProviderError.isProviderError(error)).toBe(true);
    const pe = error as ProviderError;
    if (e.status !== undefined) expect(pe.status).toBe(e.status);
    if (e.providerCode !== undefined) expect(pe.providerCode).toBe(e.providerCode);
    if (e.kind !== undefined) expect(pe.kind).toBe(e.kind);
    if (e.code !== undefined) expect(pe.code).toBe(e.code);
    if (e.retryable !== undefined) expect(pe.retryable).toBe(e.retryable);
    if (e.retryAfterMs !== undefined) expect(pe.retryAfterMs).toBe(e.retryAfterMs);
    if (e.messageIncludes !== undefined) expect(pe.message).toContain(e.messageIncludes);
    expect(JSON.stringify([pe.message, pe.rawBody, pe.details])).not.toContain(TEST_KEY);
  };

  if (fixture.stream !== undefined)
    it("streaming: the failure surfaces as a ProviderError", async () => {
      let items: ModelStreamItem[] = [];
      let thrown: unknown;
      try {
        items = await streamItems(fixture, "awkward");
      } catch (error) {
        thrown = error;
      }
      if (thrown === undefined) {
        expect(items.at(-1)?.type).toBe("error");
        const text = items.flatMap((item) => (item.type === "text_delta" ? [item.text] : [])).join("");
        if (fixture.expect.partialText !== undefined) expect(text).toBe(fixture.expect.partialText);
        thrown = (() => {
          try {
            accumulate(items);
          } catch (error) {
            return error;
          }
          return undefined;
        })();
      }
      check(thrown);
    });

  if (fixture.unary !== undefined || fixture.stream !== undefined)
    it("unary: invoke throws the same ProviderError", async () => {
      server.reset();
      server.enqueue(replayOf(fixture.dir, (fixture.unary ?? fixture.stream)!));
      check(
        await modelFor(fixture, server.url)
          .invoke(requestFor(fixture))
          .catch((error: unknown) => error),
      );
    });
});
