import {
  type FallbackAttempt,
  type ModelRequest,
  type ModelResponse,
  type ResolvedModel,
  TinyAgentsError,
  toTinyAgentsError,
} from "@tinyagents/inference";
import type { AgentEvent } from "../events/agent-event.js";
import type { ModelRegistration, ModelSelection } from "../model-registry/model-registry.js";
import { backoffFor, isRetryable, shouldFallback } from "../retry/retry-policy.js";
import { abortError } from "./abort.js";
import { markFailedModel } from "./failed-model.js";
import type { LoopSession } from "./loop-session.js";
import { type AttemptInfo, providerAttempt } from "./provider-attempt.js";

/**
 * The innermost model handler: resolve the model, call it with retry and backoff, and walk the
 * fallback chain when it keeps failing. Every attempt is bracketed by `model.started` and
 * `model.completed` / `model.failed`; every retry emits `retry.scheduled`, every switch
 * `fallback.selected`. The response records the `ResolvedModel` with its fallback history.
 */
export async function resilientModelCall<State, Ctx>(
  s: LoopSession<State, Ctx>,
  callId: string,
  request: ModelRequest,
): Promise<ModelResponse> {
  const { parts, ctx } = s;
  // Built key by key (no spreads): this runs on every model call.
  const selection: ModelSelection = {};
  if (request.model !== undefined) selection.override = request.model;
  if (s.previousModel !== undefined) selection.previous = s.previousModel;
  if (request.reusePreviousModel !== undefined) selection.reusePrevious = request.reusePreviousModel;
  if (request.modelHints !== undefined) selection.hints = request.modelHints;
  if (parts.agentDefaultModel !== undefined) selection.agentDefault = parts.agentDefaultModel;
  if (request.requiredCapabilities !== undefined) selection.required = request.requiredCapabilities;
  const binding = parts.models.resolve(selection);
  for (const skip of binding.skipped) {
    if (skip.source === "request_override") {
      ctx.emit({
        type: "model.override_skipped",
        callId,
        requested: skip.name,
        resolved: binding.resolved.name,
        reason: skip.reason,
      });
    }
  }
  ctx.emit({ type: "route.selected", callId, model: binding.resolved.name, source: binding.resolved.source });

  const chain: ModelRegistration<State>[] = [binding.registration];
  if (parts.policy.fallback.length > 0) {
    for (const name of parts.policy.fallback) {
      if (name !== binding.registration.name) chain.push(parts.models.require(name));
    }
  }
  const maxRetries = Math.min(
    request.retry?.maxRetries ?? parts.policy.retry.maxRetries,
    parts.policy.limits.maxRetriesPerCall,
  );
  // Only a fallback appends to it (then `resolvedFor` copies it); no fallback, no array.
  let history: FallbackAttempt[] | undefined;
  let lastError: TinyAgentsError | undefined;
  let lastModel = binding.registration.name;
  for (let index = 0; index < chain.length; index++) {
    const registration = chain[index] as ModelRegistration<State>;
    if (index > 0 && lastError !== undefined) {
      const from = (chain[index - 1] as ModelRegistration<State>).name;
      ctx.emit({ type: "fallback.selected", callId, from, to: registration.name, error: lastError.toJSON() });
    }
    for (let attempt = 1; attempt <= maxRetries + 1; attempt++) {
      if (ctx.aborted) throw abortError(ctx.abortHub, "before a model call");
      // One attempt budget per model per model call, shared with retry middleware that re-runs
      // this call: once a model's attempts are used up, its last failure stands for it.
      const capped = ctx.limits.admitAttempt(callId, registration.name);
      if (capped !== undefined) {
        ctx.emit({ type: "limit.reached", limit: capped.limit, value: capped.value, count: capped.count });
        lastError = ctx.limits.lastFailure(callId, registration.name) ?? capped.error;
        lastModel = registration.name;
        break;
      }
      const info: AttemptInfo = { callId, attempt, emittedDeltas: false };
      const started = ctx.clock.now();
      ctx.emit({
        type: "model.started",
        callId,
        model: registration.name,
        provider: registration.model.provider,
        providerModelId: registration.model.modelId,
        attempt,
      });
      try {
        const response = await providerAttempt(s, registration, request, info);
        response.resolvedModel = resolvedFor(binding.resolved, registration, index, history);
        s.previousModel = registration.name;
        const completed: ModelCompletedEvent = {
          type: "model.completed",
          callId,
          model: registration.name,
          durationMs: ctx.clock.now() - started,
          toolCalls: response.message.toolCalls.length,
          servedFromCache: response.servedFromCache === true,
        };
        if (response.usage !== undefined) completed.usage = response.usage;
        if (response.finishReason !== undefined) completed.finishReason = response.finishReason;
        ctx.emit(completed);
        return response;
      } catch (thrown) {
        const error = asCallTimeout(
          toTinyAgentsError(thrown, "provider"),
          registration.name,
          request.timeoutMs,
        );
        ctx.emit({
          type: "model.failed",
          callId,
          model: registration.name,
          durationMs: ctx.clock.now() - started,
          attempt,
          error: error.toJSON(),
        });
        if (ctx.aborted) throw abortError(ctx.abortHub, "during a model call");
        ctx.limits.noteFailure(callId, registration.name, error);
        lastError = error;
        lastModel = registration.name;
        if (attempt > maxRetries || !isRetryable(error) || info.emittedDeltas) break;
        // No point waiting for a retry the shared attempt budget would refuse.
        if (!ctx.limits.hasAttemptLeft(callId, registration.name)) continue;
        const delayMs = backoffFor(parts.policy.retry, attempt, error);
        ctx.emit({ type: "retry.scheduled", callId, attempt: attempt + 1, delayMs, error: error.toJSON() });
        try {
          await ctx.clock.sleep(delayMs, ctx.signal);
        } catch {
          throw abortError(ctx.abortHub, "during retry backoff");
        }
      }
    }
    if (lastError === undefined || !shouldFallback(lastError) || index === chain.length - 1) break;
    history ??= [];
    history.push({ name: registration.name, error: lastError.message, code: lastError.code });
  }
  if (lastError !== undefined) throw markFailedModel(lastError, lastModel);
  throw new TinyAgentsError("internal", "model call ended without a response or an error");
}

type ModelCompletedEvent = Extract<AgentEvent, { type: "model.completed" }>;

/**
 * A model's own `timeout` error while `request.timeoutMs` is set is the model call's timeout: an
 * adapter that enforces `timeoutMs` itself (the OpenAI, Anthropic and Ollama ones do) usually
 * fires a moment before the loop's timer. Report it as the loop would (`details.scope:
 * "model_call"`), so fallback and middleware treat a timed-out call the same whoever noticed first.
 */
function asCallTimeout(
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

function resolvedFor<State>(
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
