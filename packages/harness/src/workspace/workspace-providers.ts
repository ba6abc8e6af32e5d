import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkspaceDescriptor } from "./workspace-descriptor.js";
import type { IsolationOptions, WorkspaceIsolation } from "./workspace-isolation.js";

// The built-in workspace providers: directories on the local filesystem (Node-only; exported by
// `@tinyagents/harness/node`).

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
