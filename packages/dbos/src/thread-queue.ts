/** The queue every run is started on unless `queue.name` says otherwise. */
export const DEFAULT_QUEUE = "tinyagents-runs";

/** Options of the queue that keeps each thread's runs in order. */
export interface ThreadQueueOptions {
  /** Queue name (default `tinyagents-runs`); workers and clients must agree on it. */
  name?: string;
  /**
   * How often an idle worker polls the queue, in ms (default 50; DBOS's default is 1000, which
   * would add up to a second before every run starts).
   */
  pollingIntervalMs?: number;
  /** At most this many runs at once on one worker (default: unlimited). */
  workerConcurrency?: number;
}

/**
 * The DBOS queue parameters: partitioned by thread id (a run without a thread is its own
 * partition), one run at a time per partition across all workers, so a thread's runs execute
 * strictly one after another in the order they were enqueued.
 */
export function threadQueueParams(options: ThreadQueueOptions): {
  partitionConcurrency: number;
  minPollingIntervalMs: number;
  workerConcurrency?: number;
} {
  const params: { partitionConcurrency: number; minPollingIntervalMs: number; workerConcurrency?: number } = {
    partitionConcurrency: 1,
    minPollingIntervalMs: options.pollingIntervalMs ?? 50,
  };
  if (options.workerConcurrency !== undefined) params.workerConcurrency = options.workerConcurrency;
  return params;
}
