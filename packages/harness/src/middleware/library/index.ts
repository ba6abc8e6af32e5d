/**
 * The built-in middleware library. Each factory validates its options at construction (a
 * `validation` error naming the option) and returns a plain `Middleware`; register with
 * `harness.use(...)`. Order matters: `before*` hooks run in registration order, wraps nest with
 * the first registered outermost.
 */

export { type ApprovalWait, approvalArgumentsHash } from "./approval-binding.js";
export { ApprovalBook, type ApprovalRecord, type ApprovalStatus, approvalId } from "./approval-book.js";
export { type BudgetLimits, type BudgetOptions, budgetMiddleware } from "./budget-middleware.js";
export { type BudgetHold, type BudgetSnapshot, type BudgetSpend, BudgetTracker } from "./budget-tracker.js";
export {
  type ModelCallLimitOptions,
  modelCallLimitMiddleware,
  type ToolCallLimitOptions,
  toolCallLimitMiddleware,
} from "./call-limit-middleware.js";
export {
  contextualToolSelectionMiddleware,
  inheritToolSelection,
  type ToolSelectionContext,
  type ToolSelectionLists,
  type ToolSelectionPredicate,
} from "./contextual-tool-selection-middleware.js";
export { type DynamicPrompt, dynamicPromptMiddleware } from "./dynamic-prompt-middleware.js";
// Helpers for writing middleware
export { estimateRequestTokens } from "./estimate-request.js";
export {
  type GuardrailCheck,
  type GuardrailInput,
  type GuardrailsOptions,
  type GuardrailVerdict,
  guardrailsMiddleware,
} from "./guardrails-middleware.js";
export {
  type ApprovalDecision,
  type HumanApprovalMiddleware,
  type HumanApprovalOptions,
  humanApprovalMiddleware,
} from "./human-approval-middleware.js";
export {
  consoleLogger,
  type LogEntry,
  type Logger,
  type LoggingOptions,
  type LogLevel,
  loggingMiddleware,
  silentLogger,
} from "./logging-middleware.js";
export { type ModelFallbackOptions, modelFallbackMiddleware } from "./model-fallback-middleware.js";
export { type NoProgressOptions, noProgressMiddleware } from "./no-progress-middleware.js";
export { type BucketSpec, type RateLimitOptions, rateLimitMiddleware } from "./rate-limit-middleware.js";
export {
  type RedactionMiddleware,
  type RedactionMiddlewareOptions,
  redactionMiddleware,
} from "./redaction-middleware.js";
export { DEFAULT_REDACTION_PATTERNS, luhn, type RedactionPattern } from "./redaction-patterns.js";
// Resilience
export { type RetryMiddlewareOptions, retryMiddleware } from "./retry-middleware.js";
export { type TimeoutMiddlewareOptions, timeoutMiddleware } from "./timeout-middleware.js";
export { TokenBucket } from "./token-bucket.js";
// Governance
export { type ToolAllowlistOptions, toolAllowlistMiddleware } from "./tool-allowlist-middleware.js";
export type { ToolNames } from "./tool-filter.js";
export { type ToolPolicyOptions, toolPolicyMiddleware } from "./tool-policy-middleware.js";
export { type ToolRetryOptions, toolRetryMiddleware } from "./tool-retry-middleware.js";
// Accounting and diagnostics
export {
  type UsageAccountingOptions,
  type UsageEntry,
  UsageLedger,
  type UsageReport,
  usageAccountingMiddleware,
} from "./usage-accounting-middleware.js";
