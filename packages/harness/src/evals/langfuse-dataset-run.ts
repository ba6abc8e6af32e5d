import { type JsonObject, type JsonValue, toTinyAgentsError } from "@tinyagents/inference";
import type { EventRecord } from "../contracts/agent-event.js";
import type { LangfuseClient } from "../langfuse/langfuse-client.js";
import type { LangfuseScore } from "../langfuse/scores.js";
import type { EvalCase, EvalDataset } from "./eval-case.js";
import type { EvalLangfuseSummary, TrialResult } from "./eval-result.js";

/** `evaluate({ langfuse })`: push the eval to Langfuse as a dataset run with its scores. */
export interface EvalLangfuseOptions {
  /** A direct client (`LangfuseClient.direct` / `fromEnv` with keys): traces, scores and the dataset API. */
  client: LangfuseClient;
  /** The Langfuse dataset (created if missing). Default: the eval's dataset name. */
  datasetName?: string;
  /** The dataset run. Default: the eval run id, so each eval is one run to compare in Langfuse. */
  runName?: string;
  /** Shown on the dataset run. Default: the eval's name. */
  runDescription?: string;
  /**
   * Export prompts, answers and tool results with each trace (default true: an experiment is read
   * by its outputs). Register `traceDetailsMiddleware({ captureContent: true })` on the agent for
   * the model-level content; secrets are redacted either way.
   */
  captureContent?: boolean;
}

/**
 * Pushes an eval run to Langfuse: the dataset and one item per case first, then per finished trial
 * its trace (tagged `eval:<id>`) with one NUMERIC score per scorer (the reason as comment) and a
 * BOOLEAN `passed`, linked to the case's item by a dataset run item. Failures are collected in the
 * summary, never thrown: Langfuse being down does not fail the eval.
 */
export class LangfuseDatasetRun {
  readonly summary: EvalLangfuseSummary;
  private readonly options: EvalLangfuseOptions;
  private readonly evalRunId: string;
  private readonly description: string;
  private readonly itemIds = new Map<string, string>();
  private ready = false;

  constructor(options: EvalLangfuseOptions, dataset: EvalDataset, evalRunId: string, name: string) {
    this.options = options;
    this.evalRunId = evalRunId;
    this.description = options.runDescription ?? name;
    this.summary = {
      datasetName: options.datasetName ?? dataset.name,
      runName: options.runName ?? evalRunId,
      items: 0,
      traces: 0,
      scores: 0,
      runItems: 0,
      errors: [],
    };
    for (const evalCase of dataset.cases) {
      this.itemIds.set(evalCase.id, `${this.summary.datasetName}:${evalCase.id}`);
    }
  }

  /** Create the dataset and upsert one item per case (ids `<dataset>:<caseId>`, stable across runs). */
  async start(cases: readonly EvalCase[], signal?: AbortSignal): Promise<void> {
    try {
      const datasets = this.options.client.datasets;
      await datasets.upsertDataset(
        { name: this.summary.datasetName, metadata: { source: "tinyagents evals" } },
        signal,
      );
      for (const evalCase of cases) {
        const expected = evalCase.expected ?? evalCase.expectedStructured;
        const metadata: JsonObject = { caseId: evalCase.id, ...(evalCase.metadata ?? {}) };
        if (evalCase.tags !== undefined) metadata.tags = evalCase.tags;
        if (evalCase.expectedTrajectory !== undefined) {
          metadata.expectedTrajectory = evalCase.expectedTrajectory as unknown as JsonValue;
        }
        await datasets.upsertItem(
          {
            datasetName: this.summary.datasetName,
            id: this.itemIds.get(evalCase.id) as string,
            input: evalCase.input as unknown as JsonValue,
            ...(expected === undefined ? {} : { expectedOutput: expected }),
            metadata,
          },
          signal,
        );
        this.summary.items += 1;
      }
      this.ready = true;
    } catch (error) {
      this.fail("dataset", error);
    }
  }

  /** Export one finished trial's trace with its scores and link it to its case's item. */
  async trial(result: TrialResult, records: readonly EventRecord[], signal?: AbortSignal): Promise<void> {
    if (!this.ready || records.length === 0) return;
    const scores: LangfuseScore[] = [];
    for (const outcome of result.scores) {
      if ("error" in outcome) continue;
      scores.push({
        name: outcome.scorer,
        value: outcome.score,
        dataType: "NUMERIC",
        ...(outcome.reason === undefined ? {} : { comment: outcome.reason }),
      });
    }
    scores.push({ name: "passed", value: result.passed, dataType: "BOOLEAN" });
    try {
      const exported = await this.options.client.exportRun(records, {
        captureContent: this.options.captureContent ?? true,
        traceName: `eval ${this.summary.datasetName} / ${result.caseId}`,
        tags: ["eval", `eval:${this.evalRunId}`],
        metadata: { evalRunId: this.evalRunId, caseId: result.caseId, trial: result.trial },
        scores,
        ...(signal === undefined ? {} : { signal }),
      });
      this.summary.traces += 1;
      this.summary.scores += exported.scores;
      if (!exported.ok)
        this.summary.errors.push(`trace of ${result.runId}: ${exported.failed.length} item(s) rejected`);
      const traceId = exported.traceIds[0];
      if (traceId === undefined) return;
      await this.options.client.datasets.createRunItem(
        {
          runName: this.summary.runName,
          runDescription: this.description,
          metadata: {
            evalRunId: this.evalRunId,
            runId: result.runId,
            trial: result.trial,
            passed: result.passed,
          },
          datasetItemId: this.itemIds.get(result.caseId) as string,
          traceId,
        },
        signal,
      );
      this.summary.runItems += 1;
    } catch (error) {
      this.fail(`trial ${result.runId}`, error);
    }
  }

  private fail(what: string, error: unknown): void {
    const { code, message } = toTinyAgentsError(error);
    this.summary.errors.push(`${what}: ${code}: ${message}`);
  }
}
