import type { JsonObject, Message } from "@tinyagents/inference";
import type { PauseState, RunSteering } from "../contracts/run-steering.js";
import { type SteeringCommand, validateSteeringCommand } from "./steering-command.js";
import { SteeringPolicy } from "./steering-policy.js";

export type { PauseState } from "../contracts/run-steering.js";

/**
 * Typed runtime control of a running agent. Give the handle to a run (`ContextOptions.steering`,
 * or `SubAgent`'s `steering` option for a child); anyone holding it — a test, a parent agent, a
 * middleware via `ctx.run.steering`, a run queue — can `send` commands.
 *
 * Contract: `send` only validates and queues (it never blocks, never throws for policy reasons).
 * The loop drains the queue at safe checkpoints — before each model call and before each tool
 * batch — and checks the whole batch against `policy`: a batch with any disallowed kind is
 * rejected whole and fails the run with a `steering` error. A handle may outlive runs; commands
 * queued while no run is attached are applied at the next run's first checkpoint.
 */
export class SteeringHandle implements RunSteering {
  readonly policy: SteeringPolicy;
  private queue: SteeringCommand[] = [];
  private pauseLatch: PauseState | undefined;

  /** `policy` defaults to allowing nothing (fail-closed). */
  constructor(policy: SteeringPolicy = new SteeringPolicy()) {
    this.policy = policy;
  }

  /** A handle that accepts every command kind (tests, trusted in-process control). */
  static allowAll(): SteeringHandle {
    return new SteeringHandle(SteeringPolicy.allowAll());
  }

  /** Queue a command for the next checkpoint. Throws `validation` when it is malformed. */
  send(command: SteeringCommand): this {
    this.queue.push(validateSteeringCommand(command));
    return this;
  }

  /** Pause at the next checkpoint. */
  pause(): this {
    return this.send({ kind: "pause" });
  }

  /** Pause at the next checkpoint, recording `reason` on the PausedRun and the event stream. */
  pauseWith(reason: string): this {
    return this.send({ kind: "pause", reason });
  }

  /** Cancel a pause sent in the same batch (a paused run is continued with `harness.resume`). */
  resume(): this {
    return this.send({ kind: "resume" });
  }

  /** End the run as `cancelled` at the next checkpoint; its partial transcript is kept. */
  cancel(reason?: string): this {
    return this.send(reason === undefined ? { kind: "cancel" } : { kind: "cancel", reason });
  }

  /** Append `message` to the transcript at the next checkpoint. */
  injectMessage(message: Message): this {
    return this.send({ kind: "injectMessage", message });
  }

  /** Tell the agent to change course (appends `[steering:redirect] <instruction>`). */
  redirect(instruction: string): this {
    return this.send({ kind: "redirect", instruction });
  }

  /** Replace the run's `RunConfig.metadata`. */
  setMetadata(metadata: JsonObject): this {
    return this.send({ kind: "setMetadata", metadata });
  }

  /** Commands waiting for a checkpoint. */
  get pending(): number {
    return this.queue.length;
  }

  /** Take every queued command (the loop calls this at a checkpoint). */
  drain(): SteeringCommand[] {
    const batch = this.queue;
    this.queue = [];
    return batch;
  }

  /** Whether a run on this handle paused and has not been resumed since. */
  get isPaused(): boolean {
    return this.pauseLatch !== undefined;
  }

  /** Where the last pause happened (until the run is resumed). */
  get pauseState(): PauseState | undefined {
    return this.pauseLatch === undefined ? undefined : { ...this.pauseLatch };
  }

  /** @internal Record that a run paused. */
  latchPause(state: PauseState): void {
    this.pauseLatch = state;
  }

  /** @internal Forget the pause (the run was resumed, or a `resume` command cancelled it). */
  clearPause(): void {
    this.pauseLatch = undefined;
  }
}
