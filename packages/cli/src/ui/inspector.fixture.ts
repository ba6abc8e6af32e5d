/**
 * Test support (not part of the build's entries): real agent runs journaled into a store, for the
 * inspector's tests — tools, a sub-agent, a retry, a fallback, a failure, a pending approval, a
 * prompt-cache bust, a hostile tool result, and two runs held open until the test releases them (one
 * of them steerable).
 */
import {
  AgentHarness,
  type AgentRun,
  attachObservability,
  EventSink,
  type HarnessEventJournal,
  type HarnessStatusStore,
  humanApprovalMiddleware,
  type Middleware,
  SteeringHandle,
  SubAgent,
  SubAgentTool,
} from "@tinyagents/harness";
import { traceDetailsMiddleware } from "@tinyagents/harness/observability";
import { FakeTool, ScriptedModel, type ScriptStep } from "@tinyagents/harness/testkit";
import { ProviderError, type Usage } from "@tinyagents/inference";
import { InspectorControls } from "./run-controls.js";
import { TrickleModel } from "./trickle-model.fixture.js";

export const XSS_PAYLOAD = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`;

const usage = (input: number, output: number, cached = 0): Usage => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input + output,
  cacheReadTokens: cached,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
});
const pricing = { pricing: { inputPerMillion: 2, outputPerMillion: 8, cacheReadPerMillion: 0.5 } };
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A scripted reply after `ms` (so the timeline has visible bars). */
const after =
  (ms: number, reply: Exclude<ScriptStep, (...args: never[]) => unknown>): ScriptStep =>
  async () => {
    await wait(ms);
    return reply;
  };

interface Stores {
  journal: HarnessEventJournal;
  statusStore: HarnessStatusStore;
}

/** A run in progress: its event sink (reused to resume it) and how it ends. */
interface Started {
  events: EventSink;
  done: Promise<AgentRun | Error>;
  close: () => Promise<void>;
}

function start(
  harness: AgentHarness,
  stores: Stores,
  runId: string,
  prompt: string,
  tags: string[],
  steering?: SteeringHandle,
): Started {
  const events = new EventSink(runId);
  const obs = attachObservability(events, { journal: stores.journal, statusStore: stores.statusStore });
  // Streamed (model deltas reach the journal), settled as the finished run or the run's error.
  const done = harness
    .stream(prompt, { runId, tags, events, ...(steering === undefined ? {} : { steering }) })
    .result.then(
      (run): AgentRun | Error => run as AgentRun,
      (error: Error) => error,
    );
  return { events, done, close: () => obs.close() };
}

/** The runs the inspector tests look at, and the handles to finish the live ones. */
export interface RecordedRuns {
  controls: InspectorControls;
  ids: {
    tools: string;
    fallback: string;
    failure: string;
    cacheBust: string;
    approval: string;
    live: string;
    steered: string;
  };
  /** Let the live run's tool return (the run then completes). */
  releaseLive(): void;
  /** Let the steered run's tool return (a pause sent before then takes effect at the next checkpoint). */
  releaseSteered(): void;
  /** Resolves when the live run and the approval run (after a decision) have ended. */
  settled(): Promise<void>;
}

/** Journal the scenario runs into `stores` (the approval and live runs stay open). */
export async function recordRuns(stores: Stores): Promise<RecordedRuns> {
  const controls = new InspectorControls();
  const ids = {
    tools: "run-tools",
    fallback: "run-fallback",
    failure: "run-failure",
    cacheBust: "run-cache-bust",
    approval: "run-approval",
    live: "run-live",
    steered: "run-steered",
  };
  const closers: (() => Promise<void>)[] = [];

  // 1. Tools in parallel, a sub-agent with its own tool, a hostile tool result, structured output.
  const research = new AgentHarness({ instructions: "You double-check arithmetic." })
    .registerModel(
      "research-model",
      new ScriptedModel(
        [
          after(40, { toolCalls: [{ name: "calculator", arguments: { expression: "(19+23)*2" } }] }),
          after(30, "It is 84."),
        ],
        { usage: usage(80, 12) },
      ),
      pricing,
    )
    .registerTool(FakeTool.returning("calculator", "84", { delayMs: 15 }))
    .use(traceDetailsMiddleware({ captureContent: true }));
  const tools = new AgentHarness({ instructions: "You are a helpful assistant. Use tools." })
    .registerModel(
      "main-model",
      new TrickleModel(
        [
          after(60, {
            toolCalls: [
              { name: "calculator", arguments: { expression: "(19+23)*2" } },
              { name: "fetch_page", arguments: { url: "https://example.test/" } },
            ],
          }),
          after(30, {
            toolCalls: [{ name: "research_agent", arguments: { input: "double-check (19+23)*2" } }],
          }),
          after(50, '{"answer":"84","checked":true}'),
        ],
        { usage: usage(400, 40, 300) },
      ),
      pricing,
    )
    .withPolicy({
      responseFormat: {
        type: "json_schema",
        name: "answer",
        schema: { type: "object", properties: { answer: { type: "string" }, checked: { type: "boolean" } } },
      },
    })
    .registerTool(FakeTool.returning("calculator", "84", { delayMs: 20 }))
    .registerTool(FakeTool.returning("fetch_page", XSS_PAYLOAD, { delayMs: 35 }))
    .registerTool(
      new SubAgentTool(new SubAgent({ name: "research", description: "Checks math.", harness: research }), {
        name: "research_agent",
      }),
    )
    .use(traceDetailsMiddleware({ captureContent: true }));
  const toolsRun = start(tools, stores, ids.tools, "What is (19 + 23) * 2? Check it.", ["scenario:tools"]);
  await toolsRun.done;
  await toolsRun.close();

  // 2. A retry, then a fallback to a second model.
  const down = () =>
    new ProviderError({ provider: "p", message: "primary is down", kind: "upstream_unhealthy", status: 503 });
  const { modelFallbackMiddleware } = await import("@tinyagents/harness");
  const fallback = new AgentHarness({ instructions: "Answer briefly." })
    .registerModel("primary", new ScriptedModel([after(20, down()), after(20, down())]), pricing)
    .registerModel(
      "backup",
      new ScriptedModel([after(40, "From the backup model.")], { usage: usage(50, 8) }),
      pricing,
    )
    .withPolicy({ retry: { maxRetries: 1, initialBackoffMs: 30 } })
    .use(modelFallbackMiddleware({ models: ["backup"] }))
    .use(traceDetailsMiddleware({ captureContent: true }));
  const fallbackRun = start(fallback, stores, ids.fallback, "Say hello.", ["scenario:fallback"]);
  await fallbackRun.done;
  await fallbackRun.close();

  // 3. A failure: a non-retryable provider error.
  const failing = new AgentHarness({ instructions: "Answer." })
    .registerModel(
      "broken",
      new ScriptedModel([
        after(
          20,
          new ProviderError({
            provider: "p",
            message: "invalid request: bad schema",
            kind: "non_retryable",
            status: 400,
          }),
        ),
      ]),
    )
    .use(traceDetailsMiddleware({ captureContent: true }));
  const failureRun = start(failing, stores, ids.failure, "This will fail.", ["scenario:failure"]);
  await failureRun.done;
  await failureRun.close();

  // 4. The prompt cache: a middleware rewrites the system prompt before the second call (busted).
  let calls = 0;
  const rotate: Middleware = {
    name: "rotating_date",
    changes: "prefix",
    beforeModel(_ctx, request) {
      const day = calls++;
      if (day === 0) return request;
      return {
        ...request,
        messages: request.messages.map((m) =>
          m.role === "system" ? { ...m, content: [{ type: "text", text: `Today is day ${day}.` }] } : m,
        ),
      };
    },
  };
  const cacheBust = new AgentHarness({ instructions: "Today is day 0." })
    .registerModel(
      "cached-model",
      new ScriptedModel(
        [
          after(20, { toolCalls: [{ name: "calculator", arguments: { expression: "1+1" } }] }),
          after(20, "2"),
        ],
        {
          usage: usage(500, 10, 450),
        },
      ),
      pricing,
    )
    .registerTool(FakeTool.returning("calculator", "2"))
    .use(rotate)
    .use(traceDetailsMiddleware({ captureContent: true }));
  const cacheRun = start(cacheBust, stores, ids.cacheBust, "1+1?", ["scenario:cache"]);
  await cacheRun.done;
  await cacheRun.close();

  // 5. A pending approval, decided through the inspector's controls (which resume the run).
  const approval = humanApprovalMiddleware();
  const approving = new AgentHarness({ instructions: "Pay bills when asked." })
    .registerModel(
      "pay-model",
      new ScriptedModel(
        [
          after(20, { toolCalls: [{ name: "transfer", id: "c1", arguments: { amount: 100 } }] }),
          after(20, "Paid."),
        ],
        {
          usage: usage(90, 9),
        },
      ),
      pricing,
    )
    .registerTool(FakeTool.returning("transfer", "sent $100", { policy: { requiresApproval: true } }))
    .use(approval)
    .use(traceDetailsMiddleware({ captureContent: true }));
  const approvalRun = start(approving, stores, ids.approval, "Pay the $100 bill.", ["scenario:approval"]);
  const paused = await approvalRun.done;
  if (paused instanceof Error || paused.paused === undefined)
    throw new Error("the approval run did not pause");
  const pausedRun = paused.paused;
  let approvalEnded: Promise<unknown> = Promise.resolve();
  let resumed = false;
  controls.register(ids.approval, {
    approvals: approval.approvals,
    resume: () => {
      resumed = true;
      approvalEnded = approving.resume(pausedRun, { events: approvalRun.events });
      return approvalEnded;
    },
  });
  closers.push(async () => {
    if (resumed) await approvalEnded.catch(() => {});
    await approvalRun.close();
  });

  // 6. A live run: its tool waits for the test.
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const live = new AgentHarness({ instructions: "Wait for the signal." })
    .registerModel(
      "live-model",
      new ScriptedModel(
        [
          after(20, { toolCalls: [{ name: "wait_for_signal", arguments: {} }] }),
          after(20, "The signal came."),
        ],
        {
          usage: usage(60, 6),
        },
      ),
      pricing,
    )
    .registerTool(
      FakeTool.of("wait_for_signal", async () => {
        await gate;
        return "signal received";
      }),
    )
    .use(traceDetailsMiddleware({ captureContent: true }));
  const liveRun = start(live, stores, ids.live, "Wait for the signal, then say so.", ["scenario:live"]);
  closers.push(async () => {
    await liveRun.done;
    await liveRun.close();
  });
  // Let the live run reach its tool (journaled as running) before the tests look.
  for (let i = 0; i < 200; i++) {
    const started = await stores.journal.read(ids.live, { types: ["tool.started"] });
    if (started.length > 0) break;
    await wait(10);
  }

  // 7. A steered run: its process listens (steering handle + resume), its tool waits for the test.
  let releaseSteered = () => {};
  const steeredGate = new Promise<void>((resolve) => {
    releaseSteered = resolve;
  });
  const steering = SteeringHandle.allowAll();
  const steerable = new AgentHarness({ instructions: "Work in steps." })
    .registerModel(
      "steer-model",
      new ScriptedModel(
        [
          after(20, { toolCalls: [{ name: "slow_step", arguments: {} }] }),
          after(20, "Finished after the pause."),
        ],
        {
          usage: usage(70, 7),
        },
      ),
      pricing,
    )
    .registerTool(
      FakeTool.of("slow_step", async () => {
        await steeredGate;
        return "step done";
      }),
    )
    .use(traceDetailsMiddleware({ captureContent: true }));
  const steeredRun = start(
    steerable,
    stores,
    ids.steered,
    "Do the slow step.",
    ["scenario:steering"],
    steering,
  );
  let steeredEnded: Promise<unknown> = steeredRun.done;
  controls.register(ids.steered, {
    steering,
    resume: async () => {
      const first = await steeredRun.done;
      if (first instanceof Error || first.paused === undefined)
        throw new Error("the steered run is not paused");
      steeredEnded = steerable.resume(first.paused, {
        events: steeredRun.events,
        steering,
      });
      return steeredEnded;
    },
  });
  closers.push(async () => {
    await steeredRun.done;
    await steeredEnded.catch(() => {});
    await steeredRun.close();
  });
  for (let i = 0; i < 200; i++) {
    const started = await stores.journal.read(ids.steered, { types: ["tool.started"] });
    if (started.length > 0) break;
    await wait(10);
  }

  return {
    controls,
    ids,
    releaseLive: () => release(),
    releaseSteered: () => releaseSteered(),
    settled: async () => {
      for (const close of closers) await close();
    },
  };
}
