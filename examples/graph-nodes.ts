/**
 * Graph nodes: tinyagents calls as LangGraph.js nodes — an agent node (with a human approval)
 * then a direct model call node that reuses the model the agent resolved; harness events in the
 * graph's custom stream, the approval as a graph interrupt resumed with Command({ resume }), and
 * the usage/cost roll-up of the graph run.
 * Run: npx tsx examples/graph-nodes.ts   (offline: scripted models)
 */
import { Annotation, Command, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { createAgent, formatTotalTokens, humanApprovalMiddleware, runText, tool } from "@tinyagents/harness";
import {
  agentNode,
  type GraphNodePause,
  graphRunTotals,
  isGraphEventChunk,
  modelNode,
  tinyagentsState,
} from "@tinyagents/harness/langgraph";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { user } from "@tinyagents/inference";

const usage = {
  inputTokens: 120,
  outputTokens: 30,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  totalTokens: 150,
};

// The research agent: one tool that needs a human's approval before it runs.
const approval = humanApprovalMiddleware();
const researcher = createAgent({
  model: new ScriptedModel(
    [
      { toolCalls: [{ name: "fetch_report", arguments: { id: "Q3" } }] },
      "Q3 revenue grew 12%, driven by exports.",
    ],
    { modelId: "big", usage },
  ),
  modelName: "big",
  tools: [
    tool({
      name: "fetch_report",
      description: "Fetch an internal report",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      policy: { requiresApproval: true },
      execute: ({ id }) => `report ${id}: revenue +12%, exports +30%`,
    }),
  ],
  middleware: [approval],
});

// The writer: its default is "small", but the graph asks it to reuse the researcher's model.
const writer = createAgent({
  model: new ScriptedModel([], { modelId: "small" }),
  modelName: "small",
  models: { big: new ScriptedModel(["Revenue up 12% in Q3 on strong exports."], { modelId: "big", usage }) },
});

const State = Annotation.Root({
  ...tinyagentsState,
  question: Annotation<string>(),
  notes: Annotation<string>(),
  headline: Annotation<string>(),
});
type S = typeof State.State;

const graph = new StateGraph(State)
  .addNode(
    "research",
    agentNode<S, Partial<S>>({
      harness: researcher,
      graphId: "newsroom",
      approvals: approval.approvals,
      input: (s) => s.question,
      output: (run) => ({ notes: runText(run) }),
    }),
  )
  .addNode(
    "write",
    modelNode<S, Partial<S>>({
      harness: writer,
      graphId: "newsroom",
      reuseModel: "prefer",
      request: (s) => ({ messages: [user(`Write a headline for: ${s.notes}`)] }),
      output: (r) => ({ headline: r.message.content.map((c) => ("text" in c ? c.text : "")).join("") }),
    }),
  )
  .addEdge(START, "research")
  .addEdge("research", "write")
  .addEdge("write", END)
  .compile({ checkpointer: new MemorySaver() });

const config = { configurable: { thread_id: "story-1", run_id: "newsroom-run-1" } };

async function run(input: Parameters<typeof graph.stream>[0]): Promise<GraphNodePause | undefined> {
  let pause: GraphNodePause | undefined;
  for await (const [mode, chunk] of await graph.stream(input, {
    ...config,
    streamMode: ["custom", "updates"],
  })) {
    if (mode === "custom" && isGraphEventChunk(chunk)) {
      const { event, parentRunId } = chunk.record;
      if (/^(run|tool|approval)\./.test(event.type))
        console.log(`  [${chunk.node} in ${parentRunId}] ${event.type}`);
    }
    const interrupts = (chunk as { __interrupt__?: { value: GraphNodePause }[] }).__interrupt__;
    if (mode === "updates" && interrupts !== undefined) pause = interrupts[0]?.value;
  }
  return pause;
}

console.log("first pass:");
const pause = await run({ question: "How did Q3 go?" });
const pending = pause?.approvals[0];
console.log(`interrupted: ${pause?.reason}`);
if (pending === undefined) throw new Error("expected an approval request");

console.log(`approving ${pending.id} and resuming:`);
await run(new Command({ resume: { approvals: { [pending.id]: "approve" } } }));

const final = (await graph.getState(config)).values as S;
console.log(`headline: ${final.headline}`);
console.log(
  `models: ${final.tinyagents.calls.map((c) => `${c.node}=${c.resolvedModel?.name} (${c.resolvedModel?.source})`).join(", ")}`,
);
const totals = graphRunTotals(final, "newsroom-run-1");
console.log(
  `graph run totals: ${totals.modelCalls} model calls, ${totals.toolCalls} tool call, ${formatTotalTokens(totals.usage)} tokens over ${totals.children.length} node calls`,
);
