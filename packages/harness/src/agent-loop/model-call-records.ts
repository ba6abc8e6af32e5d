/** The records of a model call the resilient call emits and returns: `model.completed`, the resolved model, a call timeout. */
import {
  type FallbackAttempt,
  type ModelResponse,
  type ResolvedModel,
  TinyAgentsError,
} from "@tinyagents/inference";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { CostTotals } from "../contracts/cost-totals.js";
import type { ModelRegistration } from "../model-registry/model-registry.js";
import type { AttemptInfo } from "./attempt-info.js";

export type ModelCompletedEvent = Extract<AgentEvent, { type: "model.completed" }>;
export type ModelFailedEvent = Extract<AgentEvent, { type: "model.failed" }>;

/**
 * `model.completed`, as one of six complete literals rather than keys added to one (each
 * literal keeps its own shape alive; added keys make shapes that die with a burst of runs).
 * `cost`: what the attempt's usage cost (a priced model, a billed call), carried into an
 * `"essential"` journal in place of a `cost.recorded` record.
 */
export function completedEvent(
  callId: string,
  model: string,
  durationMs: number,
  response: ModelResponse,
  cost: CostTotals | undefined,
): ModelCompletedEvent {
  const toolCalls = response.message.toolCalls.length;
  const servedFromCache = response.servedFromCache === true;
  const { usage, finishReason } = response;
  if (usage === undefined) {
    return finishReason === undefined
      ? { type: "model.completed", callId, model, durationMs, toolCalls, servedFromCache }
      : { type: "model.completed", callId, model, durationMs, toolCalls, servedFromCache, finishReason };
  }
  if (cost === undefined) {
    return finishReason === undefined
      ? { type: "model.completed", callId, model, durationMs, toolCalls, servedFromCache, usage }
      : {
          type: "model.completed",
          callId,
          model,
          durationMs,
          toolCalls,
          servedFromCache,
          usage,
          finishReason,
        };
  }
  return finishReason === undefined
    ? { type: "model.completed", callId, model, durationMs, toolCalls, servedFromCache, usage, cost }
    : {
        type: "model.completed",
        callId,
        model,
        durationMs,
        toolCalls,
        servedFromCache,
        usage,
        finishReason,
        cost,
      };
}

/**
 * `model.failed` for attempt `info` of `model`, with what it billed before failing (a stream that
 * broke after its usage chunk: an `"essential"` journal keeps it here, not in a `usage.recorded`
 * of its own) and whether it may have billed more than it reported (`usageUnknown`). Made by the
 * attempt's own failure and by the run ending it (`OpenCalls.closeAll`) alike.
 */
export function failedEvent(
  info: AttemptInfo,
  model: string,
  durationMs: number,
  error: ModelFailedEvent["error"],
): ModelFailedEvent {
  const event: ModelFailedEvent = {
    type: "model.failed",
    callId: info.callId,
    model,
    durationMs,
    attempt: info.attempt,
    error,
  };
  if (info.usageUnknown === true) event.usageUnknown = true;
  if (info.billedUsage !== undefined) event.usage = info.billedUsage;
  if (info.billedCost !== undefined) event.cost = info.billedCost;
  return event;
}

/**
 * A model's own `timeout` error while `request.timeoutMs` is set is the model call's timeout: an
 * adapter that enforces `timeoutMs` itself (the OpenAI, Anthropic and Ollama ones do) usually
 * fires a moment before the loop's timer. Report it as the loop would (`details.scope:
 * "model_call"`), so fallback and middleware treat a timed-out call the same whoever noticed first.
 */
export function asCallTimeout(
  error: TinyAgentsError,
  model: string,
  timeoutMs: number | undefined,
): TinyAgentsError {
  if (timeoutMs === undefined || error.code !== "timeout" || error.details?.scope !== undefined) return error;
  return new TinyAgentsError("timeout", `model call to "${model}" timed out after ${timeoutMs} ms`, {
    cause: error,
    details: { scope: "model_call", limit: "model_call_timeout", value: timeoutMs },
  });
}

export function resolvedFor<State>(
  primary: ResolvedModel,
  registration: ModelRegistration<State>,
  index: number,
  history: FallbackAttempt[] | undefined,
): ResolvedModel {
  if (index === 0) {
    // Written out, not spread: once per model call.
    const resolved: ResolvedModel = {
      name: primary.name,
      provider: primary.provider,
      providerModelId: primary.providerModelId,
      source: primary.source,
      fallbackHistory: [],
    };
    if (primary.requested !== undefined) resolved.requested = primary.requested;
    if (primary.catalogEntry !== undefined) resolved.catalogEntry = primary.catalogEntry;
    return resolved;
  }
  return {
    name: registration.name,
    provider: registration.model.provider,
    providerModelId: registration.model.modelId,
    source: "fallback",
    requested: primary.name,
    fallbackHistory: history === undefined ? [] : history.slice(),
  };
}
