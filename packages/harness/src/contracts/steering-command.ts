import type { JsonObject, Message } from "@tinyagents/inference";

/**
 * A typed command for a running agent. Plain JSON data, so commands can cross processes
 * (a run queue, an HTTP control plane) unchanged.
 *
 * - `pause` (optionally with a reason): stop at the next checkpoint with a resumable `PausedRun`;
 * - `resume`: cancels a `pause` sent earlier in the same batch, and clears a handle's pause latch;
 * - `cancel`: end the run as `cancelled`, keeping the partial transcript;
 * - `injectMessage`: append a message to the transcript;
 * - `redirect`: append a user message `[steering:redirect] <instruction>` (a user message, not a
 *   system one, so the cached system prefix of the prompt stays byte-stable);
 * - `setMetadata`: replace `RunConfig.metadata`.
 */
export type SteeringCommand =
  | { kind: "pause"; reason?: string }
  | { kind: "resume" }
  | { kind: "cancel"; reason?: string }
  | { kind: "injectMessage"; message: Message }
  | { kind: "redirect"; instruction: string }
  | { kind: "setMetadata"; metadata: JsonObject };

/** The kind of a steering command: what a `SteeringPolicy` allows or denies. */
export type SteeringCommandKind = SteeringCommand["kind"];
