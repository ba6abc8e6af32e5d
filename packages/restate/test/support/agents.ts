// Agents the Restate end-to-end tests serve. Every model is a pure function of its request, so a
// run that Restate replays asks for the same things.
import { createAgent, InMemoryEventJournal, tool } from "@tinyagents/harness";
import { createConformanceAgent } from "@tinyagents/harness/testkit";
import {
  assistant,
  type ChatModel,
  type ModelRequest,
  TinyAgentsError,
  text,
  usage,
} from "@tinyagents/inference";

/** The live event journal workers write and the client tails (one process here). */
export const journal = new InMemoryEventJournal();

/** `start:<input>` / `end:<input>` of every call of the ordered model, in time order. */
export const orderLog: string[] = [];

/** Answers `done <input>` after a short pause, logging its start and end (thread ordering). */
class OrderedModel implements ChatModel {
  readonly provider = "test";
  readonly modelId = "ordered-1";
  async invoke(request: ModelRequest) {
    const input = text(request.messages.findLast((m) => m.role === "user") ?? assistant(""));
    orderLog.push(`start:${input}`);
    await new Promise((resolve) => setTimeout(resolve, 40));
    orderLog.push(`end:${input}`);
    return {
      message: assistant(`done ${input}`),
      finishReason: "stop" as const,
      usage: usage({ inputTokens: 5, outputTokens: 2 }),
    };
  }
}

export const testAgents = {
  conformance: () => createConformanceAgent({ autoApprove: true, modelDelayMs: 0, toolDelayMs: 0 }).agent,
  ordered: () =>
    createAgent({ model: new OrderedModel(), pricing: { inputPerMillion: 1, outputPerMillion: 2 } }),
};

/** Set once the steering agent's `hold` tool is running (the run is live mid-way). */
export let holdStarted = false;

/** Opens the gate the steering agent's `hold` tool waits behind. */
export let openGate: () => void = () => {};
const gate = new Promise<void>((resolve) => {
  openGate = resolve;
});

/**
 * Steering: asks for `hold` (which waits for the test's gate), then `noop`; answers with what a
 * `[steering:redirect]` message said if one reached the transcript.
 */
class SteeredModel implements ChatModel {
  readonly provider = "test";
  readonly modelId = "steered-1";
  async invoke(request: ModelRequest) {
    const all = request.messages.map((m) => text(m));
    const redirect = all.find((t) => t.startsWith("[steering:redirect] "));
    const answered = new Set(request.messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
    const spent = usage({ inputTokens: 3, outputTokens: 1 });
    if (!answered.has("c-hold")) {
      return {
        message: assistant("", [{ id: "c-hold", name: "hold", arguments: {} }]),
        finishReason: "tool_calls" as const,
        usage: spent,
      };
    }
    if (!answered.has("c-noop")) {
      return {
        message: assistant("", [{ id: "c-noop", name: "noop", arguments: {} }]),
        finishReason: "tool_calls" as const,
        usage: spent,
      };
    }
    const answer = redirect === undefined ? "not redirected" : `redirected: ${redirect.slice(20)}`;
    return { message: assistant(answer), finishReason: "stop" as const, usage: spent };
  }
}

/** Child runs: answers `<name> says: <input>` once its sibling started too, logging start and end. */
export const childLog: string[] = [];

/** The lead's two children. */
const SIBLINGS = ["researcher", "writer"];
const startedSiblings = new Set<string>();
let siblingsStarted: () => void = () => {};
const bothSiblingsStarted = new Promise<void>((resolve) => {
  siblingsStarted = resolve;
});

/**
 * Wait until both children have started their model call, or `limitMs` passed. The parallel
 * sub-agents test needs both starts logged before either end, whatever the load: a fixed 40 ms
 * pause (what it had) let one child finish before a delayed sibling started. Run in sequence, the
 * first child gives up after `limitMs` and the test fails on the log instead of hanging.
 */
async function rendezvous(child: string, limitMs = 10_000): Promise<void> {
  startedSiblings.add(child);
  if (SIBLINGS.every((name) => startedSiblings.has(name))) siblingsStarted();
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    bothSiblingsStarted,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, limitMs);
    }),
  ]);
  clearTimeout(timer);
}

class ChildModel implements ChatModel {
  readonly provider = "test";
  constructor(readonly modelId: string) {}
  async invoke(request: ModelRequest) {
    const input = text(request.messages.findLast((m) => m.role === "user") ?? assistant(""));
    childLog.push(`start:${this.modelId}`);
    await rendezvous(this.modelId);
    childLog.push(`end:${this.modelId}`);
    return {
      message: assistant(`${this.modelId} says: ${input}`),
      finishReason: "stop" as const,
      usage: usage({ inputTokens: 7, outputTokens: 3 }),
    };
  }
}

/** The lead: asks both sub-agents at once, then answers with what they said. */
class LeadModel implements ChatModel {
  readonly provider = "test";
  readonly modelId = "lead-1";
  async invoke(request: ModelRequest) {
    const results = request.messages.flatMap((m) => (m.role === "tool" ? [text(m)] : []));
    const spent = usage({ inputTokens: 11, outputTokens: 5 });
    if (results.length === 0) {
      return {
        message: assistant("", [
          { id: "c-r", name: "researcher", arguments: { input: "find facts" } },
          { id: "c-w", name: "writer", arguments: { input: "draft text" } },
        ]),
        finishReason: "tool_calls" as const,
        usage: spent,
      };
    }
    return {
      message: assistant(`lead: ${results.sort().join(" | ")}`),
      finishReason: "stop" as const,
      usage: spent,
    };
  }
}

/** Fails every call the way a provider that stayed down does (after the harness's own retries). */
export let brokenCalls = 0;
class BrokenModel implements ChatModel {
  readonly provider = "test";
  readonly modelId = "broken-1";
  async invoke(): Promise<never> {
    brokenCalls += 1;
    throw new TinyAgentsError("provider", "upstream unavailable", { details: { status: 401 } });
  }
}

const researcher = () => createAgent({ model: new ChildModel("researcher") });
const writer = () => createAgent({ model: new ChildModel("writer") });

export const moreAgents = {
  approvals: () => createConformanceAgent({ modelDelayMs: 0, toolDelayMs: 0 }).agent,
  steered: () =>
    createAgent({
      model: new SteeredModel(),
      tools: [
        tool({
          name: "hold",
          description: "waits for the test",
          inputSchema: { type: "object" },
          execute: async () => {
            holdStarted = true;
            await gate;
            return "held";
          },
        }),
        tool({
          name: "noop",
          description: "does nothing",
          inputSchema: { type: "object" },
          execute: async () => "ok",
        }),
      ],
    }),
  researcher,
  writer,
  lead: () =>
    createAgent({
      model: new LeadModel(),
      tools: [
        researcher().asTool({ name: "researcher", description: "researches" }),
        writer().asTool({ name: "writer", description: "writes" }),
      ],
    }),
  broken: () =>
    createAgent({ model: new BrokenModel(), policy: { retry: { maxRetries: 1, initialBackoffMs: 1 } } }),
};
