import {
  type FallbackAttempt,
  type ModelRequest,
  type ModelResponse,
  TinyAgentsError,
  toTinyAgentsError,
} from "@tinyagents/inference";
import { failedModelName } from "../../errors/failed-model.js";
import { shouldFallback } from "../../retry/retry-policy.js";
import type { Middleware } from "../middleware.js";
import { callable, middlewareName, optionError, stringList } from "./option-checks.js";

/** Options of {@link modelFallbackMiddleware}. */
export interface ModelFallbackOptions {
  /** Registered model names to try, in order, after the model the call resolved to fails. Non-empty. */
  models: string[];
  /**
   * Which failures move on to the next model. Default: retryable provider failures, exhausted
   * quotas, context overflows and single-call timeouts (`shouldFallback`), plus any
   * `context_overflow` error.
   */
  fallbackOn?: (error: TinyAgentsError) => boolean;
  /** Middleware name (default `"model_fallback"`). */
  name?: string;
}

/**
 * An ordered model fallback chain as a wrap middleware. When the call fails with an error
 * `fallbackOn` accepts, it is re-issued with `request.model` set to the next model of `models`
 * (models already tried are skipped), after a `fallback.selected { from, to, error }` event. The
 * answering response's `resolvedModel` records the chain: `source: "fallback"`, `requested` (the
 * first model), and every failed attempt in `fallbackHistory`. When the chain is exhausted the
 * last error is thrown. Cancellation is never retried elsewhere.
 * Throws `validation` at construction for an empty chain or non-string names.
 */
export function modelFallbackMiddleware<State = unknown, Ctx = unknown>(
  options: ModelFallbackOptions,
): Middleware<State, Ctx> {
  const name = middlewareName("model_fallback", options?.name);
  if (typeof options !== "object" || options === null) {
    throw optionError(name, "models", 'is required: modelFallbackMiddleware({ models: ["backup"] })');
  }
  const chain = stringList(name, "models", options.models);
  if (chain.length === 0) throw optionError(name, "models", "must name at least one fallback model");
  const fallbackOn =
    options.fallbackOn === undefined ? defaultFallbackOn : callable(name, "fallbackOn", options.fallbackOn);

  return {
    name,
    changes: "metadata",
    async wrapModelCall(ctx, request, next) {
      const history: FallbackAttempt[] = [];
      const tried = new Set<string>();
      let current: ModelRequest = request;
      let first: string | undefined;
      for (;;) {
        let response: ModelResponse;
        try {
          response = await next(current);
        } catch (thrown) {
          const error = toTinyAgentsError(thrown);
          if (ctx.run.aborted || error.code === "cancelled" || !fallbackOn(error)) throw thrown;
          const from = failedModelName(error) ?? current.model ?? "(default)";
          first ??= from;
          tried.add(from);
          const to = chain.find((candidate) => !tried.has(candidate));
          if (to === undefined) throw thrown;
          tried.add(to);
          history.push({ name: from, error: error.message, code: error.code });
          ctx.run.emit({
            type: "fallback.selected",
            callId: ctx.callId ?? "",
            from,
            to,
            error: error.toJSON(),
          });
          current = { ...request, model: to };
          continue;
        }
        if (history.length > 0 && response.resolvedModel !== undefined) {
          const resolved = response.resolvedModel;
          response.resolvedModel = {
            ...resolved,
            source: "fallback",
            requested: first ?? resolved.name,
            fallbackHistory: [...history, ...resolved.fallbackHistory],
          };
        }
        return response;
      }
    },
  };
}

function defaultFallbackOn(error: TinyAgentsError): boolean {
  return shouldFallback(error) || TinyAgentsError.isInstance(error, "context_overflow");
}
