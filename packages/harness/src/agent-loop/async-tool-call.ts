import { startTimer, type Timer, type TinyAgentsError, type ToolCall } from "@tinyagents/inference";
import { abortError } from "../context/abort.js";
import type { AnyTool, ToolResult } from "../tool/tool.js";
import type { LoopSession } from "./loop-session.js";
import { type ReactionTarget, type Settlers, settledBy, watchCall } from "./settlers.js";
import { shapeAnchors } from "./shape-anchors.js";
import type { ToolExecution } from "./tool-execution.js";
import { toolCompleted, toolFailed, toolTimeout } from "./tool-outcome.js";

/**
 * What a caller makes of a tool call's result in the reaction that built it (see
 * `executeToolCall`): the tool phase of a lone call folds it into the phase's outcome there.
 */
export interface ToolFollowUp {
  /** The call's result (completed or an error result); the call settles with the return value. */
  toolAnswered(result: ToolResult): unknown;
}

/**
 * One async tool call in flight: its result once the tool's promise settles, or its failure as
 * soon as the run aborts or the tool's timeout (then its grace) passes; the watcher and the timer
 * are removed either way. One object holds what a generic `race()` plus a `.then` spread over an
 * options object, two promises and seven closures: the tool's result is built in the same
 * reaction that sees the tool settle (one promise hop, not two). An abort or a timeout is
 * reported a microtask later, as the rejected race was, so the run's own cancellation finishes
 * first.
 */
export class AsyncToolCall<State, Ctx> implements Settlers<unknown>, ReactionTarget {
  resolve: ((outcome: unknown) => void) | undefined = undefined;
  reject: ((error: unknown) => void) | undefined = undefined;
  private timer: Timer | undefined;
  /** Set once the timeout fired: from then on the call only ends with that error. */
  private timedOut: TinyAgentsError | undefined;
  /** The outcome is decided (the tool settled, the run aborted, or the timeout/grace ran out). */
  private decided = false;
  /** The timer's callback (made in `settle`). */
  private onTimer: (() => void) | undefined = undefined;

  /** The run aborted (the call watches the run's hub as itself: no closure per call). */
  runAborted(): void {
    this.timer?.cancel();
    this.failLater(abortError(this.s.ctx.abortHub, "during a tool call"));
  }

  constructor(
    private readonly s: LoopSession<State, Ctx>,
    private readonly call: ToolCall,
    private readonly tool: AnyTool<State, Ctx>,
    private readonly execution: ToolExecution<State, Ctx>,
    private readonly started: number,
    private readonly timeoutMs: number | undefined,
    /** End the call's entry in the run's status record when it settles (else the caller does). */
    private readonly endsStatus: boolean,
    /**
     * What the caller makes of the result, run in the reaction that built it (the tool phase's
     * fold: one promise layer per call instead of two); the call settles with its return value.
     */
    private readonly followUp: ToolFollowUp | undefined,
  ) {
    shapeAnchors.asyncToolCall = this;
  }

  /** The result (or, with a follow-up, what it returns) once the call ends; rejects when the run fails. */
  settle(promise: Promise<unknown>): Promise<unknown> {
    const result = settledBy(this);
    const hub = this.s.ctx.abortHub;
    if (hub.aborted) {
      promise.catch(() => {});
      this.failLater(abortError(hub, "during a tool call"));
      return result;
    }
    hub.watch(this);
    if (this.timeoutMs !== undefined) {
      const onTimer = (): void => this.timerFired();
      this.onTimer = onTimer;
      this.timer = startTimer(this.s.ctx.clock, this.timeoutMs, onTimer);
    }
    watchCall(this.s, promise, this);
    return result;
  }

  /** The tool returned. */
  settledWith(output: unknown): void {
    if (!this.end()) return;
    if (this.timedOut !== undefined) this.fail(this.timedOut);
    else this.complete(output);
  }

  /** The tool threw. */
  failedWith(thrown: unknown): void {
    if (this.end()) this.fail(this.timedOut ?? thrown);
  }

  /** The tool settled: false when the outcome was already decided; else stop watching. */
  private end(): boolean {
    if (this.decided) return false;
    this.decided = true;
    this.s.ctx.abortHub.unwatch(this);
    this.timer?.cancel();
    return true;
  }

  private timerFired(): void {
    const { tool, timeoutMs } = this;
    const graceMs = this.s.parts.toolTimeouts.graceMs;
    if (this.timedOut === undefined) {
      const error = this.execution.timeout(toolTimeout(tool.name, timeoutMs as number, graceMs, false));
      if (graceMs === undefined || graceMs <= 0) {
        this.s.ctx.abortHub.unwatch(this);
        this.failLater(error);
        return;
      }
      this.timedOut = error;
      this.timer = startTimer(this.s.ctx.clock, graceMs, this.onTimer as () => void);
      return;
    }
    this.s.ctx.abortHub.unwatch(this);
    this.failLater(toolTimeout(tool.name, timeoutMs as number, graceMs, true));
  }

  /** Decide the outcome now; report it a microtask later (like a rejected race). */
  private failLater(error: unknown): void {
    if (this.decided) return;
    this.decided = true;
    queueMicrotask(() => this.fail(error));
  }

  private complete(output: unknown): void {
    this.execution.dispose();
    let result: ToolResult;
    try {
      result = toolCompleted(this.s, this.call, this.tool, output, this.started);
    } catch (thrown) {
      this.fail(thrown, false);
      return;
    }
    this.answer(result);
  }

  private fail(thrown: unknown, dispose = true): void {
    if (dispose) this.execution.dispose();
    let result: ToolResult;
    try {
      result = toolFailed(this.s, this.call, this.tool, thrown, this.started);
    } catch (error) {
      if (this.endsStatus) this.s.status.toolEnded(this.call.id);
      this.reject?.(error);
      return;
    }
    this.answer(result);
  }

  private answer(result: ToolResult): void {
    if (this.endsStatus) this.s.status.toolEnded(this.call.id, this.started + result.elapsedMs);
    const followUp = this.followUp;
    if (followUp === undefined) {
      this.resolve?.(result);
      return;
    }
    let outcome: unknown;
    try {
      outcome = followUp.toolAnswered(result);
    } catch (thrown) {
      this.reject?.(thrown);
      return;
    }
    this.resolve?.(outcome);
  }
}
