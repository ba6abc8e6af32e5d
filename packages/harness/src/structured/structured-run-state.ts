/** What a run has learned about its structured answer so far. */
export interface StructuredRunState {
  /** The validated answer (the schema's output), once one was given. */
  value?: unknown;
  answered: boolean;
  /** Re-asks used. */
  reasks: number;
}

const states = new WeakMap<object, StructuredRunState>();

/**
 * The structured-output state of the run whose `RunContext` is `run` (created on first use,
 * dropped with the context; a resumed run starts afresh).
 */
export function structuredRunState(run: object): StructuredRunState {
  let state = states.get(run);
  if (state === undefined) {
    state = { answered: false, reasks: 0 };
    states.set(run, state);
  }
  return state;
}
