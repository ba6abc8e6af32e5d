import type { JsonObject } from "../json/json-value.js";
import { TinyAgentsError } from "./tinyagents-error.js";

/** How a provider failure should be treated by retry and fallback logic. */
export type ProviderFailureKind =
  /** 429 or equivalent: wait (honouring Retry-After) and retry. */
  | "rate_limited"
  /** A rate-limit status that will not clear by waiting (exhausted quota, billing). */
  | "quota_exhausted"
  /** The upstream is overloaded or down (5xx, 529): retry, or fall back to another model. */
  | "upstream_unhealthy"
  /** The prompt is too long for the model. Not retryable as-is. */
  | "context_overflow"
  /** Transient failure worth retrying (timeouts, connection resets, 408/409). */
  | "retryable"
  /** The request itself is wrong (400, 401, 403, 404, 422): retrying cannot help. */
  | "non_retryable";

/** Facts about a provider failure. */
export interface ProviderErrorInit {
  provider: string;
  message: string;
  kind: ProviderFailureKind;
  model?: string;
  status?: number;
  /** The provider's own error code or type (for example `insufficient_quota`). */
  providerCode?: string;
  /** Milliseconds the provider asked us to wait before retrying. */
  retryAfterMs?: number;
  /** The response body as received (secrets are never part of a response body). */
  rawBody?: string;
  cause?: unknown;
}

/** A model provider failed. Carries everything retry, fallback and the user need to decide. */
export class ProviderError extends TinyAgentsError {
  readonly provider: string;
  readonly model: string | undefined;
  readonly status: number | undefined;
  readonly providerCode: string | undefined;
  readonly kind: ProviderFailureKind;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly rawBody: string | undefined;

  constructor(init: ProviderErrorInit) {
    const details: JsonObject = { provider: init.provider, kind: init.kind };
    if (init.model !== undefined) details.model = init.model;
    if (init.status !== undefined) details.status = init.status;
    if (init.providerCode !== undefined) details.providerCode = init.providerCode;
    if (init.retryAfterMs !== undefined) details.retryAfterMs = init.retryAfterMs;
    super(init.kind === "context_overflow" ? "context_overflow" : "provider", init.message, {
      cause: init.cause,
      details,
    });
    this.name = "ProviderError";
    this.provider = init.provider;
    this.model = init.model;
    this.status = init.status;
    this.providerCode = init.providerCode;
    this.kind = init.kind;
    this.retryable = isRetryableKind(init.kind);
    this.retryAfterMs = init.retryAfterMs;
    this.rawBody = init.rawBody;
  }

  /** True for a provider error from any copy of the package. */
  static isProviderError(value: unknown): value is ProviderError {
    return TinyAgentsError.isInstance(value) && (value as ProviderError).name === "ProviderError";
  }
}

/** Whether a failure kind is worth retrying on the same model. */
export function isRetryableKind(kind: ProviderFailureKind): boolean {
  return kind === "rate_limited" || kind === "upstream_unhealthy" || kind === "retryable";
}
