// How step failures are journaled and read back (no server needed: the mapping is pure), and the
// checks restateAgents and the run handler apply before anything reaches Restate.
import { CancelledError, TerminalError, TimeoutError } from "@restatedev/restate-sdk";
import { createAgent } from "@tinyagents/harness";
import { MockModel, TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { fromRestateFailure, isRetryableStepError, restateAgents, toRestateFailure } from "../src/index.js";
import { checkRunRequest } from "../src/services/run-request.js";

describe("step failure mapping", () => {
  it("journals a TinyAgentsError as terminal and reads the same code and details back", () => {
    const original = new TinyAgentsError("limit_exceeded", "too many calls", {
      details: { limit: "maxModelCalls", value: 3 },
    });
    const journaled = toRestateFailure(original, "model:c1");
    expect(journaled).toBeInstanceOf(TerminalError);
    const back = fromRestateFailure(journaled, "model:c1");
    expect(back.code).toBe("limit_exceeded");
    expect(back.message).toBe("too many calls");
    expect(back.details).toEqual({ limit: "maxModelCalls", value: 3 });
  });

  it("leaves storage failures and unclassified errors to Restate's retries, keeping the code", () => {
    expect(isRetryableStepError(new TinyAgentsError("storage", "disk full"))).toBe(true);
    expect(isRetryableStepError(new Error("socket hang up"))).toBe(true);
    expect(isRetryableStepError(new TinyAgentsError("provider", "down"))).toBe(false);
    const retried = toRestateFailure(new TinyAgentsError("storage", "disk full"), "memory:save");
    expect(retried).not.toBeInstanceOf(TerminalError);
    // What Restate records once the attempts ran out: a terminal error with the message only.
    const exhausted = new TerminalError(retried.message);
    expect(fromRestateFailure(exhausted, "memory:save").code).toBe("storage");
    expect(fromRestateFailure(new TerminalError("who knows"), "x").code).toBe("internal");
  });

  it("maps a cancelled invocation and a timed-out wait to their codes", () => {
    expect(fromRestateFailure(new CancelledError(), "tool:c2").code).toBe("cancelled");
    expect(fromRestateFailure(new TimeoutError(), "wait").code).toBe("timeout");
  });
});

describe("restateAgents and run requests", () => {
  it("refuses an empty agent map and a name Restate cannot use", () => {
    expect(() => restateAgents({ agents: {} })).toThrow(/at least one agent/);
    const agent = () => createAgent({ model: MockModel.echo() });
    const bad = (() => {
      try {
        restateAgents({ agents: { "bad name": agent } });
      } catch (error) {
        return error;
      }
    })();
    expect(TinyAgentsError.isInstance(bad) && bad.code).toBe("validation");
    const names = restateAgents({ agents: { support: agent } }).map((s) => s.name);
    expect(names).toEqual(["tinyagents.agent.support", "tinyagents.thread"]);
  });

  it("refuses a malformed run request with a terminal 400 naming the field", () => {
    expect(() => checkRunRequest({})).toThrow(/`input` is required/);
    expect(() => checkRunRequest({ input: "hi", threadId: "" })).toThrow(/threadId/);
    expect(() => checkRunRequest({ input: "hi", tags: [1] })).toThrow(/tags/);
    const error = (() => {
      try {
        checkRunRequest("just a string");
      } catch (e) {
        return e as TerminalError;
      }
    })();
    expect(error).toBeInstanceOf(TerminalError);
    expect(error?.code).toBe(400);
    expect(checkRunRequest({ input: "hi", threadId: "t1" })).toEqual({ input: "hi", threadId: "t1" });
  });
});
