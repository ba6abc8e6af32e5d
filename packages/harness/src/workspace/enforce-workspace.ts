import { TinyAgentsError } from "@tinyagents/inference";
import type { WorkspaceAccess, WorkspaceRun } from "./workspace-descriptor.js";

/**
 * Enforce `path` against the workspace of `run` (for tools: `enforceWorkspace(ctx.run, path)`),
 * reporting violations on the run's event stream. Fail-closed: a run without a workspace
 * rejects every path with a `validation` error. Returns the real path to use.
 */
export function enforceWorkspace(
  run: WorkspaceRun,
  path: string,
  access: WorkspaceAccess = "read",
): Promise<string> {
  const workspace = run.workspace;
  if (workspace === undefined) {
    run.emit({ type: "workspace.violation", path: String(path), reason: "the run has no workspace" });
    return Promise.reject(
      new TinyAgentsError(
        "validation",
        `workspace violation: run "${run.runId}" has no workspace, so no path is allowed; ` +
          "pass ContextOptions.workspace or call prepareWorkspace before the run",
        { details: { path: String(path), runId: run.runId } },
      ),
    );
  }
  return workspace.enforce(path, { access, events: run });
}
