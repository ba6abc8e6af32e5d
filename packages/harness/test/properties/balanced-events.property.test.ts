/**
 * Balanced events (fast-check): random scripts — model turns and tool batches of random virtual
 * latency, tools that honour or ignore their signal, unary or streaming, with tool concurrency
 * 1..3 — are cut by a run deadline or a caller abort at a random virtual moment (or not at all).
 * Whatever happens, every `model.started` and `tool.started` gets exactly one terminal event
 * before the run's last event, the status record has no active call left, the stop reason and
 * status say how the run ended, and a run cut at virtual time T ended at T.
 */
import { AgentHarness, type EventRecord, EventSink } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { DeterministicClock, DeterministicIds, FakeTool } from "@tinyagents/harness/testkit";
import {
  assistant,
  type ChatModel,
  type ModelCallOptions,
  type ModelResponse,
  TinyAgentsError,
} from "@tinyagents/inference";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

interface Turn {
  latencyMs: number;
  tools: { latencyMs: number; deaf: boolean }[];
}

/** Answers turn N after its latency, sleeping on the run's clock with the call's signal. */
class TimedScript implements ChatModel {
  readonly provider = "timed";
  readonly modelId = "timed";
  private call = 0;
  constructor(private readonly turns: Turn[]) {}

  async invoke(_request: unknown, options?: ModelCallOptions): Promise<ModelResponse> {
    const turn = this.turns[this.call++];
    if (turn === undefined) return { message: assistant("done"), finishReason: "stop" };
    try {
      await options?.clock?.sleep(turn.latencyMs, options.signal);
    } catch {
      throw new TinyAgentsError("cancelled", "model call aborted");
    }
    if (turn.tools.length === 0) return { message: assistant("final"), finishReason: "stop" };
    const message = assistant("");
    message.toolCalls = turn.tools.map((_, i) => ({
      id: `c${this.call}-${i}`,
      name: `t${this.call}_${i}`,
      arguments: {},
    }));
    return { message, finishReason: "tool_calls" };
  }
}

const turnArb: fc.Arbitrary<Turn> = fc.record({
  latencyMs: fc.integer({ min: 0, max: 100 }),
  tools: fc.array(fc.record({ latencyMs: fc.integer({ min: 0, max: 200 }), deaf: fc.boolean() }), {
    maxLength: 3,
  }),
});

const cutArb = fc.oneof(
  fc.constant({ kind: "none" as const, at: 0 }),
  fc.record({ kind: fc.constant("deadline" as const), at: fc.integer({ min: 1, max: 600 }) }),
  fc.record({ kind: fc.constant("abort" as const), at: fc.integer({ min: 0, max: 600 }) }),
);

const TERMINAL = new Set(["model.completed", "model.failed", "tool.completed", "tool.failed"]);

describe("balanced events under deadlines and aborts (property)", () => {
  it("every started call ends exactly once before the run's last event", async () => {
    const wallStart = performance.now();
    let simulated = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnArb, { minLength: 1, maxLength: 4 }),
        cutArb,
        fc.boolean(),
        fc.integer({ min: 1, max: 3 }),
        async (turns, cut, streaming, maxConcurrency) => {
          const clock = new DeterministicClock();
          const start = clock.now();
          const harness = new AgentHarness<undefined, undefined>({
            clock,
            ids: new DeterministicIds(),
            policy: { limits: { maxConcurrency } },
          });
          harness.registerModel("timed", new TimedScript(turns));
          turns.forEach((turn, t) => {
            turn.tools.forEach((spec, i) => {
              harness.registerTool(
                spec.deaf
                  ? FakeTool.ignoringAbort(`t${t + 1}_${i}`, spec.latencyMs)
                  : FakeTool.of(`t${t + 1}_${i}`, async (_a, ctx) => {
                      await ctx.run.clock.sleep(spec.latencyMs, ctx.signal);
                      return "ok";
                    }),
              );
            });
          });
          const sink = new EventSink("run-1", { clock });
          const records: EventRecord[] = [];
          sink.subscribe((r) => records.push(r));
          const controller = new AbortController();
          if (cut.kind === "abort") clock.setTimer(cut.at, () => controller.abort("caller stop"));
          const config = cut.kind === "deadline" ? { runId: "run-1", timeoutMs: cut.at } : { runId: "run-1" };
          const options = { events: sink, signal: controller.signal };
          let outcome: {
            run: { stopReason: string };
            status: { status: string; activeToolCalls: string[]; activeModelCall?: string };
            error?: TinyAgentsError;
          };
          if (streaming) {
            let last: typeof outcome | undefined;
            for await (const item of lowerLayer(harness).invokeStreaming(
              undefined,
              undefined,
              config,
              "go",
              options,
            )) {
              if (item.type !== "event")
                last =
                  item.type === "failed"
                    ? { run: item.run, status: item.status, error: item.error }
                    : { run: item.run, status: item.status };
            }
            outcome = last as typeof outcome;
          } else {
            outcome = await lowerLayer(harness).invokeCollectingPartial(
              undefined,
              undefined,
              config,
              "go",
              options,
            );
          }

          const types = records.map((r) => r.event.type);
          const lastType = types.at(-1);
          expect(lastType === "run.completed" || lastType === "run.failed").toBe(true);
          // Exactly one terminal event per start, and nothing of the run after its last event.
          const open = new Map<string, number>();
          for (const { event } of records) {
            // Attempts of one model call are sequential: one open attempt per call id at a time.
            if (event.type === "model.started" || event.type === "tool.started") {
              const key = `${event.type}:${event.callId}`;
              expect(open.has(key), `second start of ${key}`).toBe(false);
              open.set(key, 1);
            } else if (TERMINAL.has(event.type)) {
              const e = event as { type: string; callId: string };
              const key = `${e.type.startsWith("model") ? "model" : "tool"}.started:${e.callId}`;
              expect(open.delete(key), `${e.type} for ${key} without an open start`).toBe(true);
            }
          }
          expect([...open.keys()]).toEqual([]);
          expect(outcome.status.activeToolCalls).toEqual([]);
          expect(outcome.status.activeModelCall).toBeUndefined();

          const endedAt = (records.at(-1) as EventRecord).ts;
          if (outcome.error === undefined) {
            expect(outcome.run.stopReason).toBe("completed");
            expect(outcome.status.status).toBe("completed");
          } else if (outcome.error.code === "timeout") {
            expect(cut.kind).toBe("deadline");
            expect(outcome.run.stopReason).toBe("timeout");
            expect(outcome.status.status).toBe("failed");
            expect(endedAt - start).toBe(cut.at);
          } else {
            expect(outcome.error.code).toBe("cancelled");
            expect(cut.kind).toBe("abort");
            expect(outcome.run.stopReason).toBe("cancelled");
            expect(outcome.status.status).toBe("cancelled");
            expect(endedAt - start).toBe(cut.at);
          }
          simulated += clock.now() - start;
        },
      ),
      { numRuns: 150 },
    );
    // Virtual time: the suite never waits on the time it simulates.
    expect(simulated).toBeGreaterThan(10_000);
    expect(performance.now() - wallStart).toBeLessThan(simulated);
  });
});
