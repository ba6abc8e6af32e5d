import type { JsonObject, Message } from "@tinyagents/inference";
import type { SteeringCommand, SteeringCommandKind } from "./steering-command.js";

/** Why and where a run paused, latched on its handle until the run is resumed. */
export interface PauseState {
  runId: string;
  reason: string;
  /** Model calls the run had made when it paused. */
  modelCalls: number;
}

/**
 * Runtime control of a run, as `ctx.run.steering`: queue commands the loop applies at its next
 * checkpoint. `SteeringHandle` implements it.
 */
export interface RunSteering {
  /** Which command kinds the run accepts. */
  readonly policy: { allows(kind: SteeringCommandKind): boolean; kinds(): SteeringCommandKind[] };
  /** Queue a command for the next checkpoint. Throws `validation` when it is malformed. */
  send(command: SteeringCommand): this;
  /** Pause at the next checkpoint. */
  pause(): this;
  /** Pause at the next checkpoint, recording `reason` on the PausedRun and the event stream. */
  pauseWith(reason: string): this;
  /** Cancel a pause sent in the same batch. */
  resume(): this;
  /** End the run as `cancelled` at the next checkpoint; its partial transcript is kept. */
  cancel(reason?: string): this;
  /** Append `message` to the transcript at the next checkpoint. */
  injectMessage(message: Message): this;
  /** Tell the agent to change course (appends `[steering:redirect] <instruction>`). */
  redirect(instruction: string): this;
  /** Replace the run's `RunConfig.metadata`. */
  setMetadata(metadata: JsonObject): this;
  /** Commands waiting for a checkpoint. */
  readonly pending: number;
  /** Take every queued command (the loop calls this at a checkpoint). */
  drain(): SteeringCommand[];
  /** Whether a run on this handle paused and has not been resumed since. */
  readonly isPaused: boolean;
  /** Where the last pause happened (until the run is resumed). */
  readonly pauseState: PauseState | undefined;
}
