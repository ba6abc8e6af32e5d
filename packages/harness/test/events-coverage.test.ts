/**
 * Every variant of the AgentEvent union is emitted by some code path. The list below is checked
 * against the union at compile time (a new variant without an entry fails typecheck), and every
 * listed type must be observed at least once by the scenarios run in THIS file.
 */
import {
  type AgentEvent,
  type AgentEventType,
  type AgentObservation,
  ArtifactStore,
  artifactResult,
  attachObservability,
  budgetMiddleware,
  EventSink,
  guardrailsMiddleware,
  humanApprovalMiddleware,
  InMemoryChatHistory,
  InMemoryEventJournal,
  InMemoryResponseCache,
  largeResultHandoff,
  rateLimitMiddleware,
  runText,
  SteeringHandle,
  SubAgent,
  SubAgentSession,
  SubAgentTool,
  tool,
} from "@tinyagents/harness";
import { ResultHandoffCache } from "@tinyagents/harness/handoff";
import { lowerLayer } from "@tinyagents/harness/internal";
import {
  noProgressMiddleware,
  toolAllowlistMiddleware,
  toolRetryMiddleware,
} from "@tinyagents/harness/middleware";
import { TempDirWorkspace } from "@tinyagents/harness/node";
import { ReplayReconcilingJournal, traceDetailsMiddleware } from "@tinyagents/harness/observability";
import { contextCompressionMiddleware } from "@tinyagents/harness/summarization";
import { DeterministicClock, EventRecorder, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { enforceWorkspace, withWorkspace } from "@tinyagents/harness/workspace";
import { ProviderError, permissiveProfile, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness } from "./helpers.js";

const ALL_EVENT_TYPES = [
  "run.started",
  "run.completed",
  "run.failed",
  "run.interrupted",
  "route.selected",
  "model.override_skipped",
  "model.started",
  "model.text_delta",
  "model.reasoning_delta",
  "model.redacted_reasoning",
  "model.tool_call_delta",
  "model.completed",
  "model.failed",
  "model.abandoned",
  "retry.scheduled",
  "fallback.selected",
  "usage.recorded",
  "cost.recorded",
  "tool.started",
  "tool.progress",
  "tool.completed",
  "tool.failed",
  "tool.abandoned",
  "tool.unknown",
  "tool.invalid_args",
  "middleware.started",
  "middleware.completed",
  "middleware.failed",
  "limit.reached",
  "memory.loaded",
  "memory.saved",
  "state.updated",
  "control.applied",
  "journal.dropped",
  // Sub-agents, steering, workspace, artifacts, handoff (scenario 7).
  "run.resumed",
  "run.heartbeat",
  "subagent.started",
  "subagent.completed",
  "subagent.failed",
  "subagent.reused",
  "steering.applied",
  "workspace.prepared",
  "workspace.violation",
  "workspace.cleanup",
  "artifact.stored",
  "handoff.offloaded",
  // The prompt-prefix guard and the built-in middleware library (scenario 8).
  "cache.layout_changed",
  "tools.filtered",
  "rate_limit.waited",
  "tool.retry_scheduled",
  "budget.reserved",
  "budget.reconciled",
  "budget.warning",
  "budget.exceeded",
  "approval.requested",
  "guardrail.tripped",
  "no_progress.detected",
  // Context engineering: response cache, compression, structured re-ask (scenario 9).
  "cache.hit",
  "cache.miss",
  "context.compressed",
  "structured.reask",
  // Trace details of a tool call's attempt after the one that ended it (scenario 10).
  "tool.result",
] as const satisfies readonly AgentEventType[];

/**
 * Types only journals written by earlier versions hold: trace details now ride on
 * `model.started`, `model.completed` and `tool.completed` (scenario 10); readers still read these.
 * (`tool.result` is still emitted for a tool call's later attempts: in the list above.)
 */
const LEGACY_EVENT_TYPES = ["model.request", "model.response"] as const satisfies readonly AgentEventType[];

/** Compile-time exhaustiveness: `true` only when every union member is listed above. */
type MissingEventTypes = Exclude<
  AgentEventType,
  (typeof ALL_EVENT_TYPES)[number] | (typeof LEGACY_EVENT_TYPES)[number]
>;
const listIsExhaustive: [MissingEventTypes] extends [never]
  ? true
  : ["unlisted event types:", MissingEventTypes] = true;

const upstreamDown = (message: string) =>
  new ProviderError({ provider: "primary", message, kind: "upstream_unhealthy", status: 503 });

describe("events coverage", () => {
  it("the list names every AgentEvent type exactly once", () => {
    expect(listIsExhaustive).toBe(true);
    const listed = [...ALL_EVENT_TYPES, ...LEGACY_EVENT_TYPES];
    expect(new Set(listed).size).toBe(listed.length);
  });

  it("every AgentEvent type is emitted by some scenario", async () => {
    const observed = new EventRecorder();

    // Scenario 1: a streaming run on a thread, with an override that lacks a capability, a
    // failing primary model (retry, then fallback), priced usage, and every kind of tool call.
    {
      const clock = new DeterministicClock();
      const history = new InMemoryChatHistory();
      const { harness } = makeHarness({
        clock,
        memory: { history },
        policy: { fallback: ["backup"], retry: { maxRetries: 1 }, invalidArgs: "returnError" },
      });
      const noTools = {
        ...permissiveProfile(),
        capabilities: { ...permissiveProfile().capabilities, tools: false },
      };
      harness
        .registerModel("primary", new ScriptedModel([upstreamDown("down"), upstreamDown("still down")]))
        .registerModel("limited", new ScriptedModel([], { profile: noTools }))
        .registerModel(
          "backup",
          new ScriptedModel(
            [
              {
                toolCalls: [
                  { name: "progressive", arguments: {} },
                  { name: "broken", arguments: {} },
                  { name: "no_such_tool", arguments: {} },
                  { name: "strict_args", arguments: { wrong: true } },
                ],
              },
              {
                // Streamed as model.reasoning_delta, model.redacted_reasoning, then model.text_delta.
                message: {
                  role: "assistant",
                  content: [
                    { type: "reasoning", text: "thinking it over", signature: "sig" },
                    { type: "redacted_reasoning", data: "opaque" },
                    { type: "text", text: "all done" },
                  ],
                  toolCalls: [],
                },
                usage: usage({ inputTokens: 10, outputTokens: 5 }),
              },
            ],
            { usage: usage({ inputTokens: 10, outputTokens: 5 }) },
          ),
          { pricing: { inputPerMillion: 1, outputPerMillion: 2 } },
        )
        .registerTool(
          FakeTool.of("progressive", (_args, ctx) => {
            ctx.progress("halfway", { percent: 50 });
            return "ok";
          }),
        )
        .registerTool(FakeTool.failing("broken", "kaput"))
        .registerTool(
          tool({
            name: "strict_args",
            description: "needs a name",
            inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
            execute: () => "unreachable",
          }),
        )
        .use({
          name: "router",
          beforeModel: (_ctx, request) => {
            request.requiredCapabilities = { tools: true };
            // First call: an override that lacks tools. Later calls: stay on whatever served.
            if (request.messages.length === 1) request.model = "limited";
            else request.reusePreviousModel = true;
          },
        });
      const sink = new EventSink("cov-1");
      observed.attach(sink);
      const items = [];
      for await (const item of lowerLayer(harness).invokeStreaming(
        undefined,
        undefined,
        { runId: "cov-1", threadId: "t" },
        "go",
        {
          events: sink,
        },
      )) {
        items.push(item);
      }
      const last = items.at(-1);
      expect(last?.type).toBe("completed");
      if (last?.type === "failed") throw last.error;
      if (last?.type === "completed") expect(runText(last.run)).toBe("all done");
    }

    // Scenario 2: a middleware interrupts the run.
    {
      const { harness } = makeHarness();
      harness.registerModel("m", new ScriptedModel(["unused"])).use({
        name: "pause",
        beforeAgent: (ctx) => ctx.run.requestControl({ kind: "interrupt", reason: "approval needed" }),
      });
      const sink = new EventSink("cov-2");
      observed.attach(sink);
      const outcome = await lowerLayer(harness).invokeCollectingPartial(
        undefined,
        undefined,
        { runId: "cov-2" },
        "hi",
        {
          events: sink,
        },
      );
      expect(outcome.status.status).toBe("interrupted");
    }

    // Scenario 3: a throwing middleware fails the run.
    {
      const { harness } = makeHarness();
      harness.registerModel("m", new ScriptedModel(["unused"])).use({
        name: "broken",
        beforeAgent: () => {
          throw new Error("nope");
        },
      });
      const sink = new EventSink("cov-3");
      observed.attach(sink);
      const outcome = await lowerLayer(harness).invokeCollectingPartial(
        undefined,
        undefined,
        { runId: "cov-3" },
        "hi",
        {
          events: sink,
        },
      );
      expect(outcome.error?.code).toBe("middleware");
    }

    // Scenario 4: a model-call cap is reached.
    {
      const { harness } = makeHarness();
      harness
        .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "noop" }] }]))
        .registerTool(FakeTool.returning("noop", "ok"));
      const sink = new EventSink("cov-4");
      observed.attach(sink);
      const outcome = await lowerLayer(harness).invokeCollectingPartial(
        undefined,
        undefined,
        { runId: "cov-4", maxModelCalls: 1 },
        "hi",
        {
          events: sink,
        },
      );
      expect(outcome.error?.code).toBe("limit_exceeded");
    }

    // Scenario 5: a stop-with-final control request.
    {
      const { harness } = makeHarness();
      harness.registerModel("m", new ScriptedModel(["unused"])).use({
        name: "stopper",
        beforeAgent: (ctx) => ctx.run.requestControl({ kind: "stopWithFinal", text: "stopped early" }),
      });
      const sink = new EventSink("cov-5");
      observed.attach(sink);
      const outcome = await lowerLayer(harness).invokeCollectingPartial(
        undefined,
        undefined,
        { runId: "cov-5" },
        "hi",
        {
          events: sink,
        },
      );
      expect(runText(outcome.run)).toBe("stopped early");
    }

    // Scenario 6: a journal that cannot keep up drops observations and reports it.
    {
      const { harness } = makeHarness();
      harness.registerModel("m", new ScriptedModel(["done"]));
      const sink = new EventSink("cov-6");
      observed.attach(sink);
      const obs = attachObservability(sink, { journal: new InMemoryEventJournal(), maxQueue: 1 });
      await lowerLayer(harness).invokeCollectingPartial(undefined, undefined, { runId: "cov-6" }, "hi", {
        events: sink,
      });
      await obs.close();
      expect(obs.journalSink?.dropped).toBeGreaterThan(0);
    }

    // Scenario 7: sub-agents (one within the depth limit, one past it, a reused session),
    // steering (pause, then resume), a per-run workspace with a violation, an artifact, and an
    // oversized result offloaded to the handoff cache.
    {
      const { harness: childHarness } = makeHarness();
      childHarness.registerModel("m", new ScriptedModel(["child answer", "turn 1", "turn 2"]));
      const child = new SubAgent({ name: "child", description: "answers", harness: childHarness });
      const artifacts = new ArtifactStore();
      const cache = new ResultHandoffCache({ thresholdBytes: 10, previewChars: 5 });
      const script = [
        {
          toolCalls: [
            { id: "a", name: "child", arguments: { input: "q" } },
            { id: "b", name: "work" },
          ],
        },
        "done",
      ];
      const { harness } = makeHarness();
      harness
        .registerModel("m", new ScriptedModel(script.slice(0, 1)))
        .registerTool(new SubAgentTool(child))
        .registerTool(
          FakeTool.of("work", async (_args, ctx) => {
            await enforceWorkspace(ctx.run, "../escape").catch(() => undefined);
            const ref = await artifacts.put({ name: "out.txt", content: "a long output" }, ctx.run);
            ctx.run.steering?.pause();
            return { ...artifactResult(ref), content: [{ type: "text", text: "x".repeat(50) }] };
          }),
        )
        .use(largeResultHandoff(cache));
      const sink = new EventSink("cov-7");
      observed.attach(sink);
      const steering = SteeringHandle.allowAll();
      const ctx = lowerLayer(harness).createContext({ runId: "cov-7", maxDepth: 1 }, undefined, {
        events: sink,
        steering,
      });
      await withWorkspace(new TempDirWorkspace(), ctx, async () => {
        const paused = await lowerLayer(harness).invokeInContextCollectingPartial(undefined, ctx, "go");
        expect(paused.status.status).toBe("interrupted");
        const { harness: fresh } = makeHarness();
        fresh.registerModel("m", new ScriptedModel(script.slice(1)));
        const resumed = await lowerLayer(fresh).resumeCollectingPartial(
          undefined,
          undefined,
          paused.run.paused!,
          {
            events: sink,
          },
        );
        expect(resumed.error).toBeUndefined();
        // Past the depth limit (the parent is at depth 1 of max 1): `subagent.failed`.
        await child
          .run("x", {
            parent: lowerLayer(harness).createContext({ depth: 1, maxDepth: 1 }, undefined, { events: sink }),
          })
          .catch(() => undefined);
        const session = new SubAgentSession(child);
        await session.send("one", { parent: ctx });
        await session.send("two", { parent: ctx }); // subagent.reused
      });
    }

    // Scenario 8: the built-in middleware library. An allowlist (tools.filtered, and the
    // cache.layout_changed it causes), a rate limit that waits, a retried idempotent tool and a
    // budget that warns, overruns and finally blocks; then approval, a guardrail and no-progress.
    {
      const runWith = async (harness: ReturnType<typeof makeHarness>["harness"], runId: string) => {
        const sink = new EventSink(runId);
        observed.attach(sink);
        return lowerLayer(harness).invokeCollectingPartial(undefined, undefined, { runId }, "hi", {
          events: sink,
        });
      };
      let flakes = 0;
      const flaky = FakeTool.of(
        "flaky",
        () => {
          if (++flakes === 1) throw new Error("transient");
          return "ok";
        },
        { idempotent: true },
      );
      const turns = [{ toolCalls: [{ name: "flaky" }] }, { toolCalls: [{ name: "flaky" }] }, "unused"];
      const governed = makeHarness().harness;
      governed
        .registerModel("m", new ScriptedModel(turns, { usage: usage({ inputTokens: 10, outputTokens: 5 }) }))
        .registerTool(flaky)
        .registerTool(FakeTool.returning("hidden", "never"))
        .use(toolAllowlistMiddleware({ allow: ["flaky"] }))
        .use(rateLimitMiddleware({ requests: { capacity: 1, refillPerSecond: 1 } }))
        .use(toolRetryMiddleware())
        .use(budgetMiddleware({ limits: { maxOutputTokens: 6 } }));
      expect((await runWith(governed, "cov-8a")).error?.code).toBe("limit_exceeded");

      const approvals = makeHarness().harness;
      approvals
        .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "pay" }] }]))
        .registerTool(FakeTool.returning("pay", "paid", { policy: { requiresApproval: true } }))
        .use(humanApprovalMiddleware());
      expect((await runWith(approvals, "cov-8b")).status.status).toBe("interrupted");

      const guarded = makeHarness().harness;
      guarded
        .registerModel("m", new ScriptedModel(["unused"]))
        .use(guardrailsMiddleware({ input: [{ name: "block_all", check: () => ({ tripped: true }) }] }));
      expect((await runWith(guarded, "cov-8c")).error?.code).toBe("guardrail");

      const stuck = makeHarness().harness;
      const again = { toolCalls: [{ name: "broken", arguments: { x: 1 } }] };
      stuck
        .registerModel("m", new ScriptedModel([again, again, again]))
        .registerTool(FakeTool.failing("broken", "kaput"))
        .use(noProgressMiddleware({ maxRepeatedFailures: 2 }));
      expect((await runWith(stuck, "cov-8d")).error?.details?.limit).toBe("no_progress");
    }

    // Scenario 9: context engineering — a response cache (misses, then hits on a repeat run),
    // context compression over a tiny budget, and a structured answer that needs one re-ask.
    {
      const { harness } = makeHarness();
      harness
        .registerModel(
          "m",
          new ScriptedModel([{ toolCalls: [{ name: "lookup" }] }, "not json", '{"ok": true}']),
        )
        .registerTool(FakeTool.returning("lookup", "x".repeat(400)))
        .withResponseCache(new InMemoryResponseCache())
        .use(contextCompressionMiddleware({ triggerTokens: 50, keepLast: 1 }));
      const agent = harness.withResponseFormat(
        { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
        { strategy: "native", maxReasks: 1 },
      );
      const sink = new EventSink("cov-9");
      observed.attach(sink);
      const first = await lowerLayer(agent).invokeCollectingPartial(
        undefined,
        undefined,
        { runId: "cov-9" },
        "go",
        {
          events: sink,
        },
      );
      expect(first.run.structured).toEqual({ ok: true });
      // The same conversation again: every model call is served from the cache.
      const again = await lowerLayer(agent).invokeCollectingPartial(
        undefined,
        undefined,
        { runId: "cov-9b" },
        "go",
        {
          events: sink,
        },
      );
      expect(again.run.structured).toEqual({ ok: true });
    }

    // Scenario 10: trace details (request parameters, response ids, tool results) for exporters.
    {
      const { harness } = makeHarness();
      harness
        .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "echo" }] }, "ok"]))
        .registerTool(FakeTool.returning("echo", "echoed"))
        .use(traceDetailsMiddleware());
      const sink = new EventSink("cov-10");
      observed.attach(sink);
      const details: string[] = [];
      sink.subscribe((record) => {
        if ("details" in record.event && record.event.details !== undefined) details.push(record.event.type);
      });
      await lowerLayer(harness).invoke(undefined, undefined, { runId: "cov-10" }, "go", { events: sink });
      // Folded into the call's own records, not records of their own.
      expect(details).toEqual([
        "model.started",
        "model.completed",
        "tool.completed",
        "model.started",
        "model.completed",
      ]);
      // A tool call retried by a wrap after its first attempt ended it: the retry's result.
      let calls = 0;
      const { harness: retrying } = makeHarness();
      retrying
        .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "flaky" }] }, "ok"]))
        .registerTool(
          FakeTool.of(
            "flaky",
            () => {
              if (++calls === 1) throw new Error("flake");
              return "fine";
            },
            { idempotent: true },
          ),
        )
        .use(toolRetryMiddleware({ policy: { initialBackoffMs: 1 } }))
        .use(traceDetailsMiddleware());
      const retried = new EventSink("cov-10b");
      observed.attach(retried);
      await lowerLayer(retrying).invoke(undefined, undefined, { runId: "cov-10b" }, "go", {
        events: retried,
      });
    }

    // Scenario 11: liveness (a run with a lease heartbeats).
    {
      const { harness } = makeHarness();
      harness.registerModel("m", new ScriptedModel(["ok"]));
      const sink = new EventSink("cov-11");
      observed.attach(sink);
      await lowerLayer(harness).invoke(undefined, undefined, { runId: "cov-11" }, "go", {
        events: sink,
        durability: { ownerId: "worker-1" },
      });
    }

    // Scenario 12: an engine re-drives a run whose worker died inside a model and a tool call:
    // the execution's journal closes the dead attempts (`*.abandoned`).
    {
      const journal = new InMemoryEventJournal();
      const at = (offset: number, event: AgentEvent): AgentObservation => ({
        id: `cov-12-evt-${offset}`,
        offset,
        ts: offset,
        runId: "cov-12",
        rootRunId: "cov-12",
        depth: 0,
        event,
      });
      const modelStarted: AgentEvent = {
        type: "model.started",
        callId: "m1",
        model: "m",
        provider: "p",
        providerModelId: "p-1",
        attempt: 1,
      };
      await journal.appendMany([
        at(0, { type: "tool.started", callId: "t1", toolName: "charge", arguments: {} }),
        at(1, modelStarted),
      ]);
      const reconciled = await ReplayReconcilingJournal.open(journal, "cov-12");
      await reconciled.appendMany([
        at(0, modelStarted),
        at(1, {
          type: "run.failed",
          error: { name: "TinyAgentsError", code: "internal", message: "gave up" },
        }),
      ]);
      for (const observation of await journal.read("cov-12")) observed.listener(observation);
    }

    const seen = new Set(observed.types());
    const missing = ALL_EVENT_TYPES.filter((type) => !seen.has(type));
    expect(missing).toEqual([]);
    // And nothing outside the union, or of the legacy types, was emitted.
    const known = new Set<string>(ALL_EVENT_TYPES);
    expect([...seen].filter((type) => !known.has(type))).toEqual([]);
  });
});
