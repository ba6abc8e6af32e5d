export { classifyNetworkError, classifyProviderFailure, type ProviderFailureFacts } from "./classify.js";
export { isContextOverflowCode, isContextOverflowMessage } from "./context-overflow.js";
export { ERROR_CODES, type ErrorCode, isErrorCode } from "./error-code.js";
export { abortedError, toTinyAgentsError } from "./normalize.js";
export {
  isRetryableKind,
  ProviderError,
  type ProviderErrorInit,
  type ProviderFailureKind,
} from "./provider-error.js";
export { type HeaderSource, parseRetryAfter } from "./retry-after.js";
export {
  type ErrorSummary,
  TinyAgentsError,
  type TinyAgentsErrorOptions,
  validationError,
} from "./tinyagents-error.js";
