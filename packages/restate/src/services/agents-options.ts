import type { AgentHarness, ArtifactStore, ObservabilityOptions, SteeringPolicy } from "@tinyagents/harness";
import type { StepRetryPolicy } from "../context/restate-durable-context.js";

/** An agent the worker can run: its harness (built once per worker, on first use). */
// biome-ignore lint/suspicious/noExplicitAny: any agent's state, context and output types.
export type AgentFactory = () => AgentHarness<any, any, any>;

/** Which run an observability attachment is for. */
export interface RunIdentity {
  agent: string;
  runId: string;
  threadId?: string;
}

/** Options of `restateAgents`. */
export interface RestateAgentsOptions {
  /** The agents this worker serves, by name: one Restate workflow each (`tinyagents.agent.<name>`). */
  agents: Record<string, AgentFactory>;
  /**
   * Where a run's live events go on this worker, per run: a journal the client tails (Postgres,
   * SQLite, in memory), a status store, sinks. Attached with the harness's `attachObservability`
   * (redaction included) to the run's event sink; events replayed by Restate are not delivered
   * again (see `ReplayAwareEventSink`). Without it events reach no one. The journal never drops
   * (`journalOverflow` defaults to `"wait"` here): before each model step the run waits until
   * what it emitted so far is journaled (a re-execution does not deliver replayed events again).
   */
  events?: (run: RunIdentity) => ObservabilityOptions | undefined;
  /** Steering commands the `steer` handler accepts (default: none — fail-closed, like the harness). */
  steering?: SteeringPolicy;
  /** Largest journaled step value in bytes (default 1 MiB; Restate's own message limit is 32 MiB). */
  maxStepBytes?: number;
  /** Where tool outputs too large to journal go (else the step fails with `limit_exceeded`). */
  artifacts?: ArtifactStore;
  /** Retries of steps that failed with a retryable error (default 3 attempts). */
  stepRetry?: StepRetryPolicy;
  /** Service name prefix (default `tinyagents`): `<prefix>.agent.<name>`, `<prefix>.thread`. */
  servicePrefix?: string;
}
