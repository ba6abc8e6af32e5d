import {
  type Clock,
  emptyUsage,
  type JsonObject,
  type JsonValue,
  systemClock,
  type TinyAgentsError,
  text,
  toTinyAgentsError,
  validationError,
} from "@tinyagents/inference";
import type { EventRecord } from "../contracts/agent-event.js";
import { emptyCost } from "../cost/cost.js";
import { EventSink } from "../events/event-sink.js";
import { attachObservability } from "../observability/attach-observability.js";
import type { HarnessEventJournal } from "../observability/event-journal.js";
import { type RedactionOptions, Redactor } from "../observability/redaction.js";
import type { HarnessStatusStore } from "../observability/status-store.js";
import { Trajectory } from "../testkit/trajectory.js";
import { type EvalAgentSource, isEvalAgent, runAgent, runUsage } from "./agent-target.js";
import { validateDataset } from "./dataset.js";
import type { EvalCase, EvalDataset } from "./eval-case.js";
import type { EvalResult, TrialResult } from "./eval-result.js";
import type { EvalStore } from "./eval-store.js";
import { type EvalLangfuseOptions, LangfuseDatasetRun } from "./langfuse-dataset-run.js";
import { buildReport } from "./report.js";
import { DEFAULT_SCORER_TIMEOUT_MS, scoreTrial } from "./score-trial.js";
import type { Scorer } from "./scorer.js";
import { checkThresholds, type EvalThresholds, validateThresholds } from "./thresholds.js";

/** Progress of a running eval, reported after it starts and after every trial. */
export interface EvalProgress {
  evalRunId: string;
  /** Trials planned (cases x repeats). */
  total: number;
  /** Trials finished so far. */
  done: number;
  passed: number;
  failed: number;
  /** The trial that just finished (absent on the first report). */
  trial?: TrialResult;
}

/** Options of {@link evaluate}. */
export interface EvaluateOptions {
  /** The agent (an `AgentHarness`), or a factory called per run. */
  agent: EvalAgentSource;
  /** The cases (inline, or from `loadDataset`); validated again here. */
  dataset: EvalDataset | readonly EvalCase[];
  /** At least one; names must be unique. */
  scorers: readonly Scorer[];
  /** Runs in flight at once (default 4). */
  concurrency?: number;
  /** Runs per case (default 1); with 2 or more, score means get confidence intervals. */
  repeats?: number;
  /** Cancels the eval: runs in flight are cancelled, no new run starts, the partial result is returned. */
  signal?: AbortSignal;
  /** Shown in reports (default: the dataset's name). */
  name?: string;
  /** Default: generated (`eval-…`). */
  evalRunId?: string;
  /** Application state and context data handed to every run. */
  state?: unknown;
  data?: unknown;
  /** Wall-clock bound of each run in ms. */
  timeoutMs?: number;
  /**
   * Bound of each scorer call in ms, on `clock` (default 120 s; a scorer's own `timeoutMs` wins).
   * A scorer that does not settle in time is a `timeout` scorer error for that trial.
   */
  scorerTimeoutMs?: number;
  /** Every run's observations are journaled here (inspect with `tinyagents show <runId>`). */
  journal?: HarnessEventJournal;
  /** Every run's status record is saved here. */
  statusStore?: HarnessStatusStore;
  /** The result is saved here when the eval ends (also when cancelled). */
  store?: EvalStore;
  /**
   * Redaction of the journal AND of the results (each trial as it is reported, the stored record,
   * the returned result): the same `Redactor` as the journal, so an eval record never carries a
   * credential the run journal masks. Default: the default redaction; `false` turns both off.
   */
  redact?: RedactionOptions | false;
  /** Gates: the result's `passed` is false when one fails. */
  thresholds?: EvalThresholds;
  onProgress?: (progress: EvalProgress) => void;
  /** Timestamps and latency fallback (default the system clock). */
  clock?: Clock;
  metadata?: JsonObject;
  /**
   * Push the eval to Langfuse as a dataset run: the dataset and its items, then per finished trial
   * its trace with one score per scorer, linked to its item (see `result.langfuse`). Push failures
   * are reported there and never fail the eval.
   */
  langfuse?: EvalLangfuseOptions;
}

/**
 * Run every case of `dataset` (`repeats` times each) through the agent's front door, at most
 * `concurrency` at a time, score each run with every scorer, and return the per-trial results
 * with the aggregate report and threshold checks. Every run is tagged `eval:<evalRunId>` and
 * carries `{ evalRunId, caseId, trial }` in its metadata; with `journal`/`statusStore` each run
 * is journaled and its status saved, so the eval can be inspected run by run.
 *
 * Run failures are results (a failed trial with its error code), not exceptions; so are scorer
 * failures (an error outcome, not a zero: a throw, garbage, non-JSON metadata, a timeout), and
 * any scorer error makes `passed` false. Cancellation returns the trials that finished, with
 * `status: "cancelled"` (scorers still running are cut off).
 *
 * @throws TinyAgentsError `validation` for a bad dataset, scorer list, concurrency or repeats.
 */
export async function evaluate(options: EvaluateOptions): Promise<EvalResult> {
  const plan = checkOptions(options);
  const clock = options.clock ?? systemClock;
  const evalRunId = options.evalRunId ?? newEvalRunId(clock.now());
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted === true) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  const startedAt = clock.now();
  const jobs: { evalCase: EvalCase; index: number; trial: number }[] = [];
  for (const [index, evalCase] of plan.dataset.cases.entries()) {
    for (let trial = 0; trial < plan.repeats; trial++) jobs.push({ evalCase, index, trial });
  }
  const trials: (TrialResult | undefined)[] = new Array(jobs.length);
  const redactor = options.redact === false ? undefined : new Redactor(options.redact ?? {});
  const progress: EvalProgress = { evalRunId, total: jobs.length, done: 0, passed: 0, failed: 0 };
  const langfuse =
    options.langfuse === undefined
      ? undefined
      : new LangfuseDatasetRun(options.langfuse, plan.dataset, evalRunId, options.name ?? plan.dataset.name);
  await langfuse?.start(plan.dataset.cases, controller.signal);
  options.onProgress?.({ ...progress });
  let next = 0;
  const worker = async () => {
    while (next < jobs.length && !controller.signal.aborted) {
      const position = next++;
      const job = jobs[position] as (typeof jobs)[number];
      const records: EventRecord[] = [];
      const ran = await runTrial(
        options,
        plan.scorers,
        evalRunId,
        plan.dataset.name,
        job,
        controller.signal,
        clock,
        records,
      );
      // Outputs, errors and transcripts can echo what a provider received: redact like the journal.
      const result = redactor === undefined ? ran : redactJson(redactor, ran);
      if (!(result.error?.code === "cancelled" && controller.signal.aborted)) {
        await langfuse?.trial(result, records, controller.signal);
      }
      trials[position] = result;
      progress.done += 1;
      if (result.passed) progress.passed += 1;
      else progress.failed += 1;
      options.onProgress?.({ ...progress, trial: result });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(plan.concurrency, jobs.length) }, worker));
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  const done = trials.filter((trial): trial is TrialResult => trial !== undefined);
  const cancelled = controller.signal.aborted;
  const report = buildReport(plan.dataset.cases, done, jobs.length);
  const thresholds = checkThresholds(options.thresholds, report);
  const scorerErrors = report.scorers.reduce((sum, scorer) => sum + scorer.errors, 0);
  const result: EvalResult = {
    evalRunId,
    name: options.name ?? plan.dataset.name,
    dataset: {
      name: plan.dataset.name,
      cases: plan.dataset.cases.length,
      caseIds: plan.dataset.cases.map((evalCase) => evalCase.id),
    },
    status: cancelled ? "cancelled" : "completed",
    repeats: plan.repeats,
    concurrency: plan.concurrency,
    scorers: plan.scorers.map((scorer) => scorer.name),
    startedAt,
    endedAt: clock.now(),
    metadata: options.metadata ?? {},
    trials: done,
    report,
    thresholds,
    passed: !cancelled && scorerErrors === 0 && thresholds.every((check) => check.passed),
  };
  if (langfuse !== undefined) result.langfuse = langfuse.summary;
  const safe = redactor === undefined ? result : redactJson(redactor, result);
  await options.store?.save(safe);
  return safe;
}

/** `value` with secrets scrubbed by `redactor` (eval results are plain JSON data). */
function redactJson<T>(redactor: Redactor, value: T): T {
  return redactor.redact(value as unknown as JsonValue) as unknown as T;
}

interface Job {
  evalCase: EvalCase;
  index: number;
  trial: number;
}

async function runTrial(
  options: EvaluateOptions,
  scorers: readonly Scorer[],
  evalRunId: string,
  dataset: string,
  job: Job,
  signal: AbortSignal,
  clock: Clock,
  /** Filled with the run's event records (the Langfuse push exports them). */
  records: EventRecord[],
): Promise<TrialResult> {
  const events = new EventSink(trialRunId(evalRunId, job), { clock });
  const unsubscribe = events.subscribe((record) => {
    records.push(record);
  });
  let storageError: TinyAgentsError | undefined;
  const observed =
    options.journal === undefined && options.statusStore === undefined
      ? undefined
      : attachObservability(events, {
          ...(options.redact === undefined ? {} : { redact: options.redact }),
          ...(options.journal === undefined ? {} : { journal: options.journal }),
          ...(options.statusStore === undefined ? {} : { statusStore: options.statusStore }),
          // A journal or status write that failed is reported on the trial, not dropped.
          onError: (error) => {
            storageError ??= toTinyAgentsError(error);
          },
        });
  let result: TrialResult;
  try {
    result = await scoredRun(options, scorers, evalRunId, dataset, job, signal, clock, records, events);
  } finally {
    unsubscribe();
    await observed?.close();
  }
  if (storageError !== undefined)
    result.storageError = { code: storageError.code, message: storageError.message };
  return result;
}

/** `<evalRunId>-c<case>-r<repeat>`, 1-based. */
function trialRunId(evalRunId: string, job: Job): string {
  return `${evalRunId}-c${job.index + 1}-r${job.trial + 1}`;
}

/** Run one trial on `events` and score it (failures are results, see {@link evaluate}). */
async function scoredRun(
  options: EvaluateOptions,
  scorers: readonly Scorer[],
  evalRunId: string,
  dataset: string,
  job: Job,
  signal: AbortSignal,
  clock: Clock,
  records: EventRecord[],
  events: EventSink,
): Promise<TrialResult> {
  const { evalCase, trial } = job;
  const runId = trialRunId(evalRunId, job);
  const started = clock.now();
  try {
    const agent = isEvalAgent(options.agent) ? options.agent : await options.agent(evalCase, trial);
    const outcome = await runAgent(agent, evalCase.input, {
      runId,
      tags: ["eval", `eval:${evalRunId}`],
      metadata: { evalRunId, dataset, caseId: evalCase.id, trial },
      events,
      signal,
      ...(options.state === undefined ? {} : { state: options.state }),
      ...(options.data === undefined ? {} : { data: options.data }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    const { run, status } = outcome;
    const latencyMs =
      status.endedAt === undefined ? clock.now() - started : status.endedAt - status.startedAt;
    const result: TrialResult = {
      caseId: evalCase.id,
      trial,
      runId,
      passed: false,
      output: text(run.finalResponse?.message),
      latencyMs,
      usage: runUsage(run),
      cost: run.cost,
      modelCalls: run.modelCalls,
      toolCalls: run.toolCalls,
      scores: [],
    };
    if (run.structured !== undefined) result.structured = run.structured;
    if (outcome.error !== undefined)
      result.error = { code: outcome.error.code, message: outcome.error.message };
    if (outcome.error?.code === "cancelled" && signal.aborted) return result;
    result.scores = await scoreTrial(
      scorers,
      {
        case: evalCase,
        trial,
        run,
        output: result.output,
        structured: run.structured,
        records,
        trajectory: Trajectory.from(records),
        latencyMs,
        error: outcome.error?.toJSON(),
        signal,
      },
      { clock, timeoutMs: options.scorerTimeoutMs ?? DEFAULT_SCORER_TIMEOUT_MS },
    );
    result.passed =
      result.error === undefined && result.scores.every((score) => !("error" in score) && score.passed);
    return result;
  } catch (thrown) {
    // The agent factory failed, or the run could not start (bad input, bad config).
    const error = toTinyAgentsError(thrown);
    return {
      caseId: evalCase.id,
      trial,
      runId,
      passed: false,
      error: { code: error.code, message: error.message },
      output: "",
      latencyMs: clock.now() - started,
      usage: emptyUsage(),
      cost: emptyCost(),
      modelCalls: 0,
      toolCalls: 0,
      scores: [],
    };
  }
}

function checkOptions(options: EvaluateOptions): {
  dataset: EvalDataset;
  scorers: readonly Scorer[];
  concurrency: number;
  repeats: number;
} {
  if (typeof options !== "object" || options === null) {
    throw validationError("evaluate needs { agent, dataset, scorers }", { field: "options" });
  }
  if (!isEvalAgent(options.agent) && typeof options.agent !== "function") {
    throw validationError(
      "evaluate: agent must be an AgentHarness (or StructuredAgent) or a function returning one",
      {
        field: "agent",
      },
    );
  }
  const dataset = Array.isArray(options.dataset)
    ? validateDataset(options.dataset)
    : validateDataset(options.dataset, { name: (options.dataset as EvalDataset)?.name ?? "dataset" });
  const scorers = options.scorers;
  if (!Array.isArray(scorers) || scorers.length === 0) {
    throw validationError("evaluate: scorers must be a non-empty array (for example [exactMatch()])", {
      field: "scorers",
    });
  }
  const names = new Set<string>();
  for (const [i, scorer] of scorers.entries()) {
    if (typeof scorer?.name !== "string" || typeof scorer.score !== "function") {
      throw validationError(`evaluate: scorers[${i}] is not a scorer ({ name, score(context) })`, {
        field: `scorers[${i}]`,
      });
    }
    if (names.has(scorer.name)) {
      throw validationError(
        `evaluate: two scorers are named "${scorer.name}"; give one another name (option name)`,
        { field: `scorers[${i}].name` },
      );
    }
    names.add(scorer.name);
  }
  validateThresholds(options.thresholds, [...names]);
  const scorerTimeoutMs = options.scorerTimeoutMs;
  if (scorerTimeoutMs !== undefined && !(typeof scorerTimeoutMs === "number" && scorerTimeoutMs > 0)) {
    throw validationError(
      `evaluate: scorerTimeoutMs must be a positive number of ms, got ${String(scorerTimeoutMs)}`,
      {
        field: "scorerTimeoutMs",
      },
    );
  }
  return {
    dataset,
    scorers,
    concurrency: positiveInteger(options.concurrency, 4, "concurrency"),
    repeats: positiveInteger(options.repeats, 1, "repeats"),
  };
}

function positiveInteger(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw validationError(`evaluate: ${field} must be a positive integer, got ${String(value)}`, { field });
  }
  return value;
}

/** `eval-<time>-<random>`: sortable by start time, unique across processes. */
function newEvalRunId(now: number): string {
  const random = Math.floor(Math.random() * 36 ** 6)
    .toString(36)
    .padStart(6, "0");
  return `eval-${now.toString(36)}-${random}`;
}
