import type { ChatModel } from "@tinyagents/inference";
import { user } from "@tinyagents/inference";
import { describe, expectTypeOf, it } from "vitest";
import { humanApprovalMiddleware } from "../middleware/library/human-approval-middleware.js";
import type { AgentHarness } from "../runtime/agent-harness.js";
import { createAgent } from "../runtime/create-agent.js";
import { agentNode } from "./agent-node.js";
import { modelNode } from "./model-node.js";
import type { GraphNodeFunction } from "./node-options.js";

type S = { question: string; notes: string };

describe("graph node types", () => {
  it("agentNode<S, U> and modelNode<S, U> take an agent createAgent built without type arguments", () => {
    const model = {} as ChatModel;
    const researcher = createAgent({ model, middleware: [humanApprovalMiddleware()] });
    expectTypeOf(researcher).toEqualTypeOf<AgentHarness>();
    const research = agentNode<S, Partial<S>>({
      harness: researcher,
      input: (s) => s.question,
      output: () => ({ notes: "n" }),
    });
    expectTypeOf(research).toEqualTypeOf<GraphNodeFunction<S, Partial<S>>>();
    modelNode<S, Partial<S>>({
      harness: createAgent({ model }),
      request: (s) => ({ messages: [user(s.question)] }),
      output: () => ({}),
    });
    // An agent typed with no application state (`AgentHarness<undefined>`) still fits.
    const stateless = {} as AgentHarness<undefined>;
    agentNode<S, Partial<S>>({ harness: stateless, input: (s) => s.question, output: () => ({}) });
    modelNode<S, Partial<S>>({ harness: stateless, request: () => ({ messages: [] }), output: () => ({}) });
    // A typed application state is still checked against the agent's.
    const typed = {} as AgentHarness<{ user: string }>;
    const input = (s: S) => s.question;
    agentNode<S, Partial<S>, { user: string }>({
      harness: typed,
      appState: () => ({ user: "u" }),
      input,
      output: () => ({}),
    });
    agentNode<S, Partial<S>, { user: string }>({
      harness: typed,
      // @ts-expect-error the application state must be the agent's
      appState: () => ({ user: 1 }),
      input,
      output: () => ({}),
    });
  });
});
