/**
 * Middleware: retry a rate-limited call, enforce a token budget, redact secrets before the model
 * sees them. All offline: the scripted model fails once with a 429, then answers.
 * Run: npx tsx examples/middleware.ts
 */
import {
  AgentHarness,
  budgetMiddleware,
  redactionMiddleware,
  retryMiddleware,
  runText,
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

const agent = new AgentHarness()
  .registerModel("main", model)
  .withPolicy({ retry: { maxRetries: 0 } }) // leave retries to the middleware, to show it
  .use(retryMiddleware({ policy: { maxRetries: 2, initialBackoffMs: 5 } }))
  .use(budgetMiddleware({ limits: { maxTotalTokens: 10_000 } }))
  .use(redactionMiddleware());

const run = await agent.invokeCollectingPartial(
  undefined,
  undefined,
  {},
  "My API key is sk-proj-abcdefghijklmnopqrstuvwxyz123456, keep it safe.",
);
const answer = run.error === undefined ? runText(run.run) : `failed: ${run.error.message}`;
console.log(answer);
if (!live) {
  const sent = scripted.requests.at(-1)?.messages.at(-1);
  console.log(`the model saw: ${text(sent)}`);
  console.log(
    `provider attempts: ${scripted.requests.length} (the first got a 429; retryMiddleware waited and retried)`,
  );
}
console.log(
  `model calls: ${run.run.modelCalls}, tokens: ${run.run.usage.totalTokens} of a 10000-token budget`,
);
