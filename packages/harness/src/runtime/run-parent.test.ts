/**
 * The `parent` run option: `agent.run(input, { parent: ctx })` inside a tool runs the agent as a
 * child of the live run — lineage in its status and events, the parent's sink, cancellation with
 * the parent, roll-up into the parent's totals, durable ids in a durable parent — the same path
 * `asTool` / `SubAgent` take. In-memory stores, deterministic clock and ids, no real waits.
 */
import { type ChatModel, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { EventRecord } from "../contracts/agent-event.js";
import { CheckpointStore } from "../durability/checkpoint-store.js";
import { InMemoryKeyValueStore } from "../store/key-value-store.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { tool } from "../tool/define-tool.js";
import type { ToolExecutionContext } from "../tool/tool.js";
import { createAgent } from "./create-agent.js";
import type { RunOptions } from "./run-options.js";
import { lineageListener } from "./run-parent.js";
import type { RunResult } from "./run-result.js";

const NO_ARGS = { type: "object", properties: {} } as const;

/** A parent whose one tool call (`c1`) runs `runChild(ctx)`; then it answers "parent done". */
function parentAgent(runChild: (ctx: ToolExecutionContext) => Promise<string>, maxDepth?: number) {
  return createAgent({
    model: new ScriptedModel(
      [{ toolCalls: [{ id: "c1", name: "delegate", arguments: {} }] }, "parent done"],
      { usage: usage({ inputTokens: 10, outputTokens: 1 }) },
    ),
    tools: [
      tool({
        name: "delegate",
        description: "runs the child",
        inputSchema: NO_ARGS,
        execute: (_a, ctx) => runChild(ctx),
      }),
    ],
    clock: new DeterministicClock(),
    ids: new DeterministicIds(),
    ...(maxDepth === undefined ? {} : { policy: { limits: { maxDepth } } }),
  });
}

function childAgent(
  model: ChatModel = new ScriptedModel(["child answer"], {
    usage: usage({ inputTokens: 7, outputTokens: 3 }),
  }),
) {
  return createAgent({ model, clock: new DeterministicClock(), ids: new DeterministicIds() });
}

describe("run option parent", () => {
  it("runs the agent as a child: parent and root ids in its status and events, on the parent's sink, rolled up", async () => {
    const child = childAgent();
    let childResult: RunResult | undefined;
    const parent = parentAgent(async (ctx) => {
      childResult = await child.run("go", { parent: ctx });
      return childResult.text;
    });
    const records: EventRecord[] = [];
    const result = await parent.run("hi", { runId: "p1", onEvent: (r) => records.push(r) });

    expect(result.text).toBe("parent done");
    const childRun = childResult as RunResult;
    expect(childRun.runId).toMatch(/^child-d1-/);
    expect(childRun.status).toMatchObject({ runId: childRun.runId, parentRunId: "p1", rootRunId: "p1" });
    // The child's own events reach the parent's onEvent (one sink), with its lineage and depth.
    const childStarted = records.find((r) => r.event.type === "run.started" && r.runId === childRun.runId);
    expect(childStarted).toMatchObject({ parentRunId: "p1", rootRunId: "p1", depth: 1 });
    // The parent reports the child on its own scope.
    const about = records.filter((r) => r.runId === "p1" && r.event.type.startsWith("subagent."));
    expect(about.map((r) => r.event)).toEqual([
      { type: "subagent.started", name: "child", depth: 1, childRunId: childRun.runId },
      expect.objectContaining({ type: "subagent.completed", name: "child", childRunId: childRun.runId }),
    ]);
    // Its tokens are in the parent's totals, and it is listed in the parent's children.
    expect(result.usage.inputTokens).toBe(10 + 7 + 10);
    expect(result.children).toEqual([
      expect.objectContaining({ name: "child", runId: childRun.runId, depth: 1, status: "completed" }),
    ]);
  });

  it("takes { run, name, callId } and names the child after it", async () => {
    const child = childAgent();
    const parent = parentAgent(async (ctx) => {
      const r = await child.run("go", { parent: { run: ctx.run, name: "research", callId: ctx.callId } });
      return r.runId;
    });
    const result = await parent.run("hi", { runId: "p2" });
    expect(result.children?.map((c) => [c.name, c.runId.startsWith("research-d1-")])).toEqual([
      ["research", true],
    ]);
  });

  it("the child's own options win over what it inherits (run id, tags), its lineage stays the parent's", async () => {
    const child = childAgent();
    let status: RunResult["status"] | undefined;
    const parent = parentAgent(async (ctx) => {
      status = (await child.run("go", { parent: ctx, runId: "mine", tags: ["child-tag"] })).status;
      return "ok";
    });
    const result = await parent.run("hi", { runId: "p3", tags: ["parent-tag"] });
    expect(status).toMatchObject({ runId: "mine", parentRunId: "p3", rootRunId: "p3", tags: ["child-tag"] });
    expect(result.children?.map((c) => c.runId)).toEqual(["mine"]);
  });

  it("is cancelled with the parent", async () => {
    let childStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      childStarted = resolve;
    });
    // A model that answers only when its call is aborted.
    const hanging: ChatModel = {
      provider: "test",
      modelId: "hang",
      invoke(_request, options) {
        childStarted();
        return new Promise((_resolve, reject) => {
          options?.signal?.addEventListener("abort", () => reject(options.signal?.reason), { once: true });
        });
      },
    };
    const child = childAgent(hanging);
    let childError: unknown;
    const parent = parentAgent(async (ctx) => {
      try {
        return (await child.run("go", { parent: ctx })).text;
      } catch (error) {
        childError = error;
        throw error;
      }
    });
    const controller = new AbortController();
    const running = parent.run("hi", { signal: controller.signal });
    await started;
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: "cancelled" });
    expect(childError).toMatchObject({ code: "cancelled" });
    expect((childError as { status: { parentRunId?: string } }).status.parentRunId).toBeDefined();
  });

  it("in a durable parent the child is durable, named by the parent's tool call; without a call id it is refused", async () => {
    const kv = new InMemoryKeyValueStore();
    const child = childAgent();
    let childRunId: string | undefined;
    const parent = parentAgent(async (ctx) => {
      childRunId = (await child.run("go", { parent: ctx })).runId;
      return "ok";
    });
    await parent.run("hi", { runId: "dp", durable: { store: kv } });
    expect(childRunId).toBe("dp.child.c1");
    const record = await new CheckpointStore(kv).record("dp.child.c1");
    expect(record?.state).toBe("completed");

    let refused: unknown;
    const noCallId = parentAgent(async (ctx) => {
      try {
        await childAgent().run("go", { parent: { run: ctx.run } });
      } catch (error) {
        refused = error;
      }
      return "ok";
    });
    await noCallId.run("hi", { runId: "dq", durable: { store: new InMemoryKeyValueStore() } });
    expect(refused).toMatchObject({ code: "validation", details: { field: "callId" } });
  });

  it("in a durable parent, two children of one tool call get distinct ids and each runs its own model", async () => {
    const kv = new InMemoryKeyValueStore();
    const a = childAgent(
      new ScriptedModel(["answer a"], { usage: usage({ inputTokens: 7, outputTokens: 3 }) }),
    );
    const b = childAgent(
      new ScriptedModel(["answer b"], { usage: usage({ inputTokens: 5, outputTokens: 2 }) }),
    );
    const seen: string[] = [];
    const parent = parentAgent(async (ctx) => {
      const ra = await a.run("q", { parent: ctx });
      const rb = await b.run("q", { parent: ctx });
      seen.push(`${ra.runId}=${ra.text}`, `${rb.runId}=${rb.text}`);
      return "ok";
    });
    const result = await parent.run("hi", { runId: "dp", durable: { store: kv } });
    expect(seen).toEqual(["dp.child.c1=answer a", "dp.child.c1.2=answer b"]);
    expect(result.children?.map((c) => c.runId)).toEqual(["dp.child.c1", "dp.child.c1.2"]);
    // Parent 2 x (10 in, 1 out) + child a (7, 3) + child b (5, 2): each counted once.
    expect(result.usage).toMatchObject({ inputTokens: 32, outputTokens: 7 });
    const store = new CheckpointStore(kv);
    expect((await store.record("dp.child.c1.2"))?.state).toBe("completed");
  });

  it("a parent context from another copy of the package (not instanceof this copy's class) is still seen as durable", async () => {
    const kv = new InMemoryKeyValueStore();
    const child = childAgent();
    let childRunId: string | undefined;
    const parent = parentAgent(async (ctx) => {
      // What another copy's context looks like here: same shape, another class.
      const foreign = new Proxy(ctx.run, { getPrototypeOf: () => Object.prototype });
      childRunId = (await child.run("go", { parent: { run: foreign, callId: ctx.callId } })).runId;
      return "ok";
    });
    await parent.run("hi", { runId: "dp", durable: { store: kv } });
    expect(childRunId).toBe("dp.child.c1");
    expect((await new CheckpointStore(kv).record("dp.child.c1"))?.state).toBe("completed");
  });

  it("a child's onEvent sees only its own run and its descendants, not the parent's or a sibling's events", async () => {
    const seen = new Map<string, EventRecord[]>();
    const parent = createAgent({
      model: new ScriptedModel([
        {
          toolCalls: [
            { id: "c1", name: "delegate", arguments: {} },
            { id: "c2", name: "delegate", arguments: {} },
          ],
        },
        "parent done",
      ]),
      tools: [
        tool({
          name: "delegate",
          description: "runs a child",
          inputSchema: NO_ARGS,
          execute: async (_a, ctx) => {
            const records: EventRecord[] = [];
            seen.set(ctx.callId, records);
            const r = await childAgent().run("go", { parent: ctx, onEvent: (e) => records.push(e) });
            return r.runId;
          },
        }),
      ],
      clock: new DeterministicClock(),
      ids: new DeterministicIds(),
    });
    const all: EventRecord[] = [];
    await parent.run("hi", { runId: "p", onEvent: (e) => all.push(e) });
    const childIds = [...new Set(all.filter((r) => r.runId !== "p").map((r) => r.runId))];
    expect(childIds).toHaveLength(2);
    for (const callId of ["c1", "c2"]) {
      const records = seen.get(callId) ?? [];
      const runIds = new Set(records.map((r) => r.runId));
      expect(runIds.size).toBe(1);
      expect(records.map((r) => r.event.type)).toContain("run.completed");
    }
    // The two children saw different runs.
    expect(seen.get("c1")?.[0]?.runId).not.toBe(seen.get("c2")?.[0]?.runId);
  });

  it("lineageListener passes a run's events and its descendants', learned by parentRunId", () => {
    const got: string[] = [];
    const listen = lineageListener("a", (r) => got.push(`${r.runId}:${r.event.type}`));
    const rec = (runId: string, parentRunId: string | undefined, type: string) =>
      ({ runId, parentRunId, event: { type } }) as unknown as EventRecord;
    listen(rec("p", undefined, "tool.started"));
    listen(rec("a", "p", "run.started"));
    listen(rec("b", "p", "run.started"));
    listen(rec("a1", "a", "run.started"));
    listen(rec("a11", "a1", "run.started"));
    listen(rec("b1", "b", "run.started"));
    expect(got).toEqual(["a:run.started", "a1:run.started", "a11:run.started"]);
  });

  it("past the parent's maxDepth the child fails with sub_agent_depth before running, reported on the parent", async () => {
    const model = new ScriptedModel(["never"]);
    const child = childAgent(model);
    let refused: unknown;
    const parent = parentAgent(async (ctx) => {
      try {
        await child.run("go", { parent: ctx });
      } catch (error) {
        refused = error;
      }
      return "ok";
    }, 0);
    const records: EventRecord[] = [];
    await parent.run("hi", { onEvent: (r) => records.push(r) });
    expect(refused).toMatchObject({ code: "sub_agent_depth" });
    expect(model.callCount).toBe(0);
    expect(records.some((r) => r.event.type === "subagent.failed" && r.depth === 0)).toBe(true);
  });

  it("is refused where it has no meaning, and checked", async () => {
    const child = childAgent();
    const seen: unknown[] = [];
    const parent = parentAgent(async (ctx) => {
      const tries: (() => unknown)[] = [
        () => child.stream("go", { parent: ctx }),
        () => child.callModel("go", { parent: ctx }),
        () => child.run("go", { parent: {} } as unknown as RunOptions),
        () => child.run("go", { parent: { run: ctx.run, name: "bad name" } }),
      ];
      for (const attempt of tries) {
        try {
          await attempt();
        } catch (error) {
          seen.push(error);
        }
      }
      return "ok";
    });
    await parent.run("hi");
    expect(seen).toEqual([
      expect.objectContaining({ code: "validation", details: { field: "parent" } }),
      expect.objectContaining({ code: "validation", details: { field: "parent" } }),
      expect.objectContaining({ code: "validation", details: { field: "parent" } }),
      expect.objectContaining({ code: "validation", details: { field: "parent.name" } }),
    ]);
  });
});
