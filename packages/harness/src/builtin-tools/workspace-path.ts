import { TinyAgentsError } from "@tinyagents/inference";
import type { RunContext } from "../contracts/run-context.js";
import { enforceWorkspace } from "../workspace/enforce-workspace.js";
import type { WorkspaceAccess } from "../workspace/workspace-descriptor.js";

/**
 * Resolve `path` through the run's workspace (`enforceWorkspace`): the real path, or the
 * violation message for the model (a workspace violation is the model's mistake, not a crash).
 */
export async function workspacePath(
  run: RunContext<unknown>,
  path: string,
  access: WorkspaceAccess,
): Promise<{ path: string; root: string } | { error: string }> {
  try {
    const real = await enforceWorkspace(run, path, access);
    const root = await run.workspace?.realRootOf(real);
    if (root === undefined)
      return { error: `workspace violation: path "${path}" resolves outside the workspace root` };
    return { path: real, root };
  } catch (error) {
    if (TinyAgentsError.isInstance(error) && error.code === "validation") return { error: error.message };
    throw error;
  }
}

/** A short, human description of a file-system error (`ENOENT` -> "no such file or directory"). */
export function describeFsError(error: unknown, path: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return `${path}: no such file or directory`;
    case "EISDIR":
      return `${path} is a directory; use list_dir`;
    case "ENOTDIR":
      return `${path}: a parent of this path is not a directory`;
    case "EACCES":
    case "EPERM":
      return `${path}: permission denied`;
    case "EUNSAFE":
      // A link or a swap seen by the race-free walk: refused, the workspace stays closed.
      return `workspace violation: ${path}: ${(error as Error).message}; use a regular file inside the workspace root`;
    default:
      // The code only: fs messages carry absolute host paths the model must not see.
      return `${path}: the file system refused the operation (${code ?? "unknown error"})`;
  }
}
