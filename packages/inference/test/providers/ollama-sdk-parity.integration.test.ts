/**
 * The official `ollama` client (ollama-js 0.6) as an independent parser of the same fixture bytes:
 * every recorded `/api/chat` exchange is served over loopback to it and to our `OllamaModel`, and
 * both must read the same text, thinking, tool calls, done reason and token counts — or both fail.
 *
 * No `/api/embed` fixtures are recorded yet, so `embed` is not compared here.
 */
import { type ChatResponse, Ollama } from "ollama";
import { describe, expect, it, vi } from "vitest";
import {
  collectStream,
  type JsonValue,
  type ModelRequest,
  type ModelResponse,
  OllamaModel,
  ProviderError,
  user,
} from "../../src/index.js";
import { exchangeBody, type Fixture, replayOf } from "../replay/fixtures.js";
import { useReplayServer } from "../support/replay.js";
import { drain, factsOf, providerFixtures, streamedText } from "./parity.js";

interface Expect {
  text?: string;
  toolCalls?: JsonValue[];
  partialText?: string;
  error?: { status?: number; message?: string };
}

const { dir, fixtures, answers, httpErrors } = providerFixtures<Expect>("ollama");
const MODEL = "qwen3:8b";
const request: ModelRequest = { messages: [user("Hello")] };
const sdkParams = { model: MODEL, messages: [{ role: "user", content: "Hello" }] };

const server = useReplayServer();

function model(): OllamaModel {
  return new OllamaModel({ baseUrl: server.url, model: MODEL, env: {} });
}

// Node 20 has a global fetch, which ollama-js uses by default (its whatwg-fetch import only fills
// a missing one), so both clients read the bytes through the same platform fetch.
function sdk(): Ollama {
  return new Ollama({ host: server.url });
}

/** What ollama-js read: the message fields, assembled across lines when streamed, and the final line. */
interface SdkReading {
  text: string;
  thinking: string;
  /** `id` is on the wire but not in ollama-js's `ToolCall` type; it passes through untouched. */
  toolCalls: Array<{ id?: string; name: string; arguments: unknown }>;
  final: ChatResponse;
}

function sdkCalls(response: ChatResponse): SdkReading["toolCalls"] {
  return (response.message.tool_calls ?? []).map((call) => {
    const { id } = call as { id?: string };
    return {
      ...(id === undefined ? {} : { id }),
      name: call.function.name,
      arguments: call.function.arguments,
    };
  });
}

async function sdkUnary(): Promise<SdkReading> {
  const final = await sdk().chat({ ...sdkParams, stream: false });
  return {
    text: final.message.content,
    thinking: final.message.thinking ?? "",
    toolCalls: sdkCalls(final),
    final,
  };
}

async function sdkStream(): Promise<SdkReading> {
  const reading: Omit<SdkReading, "final"> = { text: "", thinking: "", toolCalls: [] };
  let final: ChatResponse | undefined;
  for await (const part of await sdk().chat({ ...sdkParams, stream: true })) {
    reading.text += part.message.content;
    reading.thinking += part.message.thinking ?? "";
    reading.toolCalls.push(...sdkCalls(part));
    if (part.done) final = part;
  }
  // ollama-js itself throws when the stream ends without a done line; this only narrows the type.
  if (final === undefined) throw new Error("unreachable: no done line");
  return { ...reading, final };
}

/** Our response and ollama-js's reading of the same bytes say the same thing. */
function agree(ours: ModelResponse, theirs: SdkReading): void {
  const facts = factsOf(ours);
  expect(theirs.final.done).toBe(true);
  expect(facts.text).toBe(theirs.text);
  expect(facts.reasoning.map((b) => (b.type === "reasoning" ? b.text : "")).join("")).toBe(theirs.thinking);
  expect(facts.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual(
    theirs.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args })),
  );
  // Ollama's own ids are kept; only calls that came without one get a synthesized id.
  theirs.toolCalls.forEach((call, i) => {
    if (call.id !== undefined) expect(facts.toolCalls[i]?.id).toBe(call.id);
  });
  // The native API says "stop" even when the model called tools; we report tool_calls then.
  expect(facts.finishReason).toBe(theirs.toolCalls.length > 0 ? "tool_calls" : theirs.final.done_reason);
  // Ollama omits zero counters: a missing prompt_eval_count (prompt served from the KV cache) is 0.
  const input = theirs.final.prompt_eval_count ?? 0;
  expect(facts.usage).toMatchObject({
    inputTokens: input,
    outputTokens: theirs.final.eval_count,
    totalTokens: input + theirs.final.eval_count,
  });
  const counters = [
    "prompt_eval_count",
    "eval_count",
    "total_duration",
    "load_duration",
    "prompt_eval_duration",
    "eval_duration",
  ] as const;
  expect(ours.usage?.raw).toEqual(
    Object.fromEntries(
      counters.flatMap((k) => (theirs.final[k] === undefined ? [] : [[k, theirs.final[k]]])),
    ),
  );
}

/** ollama-js's reading matches the fixture's own expectations, so agreeing on nothing cannot pass. */
function anchored(fixture: Fixture<Expect>, theirs: SdkReading): void {
  expect(theirs.text).toBe(fixture.expect.text);
  expect(theirs.toolCalls).toHaveLength(fixture.expect.toolCalls?.length ?? 0);
}

describe.each(answers)("ollama fixture $name read by ollama-js", (fixture) => {
  it("unary: chat({stream:false}) and invoke read the same answer, from the same request", async () => {
    server.enqueue(replayOf(dir, fixture.unary!), replayOf(dir, fixture.unary!));
    const theirs = await sdkUnary();
    const sdkSent = server.lastRequest;
    const ours = await model().invoke(request);
    anchored(fixture, theirs);
    agree(ours, theirs);
    // Both clients ask for the same thing, so the replayed answer fits both requests.
    expect(server.lastRequest.path).toBe(sdkSent.path);
    expect(server.lastRequest.json()).toEqual(sdkSent.json());
  });

  // "frames" is one line per write, as Ollama sends them; "awkward" cuts lines mid-JSON and
  // between the bytes of multi-byte characters.
  it.each(["frames", "awkward"] as const)(
    "stream (%s chunks): the chat({stream:true}) iterator and our stream assemble the same answer",
    async (chunking) => {
      server.enqueue(
        replayOf(dir, fixture.stream!, { chunking }),
        replayOf(dir, fixture.stream!, { chunking }),
      );
      const theirs = await sdkStream();
      const ours = await collectStream(model().stream(request), { provider: "ollama" });
      anchored(fixture, theirs);
      agree(ours, theirs);
    },
  );
});

describe.each(httpErrors)("ollama error fixture $name read by ollama-js", (fixture) => {
  const status = fixture.expect.error!.status!;
  const body = Buffer.from(exchangeBody(dir, fixture.unary!)).toString("utf8");
  const wireMessage = (JSON.parse(body) as { error: string }).error;

  /** ollama-js throws a ResponseError (not exported) carrying the status and the body's `error`. */
  const checkSdk = (error: unknown) => {
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "ResponseError", status_code: status, error: wireMessage });
  };
  const checkOurs = (error: unknown) => {
    expect(ProviderError.isProviderError(error)).toBe(true);
    expect((error as ProviderError).status).toBe(status);
    expect((error as ProviderError).message).toContain(wireMessage);
  };

  it("both clients fail with the same status and Ollama's message, unary and streamed", async () => {
    server.enqueue(
      replayOf(dir, fixture.unary!),
      replayOf(dir, fixture.stream!),
      replayOf(dir, fixture.unary!),
      replayOf(dir, fixture.stream!),
    );
    checkSdk(await sdkUnary().catch((e: unknown) => e));
    checkSdk(await sdkStream().catch((e: unknown) => e));
    checkOurs(
      await model()
        .invoke(request)
        .catch((e: unknown) => e),
    );
    checkOurs((await drain(model().stream(request))).error);
  });
});

describe("ollama stream failures read by ollama-js", () => {
  it("an {error} line inside a 200 stream: both see the same partial text, then that error", async () => {
    const fixture = fixtures.find((f) => f.name === "stream-error")!;
    server.enqueue(
      replayOf(dir, fixture.stream!, { chunking: "awkward" }),
      replayOf(dir, fixture.stream!, { chunking: "awkward" }),
    );
    let sdkText = "";
    const sdkError = await (async () => {
      for await (const part of await sdk().chat({ ...sdkParams, stream: true }))
        sdkText += part.message.content;
    })().catch((e: unknown) => e);
    expect(sdkError).toBeInstanceOf(Error);
    expect((sdkError as Error).message).toContain(fixture.expect.error?.message);
    expect(sdkText).toBe(fixture.expect.partialText);

    const { items, error } = await drain(model().stream(request));
    expect(error).toBeUndefined();
    expect(streamedText(items)).toBe(sdkText);
    const last = items.at(-1);
    expect(last?.type).toBe("error");
    expect(last?.type === "error" ? last.message : "").toContain((sdkError as Error).message);
  });

  it("a stream cut before its done line is an error for both, however it is cut", async () => {
    const fixture = fixtures.find((f) => f.name === "thinking-tools")!;
    const size = replayOf(dir, fixture.stream!).body!.length;
    // ollama-js warns about the half line it drops at a cut, then throws at the end of the body.
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      for (const cut of [0, 100, size - 30]) {
        for (const cutMode of ["end", "destroy"] as const) {
          const label = `cut ${cut} ${cutMode}`;
          server.enqueue(
            replayOf(dir, fixture.stream!, { cutAfterBytes: cut, cutMode }),
            replayOf(dir, fixture.stream!, { cutAfterBytes: cut, cutMode }),
          );
          const theirs = await sdkStream().catch((e: unknown) => e);
          expect(theirs, label).toBeInstanceOf(Error);
          expect((theirs as Error).message, label).not.toContain("unreachable");
          const ours = await collectStream(model().stream(request)).catch((e: unknown) => e);
          expect(ProviderError.isProviderError(ours), label).toBe(true);
        }
      }
      expect(warn).toHaveBeenCalledWith("invalid json: ", expect.any(String));
    } finally {
      warn.mockRestore();
    }
  });
});
