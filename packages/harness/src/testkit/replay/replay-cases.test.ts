import { type JsonObject, ProviderError, type Usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { CheckpointStore } from "../../durability/checkpoint-store.js";
import { EventSink } from "../../events/event-sink.js";
import { modelFallbackMiddleware } from "../../middleware/library/model-fallback-middleware.js";
import { toolRetryMiddleware } from "../../middleware/library/tool-retry-middleware.js";
import { attachObservability } from "../../observability/attach-observability.js";
import type { HarnessEventJournal } from "../../observability/event-journal.js";
import { InMemoryEventJournal } from "../../observability/in-memory-event-journal.js";
import { continueEventSink } from "../../observability/journal-continuity.js";
import { traceDetailsMiddleware } from "../../observability/trace-details-middleware.js";
import { AgentHarness } from "../../runtime/agent-harness.js";
import { lowerLayer } from "../../runtime/lower-layer.js";
import { SteeringHandle } from "../../steering/steering-handle.js";
import { InMemoryKeyValueStore } from "../../store/key-value-store.js";
import { tool } from "../../tool/define-tool.js";
import { DeterministicClock } from "../deterministic-clock.js";
import { FakeTool } from "../fake-tool.js";
import { ScriptedModel, type ScriptStep } from "../scripted-model.js";
import { type Cassette, serializeCassette } from "./cassette.js";
import { cassetteFromObservations } from "./cassette-from-journal.js";
import { replayRun } from "./replay-run.js";

// Issue 38 item 5: retries and fallbacks, structured output, failed runs, what-if against
// another model, and a run recovered after its process "died" (in process: a tool that never
// settles, then `recover` with the journal continued).

const usage: Usage = {
  inputTokens: 10,
  outputTokens: 5,
  totalTokens: 15,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

async function recordRun<State, Ctx>(
  agent: AgentHarness<State, Ctx>,
  runId: string,
  prompt: string,
): Promise<Cassette> {
  const journal = new InMemoryEventJournal();
  const events = new EventSink(runId);
  const obs = attachObservability(events, { journal });
  await agent.run(prompt, { runId, events, clock: new DeterministicClock() }).catch(() => undefined);
  await obs.close();
  return cassetteFromObservations(runId, await journal.read(runId));
}

const down = () =>
  new ProviderError({ provider: "p", message: "primary is down", kind: "upstream_unhealthy", status: 503 });

function fallbackAgent() {
  const primary = new ScriptedModel([down(), down()]);
  const backup = new ScriptedModel(["From the backup model."], { usage });
  const agent = new AgentHarness({ instructions: "Answer briefly." })
    .registerModel("primary", primary)
    .registerModel("backup", backup)
    .withPolicy({ retry: { maxRetries: 1, initialBackoffMs: 30 } })
    .use(modelFallbackMiddleware({ models: ["backup"] }))
    .use(traceDetailsMiddleware({ captureContent: true }));
  return { agent, primary, backup };
}

const SCHEMA: JsonObject = {
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "number" } },
  required: ["city", "celsius"],
};

function structuredAgent(schema: JsonObject = SCHEMA) {
  return new AgentHarness({ instructions: "Answer as JSON." })
    .registerModel("m", new ScriptedModel(['{"city":"Tokyo","celsius":21}'], { usage }))
    .withPolicy({ responseFormat: { type: "json_schema", name: "weather", schema } })
    .use(traceDetailsMiddleware({ captureContent: true }));
}

describe("replayRun across run shapes", () => {
  it("a retried call that fell back to another model replays its final answer, without calling a model", async () => {
    const cassette = await recordRun(fallbackAgent().agent, "r-fallback", "Say hello.");
    const call = cassette.run.modelCalls[0];
    expect(cassette.run.modelCalls).toHaveLength(1);
    expect(call?.fallback).toEqual({ from: "primary", to: "backup" });
    expect(call?.failedAttempts?.length).toBeGreaterThanOrEqual(2);
    expect(call?.response?.content).toEqual([{ type: "text", content: "From the backup model." }]);
    const { agent, primary, backup } = fallbackAgent();
    const report = await replayRun(agent, cassette);
    expect(report.result.text).toBe("From the backup model.");
    expect(primary.requests).toHaveLength(0);
    expect(backup.requests).toHaveLength(0);
  });

  it("a tool call retried by toolRetryMiddleware replays the result the model saw, without running the tool", async () => {
    let calls = 0;
    const retrying = () =>
      new AgentHarness({ instructions: "Use the tool." })
        .registerModel(
          "m",
          new ScriptedModel([{ toolCalls: [{ name: "flaky", id: "t1", arguments: {} }] }, "Done."], {
            usage,
          }),
        )
        .registerTool(
          tool({
            name: "flaky",
            description: "Fails once",
            inputSchema: { type: "object" },
            idempotent: true,
            execute: () => {
              if (++calls === 1) throw new Error("boom");
              return "OK-RESULT";
            },
          }),
        )
        .use(toolRetryMiddleware({ policy: { initialBackoffMs: 10 } }))
        .use(traceDetailsMiddleware({ captureContent: true }));
    const cassette = await recordRun(retrying(), "r-tool-retry", "Go.");
    expect(calls).toBe(2);
    expect(cassette.run.toolCalls[0]).toMatchObject({ result: "OK-RESULT", isError: false });
    // The second model request (with OK-RESULT in it) matches the recording: no divergence.
    const report = await replayRun(retrying(), cassette);
    expect(report.result.text).toBe("Done.");
    expect(report.replayedTools).toBe(1);
    expect(calls).toBe(2);
  });

  it("structured output replays the validated answer; a schema change fails naming the field", async () => {
    const cassette = await recordRun(structuredAgent(), "r-structured", "Weather in Tokyo?");
    expect(cassette.run.modelCalls[0]?.request.responseFormat).toMatchObject({
      name: "weather",
      schema: SCHEMA,
    });
    const report = await replayRun(structuredAgent(), cassette);
    expect(report.result.structured).toEqual({ city: "Tokyo", celsius: 21 });
    const changed = structuredAgent({
      ...SCHEMA,
      properties: { ...(SCHEMA.properties as JsonObject), sky: { type: "string" } },
    });
    await expect(replayRun(changed, cassette)).rejects.toThrow(
      /^replay diverged at model call 1: .*responseFormat\.schema\.properties\.sky added/,
    );
  });

  it("a run that failed at the provider replays to the same failure", async () => {
    const failing = () =>
      new AgentHarness({ instructions: "Answer." })
        .registerModel(
          "broken",
          new ScriptedModel([
            new ProviderError({
              provider: "p",
              message: "invalid request: bad schema",
              kind: "non_retryable",
              status: 400,
            }),
          ]),
        )
        .use(traceDetailsMiddleware({ captureContent: true }));
    const cassette = await recordRun(failing(), "r-failed", "This will fail.");
    expect(cassette.run.outcome).toBe("failed");
    expect(cassette.run.modelCalls[0]?.error).toMatchObject({ code: "provider" });
    const report = await replayRun(failing(), cassette);
    expect(report.result.status.status).toBe("failed");
    expect(report.result.status.error?.message).toContain("invalid request: bad schema");
  });

  it("a tool failure that failed the run replays to the same failure, without running the tool", async () => {
    const broken = () => {
      const charge = FakeTool.failing("charge", "card declined", { errorPolicy: "fail" });
      const agent = new AgentHarness({ instructions: "Charge." })
        .registerModel(
          "m",
          new ScriptedModel([{ toolCalls: [{ id: "t1", name: "charge", arguments: {} }] }], { usage }),
        )
        .registerTool(charge)
        .use(traceDetailsMiddleware({ captureContent: true }));
      return { agent, charge };
    };
    const cassette = await recordRun(broken().agent, "r-tool-failed", "Charge it.");
    expect(cassette.run.toolCalls[0]?.error).toMatchObject({ code: "tool" });
    const { agent, charge } = broken();
    const report = await replayRun(agent, cassette);
    expect(charge.calls).toHaveLength(0);
    expect(report.result.status.status).toBe("failed");
    expect(report.result.status.error?.message).toContain("card declined");
  });

  it("what-if against another model reports the first answer that changed", async () => {
    const cassette = await recordRun(fallbackAgent().agent, "r-whatif", "Say hello.");
    const other = new ScriptedModel(["Hello from the new model."], { usage });
    const report = await replayRun(fallbackAgent().agent, cassette, { whatIf: true, model: other });
    expect(other.requests).toHaveLength(1);
    expect(report.divergence?.step).toBe("model call 1");
    expect(report.divergence?.lines[0]).toMatch(
      /^the answer changed: was .*From the backup model.*now .*Hello from the new model/,
    );
    expect(report.result.text).toBe("Hello from the new model.");
  });
});

describe("what a cassette needs", () => {
  it("refuses a run whose agent recorded no trace details, naming the switch", async () => {
    const bare = new AgentHarness({ instructions: "Answer." }).registerModel(
      "m",
      new ScriptedModel(["Hi."], { usage }),
    );
    await expect(recordRun(bare, "r-bare", "Hello?")).rejects.toThrow(
      /^run r-bare cannot become a test: its journal has no model requests for run r-bare \(1 model call\(s\) without trace details\)\. Record content and run it again: register traceDetailsMiddleware\(\{ captureContent: true \}\) on the agent/,
    );
  });
});

describe("secrets", () => {
  const SECRET = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789";
  const leaky = () =>
    new AgentHarness({ instructions: `Call the billing API with key ${SECRET}.` })
      .registerModel(
        "m",
        new ScriptedModel([{ toolCalls: [{ id: "k1", name: "vault", arguments: {} }] }, "Done."], { usage }),
      )
      .registerTool(
        tool({
          name: "vault",
          description: "reads a credential",
          inputSchema: { type: "object", properties: {} },
          execute: async () => `the key is ${SECRET}`,
        }),
      )
      .use(traceDetailsMiddleware({ captureContent: true }));

  it("stay redacted in the cassette, and the replay still matches the live (redacted) requests", async () => {
    const cassette = await recordRun(leaky(), "r-secret", "Bill it.");
    const text = serializeCassette(cassette);
    expect(text).not.toContain(SECRET);
    expect(text).toContain("[REDACTED]");
    expect(cassette.run.toolCalls[0]?.result).toBe("the key is [REDACTED]");
    const report = await replayRun(leaky(), cassette);
    expect(report.result.text).toBe("Done.");
  });
});

describe("a recovered run", () => {
  const SCRIPT: ScriptStep[] = [
    { toolCalls: [{ id: "c1", name: "fetch_page", arguments: { q: "a" } }] },
    { toolCalls: [{ id: "c2", name: "fetch_page", arguments: { q: "b" } }] },
    "done",
  ];
  const never = new Promise<never>(() => undefined);

  function pages(ledger: string[], script: ScriptStep[], hangIn?: string) {
    return new AgentHarness<undefined, undefined>({ instructions: "Read pages." })
      .registerModel("m", new ScriptedModel(script, { usage }))
      .registerTool(
        tool({
          name: "fetch_page",
          description: "read a page",
          inputSchema: { type: "object", properties: { q: { type: "string" } } },
          execute: async (args, ctx) => {
            ledger.push(ctx.callId);
            if (ctx.callId === hangIn) return never;
            return `page ${String(args.q)}`;
          },
        }),
      )
      .use(traceDetailsMiddleware({ captureContent: true }));
  }

  async function waitFor(condition: () => boolean): Promise<void> {
    for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setImmediate(r));
    expect(condition()).toBe(true);
  }

  it("what-if never executes a tool call the recording does not have: it reports and stops", async () => {
    const cassette = await recordRun(pages([], SCRIPT), "r-pages", "go");
    const ledger: string[] = [];
    const other = new ScriptedModel([
      { toolCalls: [{ id: "new1", name: "fetch_page", arguments: { q: "z" } }] },
    ]);
    const report = await replayRun(pages(ledger, SCRIPT), cassette, { whatIf: true, model: other });
    expect(ledger).toEqual([]);
    expect(report.divergence?.step).toBe("model call 1");
    expect(report.divergence?.lines[0]).toMatch(/^the answer changed/);
    expect(report.result.status.error?.message).toMatch(
      /what-if replay stopped: tool call new1 \("fetch_page"\) is not in the recording/,
    );
  });

  it("replays the transcript as continued after the crash", async () => {
    const journal: HarnessEventJournal = new InMemoryEventJournal();
    const checkpoints = new CheckpointStore(new InMemoryKeyValueStore());
    const ledger: string[] = [];
    const events1 = await continueEventSink(journal, "r");
    const observed1 = attachObservability(events1, { journal });
    const dead = new AbortController();
    lowerLayer(pages(ledger, SCRIPT, "c2"))
      .invoke(undefined, undefined, { runId: "r" }, "go", {
        signal: dead.signal,
        events: events1,
        // A virtual clock that never moves: the "dead" run never heartbeats again, and its lease
        // (virtual time 0 + 30 s) lapsed long ago on the recoverer's real clock, as a dead
        // process's would (recover refuses a live owner).
        clock: new DeterministicClock(),
        durability: { checkpoints, ownerId: "dead-worker", flush: () => observed1.flush() },
      })
      .catch(() => undefined);
    await waitFor(() => ledger.includes("c2"));
    await observed1.flush(); // what the dead process had written; then it is gone
    observed1.detach();

    const events2 = await continueEventSink(journal, "r");
    const observed2 = attachObservability(events2, { journal });
    const recovered = await lowerLayer(pages(ledger, SCRIPT.slice(2))).recover(undefined, undefined, "r", {
      events: events2,
      durability: { checkpoints, flush: () => observed2.flush() },
    });
    await observed2.close();
    dead.abort();
    expect(recovered.stopReason).toBe("completed");

    const observations = await journal.read("r");
    // The crashed process started c2; the recovered one ran it again.
    expect(
      observations.filter((o) => o.event.type === "tool.started" && o.event.callId === "c2"),
    ).toHaveLength(2);
    const cassette = cassetteFromObservations("r", observations);
    expect(cassette.run.modelCalls).toHaveLength(3);
    expect(cassette.run.toolCalls.map((c) => [c.callId, c.result])).toEqual([
      ["c1", "page a"],
      ["c2", "page b"],
    ]);
    const replayLedger: string[] = [];
    const report = await replayRun(pages(replayLedger, SCRIPT), cassette);
    expect(report.result.text).toBe("done");
    expect(replayLedger).toEqual([]);
  });
});

describe("a steered run", () => {
  /** Steered from inside its tools, as a person at a control plane would mid-run. */
  function steeredAgent(handle: SteeringHandle | undefined) {
    const script: ScriptStep[] = [
      { toolCalls: [{ id: "s1", name: "search", arguments: { q: "tokyo" } }] },
      { toolCalls: [{ id: "s2", name: "search", arguments: { q: "osaka" } }] },
      "Osaka it is.",
    ];
    return new AgentHarness({ instructions: "Search." })
      .registerModel("m", new ScriptedModel(script, { usage }))
      .registerTool(
        tool({
          name: "search",
          description: "search",
          inputSchema: { type: "object", properties: { q: { type: "string" } } },
          execute: async (args) => {
            if (args.q === "tokyo") handle?.redirect("Focus on Osaka instead.");
            if (args.q === "osaka")
              handle
                ?.injectMessage({ role: "user", content: [{ type: "text", text: "Keep it short." }] })
                .pause();
            return `results for ${String(args.q)}`;
          },
        }),
      )
      .use(traceDetailsMiddleware({ captureContent: true }));
  }

  it("replays redirects, injected messages and a pause at the points they were applied", async () => {
    const journal = new InMemoryEventJournal();
    const events = new EventSink("r-steer");
    const obs = attachObservability(events, { journal });
    const handle = SteeringHandle.allowAll();
    const agent = steeredAgent(handle);
    const clock = new DeterministicClock();
    const paused = await agent.run("Weather?", { runId: "r-steer", events, clock, steering: handle });
    expect(paused.stopReason).toBe("interrupted");
    const done = await agent.run(paused.paused as NonNullable<typeof paused.paused>, {
      events,
      clock,
      steering: handle,
    });
    expect(done.text).toBe("Osaka it is.");
    await obs.close();

    const cassette = cassetteFromObservations("r-steer", await journal.read("r-steer"));
    expect(cassette.run.steering).toEqual([
      { command: "redirect", accepted: true, afterModelCall: 1, instruction: "Focus on Osaka instead." },
      expect.objectContaining({ command: "injectMessage", accepted: true, afterModelCall: 2 }),
      { command: "pause", accepted: true, afterModelCall: 2 },
    ]);
    const report = await replayRun(steeredAgent(undefined), cassette);
    expect(report.result.text).toBe("Osaka it is.");
    expect(report.replayedTools).toBe(2);

    // Without the recorded steering the second request lacks the redirect: the replay says so.
    const unsteered = structuredClone(cassette);
    delete unsteered.run.steering;
    await expect(replayRun(steeredAgent(undefined), unsteered)).rejects.toThrow(
      /^replay diverged at model call 2: message 4 removed: user message/,
    );
  });
});
