import { describe, expect, it } from "vitest";
import { isModelDeltaEvent, modelDeltaEvent } from "./model-delta-event.js";

describe("modelDeltaEvent", () => {
  it("gives each kind of streamed output its own event type, fields flat on the event", () => {
    expect(modelDeltaEvent("c1", { type: "text_delta", text: "Hi" })).toEqual({
      type: "model.text_delta",
      callId: "c1",
      text: "Hi",
    });
    expect(modelDeltaEvent("c1", { type: "reasoning_delta", text: "", signature: "sig" })).toEqual({
      type: "model.reasoning_delta",
      callId: "c1",
      text: "",
      signature: "sig",
    });
    expect(modelDeltaEvent("c1", { type: "redacted_reasoning", data: "opaque" })).toEqual({
      type: "model.redacted_reasoning",
      callId: "c1",
      data: "opaque",
    });
    expect(
      modelDeltaEvent("c1", {
        type: "tool_call_delta",
        index: 0,
        id: "t1",
        name: "search",
        argumentsDelta: '{"q"',
      }),
    ).toEqual({
      type: "model.tool_call_delta",
      callId: "c1",
      index: 0,
      id: "t1",
      name: "search",
      argumentsDelta: '{"q"',
    });
  });

  it("leaves absent optional fields off (events stay JSON-stable)", () => {
    const event = modelDeltaEvent("c1", { type: "tool_call_delta", index: 1, argumentsDelta: "}" });
    expect(Object.keys(event)).toEqual(["type", "callId", "index", "argumentsDelta"]);
    expect(Object.keys(modelDeltaEvent("c1", { type: "reasoning_delta", text: "x" }))).toEqual([
      "type",
      "callId",
      "text",
    ]);
  });

  it("isModelDeltaEvent matches the four kinds and nothing else", () => {
    expect(isModelDeltaEvent({ type: "model.text_delta", callId: "c", text: "" })).toBe(true);
    expect(isModelDeltaEvent({ type: "model.redacted_reasoning", callId: "c", data: "" })).toBe(true);
    expect(isModelDeltaEvent({ type: "run.started", input: 1 })).toBe(false);
  });
});
