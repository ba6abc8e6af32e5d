/** What a model can do. Used to filter candidates during model resolution. */
export interface ModelCapabilities {
  tools: boolean;
  parallelToolCalls: boolean;
  streaming: boolean;
  /** Provider-enforced JSON schema output (OpenAI `json_schema`, Anthropic structured output). */
  nativeStructuredOutput: boolean;
  vision: boolean;
  reasoning: boolean;
}

/** Lifecycle of a model at its provider. Retired models are never selected. */
export type ModelStatus = "stable" | "preview" | "deprecated" | "retired";

/** Static facts about a model: limits and capabilities. */
export interface ModelProfile {
  /** Maximum prompt + output tokens. */
  contextWindow?: number;
  /** Maximum output tokens per call. */
  maxOutputTokens?: number;
  capabilities: ModelCapabilities;
  status?: ModelStatus;
}

/** Requirements a request places on the model that serves it. */
export interface CapabilitySet extends Partial<ModelCapabilities> {
  minContextWindow?: number;
  minOutputTokens?: number;
}

/** A profile that claims every capability (for mocks and unknown models). */
export function permissiveProfile(): ModelProfile {
  return {
    capabilities: {
      tools: true,
      parallelToolCalls: true,
      streaming: true,
      nativeStructuredOutput: true,
      vision: true,
      reasoning: true,
    },
  };
}

/**
 * Which requirements a profile fails, by name (empty when it satisfies all of them).
 * A model without a profile is assumed capable: we cannot prove otherwise.
 */
export function unmetCapabilities(profile: ModelProfile | undefined, required: CapabilitySet): string[] {
  if (profile === undefined) return [];
  const unmet: string[] = [];
  if (profile.status === "retired") unmet.push("status:retired");
  for (const key of Object.keys(profile.capabilities) as (keyof ModelCapabilities)[]) {
    if (required[key] === true && !profile.capabilities[key]) unmet.push(key);
  }
  if (required.minContextWindow !== undefined && (profile.contextWindow ?? 0) < required.minContextWindow) {
    unmet.push("minContextWindow");
  }
  if (required.minOutputTokens !== undefined && (profile.maxOutputTokens ?? 0) < required.minOutputTokens) {
    unmet.push("minOutputTokens");
  }
  return unmet;
}
