import { describe, expect, it } from "vitest";
import { callOfStep } from "./call-of-step.js";

describe("callOfStep", () => {
  it("names the model or tool call of the loop's model:, tool: and result: steps", () => {
    expect(callOfStep("model:run-1-model-2", "model")).toEqual({ kind: "model", callId: "run-1-model-2" });
    expect(callOfStep("tool:call_fetch", "tool")).toEqual({ kind: "tool", callId: "call_fetch" });
    expect(callOfStep("result:call_email", "result")).toEqual({ kind: "tool", callId: "call_email" });
    // A call id may itself hold colons: only the first one separates the prefix.
    expect(callOfStep("tool:a:b", "tool")).toEqual({ kind: "tool", callId: "a:b" });
  });

  it("is undefined for intents, other steps, and a name whose prefix does not match its kind", () => {
    expect(callOfStep("intent:call_email", "intent")).toBeUndefined();
    expect(callOfStep("tinyagents.start", "other")).toBeUndefined();
    expect(callOfStep("memory:load", "memory")).toBeUndefined();
    expect(callOfStep("tool:call_fetch", "result")).toBeUndefined();
    expect(callOfStep("model:m1", "tool")).toBeUndefined();
  });
});
