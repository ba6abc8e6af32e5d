/**
 * Test support for the middleware library tests (excluded from the build): a harness on a
 * virtual clock with predictable ids, and runners that record every event.
 */
import type { Message, TinyAgentsError } from "@tinyagents/inference";
import type { AgentRun } from "../../agent-loop/agent-run.js";
import type { RunConfig } from "../../config/run-config.js";
import { EventSink } from "../../events/event-sink.js";
import { AgentHarness, type AgentHarnessOptions } from "../../runtime/agent-harness.js";
import { lowerLayer } from "../../runtime/lower-layer.js";
import type { HarnessRunStatus } from "../../status/run-status.js";
import { DeterministicClock } from "../../testkit/deterministic-clock.js";
import { DeterministicIds } from "../../testkit/deterministic-ids.js";
import { EventRecorder } from "../../testkit/event-recorder.js";

/** A harness on a {@link DeterministicClock} (start 0) with deterministic ids. */
export function setup<State = undefined>(options: AgentHarnessOptions<undefined> = {}) {
  const clock = new DeterministicClock({ start: 0 });
  const harness = new AgentHarness<State, undefined>({ clock, ids: new DeterministicIds(), ...options });
  return { harness, clock };
}

/** What {@link runAgent} returns. */
export interface Ran {
  run: AgentRun;
  status: HarnessRunStatus;
  error: TinyAgentsError | undefined;
  events: EventRecorder;
}

let counter = 0;

/** Run the agent (never throws for run failures), recording every event; `streaming` uses `invokeStreaming`. */
export async function runAgent<State>(
  harness: AgentHarness<State, undefined>,
  input: string | Message[],
  options: { config?: Partial<RunConfig>; streaming?: boolean; state?: State } = {},
): Promise<Ran> {
  const runId = options.config?.runId ?? `run-${++counter}`;
  const events = new EventRecorder();
  const config = { ...options.config, runId };
  if (options.streaming === true) {
    let last: Ran | undefined;
    for await (const item of lowerLayer(harness).invokeStreaming(
      options.state as State,
      undefined,
      config,
      input,
    )) {
      if (item.type === "event") events.listener(item.record);
      else
        last = {
          run: item.run,
          status: item.status,
          error: item.type === "failed" ? item.error : undefined,
          events,
        };
    }
    if (last === undefined) throw new Error("stream ended without a terminal item");
    return last;
  }
  const sink = new EventSink(runId);
  events.attach(sink);
  const outcome = await lowerLayer(harness).invokeCollectingPartial(
    options.state as State,
    undefined,
    config,
    input,
    {
      events: sink,
    },
  );
  return { run: outcome.run, status: outcome.status, error: outcome.error, events };
}
