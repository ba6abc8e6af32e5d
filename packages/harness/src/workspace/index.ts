/**
 * `@tinyagents/harness/workspace`: the workspace sandbox: descriptors, access modes, isolation and
 * enforcement of a run's filesystem reach (the Node filesystem parts are at
 * `@tinyagents/harness/node`).
 */
export type { RunWorkspace } from "../contracts/run-workspace.js";
export { enforceWorkspace } from "./enforce-workspace.js";
export type {
  EnforceOptions,
  SandboxMode,
  WorkspaceAccess,
  WorkspaceDescriptor,
  WorkspaceDescriptorInit,
  WorkspaceEventTarget,
  WorkspaceRun,
} from "./workspace-descriptor.js";
export {
  cleanupWorkspace,
  type IsolationOptions,
  prepareWorkspace,
  type WorkspaceIsolation,
  withWorkspace,
} from "./workspace-isolation.js";
