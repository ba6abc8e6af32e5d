import {
  type ChatModel,
  isJsonObject,
  type JsonObject,
  type Message,
  text,
  validationError,
} from "@tinyagents/inference";
import type { ModelPricing } from "../../cost/cost.js";
import { EventSink } from "../../events/event-sink.js";
import { AgentHarness } from "../../runtime/agent-harness.js";
import type { StructuredStrategy } from "../../structured/structured-spec.js";
import { runAgent, runUsage } from "../agent-target.js";
import { DEFAULT_THRESHOLD, type Scorer } from "../scorer.js";
import { makeScorer, type ScorerOptions } from "./custom.js";

/** Options of {@link llmJudge}. */
export interface LlmJudgeOptions extends ScorerOptions {
  /** Any `ChatModel` (a provider model, or a `ScriptedModel` in tests). */
  model: ChatModel;
  /** What a good answer is, in plain words; the judge grades against it. */
  rubric: string;
  /** The integer scale the judge answers on (default [1, 5]); normalized to [0, 1]. */
  scale?: [number, number];
  /** Show the case's `expected` text to the judge as a reference answer (default true). */
  includeExpected?: boolean;
  /** Price of the judge model (default: the pricing catalog, by provider and model id). */
  pricing?: ModelPricing;
  /** How the structured verdict is asked for (default `auto`). */
  strategy?: StructuredStrategy;
  /** Times the judge is asked again when its verdict does not parse or validate (default 1). */
  maxReasks?: number;
}

const INSTRUCTIONS =
  "You are an impartial evaluator. Grade the ASSISTANT ANSWER to the USER INPUT against the RUBRIC. " +
  "Judge only what the rubric asks. First give a one- or two-sentence reason, then the integer score.";

/**
 * LLM-as-judge: asks `model` for a structured verdict `{ reason, score }` on the rubric and maps
 * the integer score onto [0, 1]. The judge runs through a harness of its own (structured output,
 * retries, usage and cost), and its usage and cost are reported with the score — counted apart
 * from the agent's. A judge that fails (provider error, no valid verdict) is a scorer ERROR.
 * Name `judge`, threshold 0.5.
 */
export function llmJudge(options: LlmJudgeOptions): Scorer {
  if (typeof options?.rubric !== "string" || options.rubric.trim() === "") {
    throw validationError("llmJudge: rubric must be a non-empty string (what a good answer is)", {
      field: "rubric",
    });
  }
  if (typeof options.model?.invoke !== "function") {
    throw validationError("llmJudge: model must be a ChatModel", { field: "model" });
  }
  const [min, max] = options.scale ?? [1, 5];
  if (!Number.isInteger(min) || !Number.isInteger(max) || min >= max) {
    throw validationError(
      `llmJudge: scale must be two integers [min, max] with min < max, got [${min}, ${max}]`,
      {
        field: "scale",
      },
    );
  }
  const schema: JsonObject = {
    type: "object",
    properties: {
      reason: { type: "string", description: "why this score, in one or two sentences" },
      score: { type: "integer", minimum: min, maximum: max, description: `${min} (worst) to ${max} (best)` },
    },
    required: ["reason", "score"],
    additionalProperties: false,
  };
  const harness = new AgentHarness({ instructions: INSTRUCTIONS }).registerModel(
    "judge",
    options.model,
    options.pricing === undefined ? {} : { pricing: options.pricing },
  );
  const judge = harness.withResponseFormat(schema, {
    name: "verdict",
    strategy: options.strategy ?? "auto",
    maxReasks: options.maxReasks ?? 1,
  });
  const includeExpected = options.includeExpected ?? true;
  let calls = 0;
  return makeScorer("judge", DEFAULT_THRESHOLD, options, async (context) => {
    const expected = includeExpected ? context.case.expected : undefined;
    const prompt = [
      `RUBRIC:\n${options.rubric.trim()}`,
      `USER INPUT:\n${renderInput(context.case.input)}`,
      ...(expected === undefined ? [] : [`REFERENCE ANSWER:\n${expected}`]),
      `ASSISTANT ANSWER:\n${context.output === "" ? "(no answer)" : context.output}`,
      `Score from ${min} to ${max}.`,
    ].join("\n\n");
    calls += 1;
    const runId = `${context.run.runId}-judge-${calls}`;
    const outcome = await runAgent(judge, prompt, {
      runId,
      tags: ["eval:judge"],
      metadata: { caseId: context.case.id },
      events: new EventSink(runId),
      signal: context.signal,
    });
    if (outcome.error !== undefined) throw outcome.error;
    const verdict = outcome.run.structured;
    if (!isJsonObject(verdict ?? null) || typeof (verdict as JsonObject).score !== "number") {
      throw validationError("llmJudge: the judge returned no { reason, score } verdict", {
        field: "verdict",
      });
    }
    const { score, reason } = verdict as { score: number; reason?: unknown };
    return {
      score: (Math.min(max, Math.max(min, score)) - min) / (max - min),
      reason: `${score}/${max}: ${typeof reason === "string" ? reason : ""}`.trim(),
      usage: runUsage(outcome.run),
      cost: outcome.run.cost,
      metadata: { judgeRunId: runId, rawScore: score },
    };
  });
}

/** A prompt, or messages rendered as `role: text` lines. */
function renderInput(input: string | Message | Message[]): string {
  if (typeof input === "string") return input;
  const messages = Array.isArray(input) ? input : [input];
  return messages.map((message) => `${message.role}: ${text(message)}`).join("\n");
}
