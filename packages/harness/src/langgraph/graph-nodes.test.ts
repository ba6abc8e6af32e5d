import { Annotation, Command, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { waitUntil } from "../../test/support/wait-until.js";
import { runText } from "../agent-loop/agent-run.js";
import { EventSink } from "../events/event-sink.js";
import { humanApprovalMiddleware } from "../middleware/library/human-approval-middleware.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import { SteeringPolicy } from "../steering/steering-policy.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { FakeTool } from "../testkit/fake-tool.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { SlowModel } from "../testkit/slow-model.js";
import { agentNode } from "./agent-node.js";
import { graphRunTotals, tinyagentsState } from "./graph-state.js";
import { GraphSteering } from "./graph-steering.js";
import { modelNode } from "./model-node.js";
import { type GraphEventChunk, isGraphEventChunk } from "./node-events.js";
import type { GraphNodePause } from "./node-pauses.js";

const State = Annotation.Root({
  ...tinyagentsState,
  question: Annotation<string>(),
  draft: Annotation<string>(),
  final: Annotation<string>(),
});
type S = typeof State.State;

const usage = {
  inputTokens: 10,
  outputTokens: 5,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  totalTokens: 15,
};

function harness(steps: ConstructorParameters<typeof ScriptedModel>[0], name = "m") {
  const h = new AgentHarness<undefined, undefined>({
    clock: new DeterministicClock({ start: 0 }),
    ids: new DeterministicIds(),
  });
  const model = new ScriptedModel(steps, { modelId: name, usage });
  h.registerModel(name, model);
  return { h, model };
}

/** agent node "research" -> model node "write". */
function twoNodeGraph(
  agent: AgentHarness<undefined, undefined>,
  writer: AgentHarness<undefined, undefined>,
  extra: Partial<Parameters<typeof agentNode<S, Partial<S>>>[0]> = {},
  statuses: HarnessRunStatus[] = [],
) {
  return new StateGraph(State)
    .addNode(
      "research",
      agentNode<S, Partial<S>>({
        harness: agent,
        graphId: "report",
        input: (s) => s.question,
        output: (run) => ({ draft: runText(run) }),
        onStatus: (st) => statuses.push(st),
        ...extra,
      }),
    )
    .addNode(
      "write",
      modelNode<S, Partial<S>>({
        harness: writer,
        graphId: "report",
        reuseModel: "prefer",
        request: (s) => ({ messages: [user(`polish: ${s.draft}`)] }),
        output: (response) => ({
          final: response.message.content.map((c) => ("text" in c ? c.text : "")).join(""),
        }),
        onStatus: (st) => statuses.push(st),
      }),
    )
    .addEdge(START, "research")
    .addEdge("research", "write")
    .addEdge("write", END)
    .compile({ checkpointer: new MemorySaver() });
}

async function collect(stream: AsyncIterable<unknown>) {
  const custom: GraphEventChunk[] = [];
  const updates: Record<string, unknown>[] = [];
  for await (const item of stream) {
    const [mode, chunk] = item as [string, unknown];
    if (mode === "custom" && isGraphEventChunk(chunk)) custom.push(chunk);
    if (mode === "updates") updates.push(chunk as Record<string, unknown>);
  }
  return { custom, updates };
}

describe("LangGraph nodes (real @langchain/langgraph, StateGraph + MemorySaver)", () => {
  it("two nodes: graph_node status records, resolved model reused, one ordered event stream, totals", async () => {
    const research = harness(
      [{ toolCalls: [{ name: "search", arguments: { q: "x" } }] }, "draft text"],
      "big",
    );
    research.h.registerTool(FakeTool.returning("search", "found"));
    const write = harness(["unused"], "small");
    const big = new ScriptedModel(["polished text"], { modelId: "big", usage });
    write.h.registerModel("big", big); // registered second: "small" stays the default
    const statuses: HarnessRunStatus[] = [];
    const graph = twoNodeGraph(research.h, write.h, {}, statuses);
    const config = { configurable: { thread_id: "t-1", run_id: "g-1" } };
    const { custom } = await collect(
      await graph.stream({ question: "why?" }, { ...config, streamMode: ["custom", "updates"] }),
    );
    const final = (await graph.getState(config)).values as S;
    expect(final.final).toBe("polished text");

    expect(statuses.map((s) => [s.component, s.parentRunId, s.rootRunId, s.threadId, s.graphNode])).toEqual([
      ["graph_node", "g-1", "g-1", "t-1", { graphId: "report", node: "research", call: "agent" }],
      ["graph_node", "g-1", "g-1", "t-1", { graphId: "report", node: "write", call: "model_call" }],
    ]);
    expect(statuses.every((s) => s.status === "completed")).toBe(true);

    // The second node reused the model the first one resolved (state_reuse), not its default.
    expect(
      final.tinyagents.calls.map((c) => [c.node, c.resolvedModel?.name, c.resolvedModel?.source]),
    ).toEqual([
      ["research", "big", "registry_default"],
      ["write", "big", "state_reuse"],
    ]);
    expect(big.callCount).toBe(1);
    expect(write.model.callCount).toBe(0);

    // Both nodes' events in one custom stream, in order: research's whole run, then write's.
    const nodes = custom.map((c) => c.node);
    expect(nodes.indexOf("write")).toBeGreaterThan(nodes.lastIndexOf("research"));
    const types = custom.map((c) => `${c.node}:${c.record.event.type}`);
    expect(types[0]).toBe("research:run.started");
    expect(types).toContain("research:tool.completed");
    expect(types).toContain("research:model.text_delta");
    expect(types.at(-1)).toBe("write:run.completed");
    for (const c of custom) expect(c.record.graphNode?.node).toBe(c.node);

    const totals = graphRunTotals(final, "g-1");
    expect(totals.modelCalls).toBe(3);
    expect(totals.toolCalls).toBe(1);
    expect(totals.usage).toMatchObject({ calls: 3, inputTokens: 30, outputTokens: 15 });
    expect(totals.children.map((c) => c.name)).toEqual(["research", "write"]);
  });

  it("an approval inside the agent node interrupts the graph and resumes through Command({ resume })", async () => {
    const research = harness([{ toolCalls: [{ name: "publish", arguments: { to: "web" } }] }, "published"]);
    const publish = FakeTool.returning("publish", "ok", { policy: { requiresApproval: true } });
    research.h.registerTool(publish);
    const approval = humanApprovalMiddleware<undefined, undefined>();
    research.h.use(approval);
    const write = harness(["final"]);
    const statuses: HarnessRunStatus[] = [];
    const graph = twoNodeGraph(research.h, write.h, { approvals: approval.approvals }, statuses);
    const config = { configurable: { thread_id: "t-2" } };

    const first = await collect(
      await graph.stream({ question: "ship it" }, { ...config, streamMode: ["custom", "updates"] }),
    );
    const interrupted = first.updates.find((u) => "__interrupt__" in u) as
      | { __interrupt__: { value: GraphNodePause }[] }
      | undefined;
    const pause = interrupted?.__interrupt__[0]?.value;
    expect(pause).toMatchObject({ type: "tinyagents.pause", node: "research", graphRunId: "thread:t-2" });
    expect(pause?.approvals.map((a) => [a.toolName, a.status])).toEqual([["publish", "pending"]]);
    expect(publish.callCount).toBe(0);
    expect(statuses.at(-1)).toMatchObject({ component: "graph_node", status: "interrupted" });
    expect((await graph.getState(config)).next).toEqual(["research"]);

    const id = pause?.approvals[0]?.id as string;
    const second = await collect(
      await graph.stream(new Command({ resume: { approvals: { [id]: "approve" } } }), {
        ...config,
        streamMode: ["custom", "updates"],
      }),
    );
    expect(publish.callCount).toBe(1);
    // The resumed run continued where it stopped: one model call before the pause, one after.
    expect(research.model.callCount).toBe(2);
    expect(second.custom.some((c) => c.record.event.type === "run.resumed")).toBe(true);
    const final = (await graph.getState(config)).values as S;
    expect(final.draft).toBe("published");
    expect(final.final).toBe("final");
    const researchStatus = statuses.filter((s) => s.graphNode?.node === "research");
    expect(researchStatus.map((s) => s.status)).toEqual(["interrupted", "completed"]);
    expect(new Set(researchStatus.map((s) => s.runId)).size).toBe(1);
  });

  it("a cancelled graph run cancels the node's in-flight tool call", async () => {
    const research = harness([{ toolCalls: [{ name: "crawl", arguments: {} }] }, "never"]);
    const crawl = FakeTool.hanging("crawl");
    research.h.registerTool(crawl);
    const statuses: HarnessRunStatus[] = [];
    const graph = twoNodeGraph(research.h, harness(["unused"]).h, {}, statuses);
    const controller = new AbortController();
    const stream = await graph.stream(
      { question: "q" },
      { configurable: { thread_id: "t-3" }, streamMode: "custom", signal: controller.signal },
    );
    await expect(
      (async () => {
        for await (const chunk of stream) {
          if (isGraphEventChunk(chunk) && chunk.record.event.type === "tool.started") controller.abort();
        }
      })(),
    ).rejects.toThrow();
    await waitUntil(() => statuses.length > 0, "a status was saved");
    expect(crawl.callCount).toBe(1);
    expect(statuses[0]).toMatchObject({ component: "graph_node", status: "cancelled", activeToolCalls: [] });
  });

  it("a cancelled graph run cancels the node's in-flight model call", async () => {
    const h = new AgentHarness<undefined, undefined>({ ids: new DeterministicIds() });
    const slow = new SlowModel({ delayMs: 60_000 });
    h.registerModel("slow", slow);
    const statuses: HarnessRunStatus[] = [];
    const graph = twoNodeGraph(h, harness(["unused"]).h, {}, statuses);
    const controller = new AbortController();
    const stream = await graph.stream(
      { question: "q" },
      { configurable: { thread_id: "t-4" }, streamMode: "custom", signal: controller.signal },
    );
    await expect(
      (async () => {
        for await (const chunk of stream) {
          if (isGraphEventChunk(chunk) && chunk.record.event.type === "model.started") controller.abort();
        }
      })(),
    ).rejects.toThrow();
    await waitUntil(() => statuses.length > 0, "a status was saved");
    expect(slow.completed).toBe(0);
    expect(statuses[0]).toMatchObject({ status: "cancelled", graphNode: { node: "research" } });
    expect(statuses[0]?.error?.code).toBe("cancelled");
  });

  it("a supervisor node steers a running child node through its steering handle and policy", async () => {
    const steering = new GraphSteering(new SteeringPolicy(["redirect"]));
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => {};
    const toolStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const worker = harness([{ toolCalls: [{ name: "wait", arguments: {} }] }, "answer with sources"]);
    worker.h.registerTool(
      FakeTool.of("wait", () => {
        started();
        return gate.then(() => "waited");
      }),
    );
    const sink = new EventSink("shared");
    const graph = new StateGraph(State)
      .addNode(
        "worker",
        agentNode<S, Partial<S>>({
          harness: worker.h,
          steering,
          events: sink,
          input: (s) => s.question,
          output: (run) => ({ draft: runText(run) }),
        }),
      )
      .addNode("supervisor", async (_state, config) => {
        // The worker's call is running (inside its tool batch) when the supervisor steers it.
        await toolStarted;
        steering.send(config, "worker", { kind: "redirect", instruction: "cite your sources" });
        release();
        return {};
      })
      .addEdge(START, "worker")
      .addEdge(START, "supervisor")
      .addEdge("worker", END)
      .addEdge("supervisor", END)
      .compile({ checkpointer: new MemorySaver() });
    const { custom } = await collect(
      await graph.stream(
        { question: "q" },
        { configurable: { thread_id: "t-5" }, streamMode: ["custom", "updates"] },
      ),
    );
    const [first, second] = worker.model.requests;
    expect(first?.messages.map((m) => m.role)).toEqual(["user"]);
    expect(second?.messages.at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "[steering:redirect] cite your sources" }],
    });
    expect(custom.some((c) => c.record.event.type === "steering.applied")).toBe(true);
    expect(steering.size).toBe(0);
  });
});
