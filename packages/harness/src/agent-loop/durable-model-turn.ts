import {
  type JsonValue,
  type ModelResponse,
  recordUsage,
  TinyAgentsError,
  type Usage,
} from "@tinyagents/inference";
import { addCost, type CostTotals, markCostUnknown } from "../cost/cost.js";
import { markUsageUnreported } from "../cost/unknown-usage.js";
import type { LoopSession, TurnAccounting } from "./loop-session.js";

/**
 * The recorded value of a `model:<callId>` step: enough to re-apply the turn without calling the
 * model — the response (message, finish reason, usage, resolved model; the provider's `raw`
 * payload is left out to keep journal entries small), the registry name that served it, and the
 * accounting the turn added (usage and cost records, re-applied in order so totals are
 * bit-identical). The model-call count is not in it: the loop counts the call before the step.
 */
interface ModelTurnRecord {
  response: ModelResponse;
  servedBy: string | null;
  usage: Usage[];
  cost: (CostTotals | null)[];
  /** A call of the turn reported no usage (absent when every call did). */
  unreported?: true;
}

/**
 * One model turn as ONE durable step `model:<callId>` (kind `model`) of a journaled run: `call`
 * (the `wrapModelCall` onion around the resilient call: retries and fallback inside) runs only
 * when the engine has no recording of the step.
 *
 * Replay rule: a recorded turn re-applies its response, resolved model, usage and cost to the
 * run and emits NO event — its `model.*`, `usage.recorded`, `cost.recorded` and delta events were
 * emitted live by the worker that executed it (and are in its journal when it had one; an
 * "essential" journal keeps the usage and cost on `model.completed`); emitting them again would
 * duplicate them. The totals come from the record's own accounting, never from journaled
 * events. Deltas are never journaled by the engine.
 */
export function durableModelTurn<State, Ctx>(
  s: LoopSession<State, Ctx>,
  callId: string,
  call: () => Promise<ModelResponse>,
): Promise<ModelResponse> {
  let live: ModelResponse | undefined;
  const step = s.ctx.durable.step(
    `model:${callId}`,
    async () => {
      const accounting: TurnAccounting = { usage: [], cost: [] };
      s.turnAccounting = accounting;
      try {
        live = await call();
      } finally {
        s.turnAccounting = undefined;
      }
      return toRecord(live, s.previousModel, accounting);
    },
    { kind: "model" },
  );
  return step.then((recorded) => {
    const operations = s.ctx.durableOperations;
    if (operations !== undefined) s.lastModelStep = { executedHere: live !== undefined, operations };
    return live !== undefined ? live : replayTurn(s, callId, recorded);
  });
}

function toRecord(
  response: ModelResponse,
  servedBy: string | undefined,
  accounting: TurnAccounting,
): JsonValue {
  const { raw: _raw, ...kept } = response;
  const record: ModelTurnRecord = {
    response: kept,
    servedBy: servedBy ?? null,
    usage: accounting.usage,
    cost: accounting.cost,
  };
  if (accounting.unreported === true) record.unreported = true;
  return JSON.parse(JSON.stringify(record)) as JsonValue;
}

/** Re-apply a recorded turn: what `providerAttempt` and the resilient call changed, nothing emitted. */
function replayTurn<State, Ctx>(s: LoopSession<State, Ctx>, callId: string, value: unknown): ModelResponse {
  const record = value as Partial<ModelTurnRecord> | null;
  if (record === null || typeof record !== "object" || typeof record.response !== "object") {
    throw new TinyAgentsError(
      "internal",
      `the engine returned no model turn for step "model:${callId}"; its journal entry is not one this loop recorded`,
      { details: { step: `model:${callId}` } },
    );
  }
  const { run } = s;
  for (const usage of record.usage ?? []) run.usage = recordUsage(run.usage, usage);
  for (const cost of record.cost ?? []) {
    if (cost !== null) run.cost = addCost(run.cost, cost);
    else if (run.cost.unknown !== true) run.cost = markCostUnknown(run.cost);
  }
  if (record.unreported === true) markUsageUnreported(run);
  if (typeof record.servedBy === "string") s.previousModel = record.servedBy;
  return record.response as ModelResponse;
}
