/**
 * A streaming parent streams its sub-agents too, so two sub-agents called in parallel stream into
 * one run tree at once. With the default delta coalescing, the journal must still get that tree's
 * records in offset order (a merged record carries its first delta's offset): every record
 * stored, none refused as a second writer's, and each sub-agent's whole answer in its deltas.
 */
import {
  type AgentObservation,
  attachObservability,
  createAgent,
  EventSink,
  InMemoryEventJournal,
} from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { describe, expect, it } from "vitest";

const ALPHA = "Alpha streams this answer in several pieces, token after token.";
const BETA = "Beta answers at the same time, interleaved with Alpha's pieces.";

describe("journal of parallel streaming sub-agents", () => {
  it("stores every record of the run tree in offset order, with each sub-agent's whole text", async () => {
    const alpha = createAgent({ model: new ScriptedModel([ALPHA]) });
    const beta = createAgent({ model: new ScriptedModel([BETA]) });
    const parent = createAgent({
      model: new ScriptedModel([
        {
          toolCalls: [
            { id: "t-a", name: "alpha", arguments: { input: "a?" } },
            { id: "t-b", name: "beta", arguments: { input: "b?" } },
          ],
        },
        "Both answered.",
      ]),
      tools: [
        alpha.asTool({ name: "alpha", description: "Answers a" }),
        beta.asTool({ name: "beta", description: "Answers b" }),
      ],
    });
    const journal = new InMemoryEventJournal();
    const events = new EventSink("tree-1");
    const errors: unknown[] = [];
    const obs = attachObservability(events, { journal, onError: (error) => errors.push(error) });
    const childDeltas = new Map<string, number>();
    for await (const item of parent.stream("Ask both", { runId: "tree-1", events })) {
      if (item.type === "event" && item.record.depth === 1 && item.record.event.type === "model.text_delta")
        childDeltas.set(item.record.runId, (childDeltas.get(item.record.runId) ?? 0) + 1);
    }
    await obs.close();

    // The two children really streamed, two deltas each (the testkit model streams text in 2 pieces).
    expect([...childDeltas.values()]).toEqual([2, 2]);
    expect(childDeltas.size).toBe(2);
    expect(errors).toEqual([]);
    const stored: AgentObservation[] = await journal.read("tree-1");
    expect(stored.map((r) => r.event.type)).not.toContain("journal.dropped");
    const offsets = stored.map((r) => r.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    const textOf = (runId: string) =>
      stored
        .filter((r) => r.runId === runId && r.event.type === "model.text_delta")
        .map((r) => (r.event as { text: string }).text)
        .join("");
    const texts = [...childDeltas.keys()].map(textOf).sort();
    expect(texts).toEqual([ALPHA, BETA].sort());
  });
});
