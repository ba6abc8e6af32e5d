// Agents the Restate end-to-end tests serve. Every model is a pure function of its request, so a
// run that Restate replays asks for the same things.
import { createAgent, InMemoryEventJournal } from "@tinyagents/harness";
import { createConformanceAgent } from "@tinyagents/harness/testkit";
import { assistant, type ChatModel, type ModelRequest, text, usage } from "@tinyagents/inference";

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
