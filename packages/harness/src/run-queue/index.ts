/**
 * `@tinyagents/harness/run-queue`: queued runs per thread: lanes, queued messages and the run-queue
 * backend. The root re-exports `RunQueue`.
 */
export { type QueuedRun, RunQueue, type RunQueueOptions, type RunQueueStatus } from "./run-queue.js";
export {
  InMemoryRunQueueBackend,
  type LaneCounts,
  QUEUE_LANES,
  type QueuedMessage,
  type QueueLane,
  type RunQueueBackend,
} from "./run-queue-backend.js";
