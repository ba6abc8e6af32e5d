import { assistant, type Message, system, text, toolResult, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { LlmSummarizer } from "./llm-summarizer.js";
import { findOrphans } from "./message-units.js";
import {
  planSummarization,
  shouldSummarize,
  summarizationPolicy,
  summarizationPolicyFromProfile,
  triggerBudget,
} from "./summarization-policy.js";
import { ConcatSummarizer } from "./summarizer.js";
import { trimMessages } from "./trim-messages.js";

const call = (id: string) => ({ id, name: "t", arguments: { id } });
const transcript: Message[] = [
  system("sys"),
  user("u1"),
  assistant("", [call("a"), call("b")]),
  toolResult(call("a"), "ra"),
  toolResult(call("b"), "rb"),
  assistant("a1"),
  user("u2"),
  assistant("", [call("c")]),
  toolResult(call("c"), "rc"),
  assistant("a2"),
];
const labels = (messages: Message[]) =>
  messages.map((m) => {
    if (m.role === "tool") return `tool:${m.toolCallId}`;
    if (m.role === "assistant" && m.toolCalls.length > 0)
      return `assistant:${m.toolCalls.map((c) => c.id).join("+")}`;
    return `${m.role}:${text(m)}`;
  });

describe("trimMessages", () => {
  it("keepLast keeps system messages and never splits a tool call from its results", () => {
    expect(labels(trimMessages(transcript, { kind: "keepLast", count: 3 }))).toEqual([
      "system:sys",
      "assistant:c",
      "tool:c",
      "assistant:a2",
    ]);
    // The tool group (3 messages) does not fit in 2: it is dropped whole, with everything before it.
    expect(labels(trimMessages(transcript, { kind: "keepLast", count: 2 }))).toEqual([
      "system:sys",
      "assistant:a2",
    ]);
    expect(labels(trimMessages(transcript, { kind: "keepLast", count: 0 }))).toEqual(["system:sys"]);
  });

  it("keepFirstAndLast keeps the opening and the recent turns", () => {
    expect(labels(trimMessages(transcript, { kind: "keepFirstAndLast", first: 1, last: 1 }))).toEqual([
      "system:sys",
      "user:u1",
      "assistant:a2",
    ]);
  });

  it("maxTokens fits the recent turns in the budget with the system messages; startOnUser opens on a user turn", () => {
    const kept = trimMessages(transcript, { kind: "maxTokens", maxTokens: 25 });
    expect(findOrphans(kept)).toEqual({ toolResults: [], toolCalls: [] });
    expect(kept[0]).toBe(transcript[0]);
    expect(labels(trimMessages(transcript, { kind: "keepLast", count: 5 }, { startOnUser: true }))).toEqual([
      "system:sys",
      "user:u2",
      "assistant:c",
      "tool:c",
      "assistant:a2",
    ]);
  });

  it("rejects bad strategies", () => {
    expect(() => trimMessages(transcript, { kind: "keepLast", count: -1 })).toThrow(/count/);
    expect(() => trimMessages(transcript, { kind: "nope" } as never)).toThrow(/unknown strategy/);
  });
});

describe("summarization policy and plan", () => {
  it("derives the trigger from the context window and validates", () => {
    const policy = summarizationPolicyFromProfile(
      {
        contextWindow: 1000,
        capabilities: {
          tools: true,
          parallelToolCalls: true,
          streaming: true,
          nativeStructuredOutput: true,
          vision: false,
          reasoning: false,
        },
      },
      { keepLast: 2 },
    );
    expect(triggerBudget(policy)).toBe(900);
    expect(triggerBudget(summarizationPolicy({ triggerTokens: 100, contextWindow: 1000 }))).toBe(100);
    expect(() => summarizationPolicy({})).toThrow(/triggerTokens, or contextWindow/);
    expect(() => summarizationPolicy({ triggerTokens: 10, thresholdFraction: 2 })).toThrow(
      /thresholdFraction/,
    );
    expect(shouldSummarize(transcript, summarizationPolicy({ triggerTokens: 10 }))).toBe(true);
    expect(shouldSummarize(transcript, summarizationPolicy({ triggerTokens: 10_000 }))).toBe(false);
  });

  it("plan keeps the system messages and at least keepLast messages, never splitting a tool pair", () => {
    const plan = planSummarization(transcript, summarizationPolicy({ triggerTokens: 1, keepLast: 2 }));
    // The last 2 would split [assistant c, tool c]: the boundary moves earlier.
    expect(plan.keep).toEqual([0, 7, 8, 9]);
    expect(plan.summarize).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe("summarizers", () => {
  it("ConcatSummarizer is deterministic, bounded, and rejects nothing to summarize", async () => {
    const summary = await new ConcatSummarizer({ maxChars: 80 }).summarize(transcript.slice(1, 5), {
      previousSummary: "earlier: hello",
    });
    expect(summary.startsWith("earlier: hello\nuser: u1\nassistant: -> t(")).toBe(true);
    expect(summary.length).toBeLessThanOrEqual(80);
    await expect(new ConcatSummarizer().summarize([])).rejects.toMatchObject({ code: "validation" });
  });

  it("LlmSummarizer asks a model with the conversation as text and returns its answer", async () => {
    const model = new ScriptedModel(["  The user asked u1; tools a and b ran.  ", ""]);
    const summarizer = new LlmSummarizer({ model });
    expect(await summarizer.summarize(transcript.slice(1, 5))).toBe("The user asked u1; tools a and b ran.");
    const prompt = model.requests[0]?.messages[1];
    expect(JSON.stringify(prompt)).toContain("tool t: ra");
    expect(model.requests[0]?.maxTokens).toBe(512);
    await expect(summarizer.summarize(transcript.slice(1, 2))).rejects.toMatchObject({
      code: "empty_response",
    });
    expect(() => new LlmSummarizer({ model: {} as never })).toThrow(/ChatModel or a function/);
  });
});
