/**
 * Serialization properties (fast-check, seeded globally): everything a run produces survives
 * `JSON.parse(JSON.stringify(x))` unchanged — messages, every event record, the status record,
 * the run itself, error summaries and paused-run records — for generated runs (random scripts of
 * text, tool calls, tool failures, unknown tools and provider errors; unary and streaming; some
 * paused midway and resumed FROM THE JSON COPY of their PausedRun).
 */
import type { Middleware, PausedRun } from "@tinyagents/harness";
import { validatePausedRun } from "@tinyagents/harness/durability";
import { lowerLayer } from "@tinyagents/harness/internal";
import { FakeTool, runScript, type ScriptStep } from "@tinyagents/harness/testkit";
import {
  type ContentBlock,
  type JsonObject,
  type JsonValue,
  type Message,
  ProviderError,
  validateMessages,
} from "@tinyagents/inference";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const roundTrip = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const expectRoundTrip = (value: unknown, what: string) => expect(roundTrip(value), what).toEqual(value);

/** JSON values as a run may carry them (-0 excluded: JSON has no -0, it reads back as 0). */
const json = fc.jsonValue({ maxDepth: 3 }).map((v) => roundTrip(v) as JsonValue);
const text = fc.string({
  maxLength: 40,
  unit: fc.constantFrom("a", "é", "😀", "\n", '"', "\\", "<", " ", "\u2028"),
});
const args = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), json, {
  maxKeys: 4,
}) as fc.Arbitrary<JsonObject>;

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  text.map((t) => ({ type: "text" as const, text: t })),
  json.map((value) => ({ type: "json" as const, value })),
  fc.webUrl().map((url) => ({
    type: "image" as const,
    source: { kind: "url" as const, url },
    detail: "low" as const,
  })),
  fc
    .tuple(text, fc.option(fc.string({ maxLength: 10 }), { nil: undefined }))
    .map(([t, signature]) =>
      signature === undefined
        ? { type: "reasoning" as const, text: t }
        : { type: "reasoning" as const, text: t, signature },
    ),
  fc.string({ maxLength: 10 }).map((data) => ({ type: "redacted_reasoning" as const, data })),
);

const message: fc.Arbitrary<Message> = fc.oneof(
  fc.array(block, { maxLength: 3 }).map((content) => ({ role: "user" as const, content })),
  fc.array(block, { maxLength: 3 }).map((content) => ({ role: "system" as const, content })),
  fc
    .tuple(
      fc.array(block, { maxLength: 3 }),
      fc.array(
        fc.record({
          id: fc.stringMatching(/^c[0-9]{1,3}$/),
          name: fc.stringMatching(/^[a-z_]{1,8}$/),
          arguments: args,
        }),
        {
          maxLength: 2,
        },
      ),
    )
    .map(([content, toolCalls]) => ({ role: "assistant" as const, content, toolCalls })),
  fc.tuple(fc.array(block, { maxLength: 2 }), fc.boolean()).map(([content, isError]) => ({
    role: "tool" as const,
    toolCallId: "c1",
    toolName: "echo",
    content,
    isError,
  })),
);

describe("serialization properties", () => {
  it("every message round-trips through JSON and still validates", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), (messages) => {
        expect(() => validateMessages(messages, "messages")).not.toThrow();
        expectRoundTrip(messages, "messages");
        expect(() => validateMessages(roundTrip(messages), "messages")).not.toThrow();
      }),
    );
  });

  /** A model turn of a generated script. */
  const step = fc.oneof(
    { weight: 2, arbitrary: text.map((t) => ({ kind: "text" as const, text: t })) },
    {
      weight: 3,
      arbitrary: fc
        .array(fc.record({ name: fc.constantFrom("echo", "fail", "missing_tool"), arguments: args }), {
          minLength: 1,
          maxLength: 3,
        })
        .map((calls) => ({ kind: "tools" as const, calls })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("upstream_unhealthy", "non_retryable")
        .map((kind) => ({ kind: "error" as const, error: kind })),
    },
  );

  type Step =
    | { kind: "text"; text: string }
    | { kind: "tools"; calls: { name: string; arguments: JsonObject }[] }
    | { kind: "error"; error: string };

  const toScript = (steps: readonly Step[]): ScriptStep[] =>
    steps.map((s): ScriptStep => {
      if (s.kind === "text") return s.text;
      if (s.kind === "tools") return { toolCalls: s.calls };
      const kind = s.error === "non_retryable" ? "non_retryable" : "upstream_unhealthy";
      return new ProviderError({ provider: "scripted", kind, message: `scripted ${s.error}` });
    });

  it("events, status, run, errors and paused runs of generated runs round-trip; a paused run resumes from its JSON copy", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 5 }),
        text,
        fc.boolean(),
        fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
        async (steps, finalText, streaming, pauseAt) => {
          let modelCalls = 0;
          const pauser: Middleware<undefined, undefined> = {
            name: "pauser",
            afterModel: (ctx) => {
              if (++modelCalls === pauseAt)
                ctx.run.requestControl({ kind: "interrupt", reason: "property pause" });
            },
          };
          const result = await runScript({
            script: [...toScript(steps), finalText, finalText, finalText],
            tools: [
              FakeTool.of("echo", (a) => ({ echoed: a, note: "é😀\u2028" })),
              FakeTool.failing("fail", "tool failed on purpose"),
            ],
            middleware: [pauser],
            streaming,
            policy: { retry: { maxRetries: 1, initialBackoffMs: 5 } },
          });
          for (const record of result.events.records) expectRoundTrip(record, `event ${record.event.type}`);
          expectRoundTrip(result.status, "status");
          expectRoundTrip(result.run, "run");
          expect(() => validateMessages(result.run.messages, "run.messages")).not.toThrow();
          if (result.error !== undefined) {
            expectRoundTrip(result.error.toJSON(), "error summary");
            expect(result.status.error).toEqual(result.error.toJSON());
          }
          const paused: PausedRun | undefined = result.run.paused;
          if (paused === undefined) return;
          expectRoundTrip(paused, "paused run");
          const copy = validatePausedRun(roundTrip(paused));
          const resumed = await lowerLayer(result.harness).resumeCollectingPartial(
            undefined,
            undefined,
            copy,
          );
          expectRoundTrip(resumed.run, "resumed run");
          expectRoundTrip(resumed.status, "resumed status");
          // The resumed transcript continues the paused one exactly.
          expect(resumed.run.messages.slice(0, paused.messages.length)).toEqual(paused.messages);
        },
      ),
      { numRuns: Math.min(fc.readConfigureGlobal().numRuns ?? 100, 60) },
    );
  });
});
