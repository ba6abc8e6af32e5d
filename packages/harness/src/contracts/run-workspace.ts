import type { AgentEvent } from "./agent-event.js";

/**
 * What tools may do inside the workspace: `read_write` (default) lets them read and write under
 * the root; `read_only` allows reads only. Trusted roots are always read-only.
 */
export type SandboxMode = "read_only" | "read_write";

/** The access a tool asks `enforce` for. */
export type WorkspaceAccess = "read" | "write";

/** Where `enforce` reports violations: a RunContext (or anything with `emit`). */
export interface WorkspaceEventTarget {
  emit(event: AgentEvent): unknown;
}

/** Options of {@link RunWorkspace.enforce} (`WorkspaceDescriptor.enforce`). */
export interface EnforceOptions {
  /** Default `"read"`. */
  access?: WorkspaceAccess;
  /** Receives `workspace.violation` when the path is rejected. */
  events?: WorkspaceEventTarget;
}

/**
 * The filesystem sandbox of a run, as tools see it (`ctx.run.workspace`): check every path with
 * `enforce` before touching it. `WorkspaceDescriptor` implements it.
 */
export interface RunWorkspace {
  /** The directory tools work in; relative paths resolve against it. */
  readonly root: string;
  /** Extra directories tools may read. */
  readonly trustedRoots: readonly string[];
  /** The isolation policy that produced this workspace. */
  readonly policyId: string;
  readonly sandbox: SandboxMode;
  /**
   * The real path to use for the I/O on `path`, or a `validation` error (after a
   * `workspace.violation` event) when it leaves the workspace.
   */
  enforce(path: string, options?: EnforceOptions): Promise<string>;
  /** The real root (workspace or trusted) a real path lies under, if any. */
  realRootOf(real: string): Promise<string | undefined>;
  toJSON(): { root: string; trustedRoots: string[]; policyId: string; sandbox: SandboxMode };
}
