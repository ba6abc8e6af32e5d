/**
 * Acceptance: compression middleware in real runs — provenance, `context.compressed`, failure
 * policies, and cache-friendliness (a compression changes the prefix once, later turns keep it).
 */
import {
  ConcatSummarizer,
  contextCompressionMiddleware,
  LlmSummarizer,
  microcompactMiddleware,
  outputCompressionMiddleware,
  retrievedContextCompressionMiddleware,
  type Summarizer,
} from "@tinyagents/harness/summarization";
import { expectPrefixPreserved, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting } from "./helpers.js";

/** A model that calls `lookup` `n` times, then answers. */
function looping(n: number) {
  const steps = [];
  for (let i = 0; i < n; i++) steps.push({ toolCalls: [{ name: "lookup", arguments: { i } }] });
  steps.push("done");
  return new ScriptedModel(steps);
}

describe("contextCompressionMiddleware in a run", () => {
  it("summarizes older turns once over budget, keeps the summary stable on later turns, leaves the transcript alone", async () => {
    const model = looping(10);
    const { harness } = makeHarness({ instructions: "be useful" });
    const compression = contextCompressionMiddleware(
      { triggerTokens: 300, keepLast: 2 },
      { summarizer: new ConcatSummarizer({ maxChars: 200, maxCharsPerMessage: 40 }) },
    );
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("lookup", "r".repeat(120)))
      .use(compression);
    const { run, events, error } = await runCollecting(harness, `start ${"please ".repeat(60)}`);
    expect(error).toBeUndefined();
    expect(run.messages).toHaveLength(22); // user + 10 x (assistant, tool) + final
    const compressed = events.ofType("context.compressed");
    expect(compressed.length).toBeGreaterThan(0);
    expect(compressed[0]).toMatchObject({
      by: "context_compression",
      kind: "summary",
      segments: ["history"],
    });
    expect(compressed[0]!.tokensAfter).toBeLessThan(compressed[0]!.tokensBefore);
    // Provenance: the ids are of messages of the request as the loop built it.
    const first = compression.log.records()[0]!;
    expect(first.provenance.sourceIds[0]).toMatch(/^1:[0-9a-f]{12}$/);
    expect(first.summary).toContain("user: start");
    expect(compressed.length).toBeGreaterThan(1); // it grew over budget again and re-summarized
    // Every request after a compression shares its predecessor's prefix until the next one.
    const compressedAt = new Set(compressed.map((e) => e.callId));
    let preservedPairs = 0;
    for (let i = 1; i < model.requests.length; i++) {
      if (compressedAt.has(`${run.runId}-model-${i + 1}`)) continue;
      expectPrefixPreserved(model.requests[i - 1]!, model.requests[i]!);
      preservedPairs++;
    }
    expect(preservedPairs).toBeGreaterThan(0);
    expect(compressed.length).toBeLessThan(model.requests.length);
    // The summary message sits at the start of the history, right after the instructions.
    const last = model.requests.at(-1)!;
    expect(text(last.messages[1])).toMatch(/^Summary of the earlier conversation:/);
  });

  it("fails over to trimming, aborts, or passes through when the summarizer fails", async () => {
    const failing: Summarizer = {
      name: "broken",
      summarize: async () => {
        throw new Error("model down");
      },
    };
    const run = async (onFailure: "abort" | "fallbackTrim" | "passThrough") => {
      const model = looping(3);
      const { harness } = makeHarness();
      harness
        .registerModel("m", model)
        .registerTool(FakeTool.returning("lookup", "r".repeat(200)))
        .use(
          contextCompressionMiddleware(
            { triggerTokens: 60, keepLast: 1 },
            { summarizer: failing, onFailure },
          ),
        );
      return { ...(await runCollecting(harness, "go")), model };
    };
    const aborted = await run("abort");
    expect(aborted.error?.code).toBe("middleware");
    expect(aborted.error?.message).toContain('summarizer "broken" failed: model down');
    const trimmed = await run("fallbackTrim");
    expect(trimmed.error).toBeUndefined();
    expect(trimmed.events.ofType("context.compressed")[0]).toMatchObject({ kind: "trim" });
    expect(trimmed.model.requests.at(-1)!.messages.length).toBeLessThan(trimmed.run.messages.length);
    const passed = await run("passThrough");
    expect(passed.error).toBeUndefined();
    expect(passed.events.ofType("context.compressed")).toEqual([]);
    expect(passed.model.requests.at(-1)!.messages).toHaveLength(passed.run.messages.length - 1);
  });

  it("summarizes with a registered model through the harness (LlmSummarizer.fromHarness)", async () => {
    const { harness } = makeHarness();
    harness
      .registerModel("m", looping(3))
      .registerModel(
        "summarizer",
        new ScriptedModel(["Earlier: looked things up.", "Earlier: more lookups."]),
      )
      .registerTool(FakeTool.returning("lookup", "r".repeat(200)))
      .use(
        contextCompressionMiddleware(
          { triggerTokens: 100, keepLast: 2 },
          { summarizer: LlmSummarizer.fromHarness(harness, { state: undefined, model: "summarizer" }) },
        ),
      );
    const { error, events } = await runCollecting(harness, "go");
    expect(error).toBeUndefined();
    expect(events.ofType("context.compressed")[0]?.reason).toContain('"llm:summarizer"');
  });
});

describe("microcompact, retrieved-context and output compression", () => {
  it("microcompact blanks old tool results once, keeps the recent ones, and keeps blanked ones stable", async () => {
    const model = looping(4);
    const { harness } = makeHarness();
    const micro = microcompactMiddleware({ keepRecent: 1, placeholder: "[cleared]" });
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("lookup", "result ".repeat(20)))
      .use(micro);
    const { events } = await runCollecting(harness, "go");
    const last = model.requests.at(-1)!;
    const toolTexts = last.messages.filter((m) => m.role === "tool").map((m) => text(m));
    expect(toolTexts.slice(0, 3)).toEqual(["[cleared]", "[cleared]", "[cleared]"]);
    expect(toolTexts[3]).toContain("result");
    const compressed = events.ofType("context.compressed");
    expect(compressed.map((e) => e.sourceIds.length)).toEqual([1, 1, 1]);
    expect(new Set(compressed.flatMap((e) => e.sourceIds)).size).toBe(3);
    // A result blanked earlier is the same message object on later requests (prefix-stable).
    expect(micro.log.size).toBe(3);
  });

  it("retrievedContextCompression shrinks the volatile tail and never touches the prefix", async () => {
    const model = new ScriptedModel(["ok"]);
    const { harness } = makeHarness({ instructions: "be useful", policy: { protectPromptPrefix: true } });
    harness
      .registerModel("m", model)
      .withVolatileContext(() => `Retrieved: ${"doc ".repeat(500)}`)
      .use(retrievedContextCompressionMiddleware({ maxChars: 200 }));
    const { error, events } = await runCollecting(harness, "go");
    expect(error).toBeUndefined();
    const tail = text(model.requests[0]!.messages.at(-1));
    expect(tail.length).toBeLessThanOrEqual(200);
    expect(tail).toContain("characters omitted");
    expect(events.ofType("context.compressed")[0]).toMatchObject({
      kind: "retrieved",
      segments: ["volatile"],
    });
    expect(events.ofType("cache.layout_changed")).toEqual([]);
  });

  it("outputCompression stores long tool outputs as artifacts and leaves a reference", async () => {
    const { harness } = makeHarness();
    const output = outputCompressionMiddleware({ thresholdChars: 100, previewChars: 20 });
    harness
      .registerModel("m", looping(1))
      .registerTool(FakeTool.returning("lookup", "x".repeat(500)))
      .use(output);
    const { run, events } = await runCollecting(harness, "go");
    const toolMessage = run.messages.find((m) => m.role === "tool")!;
    expect(text(toolMessage)).toMatch(
      /^x{20}\n\[output truncated: 500 characters; the full output is stored as artifact:\/\//,
    );
    expect(run.artifacts).toHaveLength(1);
    const stored = await output.store.get(run.artifacts![0]!);
    expect(stored?.content).toBe("x".repeat(500));
    expect(events.ofType("context.compressed")[0]).toMatchObject({
      kind: "output",
      sourceIds: ["tool:call-1"],
    });
    expect(events.ofType("artifact.stored")).toHaveLength(1);
  });
});
