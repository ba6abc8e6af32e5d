/**
 * The official `openai` client (6.x) as an independent parser of the same fixture bytes: it is
 * run against the replay server and its assembled answer is compared with ours.
 */
import OpenAI, { type APIError } from "openai";
import { describe, expect, it } from "vitest";
import { StreamAccumulator } from "../../src/model/stream-accumulator.js";
import { replayOf } from "../replay/fixtures.js";
import { useReplayServer } from "../support/replay.js";
import { corpus, modelFor, requestFor, summarize, TEST_KEY } from "./corpus.js";

const all = corpus().filter(([, f]) => f.expect.sdk !== false);
const answers = all.filter(([, f]) => f.expect.error === undefined);
const failures = all.filter(([, f]) => f.expect.error !== undefined);

const server = useReplayServer({ resetBeforeEach: false });

function client(): OpenAI {
  return new OpenAI({ apiKey: TEST_KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
}

interface SdkMessage {
  content?: string | null;
  tool_calls?: Array<{ id: string; type: string; function?: { name: string; arguments: string } }>;
}

function sdkCalls(message: SdkMessage) {
  return (message.tool_calls ?? []).map((call) => ({
    id: call.id,
    name: call.function?.name ?? "",
    arguments: JSON.parse(call.function?.arguments || "{}") as unknown,
  }));
}

// Only the cases a fixture has answers for are defined (a stream-only fixture has no unary case).
describe.each(answers)("%s", (_label, fixture) => {
  const params = { model: fixture.model ?? "m", messages: [{ role: "user" as const, content: "hi" }] };

  if (fixture.stream !== undefined)
    it("stream: openai-node assembles the same text, tool calls and usage", async () => {
      server.reset();
      server.enqueue(replayOf(fixture.dir, fixture.stream!, { chunking: "awkward" }));
      const final = await client()
        .chat.completions.stream({ ...params, stream_options: { include_usage: true } })
        .finalChatCompletion();
      server.enqueue(replayOf(fixture.dir, fixture.stream!, { chunking: "awkward" }));
      const accumulator = new StreamAccumulator();
      for await (const item of modelFor(fixture, server.url).stream(requestFor(fixture)))
        accumulator.push(item);
      const ours = accumulator.finish();
      const summary = summarize(ours);
      const message = final.choices[0]?.message as SdkMessage;
      const sdkText = message.content ?? "";
      const expectedSdkText = (fixture.expect as { sdkText?: string }).sdkText ?? summary.text ?? "";
      expect(sdkText).toBe(expectedSdkText);
      expect(
        summary.toolCalls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
      ).toEqual(sdkCalls(message));
      expect(ours.usage?.raw ?? null).toEqual(final.usage ?? null);
    });

  if (fixture.unary !== undefined)
    it("unary: openai-node reads the same text, tool calls and usage", async () => {
      server.reset();
      server.enqueue(replayOf(fixture.dir, fixture.unary!));
      const completion = await client().chat.completions.create(params);
      server.enqueue(replayOf(fixture.dir, fixture.unary!));
      const ours = await modelFor(fixture, server.url).invoke(requestFor(fixture));
      const message = completion.choices[0]?.message as SdkMessage;
      const summary = summarize(ours);
      const expectedSdkText = (fixture.expect as { sdkText?: string }).sdkText ?? summary.text ?? "";
      expect(message.content ?? "").toBe(expectedSdkText);
      expect(
        summary.toolCalls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
      ).toEqual(sdkCalls(message));
      if (completion.usage !== undefined) expect(ours.usage?.raw).toEqual(completion.usage);
    });
});

describe.each(failures)("%s", (_label, fixture) => {
  const params = { model: fixture.model ?? "m", messages: [{ role: "user" as const, content: "hi" }] };
  const exchange = fixture.stream ?? fixture.unary!;

  it("openai-node fails too, with the same status and message", async () => {
    server.reset();
    server.enqueue(replayOf(fixture.dir, exchange));
    const sdkError = await (async () => {
      const stream = await client().chat.completions.create({ ...params, stream: true });
      for await (const _ of stream) {
        // drain
      }
    })().catch((error: unknown) => error as APIError);
    expect(sdkError).toBeInstanceOf(Error);
    server.enqueue(replayOf(fixture.dir, exchange));
    const ours = await modelFor(fixture, server.url)
      .invoke(requestFor(fixture))
      .then(
        () => undefined,
        (error: unknown) => error as Error & { status?: number },
      );
    expect(ours).toBeInstanceOf(Error);
    if (ours === undefined) return;
    const status = (sdkError as APIError).status;
    if (typeof status === "number") expect(ours.status).toBe(status);
    const sdkMessage = String((sdkError as Error).message);
    const core = sdkMessage
      .replace(/^\d{3} /, "")
      .replace(/^status code \(no body\)$/, "")
      .replace(/^"(.*)"$/, "$1");
    if (core !== "" && !core.startsWith("{")) expect(ours.message).toContain(core.slice(0, 40));
  });
});
