export {
  backoffFor,
  DEFAULT_RETRY_POLICY,
  isRetryable,
  type RetryPolicy,
  shouldFallback,
} from "./retry-policy.js";
