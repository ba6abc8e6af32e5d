export { checkBaseUrl, joinUrl } from "./base-url.js";
export {
  MAX_BODY_BYTES,
  MAX_EVENT_BYTES,
  MAX_STREAM_BYTES,
  readBodyText,
  responseTooLarge,
  type StreamReadOptions,
} from "./body-reader.js";
export {
  boundsForRequest,
  CALL_TIMEOUT_LIMIT,
  type CallBoundFacts,
  type CallBoundOptions,
  type CallBoundSettings,
  CallBounds,
  type CallBoundsInit,
  callBoundError,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  HEADERS_TIMEOUT_LIMIT,
  limitClock,
  resolveCallBounds,
} from "./call-bounds.js";
export {
  INSPECT,
  inspectView,
  MIN_SECRET_LENGTH,
  type ModelSecretsConfig,
  registeredSecrets,
  registerSecrets,
  secretsFromConfig,
} from "./config-secrets.js";
export { type ErrorBodyFacts, errorBodyFacts, factsFromObject } from "./error-body.js";
export type { FetchLike } from "./fetch-types.js";
export { parseGoDuration } from "./go-duration.js";
export { readNdjson } from "./ndjson.js";
export { type NetworkErrorContext, networkError, type PostJsonOptions, postJson } from "./post-json.js";
export {
  capRawBody,
  type ProviderErrorContext,
  type ProviderErrorFacts,
  providerErrorFromFacts,
  providerErrorFromResponse,
  RAW_BODY_LIMIT,
} from "./provider-error-from-response.js";
export { displayUrl, REDACTED, redactSecrets, secretsFromHeaders } from "./redact.js";
export { resolveMaxResponseBytes } from "./response-limit.js";
export { retryAfterFromHints } from "./retry-hints.js";
export { readSse, readSseBatches, type SseEvent } from "./sse.js";
export {
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  isStreamIdleTimeout,
  resolveStreamIdleTimeout,
  STREAM_IDLE_TIMEOUT_LIMIT,
  type StreamIdleFacts,
  streamIdleTimeoutError,
} from "./stream-idle-timeout.js";
