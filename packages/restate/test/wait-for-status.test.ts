import { DeterministicClock } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { pollStatus } from "../src/client/wait-for-status.js";
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
  const poller = {
    read: async () => {
      const phase = phases[Math.min(reads++, phases.length - 1)];
      return phase === undefined ? undefined : status(phase);
    },
    sleep: (ms: number, signal?: AbortSignal) => clock.sleep(ms, signal),
    now: () => clock.now(),
  };
  return { clock, poller, reads: () => reads };
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
    const got = await pollStatus("wait", "waiting", {}, r.poller);
    expect(got.phase).toBe("waiting");
    expect(r.reads()).toBe(4);
    // Reads start 10 ms apart and back off.
    expect(r.clock.sleeps).toEqual([10, 15, 23]);
  });

  it("takes a list of phases or a predicate", async () => {
    expect(
      (await pollStatus("wait", ["paused", "completed"], {}, run(["running", "completed"]).poller)).phase,
    ).toBe("completed");
    const waitingForApproval = (s: RestateRunStatus) => s.waitingFor.length > 0;
    const r = run(["running"]);
    let n = 0;
    r.poller.read = async () => ({ ...status("waiting"), waitingFor: ++n >= 3 ? ["approval:r/c"] : [] });
    expect((await pollStatus("wait", waitingForApproval, {}, r.poller)).waitingFor).toEqual(["approval:r/c"]);
  });

  it("backs off to maxPollMs between reads", async () => {
    const r = run(["running"]);
    const error = await failure(
      pollStatus("wait", "completed", { timeoutMs: 2000, maxPollMs: 100 }, r.poller),
    );
    expect(error.code).toBe("timeout");
    expect(Math.max(...r.clock.sleeps)).toBe(100);
    expect(r.clock.sleeps.slice(0, 6)).toEqual([10, 15, 23, 35, 53, 80]);
  });

  it("times out with `timeout`, naming the last phase seen, or that the run never started", async () => {
    const running = await failure(
      pollStatus("wait for r", "completed", { timeoutMs: 500 }, run(["running"]).poller),
    );
    expect(running.code).toBe("timeout");
    expect(running.message).toContain("phase: running");
    expect(running.details).toEqual({ timeoutMs: 500, phase: "running" });
    const never = await failure(
      pollStatus("wait for r", "running", { timeoutMs: 500 }, run([undefined]).poller),
    );
    expect(never.code).toBe("timeout");
    expect(never.message).toContain("has not started");
    expect(never.details).toEqual({ timeoutMs: 500, phase: null });
  });

  it("a run that finished without reaching the status is `conflict` at once (a finished status never changes)", async () => {
    const r = run(["running", "completed"]);
    const error = await failure(pollStatus("wait", "waiting", { timeoutMs: 60_000 }, r.poller));
    expect(error.code).toBe("conflict");
    expect(error.details).toEqual({ phase: "completed" });
    expect(r.reads()).toBe(2);
  });

  it("refuses a bad condition or option with `validation`; an abort stops the wait", async () => {
    const r = run(["running"]);
    expect((await failure(pollStatus("wait", [], {}, r.poller))).code).toBe("validation");
    expect((await failure(pollStatus("wait", "running", { timeoutMs: 0 }, r.poller))).code).toBe(
      "validation",
    );
    expect((await failure(pollStatus("wait", "running", { maxPollMs: Number.NaN }, r.poller))).code).toBe(
      "validation",
    );
    const controller = new AbortController();
    const waiting = pollStatus("wait", "completed", { signal: controller.signal }, r.poller);
    controller.abort(new TinyAgentsError("cancelled", "stop waiting"));
    expect((await failure(waiting)).code).toBe("cancelled");
  });

  it("errors of the read itself pass through (not_found: an agent the deployment does not serve)", async () => {
    const r = run(["running"]);
    r.poller.read = async () => {
      throw new TinyAgentsError("not_found", "status of nope/r: Restate answered 404");
    };
    expect((await failure(pollStatus("wait", "running", {}, r.poller))).code).toBe("not_found");
  });
});
