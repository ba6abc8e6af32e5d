/**
 * `@tinyagents/dbos`: durable tinyagents runs on DBOS Transact over Postgres. Workers register
 * agents with `dbosAgents` (one workflow per agent, the run id as workflow id, the harness's one
 * loop inside it with a `DbosDurableContext`); any process starts, awaits, approves and inspects
 * runs with `createDbosClient`. See docs/scale-out/dbos.md.
 */

export type { DbosApproveOptions, DbosDecisionOptions } from "./approval-decisions.js";
export { type DbosAgents, type DbosAgentsOptions, dbosAgents } from "./dbos-agents.js";
export {
  createDbosClient,
  type DbosAgentsClient,
  type DbosClientOptions,
  type DbosRunStatus,
  type DbosStartOptions,
} from "./dbos-client.js";
export {
  DbosDurableContext,
  type OpenedApproval,
  type SignalEnvelope,
  type StepRecord,
} from "./dbos-durable-context.js";
export type { DbosRunPayload, DbosRunResult, DurableAgent } from "./run-payload.js";
export type { ThreadQueueOptions } from "./thread-queue.js";
