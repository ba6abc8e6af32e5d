import type { ModelRequest } from "@tinyagents/inference";
import type { Middleware } from "../middleware/middleware.js";
import { errorToolResult } from "../tool/tool-result.js";
import type { HostCapabilities } from "./host-capabilities.js";

/**
 * Wires the host's capabilities into a harness (`harness.use(hostMiddleware(host))`). Only the
 * hooks of capabilities present are installed:
 * - `contextComposer` and `modelResolver` in `beforeModel` (the resolver only fills `request.model`
 *   when the agent did not pin one);
 * - `securityGate` in `wrapToolCall`: a denied call never runs; the model gets an error result
 *   with the gate's reason;
 * - `progressSink` in `onToolDelta`.
 */
export function hostMiddleware<State = unknown, Ctx = unknown>(
  host: HostCapabilities,
): Middleware<State, Ctx> {
  const m: Middleware<State, Ctx> = { name: "host" };
  const { contextComposer, modelResolver, securityGate, progressSink } = host;
  if (contextComposer !== undefined || modelResolver !== undefined) {
    m.beforeModel = async (ctx, request) => {
      let current: ModelRequest = request;
      if (contextComposer !== undefined)
        current = (await contextComposer.compose(current, ctx.run)) ?? current;
      if (modelResolver !== undefined && current.model === undefined) {
        const model = modelResolver.resolve(current, ctx.run);
        if (model !== undefined) current.model = model;
      }
      return current;
    };
  }
  if (securityGate !== undefined) {
    m.wrapToolCall = async (ctx, call, next) => {
      const decision = await securityGate.check(call, ctx.run);
      if (decision.allow) return next(call);
      return errorToolResult(
        call.id,
        call.name,
        `Error: the host denied tool "${call.name}": ${decision.reason}. Do not retry it; find another way or ask the user.`,
        0,
      );
    };
  }
  if (progressSink !== undefined) {
    m.onToolDelta = (ctx, progress) =>
      progressSink.report({ ...progress, runId: ctx.run.runId, depth: ctx.run.depth });
  }
  return m;
}
