import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentRun } from "../../agent-loop/agent-run.js";
import { EventSink } from "../../events/event-sink.js";
import { humanApprovalMiddleware } from "../../middleware/library/human-approval-middleware.js";
import { AppendLogEventJournal } from "../../observability/append-log-event-journal.js";
import { attachObservability } from "../../observability/attach-observability.js";
import type { HarnessEventJournal } from "../../observability/event-journal.js";
import { traceDetailsMiddleware } from "../../observability/trace-details-middleware.js";
import { AgentHarness } from "../../runtime/agent-harness.js";
import { SubAgent } from "../../runtime/sub-agent.js";
import { SubAgentTool } from "../../runtime/sub-agent-tool.js";
import { SqliteStore } from "../../sqlite/sqlite-store.js";
import { DeterministicClock } from "../deterministic-clock.js";
import { FakeTool } from "../fake-tool.js";
import { ScriptedModel } from "../scripted-model.js";
import { type Cassette, parseCassette, serializeCassette } from "./cassette.js";
import { exportRunAsTest } from "./export-run-as-test.js";
import { replayRun } from "./replay-run.js";

// (b) of issue 38: a library agent with two tools, a sub-agent and an approval, journaled into a
// SQLite store, exported as a cassette and replayed in process.

const usage = {
  inputTokens: 10,
  outputTokens: 5,
  totalTokens: 15,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};
const INSTRUCTIONS =
  "You are a careful assistant.\nUse the weather tool for weather.\nAsk research to check math.";

interface Variant {
  instructions?: string;
  researchInstructions?: string;
  weatherParameters?: Record<string, unknown>;
  captureContent?: boolean;
}

/** The agent under test, as "the user's module" builds it (a fresh one each call). */
function buildAgent(variant: Variant = {}) {
  const capture = variant.captureContent ?? true;
  const research = new AgentHarness({
    instructions: variant.researchInstructions ?? "You double-check arithmetic.",
  })
    .registerModel(
      "research-model",
      new ScriptedModel(
        [
          { toolCalls: [{ name: "calculator", id: "r1", arguments: { expression: "(19+23)*2" } }] },
          "It is 84.",
        ],
        { usage },
      ),
    )
    .registerTool(FakeTool.returning("calculator", "84"))
    .use(traceDetailsMiddleware({ captureContent: capture }));
  const weather = FakeTool.returning(
    "weather",
    { city: "Tokyo", sky: "clear", celsius: 21 },
    {
      description: "The weather in a city.",
      parameters: (variant.weatherParameters ?? {
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
      }) as never,
    },
  );
  const calculator = FakeTool.returning("calculator", "84", { description: "Arithmetic." });
  const transfer = FakeTool.returning("transfer", "sent $100", {
    description: "Moves money.",
    policy: { requiresApproval: true },
  });
  const approvals = humanApprovalMiddleware();
  const agent = new AgentHarness({ instructions: variant.instructions ?? INSTRUCTIONS })
    .registerModel(
      "main-model",
      new ScriptedModel(
        [
          {
            toolCalls: [
              { name: "weather", id: "call_1", arguments: { city: "Tokyo" } },
              { name: "calculator", id: "call_2", arguments: { expression: "(19+23)*2" } },
            ],
          },
          {
            toolCalls: [
              { name: "research_agent", id: "call_3", arguments: { input: "double-check (19+23)*2" } },
            ],
          },
          { toolCalls: [{ name: "transfer", id: "call_4", arguments: { amount: 100 } }] },
          "Tokyo is clear, 21°C; (19+23)*2 = 84 (checked); $100 sent.",
        ],
        { usage },
      ),
    )
    .registerTool(weather)
    .registerTool(calculator)
    .registerTool(transfer)
    .registerTool(
      new SubAgentTool(new SubAgent({ name: "research", description: "Checks math.", harness: research }), {
        name: "research_agent",
      }),
    )
    .use(approvals)
    .use(traceDetailsMiddleware({ captureContent: capture }));
  return { agent, approvals, tools: { weather, calculator, transfer } };
}

let dir: string;
let store: SqliteStore;
let journal: HarnessEventJournal;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "replay-"));
  store = SqliteStore.open(join(dir, "runs.sqlite"));
  journal = new AppendLogEventJournal(store.appendLog, { streamPrefix: "journal-" });
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Run the agent journaled (as production would), deciding the approval, and return its run id. */
async function record(
  variant: Variant = {},
  decide: (approvals: ReturnType<typeof buildAgent>["approvals"], id: string) => void = (a, id) =>
    a.approve(id),
): Promise<string> {
  const runId = "run-prod-1";
  const { agent, approvals } = buildAgent(variant);
  const events = new EventSink(runId);
  const obs = attachObservability(events, { journal });
  const clock = new DeterministicClock();
  let result = await agent.run("Weather in Tokyo, (19+23)*2 checked, and pay the $100 bill.", {
    runId,
    events,
    clock,
  });
  expect(result.stopReason).toBe("interrupted");
  for (const pending of approvals.pending()) decide(approvals, pending.id);
  result = await agent.run(result.paused as NonNullable<AgentRun["paused"]>, { events, clock });
  expect(result.stopReason).not.toBe("interrupted");
  await obs.close();
  return runId;
}

async function exported(runId: string): Promise<Cassette> {
  const out = await exportRunAsTest(journal, runId, {
    agent: { module: "./agent.js", export: "buildAgent" },
  });
  return parseCassette(out.files[0]?.contents ?? "");
}

describe("exportRunAsTest", () => {
  it("writes a cassette with every model call, tool result, the approval and the nested sub-agent", async () => {
    const runId = await record();
    const out = await exportRunAsTest({ journal }, runId, {
      agent: { module: "./agent.js", export: "buildAgent" },
    });
    expect(out.files.map((f) => f.path)).toEqual(["run-prod-1.cassette.json", "run-prod-1.replay.test.ts"]);
    const cassette = out.cassette;
    expect(cassette.input).toBe("Weather in Tokyo, (19+23)*2 checked, and pay the $100 bill.");
    expect(cassette.run.modelCalls).toHaveLength(4);
    expect(cassette.run.modelCalls[0]?.request.system).toBe(INSTRUCTIONS);
    expect(cassette.run.modelCalls[0]?.request.tools?.map((t) => t.name)).toEqual(
      expect.arrayContaining(["weather", "calculator", "transfer", "research_agent"]),
    );
    expect(cassette.run.modelCalls[0]?.response?.toolCalls.map((c) => c.id)).toEqual(["call_1", "call_2"]);
    expect(cassette.run.modelCalls[0]?.response?.usage?.totalTokens).toBe(15);
    const weather = cassette.run.toolCalls.find((c) => c.callId === "call_1");
    expect(weather).toMatchObject({ name: "weather", arguments: { city: "Tokyo" } });
    expect(weather?.result).toEqual({ city: "Tokyo", sky: "clear", celsius: 21 });
    expect(cassette.run.approvals).toEqual([{ callId: "call_4", toolName: "transfer", decision: "approve" }]);
    const child = cassette.run.children?.[0];
    expect(child).toMatchObject({ agent: "research", parentCallId: "call_3" });
    expect(child?.modelCalls).toHaveLength(2);
    expect(child?.modelCalls[0]?.request.system).toBe("You double-check arithmetic.");
    // The test file rebuilds the agent from the user's module and replays the cassette.
    const test = out.files[1]?.contents ?? "";
    expect(test).toContain('import * as agentModule from "./agent.js";');
    expect(test).toContain('agentModule["buildAgent" as keyof typeof agentModule]');
    expect(test).toContain('new URL("./run-prod-1.cassette.json", import.meta.url)');
    expect(test).toContain("await replayRun(");
  });

  it("serializes with a stable key order and reads back the same", async () => {
    const cassette = await exported(await record());
    const text = serializeCassette(cassette);
    expect(serializeCassette(parseCassette(text))).toBe(text);
    expect(Object.keys(JSON.parse(text) as object).slice(0, 4)).toEqual([
      "format",
      "version",
      "runId",
      "recordedAt",
    ]);
    expect(() => parseCassette(text.replace('"version": 1', '"version": 99'))).toThrow(
      /version 99 is not supported/,
    );
  });

  it("refuses a run journaled without content and names the switch that records it", async () => {
    const runId = await record({ captureContent: false });
    const failure = exportRunAsTest(journal, runId, { agent: { module: "./agent.js" } });
    await expect(failure).rejects.toMatchObject({
      code: "validation",
      details: { reason: "content_not_captured" },
    });
    await expect(failure).rejects.toThrow(
      /journaled without content.*traceDetailsMiddleware\(\{ captureContent: true \}\)/,
    );
  });

  it("refuses an unknown run", async () => {
    await expect(exportRunAsTest(journal, "nope", { agent: { module: "./agent.js" } })).rejects.toMatchObject(
      {
        details: { reason: "not_found" },
      },
    );
  });
});

describe("replayRun", () => {
  it("replays the recording against the same agent: tools answer from the cassette, the approval replays", async () => {
    const cassette = await exported(await record());
    const { agent, tools } = buildAgent();
    const report = await replayRun(agent, cassette);
    expect(report.result.text).toBe("Tokyo is clear, 21°C; (19+23)*2 = 84 (checked); $100 sent.");
    expect(report.divergence).toBeUndefined();
    // weather, calculator, transfer and the child's calculator: none executed.
    expect(report.replayedTools).toBe(4);
    expect(tools.weather.calls).toHaveLength(0);
    expect(tools.transfer.calls).toHaveLength(0);
  });

  it("fails at model call 1 naming the instruction line that changed", async () => {
    const cassette = await exported(await record());
    const { agent } = buildAgent({ instructions: INSTRUCTIONS.replace("weather tool", "forecast tool") });
    await expect(replayRun(agent, cassette)).rejects.toThrow(
      /^replay diverged at model call 1: system prompt changed \(line 2\): was "Use the weather tool for weather\.", now "Use the forecast tool for weather\."/,
    );
  });

  it("fails naming the tool parameter that was added", async () => {
    const cassette = await exported(await record());
    const { agent } = buildAgent({
      weatherParameters: {
        type: "object",
        properties: { city: { type: "string" }, units: { type: "string" } },
        required: ["city"],
      },
    });
    await expect(replayRun(agent, cassette)).rejects.toThrow(
      /model call 1: tools\[\d\]\.parameters\.properties\.units added: \{"type":"string"\} \(tool "weather"\)/,
    );
  });

  it("fails at the request that carries an edited tool result, with the diff", async () => {
    const cassette = await exported(await record());
    const weather = cassette.run.toolCalls.find((c) => c.callId === "call_1");
    if (weather === undefined) throw new Error("no weather call");
    weather.result = { city: "Tokyo", sky: "rain", celsius: 21 };
    const { agent } = buildAgent();
    const failure = replayRun(agent, cassette);
    await expect(failure).rejects.toThrow(
      /^replay diverged at model call 2: message \d differs: tool result of call_1: /,
    );
    await expect(failure).rejects.toThrow(/was "\{\\"city\\":\\"Tokyo\\",\\"sky\\":\\"clear\\"/);
    await expect(failure).rejects.toMatchObject({
      details: { reason: "replay_diverged", step: "model call 2" },
    });
  });

  it("replays each sub-agent from its own section and names it on divergence", async () => {
    const cassette = await exported(await record());
    const { agent } = buildAgent({ researchInstructions: "You check arithmetic twice." });
    await expect(replayRun(agent, cassette)).rejects.toThrow(
      /^replay diverged at model call 1 of sub-agent "research" \(recorded run research-d1-[^)]+\): system prompt changed \(line 1\)/,
    );
  });

  it("fails naming a sub-agent run the recording does not have", async () => {
    const cassette = await exported(await record());
    delete cassette.run.children;
    await expect(replayRun(buildAgent().agent, cassette)).rejects.toThrow(
      /^replay diverged at sub-agent "research": the run started sub-agent "research", which the recording of this run does not have/,
    );
  });

  it("what-if mode reports where the transcript first changes instead of failing", async () => {
    const cassette = await exported(await record());
    const { agent } = buildAgent({ instructions: "Be terse." });
    const report = await replayRun(agent, cassette, { whatIf: true });
    expect(report.divergence?.step).toBe("model call 1");
    expect(report.divergence?.lines[0]).toMatch(/^system prompt changed \(line 1\)/);
    expect(report.result.text).toBe("Tokyo is clear, 21°C; (19+23)*2 = 84 (checked); $100 sent.");
  });

  it("honours tolerances stated in the cassette: ignored fields and masks", async () => {
    const cassette = await exported(await record());
    const { agent } = buildAgent({ instructions: INSTRUCTIONS.replace("careful", "cautious") });
    cassette.tolerances.ignore = ["system"];
    await expect(replayRun(agent, cassette)).resolves.toMatchObject({ replayedTools: 4 });
    const masked = await exported(await record());
    masked.tolerances.mask = ["careful|cautious"];
    await expect(
      replayRun(buildAgent({ instructions: INSTRUCTIONS.replace("careful", "cautious") }).agent, masked),
    ).resolves.toBeDefined();
  });

  it("executes tools live with tools: 'live' or when the cassette lists them to re-execute", async () => {
    const cassette = await exported(await record());
    const live = buildAgent();
    const report = await replayRun(live.agent, cassette, { tools: "live" });
    expect(report.replayedTools).toBe(0);
    expect(live.tools.weather.calls).toHaveLength(1);
    cassette.tolerances.reexecute = ["weather"];
    const partly = buildAgent();
    const second = await replayRun(partly.agent, cassette);
    expect(partly.tools.weather.calls).toHaveLength(1);
    expect(partly.tools.calculator.calls).toHaveLength(0);
    expect(second.liveTools).toBe(1);
  });

  it("replays a rejected approval with its reason", async () => {
    const runId = await record({}, (a, id) => a.reject(id, "over the limit"));
    const cassette = await exported(runId);
    expect(cassette.run.approvals).toEqual([
      { callId: "call_4", toolName: "transfer", decision: "reject", reason: "over the limit" },
    ]);
    const { agent, tools } = buildAgent();
    await expect(replayRun(agent, cassette)).resolves.toBeDefined();
    expect(tools.transfer.calls).toHaveLength(0);
  });

  it("fails when the run makes fewer model calls than recorded", async () => {
    const cassette = await exported(await record());
    const last = cassette.run.modelCalls[3];
    if (last === undefined) throw new Error("no 4th call");
    cassette.run.modelCalls.push(structuredClone(last));
    await expect(replayRun(buildAgent().agent, cassette)).rejects.toThrow(
      /the run ended after 4 model call\(s\); the recording has 5/,
    );
  });
});
