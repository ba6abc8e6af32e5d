import { text, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { type QueuedRun, RunQueue } from "./run-queue.js";
import { InMemoryRunQueueBackend } from "./run-queue-backend.js";

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("RunQueue", () => {
  it("runs follow-ups one per run after the current one, and coalesces collected messages", async () => {
    const runs: string[][] = [];
    const gate = deferred();
    const started = deferred();
    const queue = new RunQueue({
      execute: async (run) => {
        runs.push(run.input.map((m) => `${run.lane}:${text(m)}`));
        started.resolve();
        if (runs.length === 1) await gate.promise;
      },
    });
    expect(await queue.push("chat", "followup", user("first"))).toBe("queued");
    await started.promise;
    expect((await queue.status("chat")).active).toBe(true);
    await queue.push("chat", "followup", user("second"));
    await queue.push("chat", "collect", user("c1"));
    await queue.push("chat", "collect", user("c2"));
    await queue.push("chat", "followup", user("third"));
    expect((await queue.status("chat")).pending).toEqual({ steer: 0, followup: 2, collect: 2 });
    gate.resolve();
    await queue.idle();
    expect(runs).toEqual([
      ["followup:first"],
      ["followup:second"],
      ["followup:third"],
      ["collect:c1", "collect:c2"],
    ]);
  });

  it("delivers steer messages into the running agent at its next checkpoint", async () => {
    const clock = new DeterministicClock();
    const gate = deferred();
    const started = deferred();
    const model = new ScriptedModel([
      async () => {
        started.resolve();
        await gate.promise;
        return { toolCalls: [{ name: "noop" }] };
      },
      "done",
    ]);
    const harness = new AgentHarness<undefined, undefined>({ clock, ids: new DeterministicIds() })
      .registerModel("m", model)
      .registerTool({
        name: "noop",
        description: "no-op",
        parameters: { type: "object" },
        validate: (args) => ({ ok: true, value: args }),
        execute: () => "ok",
      });
    const transcripts: string[][] = [];
    const queue = new RunQueue({
      execute: async (run: QueuedRun) => {
        const out = await lowerLayer(harness).invoke(undefined, undefined, {}, run.input, {
          steering: run.steering,
        });
        transcripts.push(out.messages.map((m) => `${m.role}:${text(m)}`));
      },
    });
    await queue.push("chat", "followup", user("start"));
    await started.promise;
    expect(await queue.push("chat", "steer", user("also do X"))).toBe("steered");
    gate.resolve();
    await queue.idle();
    expect(transcripts).toEqual([
      ["user:start", "assistant:", "tool:ok", "user:also do X", "assistant:done"],
    ]);
  });

  it("a steer message the run never consumed becomes a follow-up; failures are reported, not fatal", async () => {
    const seen: string[] = [];
    const errors: unknown[] = [];
    const gate = deferred();
    const started = deferred();
    const queue = new RunQueue({
      execute: async (run) => {
        seen.push(run.input.map((m) => text(m)).join("+"));
        started.resolve();
        if (seen.length === 1) {
          await gate.promise;
          throw new Error("boom");
        }
      },
      onError: (error) => errors.push(error),
    });
    await queue.push("k", "steer", user("go"));
    await started.promise;
    expect(await queue.push("k", "steer", user("late"))).toBe("steered");
    gate.resolve();
    await queue.idle();
    expect(seen).toEqual(["go", "late"]);
    expect(errors).toHaveLength(1);
  });

  it("respects the concurrency limit across keys and never runs one key twice at once", async () => {
    let inFlight = 0;
    let peak = 0;
    const perKey = new Map<string, number>();
    const queue = new RunQueue({
      concurrency: 2,
      backend: new InMemoryRunQueueBackend(),
      execute: async (run) => {
        inFlight++;
        perKey.set(run.key, (perKey.get(run.key) ?? 0) + 1);
        peak = Math.max(peak, inFlight);
        expect(perKey.get(run.key)).toBe(1);
        await new Promise((r) => setImmediate(r)); // stay in flight for a turn: others may start
        perKey.set(run.key, (perKey.get(run.key) ?? 1) - 1);
        inFlight--;
      },
    });
    for (const key of ["a", "b", "c", "a", "b"]) await queue.push(key, "followup", user(key));
    await queue.idle();
    expect(peak).toBe(2);
    await expect(queue.push("", "followup", user("x"))).rejects.toThrow(/key must be a non-empty string/);
    await expect(queue.push("k", "later" as never, user("x"))).rejects.toThrow(/unknown queue lane/);
    expect(() => new RunQueue({ execute: async () => {}, concurrency: 0 })).toThrow(/concurrency/);
  });
});
