/**
 * Property tests (fast-check, random well-formed transcripts): trimming and summarization never
 * produce an orphan tool message or an unanswered tool call, keep every system message, keep
 * order, and their provenance lists exactly the removed message ids.
 */
import { AgentHarness, type HookContext } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import {
  contextCompressionMiddleware,
  findOrphans,
  messageId,
  messageTrimMiddleware,
  planSummarization,
  summarizationPolicy,
  type TrimStrategy,
  trimMessages,
} from "@tinyagents/harness/summarization";
import { assistant, type Message, type ModelRequest, system, toolResult, user } from "@tinyagents/inference";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

let ids = 0;
const text = fc.string({ minLength: 0, maxLength: 40 });
const turn: fc.Arbitrary<Message[]> = fc.oneof(
  { weight: 3, arbitrary: text.map((t) => [user(t)]) },
  { weight: 3, arbitrary: text.map((t) => [assistant(t)]) },
  { weight: 1, arbitrary: text.map((t) => [system(t)]) },
  {
    weight: 3,
    arbitrary: fc.tuple(text, fc.array(text, { minLength: 1, maxLength: 3 })).map(([t, results]) => {
      const calls = results.map((_, i) => ({ id: `c${++ids}-${i}`, name: "tool", arguments: { i } }));
      return [assistant(t, calls), ...calls.map((c, i) => toolResult(c, results[i] as string))];
    }),
  },
);
const transcript = fc.array(turn, { minLength: 0, maxLength: 25 }).map((turns) => turns.flat());
const strategy: fc.Arbitrary<TrimStrategy> = fc.oneof(
  fc.nat({ max: 30 }).map((count) => ({ kind: "keepLast" as const, count })),
  fc
    .tuple(fc.nat({ max: 10 }), fc.nat({ max: 10 }))
    .map(([first, last]) => ({ kind: "keepFirstAndLast" as const, first, last })),
  fc.nat({ max: 400 }).map((maxTokens) => ({ kind: "maxTokens" as const, maxTokens })),
);

const noOrphans = (messages: Message[]) =>
  expect(findOrphans(messages)).toEqual({ toolResults: [], toolCalls: [] });
const isSubsequence = (sub: Message[], of: Message[]) => {
  let i = 0;
  for (const m of of) if (m === sub[i]) i++;
  return i === sub.length;
};

function hookContext(): HookContext<undefined, undefined> {
  const harness = new AgentHarness();
  return { state: undefined, run: lowerLayer(harness).createContext({}, undefined), callId: "c" };
}

/** A loop-shaped request over `history` (system prompt, history segment, volatile tail). */
function requestOver(history: Message[]): ModelRequest {
  return {
    messages: [system("instructions"), ...history, system("volatile")],
    cacheSegments: [
      { id: "system", role: "system", cacheable: true, messageCount: 1 },
      { id: "history", role: "history", cacheable: true, messageCount: history.length },
      { id: "volatile", role: "volatile", cacheable: false, messageCount: 1 },
    ],
  };
}

/** Ids (positions in `request.messages`) of the history messages `after` no longer holds. */
function removedIds(request: ModelRequest, after: ModelRequest, systemToo: boolean): string[] {
  const kept = new Set(after.messages);
  return request.messages.flatMap((m, i) =>
    i === 0 || i === request.messages.length - 1 || kept.has(m) || (!systemToo && m.role === "system")
      ? []
      : [messageId(m, i)],
  );
}

describe("trimming and summarization properties", () => {
  it("trimMessages: no orphans, every system message kept, order kept", () => {
    fc.assert(
      fc.property(transcript, strategy, (messages, s) => {
        noOrphans(messages);
        const trimmed = trimMessages(messages, s);
        noOrphans(trimmed);
        expect(isSubsequence(trimmed, messages)).toBe(true);
        for (const m of messages) if (m.role === "system") expect(trimmed).toContain(m);
        if (s.kind === "keepLast")
          expect(trimmed.filter((m) => m.role !== "system").length).toBeLessThanOrEqual(s.count);
      }),
      { numRuns: 300 },
    );
  });

  it("planSummarization: a partition that splits no tool pair and keeps system messages", () => {
    fc.assert(
      fc.property(transcript, fc.nat({ max: 12 }), (messages, keepLast) => {
        const plan = planSummarization(messages, summarizationPolicy({ triggerTokens: 1, keepLast }));
        expect([...plan.keep, ...plan.summarize].sort((a, b) => a - b)).toEqual(messages.map((_, i) => i));
        noOrphans(plan.keep.map((i) => messages[i] as Message));
        noOrphans(plan.summarize.map((i) => messages[i] as Message));
        for (const i of plan.summarize) expect(messages[i]?.role).not.toBe("system");
        const keptChat = plan.keep.filter((i) => messages[i]?.role !== "system").length;
        const chat = messages.filter((m) => m.role !== "system").length;
        expect(keptChat).toBeGreaterThanOrEqual(Math.min(keepLast, chat));
      }),
      { numRuns: 300 },
    );
  });

  it("messageTrimMiddleware: provenance lists exactly the removed ids; the layout stays truthful", async () => {
    await fc.assert(
      fc.asyncProperty(transcript, strategy, async (history, s) => {
        const middleware = messageTrimMiddleware(s);
        const request = requestOver(history);
        const after = (await middleware.beforeModel?.(hookContext(), request)) ?? request;
        noOrphans(after.messages);
        const records = middleware.log.records();
        const removed = removedIds(request, after, true);
        if (removed.length === 0) expect(records).toEqual([]);
        else expect(records[0]?.provenance.sourceIds).toEqual(removed);
        const counted = after.cacheSegments?.reduce((n, seg) => n + seg.messageCount, 0);
        expect(counted).toBe(after.messages.length);
      }),
      { numRuns: 200 },
    );
  });

  it("contextCompressionMiddleware: no orphans, and provenance lists exactly the summarized ids", async () => {
    await fc.assert(
      fc.asyncProperty(transcript, fc.nat({ max: 6 }), async (history, keepLast) => {
        const middleware = contextCompressionMiddleware({ triggerTokens: 20, keepLast });
        const request = requestOver(history);
        const after = (await middleware.beforeModel?.(hookContext(), request)) ?? request;
        const records = middleware.log.records();
        // The summary is a new system message; everything else kept is original.
        const originals = after.messages.filter((m) => request.messages.includes(m));
        noOrphans(originals);
        noOrphans(after.messages);
        const removed = removedIds(request, after, false);
        if (records.length === 0) expect(removed).toEqual([]);
        else {
          expect(records[0]?.provenance.kind).toBe("summary");
          expect(records[0]?.provenance.sourceIds).toEqual(removed);
        }
      }),
      { numRuns: 200 },
    );
  });
});
