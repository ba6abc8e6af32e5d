import type { ChatModel, JsonObject } from "@tinyagents/inference";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { humanApprovalMiddleware } from "../middleware/library/human-approval-middleware.js";
import { retryMiddleware } from "../middleware/library/retry-middleware.js";
import type { Middleware } from "../middleware/middleware.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { tool } from "../tool/define-tool.js";
import type { AnyTool, Tool } from "../tool/tool.js";
import type { AgentHarness } from "./agent-harness.js";
import { createAgent } from "./create-agent.js";
import { SubAgent } from "./sub-agent.js";
import { SubAgentTool } from "./sub-agent-tool.js";

// What `createAgent` infers for the agent's `State` and `Ctx` (see the comment in create-agent.ts):
// plain tools, middleware and models give the plain `AgentHarness` (no context); a tool or
// middleware typed for a context or a state gives that type, also beside plain ones.

const model = {} as ChatModel;
const Order = z.object({ id: z.string() });

/** A zod tool that accepts any state and context: what `tool({...})` gives without type arguments. */
const lookup = tool({
  name: "lookup",
  description: "Look an order up",
  inputSchema: Order,
  execute: ({ id }) => `order ${id}`,
});
/** A raw JSON Schema tool, equally plain. */
const ping = tool({
  name: "ping",
  description: "Ping",
  inputSchema: { type: "object" },
  execute: () => "pong",
});
/** Same arguments as `lookup`, but it reads the run's context: the agent must carry a tenant. */
const tenantLookup = tool<typeof Order, unknown, { tenant: string }>({
  name: "tenant_lookup",
  description: "Look an order up for the run's tenant",
  inputSchema: Order,
  execute: ({ id }, ctx) => `${ctx.run.data.tenant}/${id}`,
});
/** Reads the application state. */
const cartTool = tool<typeof Order, { cart: string[] }>({
  name: "cart",
  description: "Add to the cart",
  inputSchema: Order,
  execute: ({ id }, ctx) => [...ctx.state.cart, id].join(","),
});

/** Code elsewhere that takes an agent: the SubAgent plumbing, graph nodes, a user's helper. */
function takesAgent(agent: AgentHarness): AgentHarness {
  return agent;
}

describe("createAgent's inferred State and Ctx", () => {
  it("plain tools (zod and JSON Schema) give the plain AgentHarness: runs take no context", () => {
    const agent = createAgent({ model, tools: [lookup, ping], instructions: "Be brief." });
    expectTypeOf(agent).toEqualTypeOf<AgentHarness>();
    takesAgent(agent);
    const typed: AgentHarness = agent;
    void typed.run("Where is order 7?");
    // @ts-expect-error an agent without a context type takes no context data
    void agent.run("x", { context: { tenant: "acme" } });
    expectTypeOf(
      createAgent({ model: "openai:gpt-4.1-mini", tools: [lookup] }),
    ).toEqualTypeOf<AgentHarness>();
    expectTypeOf(createAgent({ model: new ScriptedModel([]), tools: [ping] })).toEqualTypeOf<AgentHarness>();
  });

  it("a tool typed for a context makes it the agent's context, also beside plain tools", () => {
    const agent = createAgent({ model, tools: [tenantLookup] });
    expectTypeOf(agent).toEqualTypeOf<AgentHarness<unknown, { tenant: string }>>();
    void agent.run("x", { context: { tenant: "acme" } });
    // @ts-expect-error the context must match the tools'
    void agent.run("x", { context: { tenant: 1 } });
    // Same argument type as `lookup`: an array literal must not reduce the two to the wider one.
    expectTypeOf(createAgent({ model, tools: [lookup, tenantLookup] })).toEqualTypeOf<
      AgentHarness<unknown, { tenant: string }>
    >();
    expectTypeOf(createAgent({ model, tools: [tenantLookup, ping, lookup] })).toEqualTypeOf<
      AgentHarness<unknown, { tenant: string }>
    >();
    const list: Tool<unknown, { tenant: string }>[] = [tenantLookup];
    expectTypeOf(createAgent({ model, tools: list })).toEqualTypeOf<
      AgentHarness<unknown, { tenant: string }>
    >();
  });

  it("defaultContext gives the context type; it must agree with the tools'", () => {
    expectTypeOf(
      createAgent({ model, tools: [lookup], defaultContext: () => ({ tenant: "acme" }) }),
    ).toEqualTypeOf<AgentHarness<unknown, { tenant: string }>>();
    // @ts-expect-error the default context must be one the tools accept
    createAgent({ model, tools: [tenantLookup], defaultContext: () => ({ tenant: 1 }) });
  });

  it("a tool typed for a state makes it the agent's state, beside plain tools and a plain model", () => {
    expectTypeOf(createAgent({ model, tools: [cartTool, lookup] })).toEqualTypeOf<
      AgentHarness<{ cart: string[] }>
    >();
    expectTypeOf(createAgent({ model: new ScriptedModel([]), tools: [lookup, cartTool] })).toEqualTypeOf<
      AgentHarness<{ cart: string[] }>
    >();
    expectTypeOf(createAgent({ model: {} as ChatModel<{ cart: string[] }>, tools: [lookup] })).toEqualTypeOf<
      AgentHarness<{ cart: string[] }>
    >();
  });

  it("tools that need different contexts are an error; type arguments say which to use", () => {
    const userTool = tool<typeof Order, unknown, { user: string }>({
      name: "user_lookup",
      description: "d",
      inputSchema: Order,
      execute: ({ id }, ctx) => `${ctx.run.data.user}/${id}`,
    });
    // @ts-expect-error no one context satisfies both tools
    createAgent({ model, tools: [tenantLookup, userTool] });
    expectTypeOf(
      createAgent<unknown, { tenant: string; user: string }>({ model, tools: [tenantLookup, userTool] }),
    ).toEqualTypeOf<AgentHarness<unknown, { tenant: string; user: string }>>();
  });

  it("explicit type arguments type the tools written inline", () => {
    const agent = createAgent<{ cart: string[] }, { tenant: string }>({
      model,
      tools: [
        tool({
          name: "inline",
          description: "d",
          inputSchema: z.object({}),
          execute: (_args, ctx) => `${ctx.run.data.tenant}:${ctx.state.cart.length}`,
        }),
      ],
    });
    expectTypeOf(agent).toEqualTypeOf<AgentHarness<{ cart: string[] }, { tenant: string }>>();
  });

  it("a generic wrapper keeps its type parameters (no unresolved conditional type)", () => {
    function agentWith<S, C>(tools: AnyTool<S, C>[]): AgentHarness<S, C> {
      return createAgent({ model: {} as ChatModel<S>, tools });
    }
    expectTypeOf(agentWith([tenantLookup])).toEqualTypeOf<AgentHarness<unknown, { tenant: string }>>();
    function explicitWith<C>(tools: AnyTool<unknown, C>[]): AgentHarness<unknown, C> {
      return createAgent<unknown, C>({ model, tools });
    }
    expectTypeOf(explicitWith<{ user: string }>([])).toEqualTypeOf<AgentHarness<unknown, { user: string }>>();
    // Naming only the state: the context stays the default, none.
    expectTypeOf(createAgent<undefined>({ model, tools: [lookup] })).toEqualTypeOf<AgentHarness<undefined>>();
  });

  it("middleware: plain (library or hand-written) keeps the plain agent; typed gives its context", () => {
    const plain: Middleware = { name: "plain" };
    const agent = createAgent({
      model,
      tools: [lookup],
      middleware: [humanApprovalMiddleware({ tools: ["lookup"] }), retryMiddleware(), plain],
    });
    expectTypeOf(agent).toEqualTypeOf<AgentHarness>();
    const tenantAudit: Middleware<unknown, { tenant: string }> = {
      name: "audit",
      beforeModel: (ctx) => void ctx.run.data.tenant,
    };
    expectTypeOf(createAgent({ model, middleware: [plain, tenantAudit] })).toEqualTypeOf<
      AgentHarness<unknown, { tenant: string }>
    >();
    // Hooks written inline see the context that the rest of the options give.
    const inline = createAgent({
      model,
      tools: [tenantLookup],
      middleware: [{ name: "inline", beforeModel: (ctx) => void ctx.run.data.tenant.toUpperCase() }],
    });
    expectTypeOf(inline).toEqualTypeOf<AgentHarness<unknown, { tenant: string }>>();
  });

  it("sub-agents: a plain agent's asTool fits any parent; a typed child's asks for its context", () => {
    const child = createAgent({ model, tools: [lookup] });
    const childTool = child.asTool({ name: "orders", description: "Answers order questions" });
    expectTypeOf(childTool).toEqualTypeOf<Tool<unknown, unknown, JsonObject>>();
    expectTypeOf(createAgent({ model, tools: [childTool] })).toEqualTypeOf<AgentHarness>();
    expectTypeOf(createAgent({ model, tools: [childTool, tenantLookup] })).toEqualTypeOf<
      AgentHarness<unknown, { tenant: string }>
    >();

    const tenantChild = createAgent({ model, tools: [tenantLookup] });
    const tenantChildTool = tenantChild.asTool({ name: "tenant_orders", description: "d" });
    expectTypeOf(tenantChildTool).toEqualTypeOf<Tool<unknown, { tenant: string }, JsonObject>>();
    expectTypeOf(createAgent({ model, tools: [lookup, tenantChildTool] })).toEqualTypeOf<
      AgentHarness<unknown, { tenant: string }>
    >();
    // A parent with another context maps it for the child.
    const mapped = tenantChild.asTool<{ org: string }>({
      name: "mapped",
      description: "d",
      context: (ctx) => ({ tenant: ctx.run.data.org }),
    });
    expectTypeOf(createAgent({ model, tools: [mapped] })).toEqualTypeOf<
      AgentHarness<unknown, { org: string }>
    >();
    // The hand-built form (SubAgent + SubAgentTool) of a plain agent fits any parent too.
    const handBuilt = new SubAgentTool(new SubAgent({ name: "orders", description: "d", harness: child }));
    expectTypeOf(createAgent({ model, tools: [handBuilt] })).toEqualTypeOf<AgentHarness>();
    expectTypeOf(createAgent({ model, tools: [handBuilt, tenantLookup] })).toEqualTypeOf<
      AgentHarness<unknown, { tenant: string }>
    >();
  });

  it("responseFormat still types the structured answer beside inferred tools", () => {
    const agent = createAgent({ model, tools: [lookup], responseFormat: z.object({ total: z.number() }) });
    expectTypeOf(agent).toEqualTypeOf<AgentHarness<unknown, undefined, { total: number }>>();
    expectTypeOf(agent).toExtend<AgentHarness>();
  });
});
