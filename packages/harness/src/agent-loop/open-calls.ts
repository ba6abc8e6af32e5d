import { type Clock, TinyAgentsError } from "@tinyagents/inference";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { AttemptInfo } from "./attempt-info.js";
import { failedEvent } from "./model-call-records.js";

/** What closing calls needs of the run: its clock and its event sink (a `RunContext` is one). */
export interface CallEvents {
  readonly clock: Clock;
  emit(event: AgentEvent): number;
}

interface OpenTool {
  callId: string;
  toolName: string;
  startedAt: number;
}

/** One open model attempt (see {@link OpenCalls.modelStarted}). */
export interface OpenModel {
  /** The attempt (call id, number, what it billed so far). */
  info: AttemptInfo;
  model: string;
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
  // Open tool calls in start order: nearly always none or one (the loop's current call), so no
  // Map per run — a short array, scanned (parallel calls are bounded by `maxConcurrency`).
  private tools: OpenTool[] | undefined;
  private models: OpenModel[] | undefined;

  toolStarted(callId: string, toolName: string, startedAt: number): void {
    const entry = { callId, toolName, startedAt };
    const tools = this.tools;
    if (tools === undefined) this.tools = [entry];
    else {
      // Like `Map.set`: a call id started again replaces its entry.
      const i = indexOfTool(tools, callId);
      if (i >= 0) tools[i] = entry;
      else tools.push(entry);
    }
  }

  /** Close a tool call; false when it was already closed (its terminal event must not be emitted). */
  closeTool(callId: string): boolean {
    const tools = this.tools;
    if (tools === undefined) return false;
    const i = indexOfTool(tools, callId);
    if (i < 0) return false;
    if (i === tools.length - 1) tools.pop();
    else tools.splice(i, 1);
    return true;
  }

  isToolOpen(callId: string): boolean {
    return this.tools !== undefined && indexOfTool(this.tools, callId) >= 0;
  }

  /** A model attempt started; the returned record is what {@link closeModel} takes. */
  modelStarted(info: AttemptInfo, model: string, startedAt: number): OpenModel {
    const entry = { info, model, startedAt };
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
    return (this.tools?.length ?? 0) + (this.models?.length ?? 0);
  }

  /**
   * End everything still open with `model.failed` / `tool.failed`: the run's own error when it
   * is a `timeout` or `cancelled`, else a `cancelled` error saying the run failed around it. A
   * model attempt's billing is settled first (a stream still in flight folds the usage it
   * reported), so its `model.failed` carries its usage, cost and `usageUnknown`. Call it after
   * aborting the run: an attempt in flight then counts as possibly billed beyond what it reported.
   */
  closeAll(ctx: CallEvents, runError: TinyAgentsError, onToolClosed?: (callId: string) => void): void {
    if (this.size === 0) return;
    const error = terminalError(runError).toJSON();
    const now = ctx.clock.now();
    const models = this.models;
    this.models = undefined;
    if (models !== undefined) {
      for (const m of models) {
        m.info.streamBilling?.settle(runError);
        ctx.emit(failedEvent(m.info, m.model, now - m.startedAt, error));
      }
    }
    const tools = this.tools;
    this.tools = undefined;
    if (tools !== undefined) {
      for (const t of tools) {
        ctx.emit({
          type: "tool.failed",
          callId: t.callId,
          toolName: t.toolName,
          durationMs: now - t.startedAt,
          error,
        });
        onToolClosed?.(t.callId);
      }
    }
  }
}

function indexOfTool(tools: OpenTool[], callId: string): number {
  for (let i = 0; i < tools.length; i++) if ((tools[i] as OpenTool).callId === callId) return i;
  return -1;
}

function terminalError(runError: TinyAgentsError): TinyAgentsError {
  if (runError.code === "timeout" || runError.code === "cancelled") return runError;
  return new TinyAgentsError(
    "cancelled",
    `cancelled because the run failed (${runError.code}): ${runError.message}`,
    { cause: runError, details: { where: "run failed" } },
  );
}
