import { type Clock, TinyAgentsError } from "@tinyagents/inference";
import type { AgentEvent } from "../events/agent-event.js";

/** What closing calls needs of the run: its clock and its event sink (a `RunContext` is one). */
export interface CallEvents {
  readonly clock: Clock;
  emit(event: AgentEvent): number;
}

interface OpenTool {
  toolName: string;
  startedAt: number;
}

/** One open model attempt (see {@link OpenCalls.modelStarted}). */
export interface OpenModel {
  callId: string;
  model: string;
  attempt: number;
  startedAt: number;
}

/**
 * The model attempts and tool calls of one run that have a `*.started` event and no terminal
 * event yet. Each start is closed exactly once: by the call itself (`completed` / `failed`), or
 * — when the run ends while it is still in flight (deadline, abort, another call failing the
 * run, a wrap that threw before reaching the tool) — by {@link closeAll}, with a `cancelled` or
 * `timeout` error, before `run.failed`. A call that settles after that emits nothing: its
 * `close*` returns false.
 */
export class OpenCalls {
  private readonly tools = new Map<string, OpenTool>();
  private models: OpenModel[] | undefined;

  toolStarted(callId: string, toolName: string, startedAt: number): void {
    this.tools.set(callId, { toolName, startedAt });
  }

  /** Close a tool call; false when it was already closed (its terminal event must not be emitted). */
  closeTool(callId: string): boolean {
    return this.tools.delete(callId);
  }

  isToolOpen(callId: string): boolean {
    return this.tools.has(callId);
  }

  /** A model attempt started; the returned record is what {@link closeModel} takes. */
  modelStarted(callId: string, model: string, attempt: number, startedAt: number): OpenModel {
    const entry = { callId, model, attempt, startedAt };
    if (this.models === undefined) this.models = [entry];
    else this.models.push(entry);
    return entry;
  }

  /** Close a model attempt; false when it was already closed. */
  closeModel(entry: OpenModel): boolean {
    const models = this.models;
    if (models === undefined) return false;
    const i = models.lastIndexOf(entry);
    if (i < 0) return false;
    // Nearly always the only (last) entry: `pop` allocates nothing, `splice` a removed-items array.
    if (i === models.length - 1) models.pop();
    else models.splice(i, 1);
    return true;
  }

  /** Anything still open. */
  get size(): number {
    return this.tools.size + (this.models?.length ?? 0);
  }

  /**
   * End everything still open with `model.failed` / `tool.failed`: the run's own error when it
   * is a `timeout` or `cancelled`, else a `cancelled` error saying the run failed around it.
   */
  closeAll(ctx: CallEvents, runError: TinyAgentsError, onToolClosed?: (callId: string) => void): void {
    if (this.size === 0) return;
    const error = terminalError(runError).toJSON();
    const now = ctx.clock.now();
    const models = this.models;
    this.models = undefined;
    if (models !== undefined) {
      for (const m of models) {
        ctx.emit({
          type: "model.failed",
          callId: m.callId,
          model: m.model,
          durationMs: now - m.startedAt,
          attempt: m.attempt,
          error,
        });
      }
    }
    for (const [callId, t] of this.tools) {
      ctx.emit({ type: "tool.failed", callId, toolName: t.toolName, durationMs: now - t.startedAt, error });
      onToolClosed?.(callId);
    }
    this.tools.clear();
  }
}

function terminalError(runError: TinyAgentsError): TinyAgentsError {
  if (runError.code === "timeout" || runError.code === "cancelled") return runError;
  return new TinyAgentsError(
    "cancelled",
    `cancelled because the run failed (${runError.code}): ${runError.message}`,
    { cause: runError, details: { where: "run failed" } },
  );
}
