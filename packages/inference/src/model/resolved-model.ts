import type { JsonObject } from "../json/json-value.js";

/** Why a model was chosen for a call, in resolution precedence order. */
export type ModelResolutionSource =
  | "request_override"
  | "state_reuse"
  | "hint"
  | "agent_default"
  | "registry_default"
  | "fallback"
  | "direct";

/** One model that was tried and failed before the one that served the call. */
export interface FallbackAttempt {
  name: string;
  error: string;
  code?: string;
}

/**
 * The durable answer to "which model actually ran". Recorded on responses, events, usage and
 * status, and reusable by later calls when policy allows.
 */
export interface ResolvedModel {
  /** Registry name the harness knows the model by. */
  name: string;
  provider: string;
  providerModelId: string;
  source: ModelResolutionSource;
  /** The name that was asked for, when it differs from `name` (override not honoured, fallback). */
  requested?: string;
  /** Catalog facts (pricing, limits) when known. */
  catalogEntry?: JsonObject;
  fallbackHistory: FallbackAttempt[];
}
