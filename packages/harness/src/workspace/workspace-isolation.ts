import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunContext } from "../context/run-context.js";
import { type SandboxMode, WorkspaceDescriptor } from "./workspace-descriptor.js";

/**
 * Prepares and tears down the workspace of a run (or of one sub-agent). Implementations:
 * {@link SharedRootWorkspace} (every run shares one directory) and {@link TempDirWorkspace}
 * (a fresh temporary directory per run, removed at cleanup). Use them through
 * {@link prepareWorkspace} / {@link cleanupWorkspace} / {@link withWorkspace}, which emit events.
 */
export interface WorkspaceIsolation {
  /** Names the policy (copied to `WorkspaceDescriptor.policyId` and events). */
  readonly policyId: string;
  /** Create (or locate) the workspace of run `runId`. */
  prepare(runId: string): Promise<WorkspaceDescriptor>;
  /** Tear it down. Never deletes anything the provider did not create. */
  cleanup(workspace: WorkspaceDescriptor): Promise<void>;
}

/** Options shared by the built-in providers. */
export interface IsolationOptions {
  trustedRoots?: readonly string[];
  sandbox?: SandboxMode;
}

/** Every run works in the same directory (created if missing); cleanup leaves it alone. */
export class SharedRootWorkspace implements WorkspaceIsolation {
  readonly policyId = "shared_root";
  private readonly descriptor: WorkspaceDescriptor;

  constructor(root: string, options: IsolationOptions = {}) {
    this.descriptor = new WorkspaceDescriptor({ root, policyId: this.policyId, ...options });
  }

  async prepare(): Promise<WorkspaceDescriptor> {
    await mkdir(this.descriptor.root, { recursive: true });
    return this.descriptor;
  }

  async cleanup(): Promise<void> {}
}

/** Options of {@link TempDirWorkspace}. */
export interface TempDirWorkspaceOptions extends IsolationOptions {
  /** Where the per-run directories are created (default: the OS temp directory). */
  parentDir?: string;
  /** Directory name prefix (default `"tinyagents-"`); the run id and a random suffix follow. */
  prefix?: string;
}

/** A fresh temporary directory per run; cleanup removes it (and only directories it created). */
export class TempDirWorkspace implements WorkspaceIsolation {
  readonly policyId = "temp_dir";
  private readonly options: TempDirWorkspaceOptions;
  private readonly created = new Set<string>();

  constructor(options: TempDirWorkspaceOptions = {}) {
    this.options = options;
  }

  async prepare(runId: string): Promise<WorkspaceDescriptor> {
    const parent = this.options.parentDir ?? tmpdir();
    await mkdir(parent, { recursive: true });
    const safeId = runId.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64);
    const root = await mkdtemp(join(parent, `${this.options.prefix ?? "tinyagents-"}${safeId}-`));
    this.created.add(root);
    return new WorkspaceDescriptor({
      root,
      policyId: this.policyId,
      ...(this.options.trustedRoots === undefined ? {} : { trustedRoots: this.options.trustedRoots }),
      ...(this.options.sandbox === undefined ? {} : { sandbox: this.options.sandbox }),
    });
  }

  async cleanup(workspace: WorkspaceDescriptor): Promise<void> {
    if (!this.created.delete(workspace.root)) return;
    await rm(workspace.root, { recursive: true, force: true });
  }
}

/** Prepare a workspace for the run of `run`, set `run.workspace`, emit `workspace.prepared`. */
export async function prepareWorkspace(
  isolation: WorkspaceIsolation,
  run: RunContext<unknown>,
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
  run: RunContext<unknown>,
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
  run: RunContext<unknown>,
  fn: (workspace: WorkspaceDescriptor) => Promise<T>,
): Promise<T> {
  const workspace = await prepareWorkspace(isolation, run);
  try {
    return await fn(workspace);
  } finally {
    await cleanupWorkspace(isolation, run);
  }
}
