import type { ErrorCode, JsonObject, JsonValue, Usage } from "@tinyagents/inference";
import type { CostTotals } from "../cost/cost.js";
import type { ConfidenceInterval } from "./stats.js";

/** An error as evals record it (run failures, scorer failures). */
export interface EvalError {
  code: ErrorCode;
  message: string;
}

/** One scorer's verdict on one run: a score, or the error the scorer raised (never a zero). */
export type ScoreOutcome =
  | {
      scorer: string;
      score: number;
      passed: boolean;
      reason?: string;
      /** A judge's own usage and cost (not the agent's). */
      usage?: Usage;
      cost?: CostTotals;
      metadata?: JsonObject;
    }
  | { scorer: string; error: EvalError };

/** One run of one case (a case repeated N times has N trials). Plain JSON data. */
export interface TrialResult {
  caseId: string;
  /** 0-based repeat index. */
  trial: number;
  /** The journaled run (`tinyagents show <runId>`). */
  runId: string;
  /** True when the run completed and every scorer ran and passed. */
  passed: boolean;
  /** Set when the run failed (or was cancelled). */
  error?: EvalError;
  output: string;
  structured?: JsonValue;
  latencyMs: number;
  usage: Usage;
  cost: CostTotals;
  modelCalls: number;
  toolCalls: number;
  /** Empty for a cancelled trial (scorers do not run). */
  scores: ScoreOutcome[];
  /** Set when the run's journal or status could not be written (`evaluate({ journal, statusStore })`). */
  storageError?: EvalError;
}

/** One scorer's figures over a set of trials. */
export interface ScorerSummary {
  scorer: string;
  /** Mean score over the trials it scored (null when it scored none). */
  mean: number | null;
  /** 95% interval of the mean, when the eval was repeated (and two or more scores exist). */
  ci?: ConfidenceInterval;
  /** Trials it scored. */
  scored: number;
  /** Fraction of scored trials it passed (null when it scored none). */
  passRate: number | null;
  /** Trials where the scorer itself failed. */
  errors: number;
}

/** Latency figures of an eval in milliseconds (null when there were no finished runs). */
export interface EvalLatency {
  p50: number | null;
  p95: number | null;
  mean: number | null;
  max: number | null;
}

/** One case over its trials. */
export interface CaseSummary {
  caseId: string;
  trials: number;
  passedTrials: number;
  /** Fraction of the case's finished trials that passed (null when none finished). */
  passRate: number | null;
  /** True when every trial passed. */
  passed: boolean;
  scorers: ScorerSummary[];
  latency: EvalLatency;
  costUsd: number;
  tokens: number;
  /** Error codes of the case's failed runs and scorers, with counts. */
  errors: Partial<Record<ErrorCode, number>>;
}

/** A failed trial, a run failure or a scorer error, for the report's failure list. */
export interface FailureEntry {
  caseId: string;
  trial: number;
  runId: string;
  /** Set for a scorer's verdict or error; absent for a run failure. */
  scorer?: string;
  code?: ErrorCode;
  message: string;
}

/** The aggregate report of an eval run. */
export interface EvalReport {
  cases: number;
  trials: number;
  /** Trials that finished (not cancelled). */
  finished: number;
  passed: number;
  failed: number;
  cancelled: number;
  /** passed / finished (null when nothing finished). */
  passRate: number | null;
  scorers: ScorerSummary[];
  /** Agent runs' usage and cost, and the judges' apart. */
  usage: {
    agent: Usage;
    judge: Usage;
    /** Set when some agent model call reported no usage: the token counts are a lower bound. */
    unknown?: true;
  };
  cost: { agentUsd: number; judgeUsd: number; totalUsd: number; unknown: boolean };
  latency: EvalLatency;
  /** Run failures and scorer errors by code. */
  errorCodes: Partial<Record<ErrorCode, number>>;
  failures: FailureEntry[];
  perCase: CaseSummary[];
}

/** What was pushed (in `EvalResult.langfuse`). */
export interface EvalLangfuseSummary {
  datasetName: string;
  runName: string;
  /** Dataset items upserted (one per case). */
  items: number;
  /** Traces exported (one per finished trial). */
  traces: number;
  /** Scores sent with them. */
  scores: number;
  /** Dataset run items created (a trace linked to its case). */
  runItems: number;
  /** What failed (the eval itself is unaffected): one message per failed call. */
  errors: string[];
}

/** One threshold's verdict. */
export interface ThresholdCheck {
  /** e.g. `passRate`, `scorer:exact`, `maxCostUsd`. */
  name: string;
  /** The bound, e.g. `>= 0.9`. */
  expected: string;
  actual: number | null;
  passed: boolean;
}

/** A finished (or cancelled) eval run. Plain JSON data: persisted as is. */
export interface EvalResult {
  evalRunId: string;
  name: string;
  dataset: { name: string; cases: number; caseIds: string[] };
  /** `cancelled` when the signal aborted: the trials that ran are kept. */
  status: "completed" | "cancelled";
  repeats: number;
  concurrency: number;
  scorers: string[];
  startedAt: number;
  endedAt: number;
  metadata: JsonObject;
  trials: TrialResult[];
  report: EvalReport;
  thresholds: ThresholdCheck[];
  /** True when every threshold passed, no scorer failed (`report.scorers[].errors`) and the run was not cancelled. */
  passed: boolean;
  /** What was pushed to Langfuse (`evaluate({ langfuse })`), with any push errors. */
  langfuse?: EvalLangfuseSummary;
}
