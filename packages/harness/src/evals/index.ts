/**
 * @tinyagents/harness/evals — datasets, scorers, a runner and regression reports for agents.
 *
 * ```ts
 * const result = await evaluate({
 *   agent: harness,
 *   dataset: await loadDataset("cases.jsonl"),
 *   scorers: [contains(), trajectoryMatch(), withinLimits({ maxCostUsd: 0.01 })],
 *   repeats: 3,
 *   thresholds: { passRate: 0.9 },
 * });
 * result.report.passRate; // and per scorer, per case, cost, latency, failures
 * ```
 */
export type {
  AgentRunRequest,
  EvalAgent,
  EvalAgentSource,
} from "./agent-target.js";
export { type CompareOptions, compareEvals, type EvalChange, type EvalComparison } from "./compare.js";
export { type DatasetSource, validateDataset } from "./dataset.js";
export { type DatasetFileOptions, loadDataset, parseDataset } from "./dataset-file.js";
export type { EvalCase, EvalDataset, ExpectedToolCall, ExpectedTrajectory } from "./eval-case.js";
export { defineEval, type EvalDefinition } from "./eval-definition.js";
export type {
  CaseSummary,
  EvalError,
  EvalLangfuseSummary,
  EvalLatency,
  EvalReport,
  EvalResult,
  FailureEntry,
  ScoreOutcome,
  ScorerSummary,
  ThresholdCheck,
  TrialResult,
} from "./eval-result.js";
export { type EvalRunSummary, EvalStore } from "./eval-store.js";
export { type EvalProgress, type EvaluateOptions, evaluate } from "./evaluate.js";
export { type EvalLangfuseOptions, LangfuseDatasetRun } from "./langfuse-dataset-run.js";
export { buildReport } from "./report.js";
export { DEFAULT_THRESHOLD, type ScoreResult, type Scorer, type ScorerContext } from "./scorer.js";
export { type ContainsOptions, contains } from "./scorers/contains.js";
export { defineScorer, type ScorerOptions } from "./scorers/custom.js";
export { type ExactMatchOptions, exactMatch } from "./scorers/exact-match.js";
export { type LimitsOptions, withinLimits } from "./scorers/limits.js";
export { type LlmJudgeOptions, llmJudge } from "./scorers/llm-judge.js";
export { type RegexMatchOptions, regexMatch } from "./scorers/regex-match.js";
export { type SchemaMatchOptions, schemaMatch } from "./scorers/schema-match.js";
export { type StructuredEqualOptions, structuredEqual } from "./scorers/structured-equal.js";
export { type TrajectoryMatchOptions, trajectoryMatch } from "./scorers/trajectory-match.js";
export { type ConfidenceInterval, confidenceInterval, mean, percentile } from "./stats.js";
export { checkThresholds, type EvalThresholds, validateThresholds } from "./thresholds.js";
