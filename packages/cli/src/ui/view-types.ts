/**
 * The JSON the inspector's API serves and its web app reads. Plain data, self-contained (no
 * imports), so the browser bundle type-checks against it without pulling in Node code.
 */

/** Token counts, as the harness reports them. */
export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** Some model call reported no usage: the counts are a lower bound (never a silent zero). */
  unknown?: boolean;
}

/** A cost in USD; `unknown` when some call had no price or reported no usage (then `total` is a lower bound). */
export interface CostView {
  total: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  unknown: boolean;
}

/** An error as the journal records it. */
export interface ErrorView {
  code: string;
  message: string;
}

/** One row of the runs list. */
export interface RunSummary {
  runId: string;
  status: string;
  phase: string;
  /** What started it: `cli:demo`, `cli:run`, ... or `agent` (a library run). */
  rootAgent: string;
  models: string[];
  /** The run's first start (a resumed run keeps it). */
  startedAt: number;
  endedAt?: number;
  /** From the first start to the end, pauses included (see `pausedMs`). */
  durationMs?: number;
  /** Time spent paused (interrupted, waiting for an approval or a resume) before resuming. */
  pausedMs?: number;
  tokens: TokenCounts;
  cost: CostView;
  modelCalls: number;
  toolCalls: number;
  threadId?: string;
  tags: string[];
  /** The start of the prompt, when the CLI recorded it. */
  prompt?: string;
  error?: ErrorView;
}

/** A page of the runs list (`GET /api/run-list`), newest first. */
export interface RunListPage {
  runs: RunSummary[];
  /** Pass as `after` (`?after=<startedAt>&afterId=<runId>`) for the next page; absent at the end. */
  next?: { startedAt: number; runId: string };
  /** Eval trials skipped while filling this page (hidden unless `evals=1`). */
  hiddenEvalTrials: number;
}

/** One bar of the timeline. */
export interface SpanView {
  id: string;
  kind: "run" | "model" | "tool" | "subagent" | "retry" | "fallback" | "approval" | "paused";
  label: string;
  runId: string;
  depth: number;
  /** Milliseconds from the run's start. */
  start: number;
  /** Milliseconds from the run's start; equal to `start` for instants (retry, fallback). */
  end: number;
  status: "ok" | "error" | "running";
  /** Time to first token of a streamed model call, ms from its start. */
  ttftMs?: number;
  detail?: string;
}

/** One entry of the transcript. */
export type TranscriptEntry =
  | { kind: "message"; runId: string; depth: number; role: string; text: string; offset: number }
  | {
      kind: "tool_call";
      runId: string;
      depth: number;
      callId: string;
      toolName: string;
      arguments: unknown;
      /** The result's content when the journal captured it (trace details with content). */
      result?: string;
      status: "ok" | "error" | "running";
      error?: ErrorView;
      outputBytes?: number;
      offset: number;
    }
  | { kind: "structured"; runId: string; depth: number; value: unknown; offset: number }
  | { kind: "error"; runId: string; depth: number; where: string; error: ErrorView; offset: number }
  | { kind: "note"; runId: string; depth: number; text: string; offset: number };

/** Usage and cost of one group (a model, or a sub-agent run). */
export interface CostRow {
  key: string;
  calls: number;
  tokens: TokenCounts;
  cost: CostView;
}

/** The prompt-cache view of one model call. */
export interface CacheCallView {
  callId: string;
  runId: string;
  model: string;
  /** The stable-prefix fingerprint sent with the request, when the journal has it. */
  fingerprint?: string;
  /** Compared with the previous call of the same run. */
  prefix: "first" | "preserved" | "busted" | "unknown";
  /** The declared layout changes (`cache.layout_changed`) since the previous call. */
  changes: { middleware: string; segment?: string }[];
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** cacheReadTokens / inputTokens, when input tokens are known. */
  cachedShare?: number;
}

/** A pending human approval. */
export interface ApprovalView {
  approvalId: string;
  runId: string;
  callId: string;
  toolName: string;
  arguments?: unknown;
}

/** What the inspector can do to a run from this process. */
export interface ControlView {
  /** The run's process listens (it was registered with the inspector's controls). */
  listening: boolean;
  canPause: boolean;
  canResume: boolean;
  canCancel: boolean;
  canDecide: boolean;
  /** Why actions are unavailable, in words for the page. */
  note?: string;
}

/** What the journal holds of a run's messages (see `RunDetail.contentCapture`). */
export type ContentCapture = "captured" | "not_captured" | "turned_off";

/** The parts of a run's detail served in pages (`GET /api/run/part?id=&part=&from=&limit=`). */
export type DetailPart = "spans" | "transcript" | "cache";

/** One page of a {@link DetailPart}. */
export interface DetailPage<T> {
  items: T[];
  /** Index of the first item. */
  from: number;
  /** How many items the part has in all. */
  total: number;
}

/**
 * A run's detail as `GET /api/run?id=` serves it: the first page of each paged part, with the
 * part's full length in `totals` (fetch the rest with `GET /api/run/part`).
 */
export interface RunDetailPage extends RunDetail {
  totals: Record<DetailPart, number>;
}

/** Everything the run page shows. */
export interface RunDetail {
  summary: RunSummary;
  /** The journal offset after the last observation read (for the live tail). */
  nextOffset: number;
  observations: number;
  spans: SpanView[];
  transcript: TranscriptEntry[];
  /** Whether message content was captured (trace details with content). */
  contentCaptured: boolean;
  /**
   * Why the transcript has or lacks content: `captured`; `not_captured` (the run did not record
   * it: a library run without `traceDetailsMiddleware({ captureContent: true })`); `turned_off`
   * (the host says capture was turned off: `--no-capture-content`, so even tool arguments and
   * streamed text were left out of the journal).
   */
  contentCapture: ContentCapture;
  byModel: CostRow[];
  bySubAgent: CostRow[];
  cache: CacheCallView[];
  approvals: ApprovalView[];
  control: ControlView;
}

/** One eval run in the evals list (`GET /api/evals`). */
export interface EvalRunRow {
  evalRunId: string;
  name: string;
  dataset: string;
  status: string;
  startedAt: number;
  passRate: number | null;
  passed: boolean;
  /** Trials (runs) of the eval. */
  trials: number;
}

/** One scorer's verdict on one trial. */
export interface EvalScoreView {
  scorer: string;
  score?: number;
  passed?: boolean;
  reason?: string;
  /** The scorer itself failed (no score: never a zero). */
  error?: ErrorView;
}

/** One trial (one run of one case). */
export interface EvalTrialView {
  /** 0-based repeat index. */
  trial: number;
  runId: string;
  passed: boolean;
  /** The run failed. */
  error?: ErrorView;
  scores: EvalScoreView[];
  latencyMs: number;
  cost: CostView;
}

/** A case's figures normalized by its trials: comparable across runs of different repeats. */
export interface EvalCaseFigures {
  trials: number;
  /** passed / trials (null when it had none). */
  passRate: number | null;
  /** Mean score of each scorer over the trials it scored. */
  means: Record<string, number | null>;
  /** Cost per trial (unknown when some trial's was). */
  costPerTrial: CostView;
}

/** One case of an eval run, with the baseline's figures for it when a baseline is chosen. */
export interface EvalCaseView extends EvalCaseFigures {
  caseId: string;
  trialViews: EvalTrialView[];
  baseline?: EvalCaseFigures;
}

/** An eval run's page (`GET /api/eval?id=&baseline=`). */
export interface EvalView {
  evalRunId: string;
  name: string;
  dataset: string;
  status: string;
  repeats: number;
  startedAt: number;
  endedAt: number;
  scorers: string[];
  passRate: number | null;
  passed: boolean;
  cost: CostView;
  cases: EvalCaseView[];
  /** The eval run compared with, and its repeats. */
  baseline?: { evalRunId: string; repeats: number; startedAt: number };
  /** Other eval runs of the same dataset (baseline candidates), newest first. */
  sameDataset: EvalRunRow[];
}

/** The dashboard's filter (`GET /api/dashboard?from=&to=&agent=&model=&status=`). */
export interface DashboardQuery {
  /** Window start and end, epoch ms (runs that started in [from, to)). */
  from: number;
  to: number;
  /** Root agent (what started the run: `cli:run`, `agent`, ...). */
  agent?: string;
  /** A model the run called. */
  model?: string;
  status?: string;
  /** A tag of the run (`RunConfig.tags`, the CLI's `cli:<command>`). */
  tag?: string;
  /** The run's thread id. */
  thread?: string;
}

/** One time bucket of the dashboard's charts. */
export interface DashboardBucket {
  /** Bucket start, epoch ms. */
  start: number;
  runs: number;
  failed: number;
  tokens: number;
  /** Known cost of the bucket's runs; `unknown` when some run's cost was not known. */
  cost: CostView;
}

/** Aggregates over the runs of a window (`GET /api/dashboard`). */
export interface DashboardView {
  query: DashboardQuery;
  bucketMs: number;
  /** Runs in the window that match the filter (all of them, unless `capped`). */
  runs: number;
  /**
   * `true` when the scan stopped before the window's start: with an agent or model filter (which
   * needs each run's journal) it reads at most 5,000 runs, and `runs` counts those.
   */
  capped: boolean;
  /** Runs whose journal the per-model, per-tool and model-call figures come from (the newest). */
  journalRuns: number;
  byStatus: Record<string, number>;
  buckets: DashboardBucket[];
  errorsByCode: { code: string; count: number }[];
  /** Run durations (finished runs), ms. */
  latency: { count: number; p50?: number; p95?: number };
  /** Model call durations, ms. */
  modelLatency: { count: number; p50?: number; p95?: number };
  tokens: { input: number; output: number; cacheRead: number; total: number };
  /** cacheRead / input tokens, when input tokens are known. */
  cacheHitShare?: number;
  cost: CostView;
  byModel: { model: string; calls: number; tokens: number; cost: CostView }[];
  tools: { tool: string; calls: number; failures: number }[];
  /** Filter choices seen in the window. */
  agents: string[];
  models: string[];
  tags: string[];
  /** Thread ids seen in the window (the first 100). */
  threads: string[];
}

/** What the embedding application knows about a run beyond the stores (the CLI: its run record). */
export interface RunDescription {
  prompt?: string;
  rootAgent?: string;
  tags?: string[];
  /** `false`: content capture was turned off for this run (the CLI's `--no-capture-content`). */
  contentCaptured?: boolean;
}
