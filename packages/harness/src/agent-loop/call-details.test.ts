import { describe, expect, it, vi } from "vitest";
import type { AgentEventOf, EventRecord } from "../contracts/agent-event.js";
import type { CallDetailsRecorder } from "../contracts/trace-details.js";
import { EventSink } from "../events/event-sink.js";
import { CALL_DETAILS, type CarriesCallDetails } from "../middleware/call-details-key.js";
import type { Middleware } from "../middleware/middleware.js";
import { traceDetailsMiddleware } from "../observability/trace-details-middleware.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { createAgent } from "../runtime/create-agent.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { StreamingMock } from "../testkit/streaming-mock.js";
import { tool } from "../tool/define-tool.js";

// How the loop finds and uses the run's trace details recorder (`traceDetailsMiddleware`): from
// another copy of the package, with several registrations, when the recorder throws, and on a
// streamed call.

/** A run where the model calls `lookup` (sync or async), then answers; its records and model. */
async function run(middleware: Middleware[], options: { asyncTool?: boolean } = {}) {
  const clock = new DeterministicClock();
  const model = new ScriptedModel([
    { toolCalls: [{ name: "lookup", id: "t1", arguments: {} }] },
    "the answer",
  ]);
  const harness = new AgentHarness<undefined, undefined>({ clock, ids: new DeterministicIds() })
    .registerModel("m", model)
    .registerTool(
      tool({
        name: "lookup",
        description: "Looks it up",
        inputSchema: { type: "object" },
        execute: options.asyncTool === true ? async () => "LOOKED-UP" : () => "LOOKED-UP",
      }),
    );
  for (const m of middleware) harness.use(m);
  const sink = new EventSink("run-d", { now: () => clock.now() });
  const records: EventRecord[] = [];
  sink.subscribe((record) => records.push(record));
  const outcome = await lowerLayer(harness).invokeCollectingPartial(
    undefined,
    undefined,
    { runId: "run-d" },
    "the prompt",
    { events: sink },
  );
  return { records, model, error: outcome.error };
}

const typesOf = (records: EventRecord[]) => records.map((r) => r.event.type);
const withDetails = (records: EventRecord[]) =>
  records.filter((r) => "details" in r.event && r.event.details !== undefined).map((r) => r.event.type);

describe("the trace details recorder of another copy of the package", () => {
  it("is found by this copy's loop (the key is a registered symbol)", async () => {
    // A second instance of the middleware's module graph: what a second copy of the package is.
    vi.resetModules();
    const other = (await import(
      "../observability/trace-details-middleware.js"
    )) as typeof import("../observability/trace-details-middleware.js");
    const otherKey = (await import(
      "../middleware/call-details-key.js"
    )) as typeof import("../middleware/call-details-key.js");
    expect(other.traceDetailsMiddleware).not.toBe(traceDetailsMiddleware);
    expect(otherKey.CALL_DETAILS).toBe(CALL_DETAILS);
    const { records, error } = await run([other.traceDetailsMiddleware({ captureContent: true })]);
    expect(error).toBeUndefined();
    expect(withDetails(records)).toEqual([
      "model.started",
      "model.completed",
      "tool.completed",
      "model.started",
      "model.completed",
    ]);
    expect(JSON.stringify(records)).toContain("LOOKED-UP");
  });
});

describe("several traceDetailsMiddleware on one harness", () => {
  it("record content if any of them asks, whichever is innermost", async () => {
    for (const order of [
      [true, false],
      [false, true],
    ]) {
      const { records } = await run(
        order.map((captureContent) => traceDetailsMiddleware({ captureContent })),
      );
      const started = records.find((r) => r.event.type === "model.started")?.event as
        | AgentEventOf<"model.started">
        | undefined;
      expect(started?.details?.inputMessages).toBeDefined();
      expect(JSON.stringify(started?.details)).toContain("the prompt");
      const completed = records.find((r) => r.event.type === "tool.completed")?.event as
        | AgentEventOf<"tool.completed">
        | undefined;
      expect(completed?.details).toEqual({ description: "Looks it up", result: "LOOKED-UP" });
    }
  });

  it("are found on a copy made by spreading the middleware (the symbol-keyed recorder is copied)", async () => {
    const copy: Middleware = { ...traceDetailsMiddleware({ captureContent: true }), name: "renamed" };
    const { records } = await run([copy]);
    expect(withDetails(records)).toHaveLength(5);
  });

  it("record no content when none asks", async () => {
    const { records } = await run([traceDetailsMiddleware(), traceDetailsMiddleware()]);
    expect(withDetails(records)).toHaveLength(5);
    expect(JSON.stringify(records)).not.toContain("the prompt");
  });
});

type RecorderMethod = "request" | "response" | "toolResult";

/** A middleware whose recorder throws from `method` (a request it cannot hash, ...). */
function throwingRecorder(method: RecorderMethod): Middleware {
  const real = traceDetailsMiddleware() as Middleware & CarriesCallDetails;
  const recorder = Object.create(real[CALL_DETAILS] as CallDetailsRecorder) as CallDetailsRecorder;
  recorder[method] = (): never => {
    throw new Error("cannot serialize a BigInt");
  };
  const middleware: Middleware & CarriesCallDetails = { name: "brokenDetails" };
  middleware[CALL_DETAILS] = recorder;
  return middleware;
}

describe("a trace details recorder that throws", () => {
  it("never fails, retries or changes a call: its records go out without details", async () => {
    const plain = await run([]);
    const others: Record<RecorderMethod, string[]> = {
      request: ["model.completed", "tool.completed", "model.completed"],
      response: ["model.started", "tool.completed", "model.started"],
      toolResult: ["model.started", "model.completed", "model.started", "model.completed"],
    };
    for (const [method, described] of Object.entries(others) as [RecorderMethod, string[]][])
      for (const asyncTool of [false, true]) {
        const { records, model, error } = await run([throwingRecorder(method)], { asyncTool });
        expect(error).toBeUndefined();
        // The same records as without trace details (no model.failed, no retry, no tool.failed).
        expect(typesOf(records)).toEqual(typesOf(plain.records));
        // Only the failing method's records lack their details.
        expect(withDetails(records)).toEqual(described);
        expect(model.callCount).toBe(2);
        // The model saw the tool's real result, not an error result.
        const toolMessage = model.requests[1]?.messages.find((m) => m.role === "tool");
        expect(JSON.stringify(toolMessage)).toContain("LOOKED-UP");
        expect(JSON.stringify(toolMessage)).not.toContain("BigInt");
        const completed = records.find((r) => r.event.type === "tool.completed")?.event;
        expect(completed).toMatchObject({ isError: false });
      }
  });
});

describe("trace details of a streamed model call", () => {
  it("carry the request on model.started and the assembled answer and response id on model.completed", async () => {
    const agent = createAgent({
      model: new StreamingMock([
        [
          { type: "start", id: "msg-7" },
          { type: "text_delta", text: "Hello, " },
          { type: "text_delta", text: "world." },
          { type: "finish", finishReason: "stop" },
        ],
      ]),
      middleware: [traceDetailsMiddleware({ captureContent: true })],
      clock: new DeterministicClock(),
      ids: new DeterministicIds(),
    });
    const records: EventRecord[] = [];
    const streamed = agent.stream("say hello", { onEvent: (record) => records.push(record) });
    for await (const _item of streamed) {
      // Consume the stream: the answer arrives in deltas.
    }
    await streamed.result;
    expect(records.filter((r) => r.event.type === "model.text_delta")).toHaveLength(2);
    const started = records.find((r) => r.event.type === "model.started")
      ?.event as AgentEventOf<"model.started">;
    expect(JSON.stringify(started.details?.inputMessages)).toContain("say hello");
    const completed = records.find((r) => r.event.type === "model.completed")
      ?.event as AgentEventOf<"model.completed">;
    expect(completed.details).toEqual({
      responseId: "msg-7",
      outputMessages: [
        { role: "assistant", parts: [{ type: "text", content: "Hello, world." }], finish_reason: "stop" },
      ],
    });
  });
});
