import { validationError } from "../../errors/tinyagents-error.js";
import { checkBaseUrl } from "../../http/base-url.js";
import { type CallBoundSettings, resolveCallBounds } from "../../http/call-bounds.js";
import type { FetchLike } from "../../http/fetch-types.js";
import { resolveMaxResponseBytes } from "../../http/response-limit.js";
import type { ModelProfile } from "../../model/model-profile.js";
import { INCLUDE_ENCRYPTED_REASONING } from "./map-request.js";

/** Default API base URL (the adapter appends `/responses`). */
export const DEFAULT_RESPONSES_BASE_URL = "https://api.openai.com/v1";

/** Options of {@link OpenAiResponsesModel}. Only `model` is required. */
export interface OpenAiResponsesModelOptions {
  /** Model id (`gpt-5-mini`, `o4-mini`, `gpt-4.1`, ...). */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>`. Default: env `OPENAI_API_KEY`. Never appears in errors. */
  apiKey?: string | undefined;
  /** API base URL with the version path. Default: env `OPENAI_BASE_URL`, else {@link DEFAULT_RESPONSES_BASE_URL}. */
  baseUrl?: string | undefined;
  /** Provider name for errors, usage, pricing and traces (default `openai`). */
  provider?: string | undefined;
  /** Extra headers (`OpenAI-Organization`, `OpenAI-Project`, gateway routing); they win over the defaults. */
  headers?: Record<string, string> | undefined;
  /** The fetch to call (default: the platform `fetch`). */
  fetch?: FetchLike | undefined;
  /**
   * `store` on every request: `false` keeps nothing server-side (zero data retention). Default:
   * not sent (the API stores responses). With `false`, reasoning is carried across turns only
   * through its encrypted content, so `encryptedReasoning` defaults to true.
   */
  store?: boolean | undefined;
  /**
   * Ask for reasoning items' `encrypted_content` (`include: ["reasoning.encrypted_content"]`),
   * kept in the reasoning block's signature and sent back on the next turn. Default: `true`
   * when `store` is `false`, else `false`.
   */
  encryptedReasoning?: boolean | undefined;
  /** Static model facts (context window, capabilities). */
  profile?: ModelProfile | undefined;
  /** Where to read environment variables (default `process.env`). */
  env?: Record<string, string | undefined> | undefined;
  /** Total call timeout in ms (default 600_000; 0 removes it); see `OpenAiChatModelOptions`. */
  timeoutMs?: number | undefined;
  /** Headers timeout of a streamed call in ms (default 60_000; 0 removes it). */
  headersTimeoutMs?: number | undefined;
  /** Stream idle timeout in ms (default 240 s; `0` / `Infinity`: none); see `OpenAiChatModelOptions`. */
  streamIdleTimeoutMs?: number | undefined;
  /** Total byte cap of one response body; see `OpenAiChatModelOptions`. */
  maxResponseBytes?: number | undefined;
}

/** Options with every default applied. */
export interface ResolvedResponsesOptions {
  model: string;
  provider: string;
  baseUrl: string;
  headers: Record<string, string>;
  fetch: FetchLike | undefined;
  store: boolean | undefined;
  include: string[];
  profile: ModelProfile | undefined;
  streamIdleTimeoutMs: number;
  /** The call bounds (total, headers, stream idle) with defaults applied. */
  bounds: CallBoundSettings;
  maxResponseBytes: number | undefined;
}

/**
 * Apply defaults and environment variables. Throws a `validation` error for an empty model id,
 * a missing API key (naming `OPENAI_API_KEY`; not needed when `headers` carries
 * `authorization` or `api-key`) and out-of-range timeouts or caps.
 */
export function resolveResponsesOptions(options: OpenAiResponsesModelOptions): ResolvedResponsesOptions {
  if (typeof options.model !== "string" || options.model.trim() === "") {
    throw validationError(
      "OpenAiResponsesModel: `model` must be a non-empty model id (for example gpt-5-mini)",
      {
        field: "model",
      },
    );
  }
  const env = options.env ?? globalThis.process?.env ?? {};
  const extra = options.headers ?? {};
  const hasAuth = Object.keys(extra).some((name) =>
    ["authorization", "api-key"].includes(name.toLowerCase()),
  );
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env.OPENAI_API_KEY);
  if (apiKey === undefined && !hasAuth) {
    throw validationError(
      "OpenAiResponsesModel needs an API key: set the OPENAI_API_KEY environment variable or pass { apiKey }",
      { field: "apiKey", env: "OPENAI_API_KEY" },
    );
  }
  const headers: Record<string, string> = {};
  if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
  const encrypted = options.encryptedReasoning ?? options.store === false;
  const bounds = resolveCallBounds(options, "OpenAiResponsesModel");
  return {
    model: options.model.trim(),
    provider: nonEmpty(options.provider) ?? "openai",
    baseUrl: checkBaseUrl(
      trimBaseUrl(nonEmpty(options.baseUrl) ?? nonEmpty(env.OPENAI_BASE_URL) ?? DEFAULT_RESPONSES_BASE_URL),
      "OpenAiResponsesModel",
    ),
    headers: { ...headers, ...extra },
    fetch: options.fetch,
    store: options.store,
    include: encrypted ? [INCLUDE_ENCRYPTED_REASONING] : [],
    profile: options.profile,
    streamIdleTimeoutMs: bounds.streamIdleTimeoutMs,
    bounds,
    maxResponseBytes: resolveMaxResponseBytes(options.maxResponseBytes, "OpenAiResponsesModel"),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/** Without trailing slashes or a pasted `/responses` suffix. */
function trimBaseUrl(url: string): string {
  return url.replace(/\/+$/, "").replace(/\/responses$/, "");
}
