import { realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { TinyAgentsError } from "@tinyagents/inference";
import type {
  EnforceOptions,
  RunWorkspace,
  SandboxMode,
  WorkspaceEventTarget,
} from "../contracts/run-workspace.js";
import { resolveRealPath } from "./resolve-real-path.js";

export type {
  EnforceOptions,
  SandboxMode,
  WorkspaceAccess,
  WorkspaceEventTarget,
} from "../contracts/run-workspace.js";

/**
 * What the workspace helpers ({@link enforceWorkspace}, {@link prepareWorkspace}...) need of a
 * run: its id, its workspace slot and its event stream. A `RunContext` is one (`ctx.run`).
 */
export interface WorkspaceRun extends WorkspaceEventTarget {
  readonly runId: string;
  workspace: RunWorkspace | undefined;
}

/** Construction fields of a {@link WorkspaceDescriptor}. */
export interface WorkspaceDescriptorInit {
  /** The directory tools work in; relative paths resolve against it. */
  root: string;
  /** Extra directories tools may READ (shared docs, caches). */
  trustedRoots?: readonly string[];
  /** Names the isolation policy that produced this workspace (events, audit). Default `"shared"`. */
  policyId?: string;
  sandbox?: SandboxMode;
}

/**
 * The filesystem sandbox of a run, handed to every tool call as `ctx.run.workspace`.
 *
 * Contract of `enforce(path)`: the path (relative paths resolve against the root) is resolved to
 * its REAL path — symlinks followed with `fs.realpath`, and for a file that does not exist yet,
 * the nearest existing parent — and must lie inside the real root (or, for reads, a trusted
 * root). So `..` segments, absolute paths elsewhere and symlinks pointing out are all rejected:
 * a `workspace.violation` event, then a `validation` error. Fail-closed: an unresolvable path
 * or a missing root is rejected too. Returns the real path to use for the I/O.
 */
export class WorkspaceDescriptor implements RunWorkspace {
  readonly root: string;
  readonly trustedRoots: readonly string[];
  readonly policyId: string;
  readonly sandbox: SandboxMode;
  private realRoots: Promise<string[]> | undefined;

  constructor(init: WorkspaceDescriptorInit) {
    if (typeof init.root !== "string" || init.root === "") {
      throw new TinyAgentsError("validation", "WorkspaceDescriptor.root must be a non-empty directory path", {
        details: { field: "root" },
      });
    }
    this.root = resolve(init.root);
    this.trustedRoots = Object.freeze((init.trustedRoots ?? []).map((r) => resolve(r)));
    this.policyId = init.policyId ?? "shared";
    this.sandbox = init.sandbox ?? "read_write";
  }

  /** Resolve `path` inside the workspace and return its real path, or reject it (see the class contract). */
  async enforce(path: string, options: EnforceOptions = {}): Promise<string> {
    const access = options.access ?? "read";
    const reject = (reason: string, resolved?: string): never => {
      options.events?.emit({ type: "workspace.violation", path: String(path), reason });
      throw new TinyAgentsError(
        "validation",
        `workspace violation: ${reason}; use a path relative to the workspace root`,
        {
          details: {
            path: String(path),
            root: this.root,
            policyId: this.policyId,
            access,
            ...(resolved === undefined ? {} : { resolved }),
          },
        },
      );
    };
    if (typeof path !== "string" || path === "") return reject("the path is empty or not a string");
    if (path.includes("\0")) return reject(`path ${JSON.stringify(path)} contains a NUL byte`);
    let roots: string[];
    try {
      roots = await this.resolveRoots();
    } catch (error) {
      return reject(`the workspace root cannot be resolved (${describe(error)}); prepare it first`);
    }
    const [root, ...trusted] = roots as [string, ...string[]];
    let real: string;
    try {
      real = await resolveRealPath(resolve(root, path));
    } catch (error) {
      return reject(`path "${path}" cannot be resolved (${describe(error)})`);
    }
    if (isInside(root, real)) {
      if (access === "write" && this.sandbox === "read_only") {
        return reject(`path "${path}" cannot be written: the workspace sandbox is read_only`, real);
      }
      return real;
    }
    if (trusted.some((r) => isInside(r, real))) {
      if (access === "read") return real;
      return reject(`path "${path}" is in a trusted root, which is read-only`, real);
    }
    return reject(`path "${path}" resolves outside the workspace root`, real);
  }

  /**
   * The real root (the workspace root or a trusted root) that contains real path `real`, for
   * race-free I/O below it (`openFileForRead`, `writeFileAtomically`); undefined when none does.
   */
  async realRootOf(real: string): Promise<string | undefined> {
    const roots = await this.resolveRoots();
    return roots.find((root) => isInside(root, real));
  }

  /** Plain JSON view (for logs and events). */
  toJSON(): { root: string; trustedRoots: string[]; policyId: string; sandbox: SandboxMode } {
    return {
      root: this.root,
      trustedRoots: [...this.trustedRoots],
      policyId: this.policyId,
      sandbox: this.sandbox,
    };
  }

  private resolveRoots(): Promise<string[]> {
    this.realRoots ??= Promise.all([this.root, ...this.trustedRoots].map((r) => realpath(r))).catch(
      (error: unknown) => {
        this.realRoots = undefined; // the root may be created later: do not cache the failure
        throw error;
      },
    );
    return this.realRoots;
  }
}

/** True when `path` is `root` itself or below it (both real, absolute paths). */
function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function describe(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? String(error);
}
