import {
  isMessageDelta,
  type MessageDelta,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamItem,
  recordUsage,
  StreamAccumulator,
  streamFromResponse,
  TinyAgentsError,
} from "@tinyagents/inference";
import { addCost, estimateCost } from "../cost/cost.js";
import type { ModelRegistration } from "../model-registry/model-registry.js";
import { abortError, linkedController, raceAbort } from "./abort.js";
import type { LoopSession } from "./loop-session.js";

/** Per-attempt facts the retry logic needs. */
export interface AttemptInfo {
  callId: string;
  attempt: number;
  /** Set once a delta reached consumers: such an attempt cannot be retried invisibly. */
  emittedDeltas: boolean;
}

/**
 * One provider call: `invoke` (unary runs) or `stream` (streaming runs, deltas through
 * `onModelDelta` middleware and out as `model.delta` events, then re-accumulated so edits reach
 * the stored response). Honours the run's abort signal and the request's timeout. Folds usage
 * and cost into the run on success.
 */
export async function providerAttempt<State, Ctx>(
  s: LoopSession<State, Ctx>,
  registration: ModelRegistration<State>,
  request: ModelRequest,
  info: AttemptInfo,
): Promise<ModelResponse> {
  const { ctx } = s;
  const model = registration.model;
  const timeoutMs = request.timeoutMs;
  const link = linkedController(
    ctx.signal,
    timeoutMs,
    () =>
      new TinyAgentsError("timeout", `model call to "${registration.name}" timed out after ${timeoutMs} ms`, {
        details: { scope: "model_call", limit: "model_call_timeout", value: timeoutMs ?? 0 },
      }),
  );
  const options = { state: s.state, signal: link.signal, clock: ctx.clock };
  try {
    const response = s.streaming
      ? await streamOnce(s, model.stream?.bind(model), () => model.invoke(request, options), request, options, info, link.signal)
      : await raceAbort(model.invoke(request, options), link.signal, "during a model call");
    foldUsage(s, registration, info.callId, response);
    return response;
  } finally {
    link.dispose();
  }
}

async function streamOnce<State, Ctx>(
  s: LoopSession<State, Ctx>,
  stream: ((r: ModelRequest, o: object) => AsyncIterable<ModelStreamItem>) | undefined,
  invoke: () => Promise<ModelResponse>,
  request: ModelRequest,
  options: object,
  info: AttemptInfo,
  signal: AbortSignal,
): Promise<ModelResponse> {
  const source = stream ? stream(request, options) : streamFromResponse(await raceAbort(invoke(), signal, "during a model call"));
  const iterator = source[Symbol.asyncIterator]();
  const accumulator = new StreamAccumulator();
  const deltaHooks = s.parts.middleware.with("onModelDelta");
  try {
    for (;;) {
      const next = await raceAbort(iterator.next(), signal, "while streaming a model response");
      if (next.done) break;
      const item = next.value;
      if (!isMessageDelta(item)) {
        accumulator.push(item);
        continue;
      }
      let delta: MessageDelta = item;
      let dropped = false;
      for (const m of deltaHooks) {
        const edited: MessageDelta | null | undefined | void = m.onModelDelta?.(s.hook, delta);
        if (edited === null) {
          dropped = true;
          break;
        }
        if (edited !== undefined) delta = edited;
      }
      if (dropped) continue;
      accumulator.push(delta);
      info.emittedDeltas = true;
      s.ctx.emit({ type: "model.delta", callId: info.callId, delta });
    }
  } catch (error) {
    // Stop the provider stream (closes the HTTP body) before surfacing the failure.
    void iterator.return?.()?.catch?.(() => {});
    if (signal.aborted) throw abortError(signal, "while streaming a model response");
    throw error;
  }
  return accumulator.finish();
}

function foldUsage<State, Ctx>(
  s: LoopSession<State, Ctx>,
  registration: ModelRegistration<State>,
  callId: string,
  response: ModelResponse,
): void {
  const usage = response.usage;
  if (usage === undefined || response.servedFromCache === true) return;
  s.run.usage = recordUsage(s.run.usage, usage);
  s.ctx.emit({ type: "usage.recorded", callId, model: registration.name, usage });
  let cost: ReturnType<typeof estimateCost> | undefined;
  if (registration.pricing !== undefined) {
    cost = estimateCost(registration.pricing, usage);
    s.run.cost = addCost(s.run.cost, cost);
    s.ctx.emit({ type: "cost.recorded", callId, model: registration.name, cost });
  }
  s.status.recordUsage(usage, cost);
}
