import type { RunContext } from "../../contracts/run-context.js";

/**
 * State a middleware keeps per run, keyed by the run's `RunContext` and dropped with it (no leak,
 * no cleanup hook needed). A middleware instance is shared by every run of its harness; this is
 * how it keeps their counters apart. A resumed run has a new context, so its state starts fresh
 * unless the middleware carries it over with `saveState` / `restoreState`.
 */
export class PerRun<S> {
  private readonly states = new WeakMap<RunContext<unknown>, S>();
  private readonly init: () => S;

  constructor(init: () => S) {
    this.init = init;
  }

  /** The state of `run`, created on first use. */
  of(run: RunContext<unknown>): S {
    let state = this.states.get(run);
    if (state === undefined) {
      state = this.init();
      this.states.set(run, state);
    }
    return state;
  }
}
