import { type Message, type ModelRequest, system, type ToolCall } from "@tinyagents/inference";
import type { RunContext } from "../contracts/run-context.js";
import type { ToolProgress } from "../middleware/middleware.js";

/** Adds host context (user profile, project notes, retrieved facts) to a model request. */
export interface ContextComposer {
  compose(
    request: ModelRequest,
    run: RunContext<unknown>,
  ): ModelRequest | void | Promise<ModelRequest | void>;
}

/** The host's verdict on a tool call. */
export type SecurityDecision = { allow: true } | { allow: false; reason: string };

/** Decides whether a tool call may run (policy engines, approvals, tenant rules). */
export interface SecurityGate {
  check(call: ToolCall, run: RunContext<unknown>): SecurityDecision | Promise<SecurityDecision>;
}

/** Picks the registered model for a request the agent left unpinned (`undefined`: no opinion). */
export interface ModelResolver {
  resolve(request: ModelRequest, run: RunContext<unknown>): string | undefined;
}

/** A tool's progress report, with the run it came from. */
export interface HostProgress extends ToolProgress {
  runId: string;
  depth: number;
}

/** Receives tool progress (a UI, a job tracker). */
export interface ProgressSink {
  report(progress: HostProgress): void;
}

/** What the embedding host provides; every capability is optional. Used via `hostMiddleware`. */
export interface HostCapabilities {
  contextComposer?: ContextComposer;
  securityGate?: SecurityGate;
  modelResolver?: ModelResolver;
  progressSink?: ProgressSink;
}

/**
 * Context notes kept in memory, sent as ONE system message right after the leading system
 * messages. The message is byte-stable while the notes do not change, so it stays inside the
 * cacheable prompt prefix.
 */
export class InMemoryContextComposer implements ContextComposer {
  private notes: string[];

  constructor(notes: readonly string[] = []) {
    this.notes = [...notes];
  }

  /** Replace the notes. */
  set(notes: readonly string[]): void {
    this.notes = [...notes];
  }

  compose(request: ModelRequest): ModelRequest | void {
    if (this.notes.length === 0) return;
    const at = request.messages.findIndex((m) => m.role !== "system");
    const index = at === -1 ? request.messages.length : at;
    const note: Message = system(`Host context:\n${this.notes.map((n) => `- ${n}`).join("\n")}`);
    request.messages = [...request.messages.slice(0, index), note, ...request.messages.slice(index)];
  }
}

/** A gate from a deny list of tool names (everything else is allowed). */
export class DenyListGate implements SecurityGate {
  private readonly denied: ReadonlyMap<string, string>;

  /** `denied`: tool name -> reason shown to the model. */
  constructor(denied: Record<string, string>) {
    this.denied = new Map(Object.entries(denied));
  }

  check(call: ToolCall): SecurityDecision {
    const reason = this.denied.get(call.name);
    return reason === undefined ? { allow: true } : { allow: false, reason };
  }
}

/** Always resolves to one registered model name. */
export class FixedModelResolver implements ModelResolver {
  readonly model: string;

  constructor(model: string) {
    this.model = model;
  }

  resolve(): string {
    return this.model;
  }
}

/** Keeps every progress report in memory (tests, simple UIs). */
export class InMemoryProgressSink implements ProgressSink {
  readonly reports: HostProgress[] = [];

  report(progress: HostProgress): void {
    this.reports.push(progress);
  }
}
