import { SteeringHandle } from "@tinyagents/harness";
import { ApprovalBook } from "@tinyagents/harness/middleware";
import { describe, expect, it } from "vitest";
import { waitUntil } from "../../../harness/test/support/wait-until.js";
import { InspectorControls } from "./run-controls.js";

describe("InspectorControls", () => {
  it("offers nothing for a run it does not hold, and says why", () => {
    const controls = new InspectorControls();
    expect(controls.view("other", "running")).toMatchObject({ listening: false, canPause: false });
    expect(controls.view("other", "running").note).toContain("does not listen");
    expect(() => controls.apply("other", { action: "pause" })).toThrow(/does not listen/);
  });

  it("pause and cancel go to the run's steering handle; only while the run is active", () => {
    const controls = new InspectorControls();
    const steering = SteeringHandle.allowAll();
    controls.register("r", { steering });
    expect(controls.view("r", "running")).toMatchObject({ listening: true, canPause: true, canCancel: true });
    expect(controls.view("r", "completed")).toMatchObject({ canPause: false, canCancel: false });
    controls.apply("r", { action: "pause" });
    controls.apply("r", { action: "cancel", reason: "enough" });
    expect(steering.drain()).toEqual([{ kind: "pause" }, { kind: "cancel", reason: "enough" }]);
  });

  it("an action the run was not registered for is a validation error naming what is missing", () => {
    const controls = new InspectorControls();
    controls.register("r", { steering: SteeringHandle.allowAll() });
    expect(() => controls.apply("r", { action: "approve", approvalId: "r/c1" })).toThrow(
      /without an approval book/,
    );
    expect(() => controls.apply("r", { action: "resume" })).toThrow(/without a resume function/);
  });

  it("deciding the last pending approval resumes the run; a failed resume reaches onError", async () => {
    const errors: unknown[] = [];
    const controls = new InspectorControls({ onError: (e) => errors.push(e) });
    const book = new ApprovalBook([
      {
        id: "r/c1",
        runId: "r",
        callId: "c1",
        toolName: "a",
        arguments: {},
        requestedAt: 0,
        status: "pending",
        used: false,
      },
      {
        id: "r/c2",
        runId: "r",
        callId: "c2",
        toolName: "b",
        arguments: {},
        requestedAt: 0,
        status: "pending",
        used: false,
      },
    ]);
    let resumed = 0;
    controls.register("r", {
      approvals: book,
      resume: async () => {
        resumed++;
        throw new Error("resume failed");
      },
    });
    expect(controls.view("r", "interrupted")).toMatchObject({ canDecide: true, canResume: true });
    expect(controls.pending("r").map((r) => r.id)).toEqual(["r/c1", "r/c2"]);
    expect(controls.apply("r", { action: "approve", approvalId: "r/c1" })).toEqual({ resumed: false });
    expect(resumed).toBe(0);
    expect(controls.apply("r", { action: "reject", approvalId: "r/c2", reason: "no" })).toEqual({
      resumed: true,
    });
    expect(resumed).toBe(1);
    await waitUntil(() => errors.length > 0, "the failed resume was reported");
    expect(errors.map((e) => (e as Error).message)).toEqual(["resume failed"]);
    expect(() => controls.apply("r", { action: "approve", approvalId: "r/none" })).toThrow(
      /no approval request/,
    );
  });

  it("unregistering withdraws the run", () => {
    const controls = new InspectorControls();
    const withdraw = controls.register("r", { steering: SteeringHandle.allowAll() });
    withdraw();
    expect(controls.view("r", "running").listening).toBe(false);
    expect(() => controls.register("", {})).toThrow(/non-empty/);
  });
});
