import {
  isMessageDelta,
  type MessageDelta,
  type ModelStreamItem,
  type StreamAccumulator,
  TinyAgentsError,
} from "@tinyagents/inference";
import { modelDeltaEvent } from "../events/model-delta-event.js";
import type { Middleware } from "../middleware/middleware.js";
import { hookError } from "../middleware/middleware-stack.js";
import type { AttemptInfo } from "./attempt-info.js";
import type { LoopSession } from "./loop-session.js";

/**
 * What a streaming model call does with each item the provider yields: non-delta items (start,
 * usage, finish...) go to the accumulator only; a delta goes through the `onModelDelta` hooks,
 * then into the accumulator and out as a `model.*_delta` event. One closure per stream.
 */
export function deltaHandler<State, Ctx>(
  s: LoopSession<State, Ctx>,
  info: AttemptInfo,
  accumulator: StreamAccumulator,
): (item: ModelStreamItem) => void {
  const deltaHooks = s.parts.middleware.with("onModelDelta");
  return (item) => {
    if (!isMessageDelta(item)) {
      accumulator.push(item);
      return;
    }
    const delta = deltaHooks.length === 0 ? item : applyDeltaHooks(s, deltaHooks, item);
    if (delta === null) return;
    accumulator.push(delta);
    info.emittedDeltas = true;
    s.ctx.emitDelta(modelDeltaEvent(info.callId, delta));
  };
}

/**
 * Pass one streamed delta through `onModelDelta` hooks, in order: a hook may replace it or drop
 * it (`null`). Returns what consumers and the stored response get, or `null` when dropped.
 */
export function applyDeltaHooks<State, Ctx>(
  s: LoopSession<State, Ctx>,
  hooks: readonly Middleware<State, Ctx>[],
  delta: MessageDelta,
): MessageDelta | null {
  let current = delta;
  for (const m of hooks) {
    let edited: MessageDelta | null | undefined | void;
    try {
      edited = m.onModelDelta?.(s.hook, current);
    } catch (thrown) {
      throw hookError(m.name, "onModelDelta", thrown);
    }
    if (isThenable(edited)) throw syncHookRequired(m.name, "onModelDelta", edited);
    if (edited === null) return null;
    if (edited !== undefined) current = edited;
  }
  return current;
}

/**
 * The end of one streamed model response: every `onModelStreamEnd` hook may hand back deltas it
 * held (a redactor's tail). Each goes through the `onModelDelta` hooks of the middleware
 * registered after the one that produced it, out as a `model.text_delta` event, and — when the stream
 * completed (`accumulator` given) — into the stored response, so it equals what consumers saw.
 * After a failure (`error` given) hook errors are ignored: the stream's own error is what counts.
 */
export function endModelStream<State, Ctx>(
  s: LoopSession<State, Ctx>,
  info: AttemptInfo,
  accumulator: StreamAccumulator | undefined,
  error?: TinyAgentsError,
): void {
  const stack = s.parts.middleware;
  const enders = stack.with("onModelStreamEnd");
  if (enders.length === 0) return;
  const deltaHooks = stack.with("onModelDelta");
  for (const m of enders) {
    let held: MessageDelta[] | undefined | void;
    try {
      held = m.onModelStreamEnd?.(
        s.hook,
        error === undefined ? { callId: info.callId } : { callId: info.callId, error },
      );
    } catch (thrown) {
      if (error !== undefined) continue;
      throw hookError(m.name, "onModelStreamEnd", thrown);
    }
    if (isThenable(held)) {
      if (error !== undefined) continue;
      throw syncHookRequired(m.name, "onModelStreamEnd", held);
    }
    if (held === undefined || held.length === 0) continue;
    const position = stack.list.indexOf(m);
    const later = deltaHooks.filter((h) => stack.list.indexOf(h) > position);
    for (const raw of held) {
      let delta: MessageDelta | null;
      try {
        delta = applyDeltaHooks(s, later, raw);
      } catch (thrown) {
        if (error !== undefined) continue;
        throw thrown;
      }
      if (delta === null) continue;
      accumulator?.push(delta);
      info.emittedDeltas = true;
      s.ctx.emitDelta(modelDeltaEvent(info.callId, delta));
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null | undefined)?.then === "function";
}

/**
 * A hook that must answer synchronously returned a Promise (an `async` hook): its value cannot be
 * used as a delta, so the run fails with a `middleware` error instead of streaming a Promise.
 */
function syncHookRequired(middleware: string, hook: string, returned: PromiseLike<unknown>): TinyAgentsError {
  // The promise's own outcome no longer matters; keep a rejection from going unhandled.
  Promise.resolve(returned).catch(() => {});
  return new TinyAgentsError(
    "middleware",
    `middleware "${middleware}" returned a Promise from ${hook}, which must return synchronously (a delta, null or undefined); make the hook a plain function and move async work to afterModel or wrapModelCall`,
    { details: { middleware, hook } },
  );
}
