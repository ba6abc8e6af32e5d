import type { SteeringHandle } from "@tinyagents/harness";
import type { ApprovalBook, ApprovalRecord } from "@tinyagents/harness/middleware";
import { TinyAgentsError, validationError } from "@tinyagents/inference";
import type { ControlView } from "./view-types.js";

/**
 * What this process can do to one of its runs: the run's steering handle (pause, cancel), its
 * approval book (approve, reject), and how to continue it once paused or once every approval is
 * decided (usually `() => harness.resume(state, data, run.paused, { events })`).
 */
export interface RunControl {
  steering?: SteeringHandle;
  approvals?: ApprovalBook;
  resume?: () => Promise<unknown>;
}

/** An action the inspector's page can ask for. */
export type RunAction =
  | { action: "approve"; approvalId: string }
  | { action: "reject"; approvalId: string; reason: string }
  | { action: "pause" }
  | { action: "resume" }
  | { action: "cancel"; reason?: string };

const NOT_LISTENING =
  "This run's process does not listen for commands: the inspector can act only on runs started in " +
  "the process that serves it (serveInspector with controls). Approve, pause or cancel it where it runs.";

/**
 * The runs this process can act on, by root run id. Steering and approvals are in-process objects
 * (a `SteeringHandle`, an `ApprovalBook`): another process's run cannot be reached, so the
 * inspector says so instead of offering buttons that would do nothing.
 */
export class InspectorControls {
  private readonly runs = new Map<string, RunControl>();
  private readonly onError: (error: unknown) => void;

  /** `onError` receives failures of a resume started by an action (default: ignored). */
  constructor(options: { onError?: (error: unknown) => void } = {}) {
    this.onError = options.onError ?? (() => {});
  }

  /** Let the inspector act on `runId`; returns a function that withdraws it. */
  register(runId: string, control: RunControl): () => void {
    if (typeof runId !== "string" || runId === "")
      throw validationError("InspectorControls.register: runId must be a non-empty string", {
        field: "runId",
      });
    this.runs.set(runId, control);
    return () => {
      if (this.runs.get(runId) === control) this.runs.delete(runId);
    };
  }

  /** What the page may offer for `runId` given its status. */
  view(runId: string, status: string | undefined): ControlView {
    const control = this.runs.get(runId);
    if (control === undefined)
      return {
        listening: false,
        canPause: false,
        canResume: false,
        canCancel: false,
        canDecide: false,
        note: NOT_LISTENING,
      };
    const active = status === "running" || status === "pending";
    return {
      listening: true,
      canPause: control.steering !== undefined && active,
      canCancel: control.steering !== undefined && active,
      canResume: control.resume !== undefined && status === "interrupted",
      canDecide: control.approvals !== undefined && status === "interrupted",
    };
  }

  /** Pending approvals this process holds for `runId` (sub-agent approvals included). */
  pending(runId: string): ApprovalRecord[] {
    return this.runs.get(runId)?.approvals?.pending() ?? [];
  }

  /**
   * Apply `action` to `runId`. Throws `validation` for a run this process does not control or an
   * action it cannot take. Deciding the last pending approval resumes the run (when a `resume` is
   * registered); the resume runs in the background and reports failures to `onError`.
   */
  apply(runId: string, action: RunAction): { resumed: boolean } {
    const control = this.runs.get(runId);
    if (control === undefined) throw validationError(NOT_LISTENING, { field: "runId", runId });
    const need = <T>(value: T | undefined, what: string): T => {
      if (value === undefined)
        throw validationError(`run "${runId}" was registered without ${what}; the action is not available`, {
          field: "action",
        });
      return value;
    };
    switch (action.action) {
      case "approve":
      case "reject": {
        const book = need(control.approvals, "an approval book");
        if (action.action === "approve") book.approve(action.approvalId);
        else book.reject(action.approvalId, action.reason);
        if (book.pending().length === 0 && control.resume !== undefined) {
          this.resume(control);
          return { resumed: true };
        }
        return { resumed: false };
      }
      case "pause":
        need(control.steering, "a steering handle").pause();
        return { resumed: false };
      case "cancel":
        need(control.steering, "a steering handle").cancel(action.reason ?? "cancelled from the inspector");
        return { resumed: false };
      case "resume":
        need(control.resume, "a resume function");
        this.resume(control);
        return { resumed: true };
      default:
        throw new TinyAgentsError("validation", `unknown action ${JSON.stringify(action)}`);
    }
  }

  private resume(control: RunControl): void {
    const resume = control.resume;
    if (resume === undefined) return;
    void resume().catch((error: unknown) => this.onError(error));
  }
}
