export { enforceWorkspace } from "./enforce-workspace.js";
export { resolveRealPath } from "./resolve-real-path.js";
export {
  type EnforceOptions,
  type SandboxMode,
  type WorkspaceAccess,
  WorkspaceDescriptor,
  type WorkspaceDescriptorInit,
  type WorkspaceEventTarget,
} from "./workspace-descriptor.js";
export {
  cleanupWorkspace,
  type IsolationOptions,
  prepareWorkspace,
  SharedRootWorkspace,
  TempDirWorkspace,
  type TempDirWorkspaceOptions,
  type WorkspaceIsolation,
  withWorkspace,
} from "./workspace-isolation.js";
