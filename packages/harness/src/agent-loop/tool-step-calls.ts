import type { RunContext } from "../contracts/run-context.js";

/**
 * The tool calls of a journaled run that are running inside their `tool:<callId>` engine step
 * (tools without `runsChild`), per run context. A child run started from one of them would nest
 * its `durable.child` step in that step, which an engine cannot replay: `run-parent` refuses it.
 */
const callsInStep = new WeakMap<RunContext<unknown>, Set<string>>();

/** Run `work` as tool call `callId` inside its engine step; returns `work`'s promise. */
export async function insideToolStep<T>(
  run: RunContext<unknown>,
  callId: string,
  work: () => T | Promise<T>,
): Promise<T> {
  let calls = callsInStep.get(run);
  if (calls === undefined) {
    calls = new Set();
    callsInStep.set(run, calls);
  }
  calls.add(callId);
  try {
    return await work();
  } finally {
    calls.delete(callId);
  }
}

/** Whether tool call `callId` of `run` is running inside its `tool:<callId>` engine step. */
export function isInsideToolStep(run: RunContext<unknown>, callId: string): boolean {
  return callsInStep.get(run)?.has(callId) === true;
}
