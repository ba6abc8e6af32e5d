import { DeterministicClock } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import {
  pollStatus,
  type StatusCondition,
  type WaitForStatusOptions,
} from "../src/client/wait-for-status.js";
import type { RestateRunPhase, RestateRunStatus } from "../src/index.js";

const status = (phase: RestateRunPhase): RestateRunStatus => ({
  agent: "a",
  runId: "r",
  phase,
  waitingFor: [],
  startedAt: 0,
  updatedAt: 0,
});

/** A run whose status reads `phases[i]` at the i-th read (the last one from then on), in virtual time. */
function run(phases: (RestateRunPhase | undefined)[]) {
  const clock = new DeterministicClock();
  let reads = 0;
  const r = {
    clock,
    reads: () => reads,
    read: async (): Promise<RestateRunStatus | undefined> => {
      const phase = phases[Math.min(reads++, phases.length - 1)];
      return phase === undefined ? undefined : status(phase);
    },
    poll: (condition: StatusCondition, options: WaitForStatusOptions = {}) =>
      pollStatus("wait for r", condition, options, () => r.read(), clock),
  };
  return r;
}

async function failure(promise: Promise<unknown>): Promise<TinyAgentsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(TinyAgentsError.isInstance(error)).toBe(true);
  return error as TinyAgentsError;
}

describe("waitForStatus (pollStatus): wait for a run's status, never forever", () => {
  it("waits through a run that has not started and one still running, then answers the status reached", async () => {
    const r = run([undefined, "running", "running", "waiting"]);
    const got = await r.poll("waiting", {});
    expect(got.phase).toBe("waiting");
    expect(r.reads()).toBe(4);
    // Reads start 10 ms apart and back off.
    expect(r.clock.sleeps).toEqual([10, 15, 23]);
  });

  it("takes a list of phases or a predicate", async () => {
    expect((await run(["running", "completed"]).poll(["paused", "completed"], {})).phase).toBe("completed");
    const waitingForApproval = (s: RestateRunStatus) => s.waitingFor.length > 0;
    const r = run(["running"]);
    let n = 0;
    r.read = async () => ({ ...status("waiting"), waitingFor: ++n >= 3 ? ["approval:r/c"] : [] });
    expect((await r.poll(waitingForApproval, {})).waitingFor).toEqual(["approval:r/c"]);
  });

  it("backs off to maxPollMs between reads", async () => {
    const r = run(["running"]);
    const error = await failure(r.poll("completed", { timeoutMs: 2000, maxPollMs: 100 }));
    expect(error.code).toBe("timeout");
    expect(Math.max(...r.clock.sleeps)).toBe(100);
    expect(r.clock.sleeps.slice(0, 6)).toEqual([10, 15, 23, 35, 53, 80]);
  });

  it("times out with `timeout`, naming the last phase seen, or that the run never started", async () => {
    const running = await failure(run(["running"]).poll("completed", { timeoutMs: 500 }));
    expect(running.code).toBe("timeout");
    expect(running.message).toContain("state: running");
    expect(running.details).toEqual({ timeoutMs: 500, state: "running" });
    const never = await failure(run([undefined]).poll("running", { timeoutMs: 500 }));
    expect(never.code).toBe("timeout");
    expect(never.message).toContain("has not started");
    expect(never.details).toEqual({ timeoutMs: 500, state: null });
  });

  it("a run that finished without reaching the status is `conflict` at once (a finished status never changes)", async () => {
    const r = run(["running", "completed"]);
    const error = await failure(r.poll("waiting", { timeoutMs: 60_000 }));
    expect(error.code).toBe("conflict");
    expect(error.details).toEqual({ state: "completed" });
    expect(r.reads()).toBe(2);
  });

  it("refuses a bad condition or option with `validation`; an abort stops the wait", async () => {
    const r = run(["running"]);
    expect((await failure(r.poll([], {}))).code).toBe("validation");
    expect((await failure(r.poll("running", { timeoutMs: 0 }))).code).toBe("validation");
    expect((await failure(r.poll("running", { maxPollMs: Number.NaN }))).code).toBe("validation");
    const controller = new AbortController();
    const waiting = r.poll("completed", { signal: controller.signal });
    controller.abort(new TinyAgentsError("cancelled", "stop waiting"));
    expect((await failure(waiting)).code).toBe("cancelled");
  });

  it("errors of the read itself pass through (not_found: an agent the deployment does not serve)", async () => {
    const r = run(["running"]);
    r.read = async () => {
      throw new TinyAgentsError("not_found", "status of nope/r: Restate answered 404");
    };
    expect((await failure(r.poll("running", {}))).code).toBe("not_found");
  });
});
