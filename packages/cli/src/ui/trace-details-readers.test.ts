import {
  type AgentEvent,
  type AgentObservation,
  createAgent,
  type EventRecord,
  tool,
} from "@tinyagents/harness";
import { toolRetryMiddleware } from "@tinyagents/harness/middleware";
import { traceDetailsMiddleware } from "@tinyagents/harness/observability";
import { DeterministicClock, DeterministicIds, ScriptedModel } from "@tinyagents/harness/testkit";
import { describe, expect, it } from "vitest";
import { withoutContent } from "../core/content-capture.js";
import { cacheView } from "./cost-breakdown.js";
import { buildTranscript } from "./transcript.js";

// One run as the inspector reads it, journaled with trace details and content capture, written
// out by hand twice: as this version journals it (details on `model.started`, `model.completed`
// and `tool.completed`) and as earlier versions did (separate `model.request`, `model.response`
// and `tool.result` records). The transcript and the prompt-cache view must be the same.

const observations = (events: AgentEvent[]): AgentObservation[] =>
  events.map((event, offset) => ({
    id: `run-1-evt-${offset}`,
    offset,
    ts: 1000 + offset,
    runId: "run-1",
    rootRunId: "run-1",
    depth: 0,
    event,
  }));

const usage = {
  inputTokens: 10,
  outputTokens: 5,
  totalTokens: 15,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};
const started = (callId: string) =>
  ({ type: "model.started", callId, model: "m", provider: "p", providerModelId: "p-m", attempt: 1 }) as const;
const completed = (callId: string, toolCalls: number) =>
  ({
    type: "model.completed",
    callId,
    model: "m",
    durationMs: 3,
    usage,
    finishReason: toolCalls > 0 ? "tool_calls" : "stop",
    toolCalls,
    servedFromCache: false,
  }) as const;
const request = (text: string) => ({
  parameters: { tools: 1 },
  stablePrefix: `prefix-${text.length}`,
  systemInstructions: [{ type: "text", content: "Be brief." }],
  inputMessages: [{ role: "user", parts: [{ type: "text", content: text }] }],
});
const toolCallAnswer = [
  {
    role: "assistant",
    parts: [{ type: "tool_call", id: "t1", name: "clock", arguments: { zone: "Tokyo" } }],
    finish_reason: "tool_calls",
  },
];
const finalAnswer = [
  { role: "assistant", parts: [{ type: "text", content: "It is noon." }], finish_reason: "stop" },
];
const toolStarted = {
  type: "tool.started",
  callId: "t1",
  toolName: "clock",
  arguments: { zone: "Tokyo" },
} as const;
const toolCompleted = {
  type: "tool.completed",
  callId: "t1",
  toolName: "clock",
  durationMs: 1,
  isError: false,
  outputBytes: 5,
} as const;

const FOLDED = observations([
  { type: "run.started", input: 1 },
  { ...started("c1"), details: request("what time is it?") },
  { ...completed("c1", 1), details: { responseId: "r1", outputMessages: toolCallAnswer } },
  toolStarted,
  { ...toolCompleted, details: { description: "Tells the time", result: "12:00" } },
  { ...started("c2"), details: { ...request("what time is it?"), stablePrefix: "prefix-busted" } },
  { ...completed("c2", 0), details: { responseId: "r2", outputMessages: finalAnswer } },
]);

const EARLIER = observations([
  { type: "run.started", input: 1 },
  { type: "model.request", callId: "c1", ...request("what time is it?") },
  started("c1"),
  completed("c1", 1),
  {
    type: "model.response",
    callId: "c1",
    responseId: "r1",
    finishReason: "tool_calls",
    outputMessages: toolCallAnswer,
  },
  toolStarted,
  toolCompleted,
  {
    type: "tool.result",
    callId: "t1",
    toolName: "clock",
    isError: false,
    description: "Tells the time",
    result: "12:00",
  },
  { type: "model.request", callId: "c2", ...request("what time is it?"), stablePrefix: "prefix-busted" },
  started("c2"),
  completed("c2", 0),
  {
    type: "model.response",
    callId: "c2",
    responseId: "r2",
    finishReason: "stop",
    outputMessages: finalAnswer,
  },
]);

/** Entries without their journal offsets (the earlier journal has more records). */
const entries = (list: AgentObservation[]) =>
  buildTranscript(list, "what time is it?").entries.map(({ offset: _offset, ...entry }) => entry);

describe("the inspector's readers of trace details", () => {
  it("build the same transcript from folded details as from the separate records of earlier journals", () => {
    expect(entries(FOLDED)).toEqual(entries(EARLIER));
    expect(buildTranscript(FOLDED).contentCaptured).toBe(true);
    expect(entries(FOLDED)).toEqual([
      { kind: "message", runId: "run-1", depth: 0, role: "system", text: "Be brief." },
      { kind: "message", runId: "run-1", depth: 0, role: "user", text: "what time is it?" },
      expect.objectContaining({ kind: "tool_call", toolName: "clock", result: "12:00", status: "ok" }),
      { kind: "message", runId: "run-1", depth: 0, role: "assistant", text: "It is noon." },
    ]);
  });

  it("build the same prompt-cache view (fingerprints on model.started)", () => {
    const view = cacheView(FOLDED);
    expect(view).toEqual(cacheView(EARLIER));
    expect(view.map((call) => call.prefix)).toEqual(["first", "busted"]);
  });

  it("content-free journals keep the fingerprints and ids of folded details, not the content", () => {
    const stripped = FOLDED.map(withoutContent);
    const text = JSON.stringify(stripped);
    for (const content of ["what time is it?", "Be brief.", "12:00", "It is noon."]) {
      expect(text).not.toContain(content);
    }
    expect(text).toContain("prefix-busted");
    expect(text).toContain('"responseId":"r2"');
    expect(text).toContain("Tells the time");
    expect(cacheView(stripped)).toEqual(cacheView(FOLDED));
  });
});

/** A run whose tool throws once and is retried by `toolRetryMiddleware`, as the harness journals it. */
async function retriedToolRun(): Promise<EventRecord[]> {
  let calls = 0;
  const agent = createAgent({
    model: new ScriptedModel([{ toolCalls: [{ name: "lookup", id: "t1", arguments: {} }] }, "found it"]),
    tools: [
      tool({
        name: "lookup",
        description: "Looks it up",
        inputSchema: { type: "object" },
        idempotent: true,
        execute: () => {
          if (++calls === 1) throw new Error("boom");
          return "OK-RESULT";
        },
      }),
    ],
    middleware: [toolRetryMiddleware(), traceDetailsMiddleware({ captureContent: true })],
    clock: new DeterministicClock(),
    ids: new DeterministicIds(),
  });
  const records: EventRecord[] = [];
  await agent.run("look it up", { runId: "run-r", onEvent: (record) => records.push(record) });
  return records;
}

describe("the inspector's transcript of a tool call retried by a wrap", () => {
  it("shows the result the model saw (the retry's), not the failed attempt's", async () => {
    const records = await retriedToolRun();
    const call = buildTranscript(records).entries.find((entry) => entry.kind === "tool_call");
    expect(call).toMatchObject({ toolName: "lookup", result: "OK-RESULT" });
  });

  it("keeps neither attempt's result in a content-free journal", async () => {
    const text = JSON.stringify((await retriedToolRun()).map(withoutContent));
    expect(text).not.toContain("OK-RESULT");
    // Neither the first attempt's error result (on tool.failed) nor the retry's (tool.result).
    expect(text).not.toContain('"result"');
    expect(text).toContain("Looks it up");
  });
});
