// DBOS Transact is published as CommonJS: under ESM its named exports are reached through the
// default import (Node's CJS interop), in one place so every other module imports from here.
import dbosSdk from "@dbos-inc/dbos-sdk";

export type { DBOSClient as DbosClientHandle, WorkflowHandle, WorkflowStatus } from "@dbos-inc/dbos-sdk";

/** The DBOS static API (workflows, steps, messages, queues, lifecycle). One per process. */
export const DBOS = dbosSdk.DBOS;
/** DBOS's out-of-process client: enqueue, send, status and results, with no workflows registered. */
export const DBOSClient = dbosSdk.DBOSClient;
/** DBOS's error classes (`instanceof` checks). */
export const DbosErrors = dbosSdk.Error;
