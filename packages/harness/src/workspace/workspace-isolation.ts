import type { RunWorkspace } from "../contracts/run-workspace.js";
import type { SandboxMode, WorkspaceDescriptor, WorkspaceRun } from "./workspace-descriptor.js";

/**
 * Prepares and tears down the workspace of a run (or of one sub-agent). Implementations, from
 * `@tinyagents/harness/node`: `SharedRootWorkspace` (every run shares one directory) and
 * `TempDirWorkspace` (a fresh temporary directory per run, removed at cleanup). Use them through
 * {@link prepareWorkspace} / {@link cleanupWorkspace} / {@link withWorkspace}, which emit events.
 */
export interface WorkspaceIsolation {
  /** Names the policy (copied to `WorkspaceDescriptor.policyId` and events). */
  readonly policyId: string;
  /** Create (or locate) the workspace of run `runId`. */
  prepare(runId: string): Promise<WorkspaceDescriptor>;
  /** Tear it down. Never deletes anything the provider did not create. */
  cleanup(workspace: RunWorkspace): Promise<void>;
}

/** Options shared by the built-in providers. */
export interface IsolationOptions {
  trustedRoots?: readonly string[];
  sandbox?: SandboxMode;
}

/** Prepare a workspace for the run of `run`, set `run.workspace`, emit `workspace.prepared`. */
export async function prepareWorkspace(
  isolation: WorkspaceIsolation,
  run: WorkspaceRun,
): Promise<WorkspaceDescriptor> {
  const workspace = await isolation.prepare(run.runId);
  run.workspace = workspace;
  run.emit({ type: "workspace.prepared", policyId: workspace.policyId, root: workspace.root });
  return workspace;
}

/**
 * Tear down the workspace of `run` (if it has one) and emit `workspace.cleanup`. A failing
 * cleanup is reported in the event's `error` and returned, never thrown: the run's own outcome
 * matters more than a leftover directory.
 */
export async function cleanupWorkspace(
  isolation: WorkspaceIsolation,
  run: WorkspaceRun,
): Promise<Error | undefined> {
  const workspace = run.workspace;
  if (workspace === undefined) return undefined;
  try {
    await isolation.cleanup(workspace);
    run.emit({ type: "workspace.cleanup", policyId: workspace.policyId, root: workspace.root });
    return undefined;
  } catch (thrown) {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    run.emit({
      type: "workspace.cleanup",
      policyId: workspace.policyId,
      root: workspace.root,
      error: error.message,
    });
    return error;
  }
}

/** Prepare a workspace on `run`, call `fn`, and always clean up afterwards. */
export async function withWorkspace<T>(
  isolation: WorkspaceIsolation,
  run: WorkspaceRun,
  fn: (workspace: WorkspaceDescriptor) => Promise<T>,
): Promise<T> {
  const workspace = await prepareWorkspace(isolation, run);
  try {
    return await fn(workspace);
  } finally {
    await cleanupWorkspace(isolation, run);
  }
}
