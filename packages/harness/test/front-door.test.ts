/**
 * The front door: `agent.run(input, options)` and `agent.stream(input, options)` — results,
 * failures carrying the partial run, the stream's readers (items, result, textStream,
 * ReadableStream, SSE Response), cancellation, and per-run model / clock / options.
 */
import {
  AgentHarness,
  AgentRunError,
  type EventRecord,
  InMemoryChatHistory,
  type RunStreamItem,
  SteeringHandle,
} from "@tinyagents/harness";
import { DeterministicClock, DeterministicIds, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { TinyAgentsError, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";

const PRICING = { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 };

/** An agent on a virtual clock whose model asks for the weather once, then answers. */
function weatherAgent(steps?: ConstructorParameters<typeof ScriptedModel>[0]) {
  const model = new ScriptedModel(
    steps ?? [{ toolCalls: [{ name: "weather", arguments: { city: "Oslo" } }] }, "Sunny in Oslo."],
    { usage: usage({ inputTokens: 10, outputTokens: 5 }) },
  );
  const weather = FakeTool.of("weather", (args) => `clear in ${String(args.city)}`);
  const agent = new AgentHarness({
    clock: new DeterministicClock(),
    ids: new DeterministicIds(),
    // The run below names a thread: threads need memory.
    memory: { history: new InMemoryChatHistory() },
  })
    .registerModel("main", model, { pricing: PRICING })
    .registerTool(weather);
  return { agent, model, weather };
}

/** The JSON payloads of an SSE body's `data:` lines. */
async function sseFrames(response: Response): Promise<{ id?: string; data: Record<string, unknown> }[]> {
  const body = await response.text();
  return body
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      const lines = frame.split("\n");
      const id = lines.find((l) => l.startsWith("id: "))?.slice(4);
      const data = lines
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n");
      return { ...(id === undefined ? {} : { id }), data: JSON.parse(data) as Record<string, unknown> };
    });
}

describe("agent.run", () => {
  it("resolves to the result: text, transcript, flat usage, cost, stopReason, ids, status", async () => {
    const { agent, weather } = weatherAgent();
    const seen: string[] = [];
    const result = await agent.run("Weather in Oslo?", {
      runId: "r-1",
      threadId: "t-1",
      tags: ["demo"],
      metadata: { user: "u1" },
      onEvent: (record) => seen.push(record.event.type),
    });
    expect(result.text).toBe("Sunny in Oslo.");
    expect(result.runId).toBe("r-1");
    expect(result.threadId).toBe("t-1");
    expect(result.stopReason).toBe("completed");
    expect(result.usage).toMatchObject({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    expect(result.cost.total).toBeCloseTo(20 + 20, 6);
    expect(result.modelCalls).toBe(2);
    expect(result.toolCalls).toBe(1);
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(result.status.status).toBe("completed");
    expect(result.structured).toBeUndefined();
    expect(weather.callCount).toBe(1);
    expect(seen[0]).toBe("run.started");
    expect(seen).toContain("tool.completed");
    expect(seen.at(-1)).toBe("run.completed");
  });

  it("rejects with an AgentRunError carrying the run's code and the partial run", async () => {
    // The model keeps asking for tools; a cap of 1 model call fails the run after the first turn.
    const { agent } = weatherAgent([{ toolCalls: [{ name: "weather", arguments: { city: "A" } }] }]);
    const error = await agent.run("loop", { limits: { maxModelCalls: 1 } }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AgentRunError);
    const failure = error as AgentRunError;
    expect(TinyAgentsError.isInstance(failure, "limit_exceeded")).toBe(true);
    expect(AgentRunError.isAgentRunError(failure)).toBe(true);
    expect(failure.cause).toBeInstanceOf(TinyAgentsError);
    expect(failure.run.stopReason).toBe("limit:model_calls");
    expect(failure.run.usage.totalTokens).toBe(15);
    expect(failure.run.cost.total).toBeGreaterThan(0);
    expect(failure.run.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(failure.status.status).toBe("failed");
  });

  it("cancels through options.signal: rejects with code cancelled and the partial run", async () => {
    const controller = new AbortController();
    const agent = new AgentHarness({ ids: new DeterministicIds() })
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "wait" }] }, "never"]))
      .registerTool(FakeTool.hanging("wait"));
    const pending = agent.run("go", {
      signal: controller.signal,
      onEvent: (record) => {
        if (record.event.type === "tool.started") controller.abort();
      },
    });
    const error = (await pending.catch((e: unknown) => e)) as AgentRunError;
    expect(error).toBeInstanceOf(AgentRunError);
    expect(error.code).toBe("cancelled");
    expect(error.run.stopReason).toBe("cancelled");
    expect(error.run.modelCalls).toBe(1);
  });

  it("chooses the model per run: a registered name, or a ChatModel used by that run only", async () => {
    const a = new ScriptedModel(["from a", "from a again"]);
    const b = new ScriptedModel(["from b"]);
    const agent = new AgentHarness().registerModel("a", a).registerModel("b", b);
    expect((await agent.run("x", { model: "b" })).text).toBe("from b");
    const once = new ScriptedModel(["from once"], { modelId: "once" });
    const result = await agent.run("x", { model: once });
    expect(result.text).toBe("from once");
    expect(result.resolvedModel?.providerModelId).toBe("once");
    // The agent itself is unchanged: its default still answers, nothing was registered.
    expect(agent.models.names()).toEqual(["a", "b"]);
    expect((await agent.run("x")).text).toBe("from a");
    await expect(agent.run("x", { model: "nope" })).rejects.toMatchObject({ code: "model_not_found" });
  });

  it("runs on a per-run clock: timestamps and the deadline use it", async () => {
    const clock = new DeterministicClock({ start: 1_000_000 });
    const agent = new AgentHarness().registerModel("m", new ScriptedModel(["ok"]));
    const stamps: number[] = [];
    const result = await agent.run("x", { clock, onEvent: (r) => stamps.push(r.ts) });
    expect(result.text).toBe("ok");
    expect(stamps.length).toBeGreaterThan(0);
    expect(stamps.every((ts) => ts >= 1_000_000 && ts < 1_100_000)).toBe(true);
    expect(result.status.startedAt).toBe(1_000_000);
  });

  it("passes context data and state to tools, and ids per run", async () => {
    const seen: unknown[] = [];
    const agent = new AgentHarness<{ user: string }, { tenant: string }>()
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "who" }] }, "done"]))
      .registerTool(
        FakeTool.of<{ user: string }, { tenant: string }>("who", (_args, ctx) => {
          seen.push(ctx.state.user, ctx.run.data.tenant);
          return "ok";
        }),
      );
    const result = await agent.run("x", {
      state: { user: "ada" },
      context: { tenant: "acme" },
      ids: new DeterministicIds(),
    });
    expect(seen).toEqual(["ada", "acme"]);
    expect(result.runId).toBe("run-1");
  });

  it("refuses unknown options and malformed values with a validation error naming the field", async () => {
    const { agent } = weatherAgent();
    const typo = { threadID: "t" } as unknown as Parameters<typeof agent.run>[1];
    await expect(agent.run("x", typo)).rejects.toMatchObject({
      code: "validation",
      details: { field: "threadID" },
    });
    await expect(agent.run("x", { limits: { maxModelCalls: -1 } })).rejects.toMatchObject({
      code: "validation",
    });
    await expect(
      agent.run("x", { limits: { maxTokens: 3 } as unknown as { maxModelCalls: number } }),
    ).rejects.toMatchObject({ code: "validation", details: { field: "limits.maxTokens" } });
    expect(() => agent.stream("x", typo)).toThrow(/unknown run option "threadID"/);
  });

  it("resumes a paused run when given its PausedRun", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "resumed answer"]);
    const t = FakeTool.returning("t", "ok");
    let pause = true;
    const agent = new AgentHarness()
      .registerModel("m", model)
      .registerTool(t)
      .use({
        name: "approval",
        afterModel: (ctx) => {
          if (pause) ctx.run.requestControl({ kind: "interrupt", reason: "approve t" });
          pause = false;
        },
      });
    const first = await agent.run("go", { runId: "r-p", steering: SteeringHandle.allowAll() });
    expect(first.stopReason).toBe("interrupted");
    expect(first.text).toBe("");
    expect(first.paused?.pendingToolCalls.map((c) => c.name)).toEqual(["t"]);
    const paused = JSON.parse(JSON.stringify(first.paused));
    const second = await agent.run(paused);
    expect(second.runId).toBe("r-p");
    expect(second.text).toBe("resumed answer");
    expect(t.callCount).toBe(1);
    expect(second.modelCalls).toBe(2);
  });
});

describe("agent.stream", () => {
  it("iterates typed items, then the completed item; result and onEvent agree", async () => {
    const { agent } = weatherAgent();
    const callback: EventRecord[] = [];
    const stream = agent.stream("Weather?", { onEvent: (r) => callback.push(r) });
    const items: RunStreamItem[] = [];
    for await (const item of stream) items.push(item);
    const last = items.at(-1);
    expect(last?.type).toBe("completed");
    const result = await stream.result;
    expect(last?.type === "completed" ? last.result : undefined).toBe(result);
    expect(result.text).toBe("Sunny in Oslo.");
    const events = items.flatMap((i) => (i.type === "event" ? [i.record] : []));
    expect(events.map((r) => r.id)).toEqual(callback.map((r) => r.id));
    const text = events.flatMap((r) => (r.event.type === "model.text_delta" ? [r.event.text] : []));
    expect(text.join("")).toBe("Sunny in Oslo.");
  });

  it("textStream yields only the answer's text; result resolves after it", async () => {
    const { agent } = weatherAgent();
    const stream = agent.stream("Weather?");
    let text = "";
    for await (const chunk of stream.textStream) text += chunk;
    expect(text).toBe("Sunny in Oslo.");
    expect((await stream.result).usage.totalTokens).toBe(30);
  });

  it("result alone runs the stream to its end", async () => {
    const { agent } = weatherAgent();
    const result = await agent.stream("Weather?").result;
    expect(result.text).toBe("Sunny in Oslo.");
    expect(result.toolCalls).toBe(1);
  });

  it("can be read once; a second reader gets a validation error", () => {
    const { agent } = weatherAgent();
    const stream = agent.stream("Weather?");
    stream[Symbol.asyncIterator]();
    expect(() => stream.textStream).toThrow(/already read by iteration/);
  });

  it("toResponse: an SSE Response whose frames are the events, then the completed result", async () => {
    const { agent } = weatherAgent();
    const response = agent.stream("Weather?").toResponse({ headers: { "x-app": "1" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-app")).toBe("1");
    const frames = await sseFrames(response);
    const last = frames.at(-1);
    expect(last?.data.type).toBe("completed");
    expect(last?.data.result).toMatchObject({ text: "Sunny in Oslo.", stopReason: "completed" });
    expect(last?.data.result).not.toHaveProperty("messages");
    const events = frames.slice(0, -1);
    expect(events.every((f) => f.data.type === "event" && f.id !== undefined)).toBe(true);
    const types = events.map((f) => (f.data.record as EventRecord).event.type);
    expect(types[0]).toBe("run.started");
    expect(types).toContain("model.text_delta");
  });

  it("toResponse with a filter sends only matching events, and always the final frame", async () => {
    const { agent } = weatherAgent();
    const response = agent
      .stream("Weather?")
      .toResponse({ filter: (r) => r.event.type === "model.text_delta" });
    const frames = await sseFrames(response);
    const kinds = frames.map((f) =>
      f.data.type === "event" ? (f.data.record as EventRecord).event.type : String(f.data.type),
    );
    expect(new Set(kinds)).toEqual(new Set(["model.text_delta", "completed"]));
  });

  it("toReadableStream gives the same items as a WHATWG stream", async () => {
    const { agent } = weatherAgent();
    const reader = agent.stream("Weather?").toReadableStream().getReader();
    const items: RunStreamItem[] = [];
    for (let step = await reader.read(); !step.done; step = await reader.read()) items.push(step.value);
    expect(items.at(-1)?.type).toBe("completed");
    expect(items[0]?.type === "event" ? items[0].record.event.type : "").toBe("run.started");
  });

  describe("failure never ends a stream silently", () => {
    const failing = () => weatherAgent([{ toolCalls: [{ name: "weather", arguments: { city: "A" } }] }]);

    it("iteration throws the AgentRunError after the events", async () => {
      const { agent } = failing();
      const seen: string[] = [];
      const iterate = async () => {
        for await (const item of agent.stream("x", { limits: { maxModelCalls: 1 } })) {
          if (item.type === "event") seen.push(item.record.event.type);
        }
      };
      const error = (await iterate().catch((e: unknown) => e)) as AgentRunError;
      expect(error).toBeInstanceOf(AgentRunError);
      expect(error.code).toBe("limit_exceeded");
      expect(error.run.usage.totalTokens).toBe(15);
      expect(seen).toContain("run.failed");
    });

    it("textStream throws, and result rejects with the same error", async () => {
      const { agent } = failing();
      const stream = agent.stream("x", { limits: { maxModelCalls: 1 } });
      const read = async () => {
        for await (const _ of stream.textStream) {
          // reading
        }
      };
      const error = await read().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentRunError);
      await expect(stream.result).rejects.toBe(error);
    });

    it("toResponse ends with an error frame carrying the code and the partial run", async () => {
      const { agent } = failing();
      const frames = await sseFrames(agent.stream("x", { limits: { maxModelCalls: 1 } }).toResponse());
      const last = frames.at(-1)?.data;
      expect(last?.type).toBe("error");
      expect(last?.error).toMatchObject({ code: "limit_exceeded" });
      expect(last?.run).toMatchObject({ stopReason: "limit:model_calls", modelCalls: 1 });
    });

    it("toReadableStream errors with the AgentRunError", async () => {
      const { agent } = failing();
      const reader = agent
        .stream("x", { limits: { maxModelCalls: 1 } })
        .toReadableStream()
        .getReader();
      const drain = async () => {
        for (let step = await reader.read(); !step.done; step = await reader.read()) {
          // reading
        }
      };
      await expect(drain()).rejects.toBeInstanceOf(AgentRunError);
    });

    it("a run that cannot be set up fails the stream (an unknown model)", async () => {
      const { agent } = weatherAgent();
      const stream = agent.stream("x", { model: "missing" });
      await expect(stream.result).rejects.toMatchObject({ code: "model_not_found" });
    });
  });

  it("aborting the signal cancels a stream; breaking out cancels it too", async () => {
    const make = () =>
      new AgentHarness()
        .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "wait" }] }, "never"]))
        .registerTool(FakeTool.hanging("wait"));
    const controller = new AbortController();
    const stream = make().stream("go", { signal: controller.signal });
    const reading = (async () => {
      for await (const item of stream) {
        if (item.type === "event" && item.record.event.type === "tool.started") controller.abort();
      }
    })();
    await expect(reading).rejects.toMatchObject({ code: "cancelled" });
    await expect(stream.result).rejects.toMatchObject({ code: "cancelled" });

    const second = make().stream("go");
    for await (const item of second) {
      if (item.type === "event" && item.record.event.type === "tool.started") break;
    }
    const error = (await second.result.catch((e: unknown) => e)) as AgentRunError;
    expect(error.code).toBe("cancelled");
    expect(error.run.stopReason).toBe("cancelled");
  });

  it("a client disconnecting from the SSE Response cancels the run", async () => {
    const agent = new AgentHarness()
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "wait" }] }, "never"]))
      .registerTool(FakeTool.hanging("wait"));
    const stream = agent.stream("go");
    const response = stream.toResponse();
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error("no body");
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes('"tool.started"')) {
      const step = await reader.read();
      if (step.done) break;
      seen += decoder.decode(step.value);
    }
    await reader.cancel();
    await expect(stream.result).rejects.toMatchObject({ code: "cancelled" });
  });
});
