import { type JsonValue, validationError } from "@tinyagents/inference";
import type { KeyValueStore } from "../store/key-value-store.js";
import type { EvalResult } from "./eval-result.js";

/** One line of {@link EvalStore.list}. */
export interface EvalRunSummary {
  evalRunId: string;
  name: string;
  dataset: string;
  status: EvalResult["status"];
  startedAt: number;
  passRate: number | null;
  passed: boolean;
  /** The run ids of the eval's trials, in case order: the group an inspector shows. */
  runIds: string[];
}

const RESULTS = "eval-runs";
const SUMMARIES = "eval-run-summaries";

/**
 * Eval results kept in a {@link KeyValueStore} — the same store the runs' threads and records live
 * in (`SqliteStore.keyValue` by default in the CLI), so an eval run and its journaled runs are
 * found together: the summary lists the run ids of every trial.
 */
export class EvalStore {
  readonly #store: KeyValueStore;

  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  /** Save (or replace) a result and its summary in one batch. */
  async save(result: EvalResult): Promise<void> {
    const summary: EvalRunSummary = {
      evalRunId: result.evalRunId,
      name: result.name,
      dataset: result.dataset.name,
      status: result.status,
      startedAt: result.startedAt,
      passRate: result.report.passRate,
      passed: result.passed,
      runIds: result.trials.map((trial) => trial.runId),
    };
    await this.#store.batch([
      { op: "put", namespace: RESULTS, key: result.evalRunId, value: result as unknown as JsonValue },
      { op: "put", namespace: SUMMARIES, key: result.evalRunId, value: summary as unknown as JsonValue },
    ]);
  }

  /** The result of an eval run, or undefined. */
  async get(evalRunId: string): Promise<EvalResult | undefined> {
    return (await this.#store.get(RESULTS, evalRunId)) as EvalResult | undefined;
  }

  /**
   * The result of an eval run.
   *
   * @throws TinyAgentsError `validation` when there is none (the message lists recent ids).
   */
  async require(evalRunId: string): Promise<EvalResult> {
    const result = await this.get(evalRunId);
    if (result !== undefined) return result;
    const recent = (await this.list()).slice(0, 5).map((summary) => summary.evalRunId);
    throw validationError(
      `no eval run "${evalRunId}" in the store${recent.length === 0 ? " (it holds none)" : `; recent: ${recent.join(", ")}`}`,
      { field: "evalRunId", evalRunId },
    );
  }

  /** Every eval run's summary, newest first. */
  async list(): Promise<EvalRunSummary[]> {
    const keys = await this.#store.list(SUMMARIES);
    const summaries: EvalRunSummary[] = [];
    for (const key of keys) {
      const summary = (await this.#store.get(SUMMARIES, key)) as EvalRunSummary | undefined;
      if (summary !== undefined) summaries.push(summary);
    }
    return summaries.sort((a, b) => b.startedAt - a.startedAt);
  }
}
