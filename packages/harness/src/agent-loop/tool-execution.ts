import type { JsonValue } from "@tinyagents/inference";
import { CallSignal } from "../context/abort.js";
import { hookError } from "../middleware/middleware-stack.js";
import type { ToolExecutionContext } from "../tool/tool.js";
import type { LoopSession } from "./loop-session.js";
import { idempotencyKeyOf } from "./once-tool-steps.js";
import { shapeAnchors } from "./shape-anchors.js";

/**
 * What a running tool sees. A class (not an object literal with a getter) keeps the hot path
 * monomorphic; the per-call AbortController is only created if the tool reads `signal` (the
 * getter inherited from {@link CallSignal}).
 */
export class ToolExecution<State, Ctx> extends CallSignal implements ToolExecutionContext<State, Ctx> {
  readonly state: State;
  readonly run: LoopSession<State, Ctx>["ctx"];
  readonly callId: string;
  private readonly session: LoopSession<State, Ctx>;
  private readonly toolName: string;

  constructor(session: LoopSession<State, Ctx>, callId: string, toolName: string) {
    super(session.ctx.abortHub);
    this.session = session;
    this.state = session.state;
    this.run = session.ctx;
    this.callId = callId;
    this.toolName = toolName;
    shapeAnchors.toolExecution = this;
  }

  /** `runId:callId`, stable across retries, resume and recovery (computed only when read). */
  get idempotencyKey(): string {
    return idempotencyKeyOf(this.run.runId, this.callId);
  }

  progress(message: string, data?: JsonValue): void {
    const progress = {
      callId: this.callId,
      toolName: this.toolName,
      message,
      ...(data === undefined ? {} : { data }),
    };
    this.run.emit({ type: "tool.progress", ...progress });
    for (const m of this.session.parts.middleware.with("onToolDelta")) {
      try {
        m.onToolDelta?.(this.session.hook, progress);
      } catch (thrown) {
        // A middleware bug, not the tool's: fail the run (the tool sees the abort), whatever
        // the tool's error policy says.
        const error = hookError(m.name, "onToolDelta", thrown);
        this.run.cancel(error);
        throw error;
      }
    }
  }
}
