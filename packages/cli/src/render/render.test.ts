import {
  AgentHarness,
  type EventRecord,
  InMemoryChatHistory,
  SubAgent,
  SubAgentTool,
} from "@tinyagents/harness";
import { calculatorTool } from "@tinyagents/harness/builtin-tools";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { StreamRenderer } from "./stream-renderer.js";
import { renderTimeline } from "./timeline.js";

async function recordRun(): Promise<EventRecord[]> {
  const tokens = { usage: usage({ inputTokens: 100, outputTokens: 10 }) };
  const child = new SubAgent({
    name: "checker",
    description: "checks",
    harness: new AgentHarness()
      .registerModel(
        "child-model",
        new ScriptedModel(
          [{ toolCalls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] }, "42"],
          tokens,
        ),
      )
      .registerTool(calculatorTool()),
  });
  // Memory: the run belongs to a thread (the header names it).
  const parent = new AgentHarness({ memory: { history: new InMemoryChatHistory() } })
    .registerModel(
      "parent-model",
      new ScriptedModel(
        [{ toolCalls: [{ name: "check_agent", arguments: { input: "6 * 7?" } }] }, "It is 42."],
        tokens,
      ),
      {
        pricing: { inputPerMillion: 1, outputPerMillion: 2 },
      },
    )
    .registerTool(new SubAgentTool(child, { name: "check_agent" }));
  const records: EventRecord[] = [];
  for await (const item of parent.stream("what is 6 * 7?", { runId: "tl-run", threadId: "tl-thread" })) {
    if (item.type === "event") records.push(item.record);
  }
  return records;
}

describe("renderTimeline", () => {
  it("nests sub-agent model and tool calls under the parent's tool call, with tokens and cost", async () => {
    const text = renderTimeline(await recordRun());
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^run tl-run · thread tl-thread · started .* · \d+ observations$/);
    const column = lines[1]?.indexOf("run started") ?? 0;
    const body = lines.slice(1).map((l) => l.slice(column));
    expect(body).toContainEqual(
      expect.stringMatching(
        /^model call 1 · parent-model · .* · 100 in \(0 cached\), 10 out \(0 reasoning\) · \$0\.000120 · -> 1 tool call$/,
      ),
    );
    expect(body).toContainEqual(expect.stringMatching(/^ {2}sub-agent checker started/));
    expect(body).toContainEqual(
      expect.stringMatching(/^ {2}model call 2 · child-model · .* · cost unknown · -> 1 tool call$/),
    );
    expect(body).toContainEqual(expect.stringMatching(/^ {4}tool calculator \{"expression":"6 \* 7"\} · ok/));
    expect(body).toContainEqual(expect.stringMatching(/^ {2}tool check_agent \{"input":"6 \* 7\?"\} · ok/));
    const toolLine = body.findIndex((l) => l.startsWith("  tool check_agent"));
    expect(toolLine).toBeLessThan(body.findIndex((l) => l.startsWith("  sub-agent checker started")));
    expect(body.at(-2)).toMatch(/^run completed · 2 model calls · 1 tool call · .*400 in/);
  });

  it("orders entries that share a millisecond by where they started in the journal", async () => {
    // Every event in the same millisecond: a tool line still comes before what ran inside it.
    const records = (await recordRun()).map((r) => ({ ...r, ts: 1_700_000_000_000 }));
    const body = renderTimeline(records).split("\n");
    const toolLine = body.findIndex((l) => l.includes("tool check_agent"));
    const childStarted = body.findIndex((l) => l.includes("sub-agent checker started"));
    const childTool = body.findIndex((l) => l.includes("tool calculator"));
    expect(toolLine).toBeGreaterThan(-1);
    expect(toolLine).toBeLessThan(childStarted);
    expect(childStarted).toBeLessThan(childTool);
  });

  it("handles an empty journal", () => {
    expect(renderTimeline([])).toBe("(no observations)\n");
  });
});

describe("StreamRenderer", () => {
  it("draws text, tool lines and sub-agent notes; progress lines only on a TTY", async () => {
    let plain = "";
    const r = new StreamRenderer({ write: (c: string) => (plain += c), isTTY: false });
    const records = await recordRun();
    for (const record of records) r.onRecord(record);
    r.finish();
    expect(plain).not.toContain("\x1b");
    expect(plain).toContain("  => sub-agent checker started");
    expect(plain).toMatch(/ {4}-> calculator\(\{"expression":"6 \* 7"\}\) ok in \d+ ms/);
    expect(plain).toContain("It is 42.");

    let tty = "";
    const t = new StreamRenderer({ write: (c: string) => (tty += c), isTTY: true });
    for (const record of records) t.onRecord(record);
    t.finish();
    expect(tty).toContain("\r\x1b[2K");
    expect(tty).toContain("… running check_agent");
  });
});

describe("formatSummary", () => {
  it("prints the date of the catalog prices next to the cost, and no date for your own prices", async () => {
    const { formatSummary } = await import("./summary.js");
    const { emptyUsageTotals } = await import("@tinyagents/inference");
    const { PRICING_CATALOG_AS_OF } = await import("@tinyagents/harness");
    const usageTotals = { ...emptyUsageTotals(), calls: 1, inputTokens: 1000, totalTokens: 1000 };
    const base = { modelCalls: 1, toolCalls: 0, usage: usageTotals };
    const priced = {
      currency: "USD" as const,
      input: 0.001,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      total: 0.001,
    };
    const catalog = formatSummary(
      { ...base, cost: { ...priced, pricingAsOf: PRICING_CATALOG_AS_OF } },
      10,
      "r1",
    );
    expect(catalog).toContain(`cost: $0.001000 (prices as of ${PRICING_CATALOG_AS_OF})`);
    const own = formatSummary({ ...base, cost: priced }, 10, "r1");
    expect(own).toContain("cost: $0.001000   wall time");
    const unknown = formatSummary(
      { ...base, cost: { ...priced, total: 0, input: 0, unknown: true } },
      10,
      "r1",
    );
    expect(unknown).toContain("cost: unknown (no known price for this model)");
  });
});
