// The workspace sandbox's contracts and events. The filesystem parts (WorkspaceDescriptor's
// implementation, the directory providers, resolveRealPath) are Node-only: `@tinyagents/harness/node`.
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
