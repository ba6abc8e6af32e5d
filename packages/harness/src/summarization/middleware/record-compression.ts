import type { ModelRequest } from "@tinyagents/inference";
import type {
  CompressionLog,
  CompressionProvenance,
  SummaryRecord,
} from "../../events/compression-record.js";
import type { HookContext } from "../../middleware/middleware.js";

/** The facts a compression middleware reports; time, run and call are filled in. */
export type CompressionFacts = Omit<CompressionProvenance, "at" | "runId" | "callId">;

/**
 * Record one compression: append a {@link SummaryRecord} to `log` and emit `context.compressed`
 * with the same facts. Returns the record.
 */
export function recordCompression<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  log: CompressionLog,
  summary: string,
  facts: CompressionFacts,
): SummaryRecord {
  const provenance: CompressionProvenance = {
    ...facts,
    at: ctx.run.clock.now(),
    runId: ctx.run.runId,
    ...(ctx.callId === undefined ? {} : { callId: ctx.callId }),
  };
  const record = log.add(summary, provenance);
  ctx.run.emit({
    type: "context.compressed",
    by: facts.by,
    kind: facts.kind,
    reason: facts.reason,
    sourceIds: facts.sourceIds,
    tokensBefore: facts.tokensBefore,
    tokensAfter: facts.tokensAfter,
    segments: facts.segments,
    ...(ctx.callId === undefined ? {} : { callId: ctx.callId }),
  });
  return record;
}

/** Ids of the request's `history` segments (`["history"]` when it has no segments). */
export function historySegmentIds(request: ModelRequest): string[] {
  const ids = (request.cacheSegments ?? []).filter((s) => s.role === "history").map((s) => s.id);
  return ids.length > 0 ? ids : ["history"];
}

/** State a middleware keeps per run, dropped with the run's context. */
export class RunState<S> {
  private readonly states = new WeakMap<object, S>();
  private readonly init: () => S;

  constructor(init: () => S) {
    this.init = init;
  }

  /** The state of the run behind `ctx` (a hook context), created on first use. */
  of(ctx: { run: object }): S {
    let state = this.states.get(ctx.run);
    if (state === undefined) {
      state = this.init();
      this.states.set(ctx.run, state);
    }
    return state;
  }
}
