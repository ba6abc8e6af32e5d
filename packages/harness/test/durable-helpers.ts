/**
 * Shared pieces of the durable-run tests (not a test file): a two-tool agent (`work`
 * at-least-once, `pay` once) whose executions go to a ledger, that can hang ("die") at a chosen
 * model call, tool call or in `afterAgent`, and a condition wait.
 */
import { AgentHarness, tool } from "@tinyagents/harness";
import { ScriptedModel, type ScriptStep } from "@tinyagents/harness/testkit";
import type { Usage } from "@tinyagents/inference";

export const USAGE: Usage = {
  inputTokens: 10,
  outputTokens: 5,
  totalTokens: 15,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};
export const SCRIPT: ScriptStep[] = [
  { toolCalls: [{ id: "c1", name: "work", arguments: { n: 1 } }] },
  { toolCalls: [{ id: "c2", name: "pay", arguments: { n: 2 } }] },
  "done",
];

export type Ledger = { tool: string; key: string }[];
export const never = new Promise<never>(() => undefined);

export interface Hang {
  /** Hang inside this model call (1-based)... */
  model?: number;
  /** ...or inside this tool call id (until `gate` settles, when given)... */
  tool?: string;
  gate?: Promise<void>;
  /** ...or in `afterAgent` (after the final answer was recorded). */
  afterAgent?: boolean;
}

export function agent(ledger: Ledger, script: ScriptStep[], hang: Hang = {}) {
  const model = new ScriptedModel(
    script.map((step, i): ScriptStep => (i + 1 === hang.model ? () => never : step)),
    { usage: USAGE },
  );
  const h = new AgentHarness<undefined, undefined>();
  h.registerModel("m", model);
  for (const [name, sideEffects] of [
    ["work", "at-least-once"],
    ["pay", "once"],
  ] as const) {
    h.registerTool(
      tool({
        name,
        description: name,
        sideEffects,
        inputSchema: { type: "object", properties: { n: { type: "number" } } },
        execute: async (args, ctx) => {
          ledger.push({ tool: name, key: ctx.idempotencyKey ?? "" });
          if (ctx.callId === hang.tool) await (hang.gate ?? never);
          return `${name} ${String(args.n)}`;
        },
      }),
    );
  }
  if (hang.afterAgent === true) h.use({ name: "dies", afterAgent: () => never });
  return { h, model };
}

export async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 20_000; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`timed out waiting for ${what}`);
}
