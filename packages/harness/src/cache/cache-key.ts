import type { ChatModel, ModelRequest } from "@tinyagents/inference";
import { canonicalJson } from "./canonical-json.js";
import { messageDigest, sha256Hex, toolsDigest } from "./digest.js";

/** What separates otherwise identical requests in a response cache. */
export interface CacheKeyScope {
  /** Streaming and unary calls never share entries (default false). */
  streaming?: boolean;
  /** An application namespace (tenant, environment, prompt version...); default "". */
  namespace?: string;
}

/**
 * The response-cache key of `request` for the model identified by `modelCacheIdentity`
 * (see {@link modelCacheIdentity}): SHA-256 hex over the canonical serialization of
 * - the scope: model identity, streaming mode, namespace — so providers, endpoints, keys and
 *   configurations never share entries;
 * - the messages (each by the digest of its canonical JSON) and the tool declarations;
 * - everything else that changes the answer: `toolChoice`, `parallelToolCalls`,
 *   `responseFormat`, `temperature`, `topP`, `maxTokens`, `stop`, `seed`, `reasoning`,
 *   `providerOptions`.
 *
 * Left out on purpose: how the model was chosen (`model`, `modelHints`, `reusePreviousModel`,
 * `requiredCapabilities` — the resolved model's identity is in the scope), and what does not
 * change the answer (`timeoutMs`, `streamIdleTimeoutMs`, `retry`, `responseCache`, `promptCache`, `cacheSegments`,
 * `promptFingerprint`, `tags`, `metadata`).
 *
 * Cost: O(messages) digest lookups; each message is serialized once per object.
 */
export function cacheKey(request: ModelRequest, modelIdentity: string, scope: CacheKeyScope = {}): string {
  const envelope = {
    v: 1,
    model: modelIdentity,
    streaming: scope.streaming === true,
    namespace: scope.namespace ?? "",
    messages: request.messages.map(messageDigest),
    tools: request.tools === undefined || request.tools.length === 0 ? null : toolsDigest(request.tools),
    toolChoice: request.toolChoice,
    parallelToolCalls: request.parallelToolCalls,
    responseFormat: request.responseFormat,
    temperature: request.temperature,
    topP: request.topP,
    maxTokens: request.maxTokens,
    stop: request.stop,
    seed: request.seed,
    reasoning: request.reasoning,
    providerOptions: request.providerOptions,
  };
  return sha256Hex(canonicalJson(envelope));
}

/**
 * The identity a model's cached responses are filed under: its `cacheIdentity` (provider,
 * model, endpoint — never secrets), or `provider:modelId` when it declares none. Give models
 * that differ only in endpoint or credentials a `cacheIdentity`, or they share entries.
 */
export function modelCacheIdentity(model: Pick<ChatModel, "provider" | "modelId" | "cacheIdentity">): string {
  return model.cacheIdentity ?? `${model.provider}:${model.modelId}`;
}
