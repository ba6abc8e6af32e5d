import type { ChatModel, ModelStreamItem, Usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { formatCost } from "../cost/unknown-usage.js";
import { EventSink } from "../events/event-sink.js";
import { attachObservability } from "../observability/attach-observability.js";
import { InMemoryEventJournal } from "../observability/in-memory-event-journal.js";
import { InMemoryHarnessStatusStore } from "../observability/in-memory-status-store.js";
import { rebuildProjections } from "../observability/projection-set.js";
import { createAgent } from "../runtime/create-agent.js";
import { AgentRunError } from "../runtime/run-result.js";
import { StreamingMock } from "../testkit/streaming-mock.js";

// Issue 35: tokens billed before a call fails. A streaming call that fails after the provider
// began answering (or a call abandoned by a cancel or a timeout) may have been billed: its usage
// and cost never read as a known 0; usage it reported before failing is carried.

const pricing = { inputPerMillion: 1_000_000, outputPerMillion: 1_000_000 }; // $1 per token
const usage = (inputTokens: number, outputTokens: number): Usage => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
});
const broken: ModelStreamItem = { type: "error", message: "connection reset mid-stream", retryable: false };

async function failedStream(items: ModelStreamItem[]): Promise<AgentRunError> {
  const agent = createAgent({
    model: new StreamingMock([items]),
    pricing,
    policy: { retry: { maxRetries: 0 } },
  });
  const error = await agent
    .stream("go")
    .result.then(() => undefined)
    .catch((e: unknown) => e);
  expect(AgentRunError.isAgentRunError(error)).toBe(true);
  return error as AgentRunError;
}

describe("a model call that failed after it may have been billed", () => {
  it("agent.stream: text arrived, then the stream broke without usage: usage and cost are unknown, not 0", async () => {
    const error = await failedStream([{ type: "start" }, { type: "text_delta", text: "Hel" }, broken]);
    expect(error.run.usage.unknown).toBe(true);
    expect(error.run.cost.unknown).toBe(true);
    expect(formatCost(error.run.cost)).toBe("unknown");
    expect(error.status.usage.unknown).toBe(true); // the status record agrees
  });

  it("the stored status and the projections rebuilt from the journal say unknown too (model.failed usageUnknown)", async () => {
    const journal = new InMemoryEventJournal();
    const statusStore = new InMemoryHarnessStatusStore();
    const events = new EventSink("run-j");
    const observed = attachObservability(events, { journal, statusStore });
    const model = new StreamingMock([[{ type: "start" }, { type: "text_delta", text: "Hel" }, broken]]);
    const agent = createAgent({ model, pricing, policy: { retry: { maxRetries: 0 } } });
    await agent.stream("go", { runId: "run-j", events }).result.catch(() => undefined);
    await observed.close();
    const failed = (await journal.read("run-j")).find((o) => o.event.type === "model.failed");
    expect(failed?.event).toMatchObject({ type: "model.failed", usageUnknown: true });
    expect((await statusStore.get("run-j"))?.usage.unknown).toBe(true);
    expect((await statusStore.get("run-j"))?.cost.unknown).toBe(true);
    const rebuilt = await rebuildProjections(journal, "run-j");
    expect(rebuilt.status.value.find((s) => s.runId === "run-j")?.usage.unknown).toBe(true);
    expect(rebuilt.usage.value["run-j"]?.own.usage.unknown).toBe(true);
    expect(rebuilt.usage.value["run-j"]?.own.cost.unknown).toBe(true);
  });

  it("agent.stream: usage reported before the break is carried, as a lower bound", async () => {
    const error = await failedStream([
      { type: "start" },
      { type: "usage", usage: usage(10, 2) },
      { type: "text_delta", text: "Hel" },
      broken,
    ]);
    expect(error.run.usage).toMatchObject({ inputTokens: 10, outputTokens: 2, unknown: true });
    expect(error.run.cost.total).toBe(12);
    expect(formatCost(error.run.cost)).toBe("at least $12.000000");
  });

  it("agent.stream: refused before it began (an error first): nothing billed, the zero stays known", async () => {
    const error = await failedStream([broken]);
    expect(error.run.usage.unknown).toBeUndefined();
    expect(error.run.usage.totalTokens).toBe(0);
    expect(formatCost(error.run.cost)).toBe("$0.000000");
  });

  it("agent.stream: a retried attempt that had begun makes the final totals a lower bound", async () => {
    const model = new StreamingMock([
      [{ type: "start" }, { type: "error", message: "overloaded", status: 529, retryable: true }],
      [
        { type: "start" },
        { type: "text_delta", text: "done" },
        { type: "usage", usage: usage(3, 1) },
        { type: "finish", finishReason: "stop" },
      ],
    ]);
    const agent = createAgent({ model, pricing, policy: { retry: { maxRetries: 1, initialBackoffMs: 0 } } });
    const result = await agent.stream("go").result;
    expect(model.callCount).toBe(2);
    expect(result.text).toBe("done");
    expect(result.usage).toMatchObject({ inputTokens: 3, outputTokens: 1, unknown: true });
    expect(formatCost(result.cost)).toBe("at least $4.000000");
  });

  it("agent.run: a call cancelled while the provider works on it is unknown, not 0", async () => {
    let called!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      called = resolve;
    });
    const hanging: ChatModel = {
      provider: "test",
      modelId: "hanging",
      invoke: (_request, options) =>
        new Promise((_resolve, reject) => {
          called();
          options?.signal?.addEventListener("abort", () => reject(options.signal?.reason));
        }),
    };
    const agent = createAgent({ model: hanging, pricing });
    const controller = new AbortController();
    const run = agent.run("go", { signal: controller.signal }).catch((e: unknown) => e);
    await inFlight;
    controller.abort();
    const error = (await run) as AgentRunError;
    expect(error.code).toBe("cancelled");
    expect(error.run.usage.unknown).toBe(true);
    expect(formatCost(error.run.cost)).toBe("unknown");
  });
});
