/**
 * Tool arguments from the model are untrusted. Host-supplied arguments (`tool({ injected })`)
 * — a user id, a tenant — are hidden from the model's schema, cannot be set by the model (a
 * value it sends is dropped), and reach `execute` computed from the run's context; the injected
 * values never appear in events or journals (only what the model sent does).
 */
import { AgentHarness, EventSink, tool } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import {
  DeterministicClock,
  DeterministicIds,
  EventRecorder,
  ScriptedModel,
} from "@tinyagents/harness/testkit";
import { type JsonObject, TinyAgentsError, type ToolMessage, text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { z } from "zod";

interface Session {
  userId: string;
}

/** A raw-JSON-Schema tool reading orders of the CURRENT user only. */
function ordersTool(seen: JsonObject[]) {
  return tool<unknown, Session>({
    name: "list_orders",
    description: "List the current user's orders.",
    inputSchema: {
      type: "object",
      properties: {
        status: { type: "string", enum: ["open", "shipped"] },
        userId: { type: "string", minLength: 1 },
      },
      required: ["status", "userId"],
      additionalProperties: false,
    },
    injected: { userId: (ctx) => ctx.run.data.userId },
    execute: (args) => {
      seen.push(args);
      return `orders of ${String(args.userId)} (${String(args.status)})`;
    },
  });
}

async function run(
  toolDef: ReturnType<typeof ordersTool> | ReturnType<typeof zodTool>,
  modelArgs: JsonObject,
  userId = "alice",
) {
  const clock = new DeterministicClock();
  const harness = new AgentHarness<unknown, Session>({ clock, ids: new DeterministicIds() });
  const model = new ScriptedModel([{ toolCalls: [{ name: toolDef.name, arguments: modelArgs }] }, "done"]);
  harness.registerModel("m", model);
  harness.registerTool(toolDef);
  const sink = new EventSink("r1", { now: () => clock.now() });
  const events = new EventRecorder();
  events.attach(sink);
  const outcome = await lowerLayer(harness).invokeCollectingPartial(
    undefined,
    { userId },
    { runId: "r1" },
    "show my orders",
    {
      events: sink,
    },
  );
  const toolMessage = outcome.run.messages.find((m): m is ToolMessage => m.role === "tool");
  return { outcome, model, events, toolMessage };
}

describe("injected tool arguments (raw JSON Schema)", () => {
  it("hides the injected argument from the schema the model is given", async () => {
    const t = ordersTool([]);
    expect(t.parameters).toEqual({
      type: "object",
      properties: { status: { type: "string", enum: ["open", "shipped"] } },
      required: ["status"],
      additionalProperties: false,
    });
    const { model } = await run(t, { status: "open" });
    const advertised = model.requests[0]?.tools?.find((d) => d.name === "list_orders");
    expect(JSON.stringify(advertised)).not.toContain("userId");
  });

  it("the model cannot override it: its value is dropped and the host's is used", async () => {
    const seen: JsonObject[] = [];
    const { outcome, toolMessage, events } = await run(ordersTool(seen), {
      status: "open",
      userId: "mallory",
    });
    expect(outcome.error).toBeUndefined();
    expect(seen).toEqual([{ status: "open", userId: "alice" }]);
    expect(toolMessage?.isError).toBe(false);
    expect(text(toolMessage)).toBe("orders of alice (open)");
    // Events show what the model asked for (the attempt is visible), never the injected value.
    const started = events.ofType("tool.started")[0];
    expect(started?.arguments).toEqual({ status: "open", userId: "mallory" });
    expect(JSON.stringify(events.ofType("tool.started"))).not.toContain("alice");
  });

  it("works when the model does not send it, and still validates the model's own arguments", async () => {
    const seen: JsonObject[] = [];
    const ok = await run(ordersTool(seen), { status: "shipped" }, "bob");
    expect(seen).toEqual([{ status: "shipped", userId: "bob" }]);
    expect(ok.toolMessage?.isError).toBe(false);
    const bad = await run(ordersTool(seen), { status: "lost" });
    expect(bad.toolMessage?.isError).toBe(true);
    expect(text(bad.toolMessage)).toContain("invalid arguments");
    expect(seen).toHaveLength(1);
  });

  it("a host value that breaks the schema is a validation error, never a silent run", async () => {
    const seen: JsonObject[] = [];
    const { toolMessage, events } = await run(ordersTool(seen), { status: "open" }, "");
    expect(seen).toEqual([]);
    expect(toolMessage?.isError).toBe(true);
    expect(events.ofType("tool.failed")[0]?.error.code).toBe("validation");
  });

  it("rejects a malformed `injected` at definition time", () => {
    const define = (injected: unknown) =>
      tool({
        name: "t",
        description: "d",
        inputSchema: { type: "object", properties: {} },
        injected: injected as never,
        execute: () => "x",
      });
    for (const bad of [null, [], {}, { userId: "alice" }]) {
      expect(() => define(bad)).toThrow(TinyAgentsError);
      try {
        define(bad);
      } catch (error) {
        expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
        expect((error as TinyAgentsError).details).toMatchObject({ field: "injected", tool: "t" });
      }
    }
  });
});

/** The same tool over a zod schema: the injected value is typed and goes through the schema. */
function zodTool(seen: unknown[]) {
  return tool({
    name: "transfer",
    description: "Move money between the current user's accounts.",
    inputSchema: z.object({
      amount: z.number().positive(),
      fromAccount: z.string(),
      userId: z.string().min(1),
    }),
    injected: { userId: (ctx: { run: { data: unknown } }) => (ctx.run.data as Session).userId },
    execute: (args) => {
      seen.push(args);
      return `moved ${args.amount} for ${args.userId}`;
    },
  });
}

describe("injected tool arguments (Standard Schema / zod)", () => {
  it("hides it from the derived schema, drops the model's value and validates the host's", async () => {
    const seen: unknown[] = [];
    const t = zodTool(seen);
    expect(JSON.stringify(t.parameters)).not.toContain("userId");
    expect(t.parameters.required).toEqual(["amount", "fromAccount"]);
    const { toolMessage } = await run(t, { amount: 5, fromAccount: "chk", userId: "mallory" });
    expect(seen).toEqual([{ amount: 5, fromAccount: "chk", userId: "alice" }]);
    expect(text(toolMessage)).toBe("moved 5 for alice");
    const rejected = await run(t, { amount: -5, fromAccount: "chk" });
    expect(rejected.toolMessage?.isError).toBe(true);
    expect(seen).toHaveLength(1);
  });
});
