/**
 * Middleware: retry a rate-limited call, enforce a token budget, redact secrets before the model
 * sees them. All offline: the scripted model fails once with a 429, then answers.
 * Run: npx tsx examples/middleware.ts
 */
import {
  AgentRunError,
  budgetMiddleware,
  createAgent,
  formatTotalTokens,
  redactionMiddleware,
  retryMiddleware,
} from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { ProviderError, text, usage } from "@tinyagents/inference";
import { pickModel } from "./support/pick-model.js";

const scripted = new ScriptedModel(
  [
    new ProviderError({
      provider: "demo",
      message: "429 slow down",
      kind: "rate_limited",
      status: 429,
      retryAfterMs: 10,
    }),
    "Got it. I will not repeat your key.",
  ],
  { usage: usage({ inputTokens: 200, outputTokens: 20 }) },
);
const { model, live } = pickModel(() => scripted);

const agent = createAgent({
  model,
  policy: { retry: { maxRetries: 0 } }, // leave retries to the middleware, to show it
  middleware: [
    retryMiddleware({ policy: { maxRetries: 2, initialBackoffMs: 5 } }),
    budgetMiddleware({ limits: { maxTotalTokens: 10_000 } }),
    redactionMiddleware(),
  ],
});

// `run` rejects with an AgentRunError that carries the partial run, so a failure loses nothing.
const outcome = await agent
  .run("My API key is sk-proj-abcdefghijklmnopqrstuvwxyz123456, keep it safe.")
  .catch((error: unknown) => {
    if (AgentRunError.isAgentRunError(error)) return error;
    throw error;
  });
const run = AgentRunError.isAgentRunError(outcome) ? outcome.run : outcome;
const answer = AgentRunError.isAgentRunError(outcome) ? `failed: ${outcome.message}` : outcome.text;
console.log(answer);
if (!live) {
  const sent = scripted.requests.at(-1)?.messages.at(-1);
  console.log(`the model saw: ${text(sent)}`);
  console.log(
    `provider attempts: ${scripted.requests.length} (the first got a 429; retryMiddleware waited and retried)`,
  );
}
console.log(
  `model calls: ${run.modelCalls}, tokens: ${formatTotalTokens(run.usage)} of a 10000-token budget`,
);
