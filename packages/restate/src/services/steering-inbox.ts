import type { WorkflowContext, WorkflowSharedContext } from "@restatedev/restate-sdk";
import { TerminalError } from "@restatedev/restate-sdk";
import type { SteeringCommand, SteeringHandle, SteeringPolicy } from "@tinyagents/harness";
import { validateSteeringCommand } from "@tinyagents/harness/steering";
import { TinyAgentsError } from "@tinyagents/inference";
import { steeringPromiseName } from "../naming/naming.js";

/** How many steering commands one run accepts (each is one durable promise). */
export const MAX_STEERING_COMMANDS = 1000;

/**
 * Steering across workers: command `n` of a run is the workflow's durable promise `steer:n`. The
 * shared `steer` handler resolves the first free one ({@link postSteering}); the run pulls them
 * in order before each model step ({@link SteeringInbox.pull}, a journaled `peek`, so a replay
 * sees the same commands at the same points) and queues them on its `SteeringHandle`, where the
 * loop drains them at its next checkpoint — as in process.
 */
export class SteeringInbox {
  private next = 0;

  constructor(
    private readonly ctx: WorkflowContext,
    private readonly handle: SteeringHandle,
  ) {}

  /** Queue every command posted since the last pull. */
  async pull(): Promise<void> {
    while (this.next < MAX_STEERING_COMMANDS) {
      const command = await this.ctx.promise<SteeringCommand>(steeringPromiseName(this.next)).peek();
      if (command === undefined || command === null) return;
      this.next += 1;
      this.handle.send(command);
    }
  }
}

/**
 * Post `command` to a run: validated, checked against `policy` (a denied kind is refused here,
 * with a terminal 403, and never reaches the run), then written to the first free steering slot.
 * Two concurrent posts race for a slot; the loser moves on to the next one.
 */
export async function postSteering(
  ctx: WorkflowSharedContext,
  command: unknown,
  policy: SteeringPolicy,
): Promise<number> {
  let valid: SteeringCommand;
  try {
    valid = validateSteeringCommand(command);
  } catch (error) {
    throw new TerminalError(error instanceof Error ? error.message : String(error), { errorCode: 400 });
  }
  if (!policy.allows(valid.kind)) {
    throw new TerminalError(
      `steering command "${valid.kind}" is not allowed for this agent; allowed: ${policy.kinds().join(", ") || "none"} ` +
        "(restateAgents({ steering: SteeringPolicy… }))",
      { errorCode: 403 },
    );
  }
  for (let n = 0; n < MAX_STEERING_COMMANDS; n++) {
    const slot = ctx.promise<SteeringCommand>(steeringPromiseName(n));
    if ((await slot.peek()) !== undefined) continue;
    try {
      await slot.resolve(valid);
      return n;
    } catch (error) {
      // Taken by a concurrent post between the peek and the resolve: try the next slot.
      if ((await slot.peek()) !== undefined) continue;
      throw error;
    }
  }
  throw new TerminalError(
    new TinyAgentsError("limit_exceeded", `a run accepts at most ${MAX_STEERING_COMMANDS} steering commands`)
      .message,
    { errorCode: 429 },
  );
}
