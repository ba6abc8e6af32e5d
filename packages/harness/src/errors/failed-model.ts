import type { TinyAgentsError } from "@tinyagents/inference";

const FAILED_MODEL = Symbol.for("tinyagents.failedModel");

/**
 * Remember on `error` the registry name of the model whose call failed with it (the innermost
 * call wins; a non-enumerable property, so `toJSON`, events and journals are unchanged).
 * Returns `error`.
 */
export function markFailedModel(error: TinyAgentsError, model: string): TinyAgentsError {
  if (!Object.hasOwn(error, FAILED_MODEL)) {
    Object.defineProperty(error, FAILED_MODEL, { value: model, enumerable: false });
  }
  return error;
}

/**
 * The registry name of the model whose call failed with `error`, when the harness's model call
 * produced it (lets a `wrapModelCall` middleware such as `modelFallbackMiddleware` say which
 * model it falls back from).
 */
export function failedModelName(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const name: unknown = (error as { [FAILED_MODEL]?: unknown })[FAILED_MODEL];
  return typeof name === "string" ? name : undefined;
}
